"""#13: a link the user names is followed (and said so); a folder walk never leaves
its folder through a link; more text than a review takes in time is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from contract_review.config import Settings
from contract_review.errors import FileTooLargeError
from contract_review.intake import files_under, load_document


def test_a_named_link_is_followed_and_reported(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere" / "agreement.txt"
    real.parent.mkdir()
    real.write_text("1. The Supplier shall deliver the Goods.\n", "utf-8")
    link = tmp_path / "contract.txt"
    link.symlink_to(real)
    loaded = load_document(link)
    assert loaded.text.startswith("1. The Supplier shall deliver")
    assert loaded.warnings[0] == f"{link} is a link to {real}; that file was read"
    assert not load_document(real).warnings


def test_a_folder_walk_stays_inside_its_folder(tmp_path: Path) -> None:
    root = tmp_path / "dataroom"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("A", "utf-8")
    (root / "sub" / "b.docx").write_bytes(b"PK")
    (root / "notes.bin").write_bytes(b"\0")
    outside = tmp_path / "secret.txt"
    outside.write_text("not in the data room", "utf-8")
    (root / "leak.txt").symlink_to(outside)  # a file link out
    (root / "escape").symlink_to(tmp_path)  # a folder link out
    (root / "alias.txt").symlink_to(root / "a.txt")  # a link that stays inside
    found = [p.relative_to(root.resolve()).as_posix() for p in files_under(root)]
    assert found == ["a.txt", "alias.txt", "sub/b.docx"]


def test_more_text_than_a_review_can_take_in_time_is_refused(tmp_path: Path) -> None:
    """#13, point 5: MAX_TEXT_MB bounds the text reviewed (bench/large_docs.py measures it)."""
    big = tmp_path / "big.txt"
    big.write_text("1. The Supplier shall deliver the Goods on time.\n" * 30_000, "utf-8")
    with pytest.raises(FileTooLargeError, match=r"holds 1\.4 MB of text; the limit is 1 MB"):
        load_document(big, Settings(max_text_mb=1))
    assert load_document(big, Settings(max_text_mb=2)).text
