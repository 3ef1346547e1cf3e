"""Checks run on an OOXML (.docx) package before any XML parser sees it.

A .docx is a zip of XML parts; hostile ones are zip bombs (tiny file, gigabytes inflated),
entries with `../` names, encrypted packages, or XML with DTDs and external entities (XXE).
python-docx would happily inflate a 434 KB bomb to hundreds of MB before failing, so these
checks use only the zip directory and bounded reads.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path, PurePosixPath

from lxml import etree

from contract_review.config import Settings
from contract_review.errors import CorruptDocumentError, FileTooLargeError, UnsafeDocumentError

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK\x03\x04"
_DTD = re.compile(rb"<!\s*(?:DOCTYPE|ENTITY)", re.IGNORECASE)
_BIG_ENTRY = 1024 * 1024


def safe_xml_parser() -> etree.XMLParser:
    """An lxml parser that never loads DTDs, resolves entities or touches the network."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        dtd_validation=False,
    )


def check_docx_package(path: Path, settings: Settings) -> None:
    """Raise a clear `InputError` unless `path` is a well-formed, bounded, unencrypted .docx."""
    name = path.name
    with path.open("rb") as fh:
        head = fh.read(8)
    if head.startswith(OLE_MAGIC):
        raise UnsafeDocumentError(
            f"{name} is an encrypted (password-protected) or legacy binary Word file; "
            "save it as an unprotected .docx"
        )
    if not head.startswith(ZIP_MAGIC):
        raise CorruptDocumentError(f"{name} is not a readable .docx: not a zip package")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            if len(infos) > settings.max_zip_entries:
                raise UnsafeDocumentError(
                    f"{name} has {len(infos)} zip entries (limit {settings.max_zip_entries})"
                )
            total = 0
            names = set()
            for info in infos:
                _check_entry(name, info, settings)
                total += info.file_size
                names.add(info.filename)
                if total > settings.max_uncompressed_bytes:
                    raise FileTooLargeError(
                        f"{name} decompresses to more than {settings.max_uncompressed_mb:g} MB "
                        "(zip bomb?); limit MAX_UNCOMPRESSED_MB"
                    )
            if "word/document.xml" not in names:
                raise CorruptDocumentError(f"{name} is not a readable .docx: no word/document.xml")
            for info in infos:
                if info.filename.endswith((".xml", ".rels")):
                    _check_xml(name, zf, info)
    except zipfile.BadZipFile as exc:
        raise CorruptDocumentError(f"{name} is not a readable .docx: {exc}") from None
    except (OSError, EOFError, zipfile.LargeZipFile, NotImplementedError) as exc:
        raise CorruptDocumentError(f"{name} is not a readable .docx: {exc}") from None


def _check_entry(name: str, info: zipfile.ZipInfo, settings: Settings) -> None:
    parts = PurePosixPath(info.filename.replace("\\", "/")).parts
    if info.filename.startswith(("/", "\\")) or ".." in parts or ":" in info.filename:
        raise UnsafeDocumentError(f"{name} has a zip entry with an unsafe path: {info.filename!r}")
    if info.flag_bits & 0x1:
        raise UnsafeDocumentError(f"{name} contains encrypted zip entries")
    if info.file_size > _BIG_ENTRY:
        ratio = info.file_size / max(1, info.compress_size)
        if ratio > settings.max_compression_ratio:
            raise UnsafeDocumentError(
                f"{name}: entry {info.filename} inflates {ratio:.0f}x (zip bomb?); "
                f"limit {settings.max_compression_ratio:g}x"
            )


def _check_xml(name: str, zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    data = zf.read(info)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = data.decode("utf-16", errors="replace").encode("utf-8")
    if _DTD.search(data):
        raise UnsafeDocumentError(
            f"{name}: part {info.filename} declares a DTD or entities (XXE risk); refusing to parse"
        )
