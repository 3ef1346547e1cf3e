"""Read the text of a PDF, parsing the untrusted file in a separate, resource-limited process.

pdfplumber (pdfminer.six) is pure Python and can be driven into huge memory use or very long
runs by a hostile file, so it runs in `_pdf_worker` under a wall-clock timeout and rlimits; this
module never imports it. The worker returns raw page texts; the clean-up (control characters,
spaced-out CJK, running headers/footers, hyphenated line breaks) happens here in pure functions.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from contract_review.config import Settings
from contract_review.errors import (
    CorruptDocumentError,
    InputError,
    NoTextLayerError,
    ParseTimeoutError,
)
from contract_review.intake import _pdf_worker
from contract_review.models import DocumentFormat, LoadedText, TextBlock
from contract_review.text import CJK_WIDE

# The directory holding the `contract_review` package (`src/` in a checkout): put on the
# worker's PYTHONPATH so `-m contract_review.intake._pdf_worker` resolves installed or not.
_PACKAGE_PARENT = Path(__file__).resolve().parents[2]

_MIN_TEXT_CHARS = 20  # fewer non-whitespace characters than this: treat the PDF as a scan
_MARGIN_LINES = 2  # header/footer candidates: this many non-empty lines at each end of a page
_MARGIN_MIN_SHARE = 0.6  # ...recurring on at least this share of the pages
_MARGIN_MIN_PAGES = 3  # ...and on at least this many pages
_MAX_REASON_CHARS = 200
_MAX_LISTED_PAGES = 10

_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f]")  # C0 except \t (\x09) and \n (\x0a)
_DIGITS = re.compile(r"\d+")
_CJK = CJK_WIDE  # scripts without spaces between words (see contract_review.text)
_CJK_SPACED = re.compile(f"(?<=[{_CJK}]) +(?=[{_CJK}])")
_CJK_TIGHT = re.compile(f"[{_CJK}](?=[{_CJK}])")
_HYPHENS = "-\u00ad\u2010"  # ASCII hyphen-minus, soft hyphen, Unicode hyphen


def read_pdf(path: Path, settings: Settings) -> LoadedText:
    """Read the text of the PDF at `path`, one page after the other.

    The file is parsed in a worker process limited to `settings.parse_timeout_seconds` of wall
    time and `settings.pdf_worker_memory_mb` of address space; at most `settings.max_pdf_pages`
    pages are read (a warning says so when pages are skipped). Running headers and footers are
    dropped and words hyphenated across lines are joined; `blocks` holds one block per page.

    Raises:
        ParseTimeoutError: the worker exceeded the time limit and was killed.
        CorruptDocumentError: the file cannot be parsed as a PDF, or the worker died.
        NoTextLayerError: the PDF holds (almost) no text, typically a scan.
        InputError: the file does not exist.
    """
    if not path.is_file():
        raise InputError(f"{path.name}: file not found")
    raw_pages, page_count = _run_worker(path, settings)

    pages = _clean_pages(raw_pages)
    text, blocks = _join_pages(pages)
    warnings: list[str] = []
    if _too_little(text) and not _too_little("".join(raw_pages)):
        # Every line recurs on every page (a form or a notice printed page after page): they
        # are the document, not its running headers.
        text, blocks = _join_pages(_clean_pages(raw_pages, running=False))
        warnings.append(
            f"{path.name}: every line repeats on every page; all are kept (none is taken for "
            "a running header or footer)"
        )
    if _too_little(text):
        raise NoTextLayerError(f"{path.name}: no text layer (scanned?); OCR is not supported")

    if page_count > len(raw_pages):
        warnings.append(
            f"{path.name}: only the first {len(raw_pages)} of {page_count} pages were read "
            f"(max_pdf_pages={settings.max_pdf_pages}); {page_count - len(raw_pages)} pages "
            "skipped"
        )
    blank = [i for i, raw in enumerate(raw_pages, start=1) if not raw.strip()]
    if blank:
        # A scanned annex or signature page inside a text PDF would otherwise vanish silently.
        listed = ", ".join(str(i) for i in blank[:_MAX_LISTED_PAGES])
        more = ", ..." if len(blank) > _MAX_LISTED_PAGES else ""
        warnings.append(
            f"{path.name}: page(s) {listed}{more} have no text layer (blank or scanned); "
            "their content is missing"
        )
    skipped = list(range(len(raw_pages) + 1, page_count + 1))
    return LoadedText(
        format=DocumentFormat.PDF,
        text=text,
        blocks=blocks,
        page_count=page_count,
        warnings=warnings,
        unread_pages=[*blank, *skipped],
    )


# --------------------------------------------------------------------------------------------
# Worker process
# --------------------------------------------------------------------------------------------


def _run_worker(path: Path, settings: Settings) -> tuple[list[str], int]:
    """Run the extraction worker on `path`; return (raw page texts, total page count)."""
    command = [
        sys.executable,
        "-m",
        _pdf_worker.__name__,
        str(path.absolute()),
        str(settings.max_pdf_pages),
        str(settings.pdf_worker_memory_mb),
        # CPU backstop one second above the wall-clock limit.
        str(math.ceil(settings.parse_timeout_seconds) + 1),
    ]
    timeout = settings.parse_timeout_seconds
    try:
        # On timeout, subprocess.run kills the worker and reaps it before re-raising.
        proc = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=_worker_env(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ParseTimeoutError(
            f"{path.name}: reading the PDF took longer than {timeout:g} s; parsing was stopped"
        ) from None

    if proc.returncode < 0 and -proc.returncode == getattr(signal, "SIGXCPU", None):
        raise ParseTimeoutError(
            f"{path.name}: reading the PDF used more CPU time than allowed ({timeout:g} s); "
            "parsing was stopped"
        )
    if proc.returncode != _pdf_worker.EXIT_OK:
        reason = _failure_reason(proc.returncode, proc.stdout, proc.stderr, settings)
        raise CorruptDocumentError(f"{path.name} is not a readable PDF: {reason}")
    try:
        return _parse_result(proc.stdout)
    except ValueError as exc:
        raise CorruptDocumentError(f"{path.name} is not a readable PDF: {exc}") from None


def _worker_env() -> dict[str, str]:
    """The parent's environment with the package's parent directory first on PYTHONPATH."""
    env = dict(os.environ)
    paths = [str(_PACKAGE_PARENT)]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _failure_reason(returncode: int, stdout: bytes, stderr: bytes, settings: Settings) -> str:
    """One line saying why the worker failed, from its JSON error, its signal or its stderr."""
    if returncode == _pdf_worker.EXIT_OUT_OF_MEMORY:
        return f"out of memory (limit {settings.pdf_worker_memory_mb} MB)"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the parser process was killed by {name}{hint}"
    try:
        payload = json.loads(stdout.decode("utf-8"))
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("error"), str):
        reason = payload["error"]
    else:
        # The worker died before it could report (e.g. MemoryError at start-up): the last
        # stderr line is the exception, never the whole traceback.
        lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        reason = lines[-1] if lines else f"the parser process exited with code {returncode}"
    return " ".join(reason.split())[:_MAX_REASON_CHARS]


def _parse_result(stdout: bytes) -> tuple[list[str], int]:
    """Validate the worker's JSON result; ValueError if it is not what the worker promises."""
    payload = json.loads(stdout.decode("utf-8"))
    if not isinstance(payload, dict):
        raise ValueError("the parser returned malformed output")
    pages, page_count = payload.get("pages"), payload.get("page_count")
    if (
        not isinstance(pages, list)
        or not all(isinstance(page, str) for page in pages)
        or not isinstance(page_count, int)
        or page_count < len(pages)
    ):
        raise ValueError("the parser returned malformed output")
    return pages, page_count


