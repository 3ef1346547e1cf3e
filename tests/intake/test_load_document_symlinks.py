"""#13, point 8: a link the user names is followed (and said so); a folder walk never leaves
its folder through a link."""

from __future__ import annotations

from pathlib import Path

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
