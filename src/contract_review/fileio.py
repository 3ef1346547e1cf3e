"""Writing a file so that no reader, and no crash, ever sees half of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(target: Path, text: str) -> None:
    """Write `text` (UTF-8) to a temporary file beside `target`, flushed to disk, then rename
    it over `target`."""
    with tempfile.NamedTemporaryFile(
        "w",
        dir=target.parent,
        prefix=f".{target.name}.",
        suffix=".tmp",
        delete=False,
        encoding="utf-8",
    ) as tmp:
        tmp.write(text)
        tmp.flush()
        os.fsync(tmp.fileno())
    os.replace(tmp.name, target)