# --------------------------------------------------------------------------------------------
# Post-processing (pure functions)
# --------------------------------------------------------------------------------------------


def _too_little(text: str) -> bool:
    """Whether a text holds too few characters to be a text layer."""
    return sum(not ch.isspace() for ch in text) < _MIN_TEXT_CHARS


def _clean_pages(raw_pages: Sequence[str], *, running: bool = True) -> list[str]:
    """Turn raw page texts into the final page texts (see the helpers for each step);
    `running=False` keeps the lines that recur on every page."""
    pages = [_normalise_lines(raw) for raw in raw_pages]
    if running:
        pages = _remove_running_lines(pages)
    return ["\n".join(_dehyphenate(lines)).strip("\n") for lines in pages]


def _normalise_lines(raw: str) -> list[str]:
    """Split a page into lines: '\\n' line ends, no control characters, no trailing spaces."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL_CHARS.sub("", text)
    return [_fix_cjk_spacing(line.rstrip()) for line in text.split("\n")]


def _fix_cjk_spacing(line: str) -> str:
    """Remove spaces between CJK characters when the extractor spaced the line out.

    Spaces between two CJK characters are dropped only when they outnumber the CJK characters
    written tight together: "甲 方 同 意" becomes "甲方同意", while an intended gap such as the
    one in "第一条 合同标的" is kept.
    """
    spaced = len(_CJK_SPACED.findall(line))
    if spaced < 2 or spaced <= len(_CJK_TIGHT.findall(line)):
        return line
    return _CJK_SPACED.sub("", line)


def _margin_key(line: str) -> str:
    """Comparison key of a header/footer candidate: digit runs as '#', whitespace collapsed."""
    return _DIGITS.sub("#", " ".join(line.split()))


def _margin_indices(lines: Sequence[str]) -> list[int]:
    """Indices of the first and last `_MARGIN_LINES` non-empty lines of a page."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:_MARGIN_LINES] + filled[-_MARGIN_LINES:]))


