"""Exceptions raised by the contract review engine.

`InputError` and its subclasses are *user* mistakes (a wrong file, a hostile file, a bad option):
the CLI prints their message on one line and exits with code 2, without a traceback. Anything
else that escapes is a bug.
"""

from __future__ import annotations


class ContractReviewError(Exception):
    """Base class of every error this package raises on purpose."""


class InputError(ContractReviewError):
    """The input given by the user cannot be used; the message says why, in one line."""


class ApprovalNeeded(InputError):
    """The review waits for decisions on its redlines and nobody can give them now."""


class UnsupportedFormatError(InputError):
    """The file type is not one of .docx, .pdf, .txt, .md."""


class EmptyDocumentError(InputError):
    """The file is empty or holds no readable text."""


class FileTooLargeError(InputError):
    """The file, or what it decompresses to, exceeds a configured limit."""


class UnsafeDocumentError(InputError):
    """The file carries something we refuse to parse (DTDs, external entities, zip bombs...)."""


class CorruptDocumentError(InputError):
    """The file claims a format but cannot be read as that format."""


class EncodingError(InputError):
    """A text file whose encoding cannot be determined, or that holds binary data."""


class NoTextLayerError(InputError):
    """A PDF without a text layer (typically a scan)."""


class ParseTimeoutError(InputError):
    """Reading the file took longer than the configured time limit."""


class SkillError(ContractReviewError):
    """A skill cannot do its work with the input given (unknown clause, missing baseline...).

    The dispatcher turns it into `SkillResult(success=False, error=<message>)`.
    """


class LLMError(ContractReviewError):
    """The LLM endpoint could not give an answer; the message says why, in one line.

    `endpoint_down` marks failures that every further request would repeat (the endpoint
    cannot be reached, or refuses us: 401/403/404), so callers can stop asking it.
    """

    def __init__(self, message: str, *, endpoint_down: bool = False) -> None:
        """An LLM failure described by `message`."""
        super().__init__(message)
        self.endpoint_down = endpoint_down


class ExportError(ContractReviewError):
    """An output of a finished review could not be written; none of its outputs were left
    behind and the task can be resumed to write them again."""


def one_line(exc: BaseException) -> str:
    """An exception as one line: its message's first line, or its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
