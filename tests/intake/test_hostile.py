"""Hostile and unusable files: each gets one clear line, exit code 2, no traceback, no hang."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from docx import Document

from contract_review import errors
from contract_review.config import Settings
from contract_review.intake import load_document

_DTD_DOC = (
    '<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    "<w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>"
)
_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
    "<lolz>&lol2;</lolz>"
)


def _valid_docx(path: Path) -> Path:
    doc = Document()
    doc.add_paragraph("1. Definitions")
    doc.save(str(path))
    return path


def _replace_part(src: Path, dst: Path, part: str, data: bytes | str) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, data if info.filename == part else zin.read(info))
    return dst


def _add_entry(src: Path, dst: Path, name: str, data: bytes) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info))
        zout.writestr(name, data)
    return dst


def _zip_bomb(tmp: Path) -> Path:
    dst = tmp / "bomb.docx"
    base = _valid_docx(tmp / "base.docx")
    # 300 MB of zeros deflates to ~300 KB: a classic bomb, caught from the zip directory alone.
    with zipfile.ZipFile(base) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info))
        with zout.open("word/media/bomb.bin", "w", force_zip64=True) as fh:
            chunk = b"\0" * (1024 * 1024)
            for _ in range(300):
                fh.write(chunk)
    return dst


def _many_entries(tmp: Path) -> Path:
    dst = tmp / "many.docx"
    base = _valid_docx(tmp / "base.docx")
    with zipfile.ZipFile(base) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info))
        for i in range(6000):
            zout.writestr(f"customXml/item{i}.txt", b"x")
    return dst


def _encrypted_ole(tmp: Path) -> Path:
    path = tmp / "locked.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + os.urandom(4096))
    return path


def _no_text_pdf(tmp: Path) -> Path:
    from reportlab.pdfgen import canvas

    path = tmp / "scan.pdf"
    c = canvas.Canvas(str(path))
    c.rect(100, 100, 200, 200, fill=1)
    c.showPage()
    c.save()
    return path


def _write(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = tmp / name
        path.write_bytes(data)
        return path

    return make


def _docx_with_part(part: str, data: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        return _replace_part(_valid_docx(tmp / "base.docx"), tmp / "evil.docx", part, data)

    return make


def _docx_with_entry(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        return _add_entry(_valid_docx(tmp / "base.docx"), tmp / "evil.docx", name, data)

    return make


def _truncated_docx(tmp: Path) -> Path:
    data = _valid_docx(tmp / "base.docx").read_bytes()
    path = tmp / "truncated.docx"
    path.write_bytes(data[: len(data) // 2])
    return path


def _zip_without_document(tmp: Path) -> Path:
    path = tmp / "notword.docx"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("hello.txt", "not a word document")
    path.write_bytes(buf.getvalue())
    return path


# (id, factory, expected error class, words the message must contain, extra env for the CLI)
CASES: list[tuple[str, Callable[[Path], Path], type[errors.InputError], str, dict[str, str]]] = [
    (
        "unsupported-type",
        _write("contract.exe", b"MZ\x90\x00"),
        errors.UnsupportedFormatError,
        "unsupported file type",
        {},
    ),
    (
        "legacy-doc",
        _write("contract.doc", b"\xd0\xcf\x11\xe0"),
        errors.UnsupportedFormatError,
        "unsupported file type",
        {},
    ),
    ("empty-file", _write("empty.txt", b""), errors.EmptyDocumentError, "is empty", {}),
    ("whitespace-only", _write("blank.md", b" \n\t\n  "), errors.EmptyDocumentError, "no text", {}),
    (
        "too-large",
        _write("big.txt", b"Clause 1 Definitions\n" * 4000),
        errors.FileTooLargeError,
        "limit is 0.01 MB",
        {"MAX_FILE_MB": "0.01"},
    ),
    (
        "binary-named-txt",
        _write("binary.txt", os.urandom(2048) + b"\0\0"),
        errors.EncodingError,
        "binary data",
        {},
    ),
    (
        "undecodable-txt",
        _write("mixed.txt", b"Clause 1 " + bytes(range(0x80, 0x100)) * 8),
        errors.EncodingError,
        "cannot determine the text encoding",
        {},
    ),
    ("zip-bomb", _zip_bomb, errors.InputError, "zip bomb", {}),
    ("too-many-entries", _many_entries, errors.UnsafeDocumentError, "zip entries", {}),
    (
        "xxe-external-entity",
        _docx_with_part("word/document.xml", _DTD_DOC),
        errors.UnsafeDocumentError,
        "DTD or entities",
        {},
    ),
    (
        "billion-laughs",
        _docx_with_part("word/styles.xml", _LAUGHS),
        errors.UnsafeDocumentError,
        "DTD or entities",
        {},
    ),
    (
        "path-traversal",
        _docx_with_entry("../../evil.sh", b"rm -rf /"),
        errors.UnsafeDocumentError,
        "unsafe path",
        {},
    ),
    ("encrypted-ole-docx", _encrypted_ole, errors.UnsafeDocumentError, "password-protected", {}),
    (
        "corrupt-docx",
        _write("corrupt.docx", b"PK\x03\x04" + os.urandom(3000)),
        errors.CorruptDocumentError,
        "not a readable .docx",
        {},
    ),
    ("truncated-docx", _truncated_docx, errors.CorruptDocumentError, "not a readable .docx", {}),
    (
        "zip-not-word",
        _zip_without_document,
        errors.CorruptDocumentError,
        "no word/document.xml",
        {},
    ),
    (
        "corrupt-pdf",
        _write("corrupt.pdf", b"%PDF-1.4\n" + os.urandom(5000)),
        errors.CorruptDocumentError,
        "not a readable PDF",
        {},
    ),
    (
        "not-a-pdf",
        _write("fake.pdf", b"<html>hello</html>"),
        errors.CorruptDocumentError,
        "no PDF header",
        {},
    ),
    (
        "pdf-no-text-layer",
        _no_text_pdf,
        errors.NoTextLayerError,
        "no text layer (scanned?); OCR is not supported",
        {},
    ),
]


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 12


@pytest.mark.parametrize(
    ("factory", "error", "words", "env"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_load_document_raises_a_specific_error(
    tmp_path: Path,
    factory: Callable[[Path], Path],
    error: type[errors.InputError],
    words: str,
    env: dict[str, str],
) -> None:
    path = factory(tmp_path)
    settings = Settings(**{k.lower(): v for k, v in env.items()})  # type: ignore[arg-type]
    start = time.monotonic()
    with pytest.raises(error) as info:
        load_document(path, settings)
    assert time.monotonic() - start < 30
    message = str(info.value)
    assert words in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("factory", "words", "env"), [(c[1], c[3], c[4]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_cli_prints_one_line_and_exits_2(
    tmp_path: Path, factory: Callable[[Path], Path], words: str, env: dict[str, str]
) -> None:
    path = factory(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "contract_review.cli", "parse", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error:")
    assert words in " ".join(proc.stderr.split())
    assert "Traceback" not in proc.stderr


def test_a_valid_docx_still_loads(tmp_path: Path) -> None:
    loaded = load_document(_valid_docx(tmp_path / "ok.docx"), Settings())
    assert "Definitions" in loaded.text