def _remove_running_lines(pages: Sequence[list[str]]) -> list[list[str]]:
    """Drop running headers and footers: margin lines that recur on most pages.

    A line among the first or last two non-empty lines of a page is dropped when the same line,
    page numbers aside ("Page 3 of 10", "- 3 -", "第 3 页"), is a margin line on at least 60%
    of the pages with text and on at least 3 pages. Shorter documents are left as they are.
    """
    with_text = sum(any(line.strip() for line in lines) for lines in pages)
    if with_text < _MARGIN_MIN_PAGES:
        return [list(lines) for lines in pages]
    counts: Counter[str] = Counter()
    for lines in pages:
        counts.update({_margin_key(lines[i]) for i in _margin_indices(lines)})
    needed = max(_MARGIN_MIN_PAGES, math.ceil(_MARGIN_MIN_SHARE * with_text))
    running = {key for key, count in counts.items() if count >= needed}

    cleaned: list[list[str]] = []
    for lines in pages:
        drop = {i for i in _margin_indices(lines) if _margin_key(lines[i]) in running}
        cleaned.append([line for i, line in enumerate(lines) if i not in drop])
    return cleaned


def _dehyphenate(lines: Sequence[str]) -> list[str]:
    """Join words hyphenated across a line break ("obli-" + "gations" -> "obligations").

    Only a hyphen right after a letter, followed by a line starting with a lowercase letter, is
    a break: before an uppercase letter or a digit ("Sino-" + "British", "COVID-" + "19") the
    hyphen belongs to the word and the lines stay apart.
    """
    joined: list[str] = []
    for line in lines:
        if joined and _ends_in_break(joined[-1]) and line.lstrip()[:1].islower():
            joined[-1] = joined[-1][:-1] + line.lstrip()
        else:
            joined.append(line)
    return joined


def _ends_in_break(line: str) -> bool:
    """Whether a line ends with a hyphen directly after a letter."""
    return len(line) >= 2 and line[-1] in _HYPHENS and line[-2].isalpha()


def _join_pages(pages: Sequence[str]) -> tuple[str, list[TextBlock]]:
    """Join page texts with blank lines; return the text and one block per page."""
    blocks: list[TextBlock] = []
    offset = 0
    for number, page in enumerate(pages, start=1):
        if number > 1:
            offset += 2  # the "\n\n" separator
        blocks.append(
            TextBlock(start=offset, end=offset + len(page), kind="page", locator=f"page {number}")
        )
        offset += len(page)
    return "\n\n".join(pages), blocks
