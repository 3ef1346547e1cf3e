"""Document intake: a file on disk → `LoadedText` (normalised text + what we learned reading it).

`load_document` is the one entry point. It checks the file before any parser sees it: type,
size, emptiness, and for .docx the zip package (see `_safety`); PDFs are parsed in a worker
process with memory and time limits (see `_pdf`). Every user-facing failure is an `InputError`
with a one-line message.
"""

from __future__ import annotations

import os
from pathlib import Path

from contract_review.config import Settings, get_settings
from contract_review.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    FileTooLargeError,
    InputError,
    UnsupportedFormatError,
)
from contract_review.models import DocumentFormat, LoadedText

from ._docx import body_text, read_docx
from ._pdf import read_pdf
from ._safety import check_docx_package
from ._text import read_text

__all__ = [
    "SUPPORTED_SUFFIXES",
    "body_text",
    "files_under",
    "format_for",
    "load_document",
    "read_docx",
]

SUPPORTED_SUFFIXES: dict[str, DocumentFormat] = {
    ".docx": DocumentFormat.DOCX,
    ".pdf": DocumentFormat.PDF,
    ".txt": DocumentFormat.TXT,
    ".text": DocumentFormat.TXT,
    ".md": DocumentFormat.MD,
    ".markdown": DocumentFormat.MD,
}


def format_for(path: Path) -> DocumentFormat:
    """The format of `path` by its suffix, or `UnsupportedFormatError`."""
    fmt = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        shown = path.suffix or "(no extension)"
        raise UnsupportedFormatError(
            f"{path.name}: unsupported file type {shown}; use .docx, .pdf, .txt or .md"
        )
    return fmt


def load_document(path: Path | str, settings: Settings | None = None) -> LoadedText:
    """Read one input file into normalised text, refusing hostile or unusable files."""
    settings = settings or get_settings()
    path = Path(path)
    fmt = format_for(path)
    if not path.exists():
        raise InputError(f"{path}: file not found")
    if not path.is_file():
        raise InputError(f"{path}: not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise EmptyDocumentError(f"{path.name} is empty")
    if size > settings.max_file_bytes:
        raise FileTooLargeError(
            f"{path.name} is {size / 1024 / 1024:.1f} MB; the limit is "
            f"{settings.max_file_mb:g} MB (MAX_FILE_MB)"
        )
    loaded = _read(path, fmt, settings)
    size = len(loaded.text.encode("utf-8", "surrogatepass"))
    if size > settings.max_text_bytes:
        raise FileTooLargeError(
            f"{path.name} holds {size / 1024 / 1024:.1f} MB of text; the limit is "
            f"{settings.max_text_mb:g} MB (MAX_TEXT_MB)"
        )
    real = path.resolve()
    if real != path.absolute():
        # Followed, as the user named it; said, so a link to an unexpected file is noticed.
        loaded.warnings.insert(0, f"{path} is a link to {real}; that file was read")
    return loaded


def _read(path: Path, fmt: DocumentFormat, settings: Settings) -> LoadedText:
    if fmt is DocumentFormat.DOCX:
        check_docx_package(path, settings)
        return read_docx(path, settings)
    if fmt is DocumentFormat.PDF:
        with path.open("rb") as fh:
            head = fh.read(1024)
        if b"%PDF-" not in head:
            raise CorruptDocumentError(f"{path.name} is not a readable PDF: no PDF header")
        return read_pdf(path, settings)
    return read_text(path.name, path.read_bytes(), fmt)


def files_under(root: Path) -> list[Path]:
    """The contracts (supported suffixes) in a folder and its subfolders, for walks over
    folders a user or a client names (batch, server): links are followed only while they stay
    inside `root`, so a link never takes a walk out of the folder it was given."""
    base = root.resolve()
    found = []
    for folder, subfolders, names in os.walk(base, followlinks=False):
        subfolders.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if path.suffix.lower() in SUPPORTED_SUFFIXES and path.resolve().is_relative_to(base):
                found.append(path)
    return found
