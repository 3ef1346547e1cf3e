"""Worker process that extracts page texts from one untrusted PDF with pdfplumber.

Run as ``python -m contract_review.intake._pdf_worker <path> <max_pages>`` by
`contract_review.intake._pdf.read_pdf`, which applies the time and memory limits. The worker
prints exactly one JSON object on stdout:

* success (exit code 0): ``{"page_count": <pages in the file>, "pages": [<text>, ...]}`` with
  the texts of the first ``max_pages`` pages;
* failure (exit code `EXIT_UNREADABLE` or `EXIT_OUT_OF_MEMORY`): ``{"error": "<one-line reason>"}``.

It deliberately imports nothing from `contract_review`: the parent's package may pull in heavy
modules, and the worker should start fast and hold as little memory as possible.
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from typing import Any

EXIT_OK = 0
EXIT_USAGE = 64
EXIT_UNREADABLE = 65
EXIT_OUT_OF_MEMORY = 66

_MAX_REASON_CHARS = 200


def _short_reason(exc: BaseException) -> str:
    """One line naming the underlying parser error, without a traceback."""
    # pdfplumber wraps every pdfminer failure in PdfminerException(original); show the original.
    if (
        type(exc).__name__ == "PdfminerException"
        and exc.args
        and isinstance(exc.args[0], BaseException)
    ):
        exc = exc.args[0]
    if type(exc).__name__ == "PDFPasswordIncorrect":
        # pdfminer's message is empty; say what the user can do something about.
        return "the file is password-protected"
    if isinstance(exc, OSError) and exc.strerror:
        message = exc.strerror
    else:
        message = " ".join(str(exc).split())
    reason = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return reason[:_MAX_REASON_CHARS]


def _emit(payload: dict[str, Any]) -> None:
    """Write the JSON result as UTF-8, whatever the locale of the process."""
    sys.stdout.buffer.write(json.dumps(payload, ensure_ascii=False).encode("utf-8"))
    sys.stdout.buffer.flush()


def _extract(path: str, max_pages: int) -> dict[str, Any]:
    """Open the PDF and return the page count and the texts of the first `max_pages` pages."""
    import pdfplumber  # here, not at module level: a usage error needs no heavy import

    with pdfplumber.open(path) as pdf:
        pages = pdf.pages
        texts: list[str] = []
        for page in pages[:max_pages]:
            # Default tolerances on purpose: they keep CJK runs unspaced and words apart.
            texts.append(page.extract_text() or "")
            # Drop the page's parsed objects at once: long documents would otherwise keep
            # every page's layout in memory until the end.
            page.close()
        return {"page_count": len(pages), "pages": texts}


def _limit_resources(memory_bytes: int, cpu_seconds: int) -> None:
    """Cap address space and CPU time of this process (Linux; elsewhere only the timeout)."""
    if sys.platform != "linux":
        return  # macOS does not enforce RLIMIT_AS; Windows has no rlimits
    import resource

    def clamp(kind: int, soft: int, hard: int) -> tuple[int, int]:
        # An unprivileged process cannot raise its hard limit: never ask above the current one.
        current = resource.getrlimit(kind)[1]
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        return soft, hard

    resource.setrlimit(resource.RLIMIT_AS, clamp(resource.RLIMIT_AS, memory_bytes, memory_bytes))
    # CPU backstop in case the parent's wall-clock kill fails: SIGXCPU, then SIGKILL.
    resource.setrlimit(
        resource.RLIMIT_CPU, clamp(resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1)
    )
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing parser dumps no core


def main(argv: list[str] | None = None) -> int:
    """Extract the PDF named on the command line; return the process exit code."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 4) or not all(a.isdigit() and int(a) >= 1 for a in args[1:]):
        sys.stderr.write(
            "usage: python -m contract_review.intake._pdf_worker PATH MAX_PAGES "
            "[MEMORY_MB CPU_SECONDS]\n"
        )
        return EXIT_USAGE
    path, max_pages = args[0], int(args[1])
    if len(args) == 4:
        # Limits set by the worker itself, before the parser is imported: safer than a
        # preexec_fn, which is not safe to run in a parent that has threads.
        _limit_resources(int(args[2]) * 1024 * 1024, int(args[3]))

    # pdfminer logs and warns about every oddity of a file; the parent only needs the outcome,
    # and stderr must stay short because it is used as the reason when the worker dies.
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")

    try:
        result = _extract(path, max_pages)
    except MemoryError:
        _emit({"error": "out of memory"})
        return EXIT_OUT_OF_MEMORY
    except RecursionError:
        # Deeply nested objects in a hostile file; not a bug of ours.
        _emit({"error": "object nesting too deep"})
        return EXIT_UNREADABLE
    except Exception as exc:  # any failure of the parser means the file is unreadable
        _emit({"error": _short_reason(exc)})
        return EXIT_UNREADABLE
    _emit(result)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
