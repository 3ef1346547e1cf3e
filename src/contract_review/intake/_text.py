"""Plain text and Markdown files: encoding detection and normalisation."""

from __future__ import annotations

import codecs
import re

from contract_review.errors import EmptyDocumentError, EncodingError
from contract_review.models import DocumentFormat, LoadedText
from contract_review.text import CJK_TEXT

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_CJK = re.compile(f"[{CJK_TEXT}]")


def decode_text(name: str, data: bytes) -> tuple[str, str]:
    """Decode bytes of a text file → (text, encoding).

    Order: a BOM (UTF-8 / UTF-16); strict UTF-8; strict GB18030 (covers GBK/GB2312) when the
    result is mostly Chinese; Windows-1252 for old Western files. Binary data is refused.
    """
    if data.startswith(codecs.BOM_UTF8):
        return _strict(name, data[3:], "utf-8"), "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _strict(name, data, "utf-16"), "utf-16"
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        return _strict(name, data, utf16), utf16
    if b"\x00" in data or _control_ratio(data) > 0.05:
        raise EncodingError(f"{name} looks like binary data, not text")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        text = ""
    if text:
        non_ascii = [ch for ch in text if ord(ch) > 127]
        if non_ascii and sum(1 for ch in non_ascii if _CJK.match(ch)) >= 0.8 * len(non_ascii):
            return text, "gb18030"
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = ""
    if text and sum(1 for b in data if b > 127) <= 0.3 * len(data):
        return text, "cp1252"
    raise EncodingError(
        f"{name}: cannot determine the text encoding (tried UTF-8, GB18030, Windows-1252)"
    )


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' for UTF-16 text saved without a byte-order mark: every other
    byte is zero wherever it writes ASCII (letters, digits, spaces, line ends: one character in
    ten at least, even in Chinese), far more often than on the other side, and the sample
    decodes to printable text; None otherwise."""
    sample = data[: 8192 - 8192 % 2] if len(data) >= 8192 else data[: len(data) - len(data) % 2]
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    for encoding, zeros, others in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        # ('一' is U+4E00: a Chinese text has some zero bytes on the other side too)
        if zeros.count(0) < 0.1 * len(zeros) or others.count(0) * 3 > zeros.count(0):
            continue
        try:
            text = sample.decode(encoding)
        except UnicodeDecodeError:
            continue
        printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t\f")
        if printable >= 0.95 * len(text):
            return encoding
    return None


def _strict(name: str, data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise EncodingError(f"{name}: invalid {encoding} text at byte {exc.start}") from None


def _control_ratio(data: bytes) -> float:
    sample = data[:65536]
    bad = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    return bad / max(1, len(sample))


def normalise(text: str) -> str:
    """'\\n' line ends, form feeds as line breaks, no other control characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")
    return _CONTROL.sub("", text)


def read_text(name: str, data: bytes, fmt: DocumentFormat) -> LoadedText:
    """A .txt or .md file as LoadedText."""
    text, encoding = decode_text(name, data)
    text = normalise(text)
    if not text.strip():
        raise EmptyDocumentError(f"{name}: the file contains no text")
    return LoadedText(format=fmt, text=text, encoding=encoding)
