"""Text and Markdown intake: encodings and normalisation."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from contract_review.config import Settings
from contract_review.intake import load_document
from contract_review.models import DocumentFormat

ZH = "第一条 合同标的\n甲方同意向乙方采购设备，合同价款为人民币壹佰万元整（1,000,000.00元）。\n"
EN = "1. Definitions\n“Works” means the permanent works – including design.\n"


@pytest.mark.parametrize(
    ("data", "encoding", "expected"),
    [
        (EN.encode("utf-8"), "utf-8", EN),
        (codecs.BOM_UTF8 + ZH.encode("utf-8"), "utf-8-sig", ZH),
        (ZH.encode("gb18030"), "gb18030", ZH),
        (ZH.encode("gbk"), "gb18030", ZH),
        (codecs.BOM_UTF16_LE + ZH.encode("utf-16-le"), "utf-16", ZH),
        (
            "Clause 1 – Payment\nThe Buyer’s fee is €5.\n".encode("cp1252"),
            "cp1252",
            "Clause 1 – Payment\nThe Buyer’s fee is €5.\n",
        ),
    ],
    ids=["utf8", "utf8-bom", "gb18030", "gbk", "utf16-bom", "cp1252"],
)
def test_encodings_are_detected(tmp_path: Path, data: bytes, encoding: str, expected: str) -> None:
    path = tmp_path / "contract.txt"
    path.write_bytes(data)
    loaded = load_document(path, Settings())
    assert loaded.text == expected
    assert loaded.encoding == encoding
    assert loaded.format is DocumentFormat.TXT


def test_line_ends_and_control_characters_are_normalised(tmp_path: Path) -> None:
    path = tmp_path / "crlf.md"
    path.write_bytes(b"## 1. Services\r\nThe Supplier\x07 shall\rperform.\fNext page\r\n")
    loaded = load_document(path, Settings())
    assert loaded.text == "## 1. Services\nThe Supplier shall\nperform.\nNext page\n"
    assert loaded.format is DocumentFormat.MD


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    "text",
    [
        "SUPPLY AGREEMENT\r\n1. Term\r\nThis Agreement runs for two (2) years.\r\n",
        "供货合同\n第一条 期限\n本合同有效期为二年，自2024年1月1日起。\n",
    ],
)
def test_utf16_without_a_byte_order_mark(tmp_path: Path, encoding: str, text: str) -> None:
    """#13: UTF-16 saved without a BOM is text, not 'binary data'."""
    path = tmp_path / "c.txt"
    path.write_bytes(text.encode(encoding))
    loaded = load_document(path, settings=Settings(state_dir=tmp_path / "s"))
    assert loaded.text.replace("\r\n", "\n") == text.replace("\r\n", "\n")
    assert loaded.encoding == encoding
