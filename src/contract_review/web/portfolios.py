"""Portfolios of the web app: many contracts (files and .zip archives) reviewed in one batch,
watched as they progress, downloaded as one workbook.

A portfolio lives in its own folder, `STATE_DIR/web/portfolios/<id>/`: the contracts in `in/`,
the batch's outputs in `out/` (`portfolio.xlsx`, `portfolio.json`, one folder per contract),
its state in `state.json` (written atomically) and, once complete, the rows' summary in
`rows.json`. A zip is unpacked with the standard library's `zipfile` under the intake's
limits: no absolute or `..` names, no links, no encrypted entries, at most `MAX_ZIP_ENTRIES`
entries, `MAX_UNCOMPRESSED_MB` in all, `MAX_FILE_MB` per contract and `MAX_COMPRESSION_RATIO`
per large entry; every name is reduced to safe characters. Anything wrong refuses the whole
upload and keeps nothing.

The batch (`contract_review.batch.run_batch`) runs in a spawned process of its own, one
portfolio at a time, never in the server's event loop. The process leads its own process
group (the batch's worker processes join it), so a server that stops ends the whole batch at
once instead of waiting for it; it holds a lock on `run.lock` while it runs. A restarted
server runs again every portfolio left queued or running whose lock is free: the batch skips
the contracts it already finished (its `batch.jsonl`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import shutil
import signal
import stat
import threading
import zipfile
import zlib
from collections import deque
from collections.abc import Sequence
from datetime import UTC, datetime
from multiprocessing.process import BaseProcess
from pathlib import Path, PurePosixPath
from typing import IO, Any, Literal

from fastapi import HTTPException, UploadFile
from pydantic import BaseModel, Field

from contract_review.config import Settings
from contract_review.domains import SUBTYPES
from contract_review.errors import one_line
from contract_review.fileio import write_atomic
from contract_review.tasks import new_task_id

__all__ = ["CONTRACT_TYPES", "DOWNLOADS", "PortfolioState", "Portfolios", "safe_name"]

CONTRACT_TYPES = frozenset({".docx", ".pdf", ".txt", ".md"})
"""The files the engine reads (kept from an upload or a zip)."""
DOWNLOADS = ("portfolio.xlsx", "portfolio.json")
"""What a complete portfolio offers for download."""

_ID = re.compile(r"\A\d{8}-\d{6}-[0-9a-f]{6}\Z")
_STATE = "state.json"
_ROWS = "rows.json"
_LOCK = "run.lock"
_BIG_ENTRY = 1 << 20
"""Entries up to this size inflate to little whatever their ratio (as the .docx intake)."""
_MAX_DEPTH = 8
"""Folder levels kept from a zip entry's name (deeper ones are folded into the last)."""
_CHUNK = 1 << 20

Status = Literal["queued", "running", "complete", "failed"]


def safe_name(name: str | None, fallback: str) -> str:
    """A client's file name reduced to letters, digits and '._- ' (no folders, no leading
    dot): it names the file in our own folder, never a path the client chose."""
    base = re.split(r"[\\/]", name or "")[-1]
    cleaned = re.sub(r"[^\w.\- ]", "_", base).strip(" .")[:120]
    return cleaned or fallback


class PortfolioState(BaseModel):
    """Where a portfolio stands (its `state.json`)."""

    portfolio_id: str
    owner: str = Field(description="The API key name that created it; only it sees it.")
    created_at: str
    status: Status = "queued"
    party: str
    domain: str
    inventory_only: bool = False
    done: int = Field(0, description="Contracts finished (reviewed, failed or duplicates).")
    total: int = Field(0, description="Contracts in the portfolio.")
    errors: int = Field(0, description="Contracts that could not be reviewed (once complete).")
    duplicates: int = 0
    ignored: int = Field(0, description="Files of the zips that are not contracts (skipped).")
    current: str = Field("", description="The contract finished last.")
    reason: str = Field("", description="Why the portfolio failed.")
    finished_at: str | None = None

    def summary(self) -> dict[str, Any]:
        """The portfolio for the API (without its rows)."""
        data = self.model_dump(exclude={"owner"})
        if self.status == "complete":
            data["downloads"] = {
                Path(name).suffix[1:]: f"/api/portfolios/{self.portfolio_id}/{name}"
                for name in DOWNLOADS
            }
        return data


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _write_state(folder: Path, state: PortfolioState) -> None:
    write_atomic(folder / _STATE, state.model_dump_json(indent=1))


def _read_state(folder: Path) -> PortfolioState | None:
    try:
        return PortfolioState.model_validate_json((folder / _STATE).read_bytes())
    except (OSError, ValueError):
        return None


def _locked(folder: Path) -> bool:
    """Whether a batch process holds the portfolio's lock (it runs)."""
    import fcntl

    try:
        fd = os.open(folder / _LOCK, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops a lock taken here
    return False


# --- the batch process -------------------------------------------------------------------


def _run(folder_name: str, settings: Settings) -> None:
    """Run a portfolio's batch (in its own spawned process, which leads a process group)."""
    import fcntl

    from contract_review.batch import BatchOptions, run_batch

    if hasattr(os, "setpgrp"):
        os.setpgrp()  # the batch's workers join this group: stopping it stops them all
    folder = Path(folder_name).resolve()
    fd = os.open(folder / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)  # held until the process ends
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return  # another process runs it
    state = _read_state(folder)
    if state is None:
        return
    state.status, state.reason = "running", ""
    _write_state(folder, state)
    inbox = folder / "in"

    def progress(done: int, total: int, file: str) -> None:
        state.done, state.total, state.current = done, total, _display(file, inbox)
        _write_state(folder, state)

    # The workbook names each contract by its path as given: relative to the portfolio's
    # folder ("in/…"), never the server's own folders.
    os.chdir(folder)
    options = BatchOptions(
        paths=["in"],
        out=Path("out"),
        party=state.party,
        domain=state.domain,
        inventory_only=state.inventory_only,
        workers=settings.web_workers,
        queue=settings.celery_broker_url is not None,
    )
    try:
        rows = run_batch(options, settings=settings, progress=progress)
    except Exception as exc:  # the portfolio's failure, with its reason
        state.status, state.reason, state.finished_at = "failed", one_line(exc), _now()
        _write_state(folder, state)
        return
    summary = [
        {
            "file": _display(row.file, inbox),
            "status": row.status,
            "error": row.error,
            "same_as": _display(row.same_as, inbox) if row.same_as else "",
            "counts": {k: int(row.counts.get(k, 0)) for k in ("high", "medium", "low")},
        }
        for row in rows
    ]
    write_atomic(folder / _ROWS, json.dumps(summary, ensure_ascii=False))
    state.status, state.finished_at = "complete", _now()
    state.done = state.total = len(rows)
    state.errors = sum(row.status == "error" for row in rows)
    state.duplicates = sum(row.status == "duplicate" for row in rows)
    _write_state(folder, state)


def _display(file: str, inbox: Path) -> str:
    """A contract's name as the client gave it: its path inside the portfolio's `in/`."""
    path = Path(file).resolve()
    return path.relative_to(inbox).as_posix() if path.is_relative_to(inbox) else path.name


def _stop(process: BaseProcess) -> None:
    """End a batch process and its workers (its process group), at once."""
    pid = process.pid
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGTERM)  # only our child leads a group of its own pid
    except (ProcessLookupError, PermissionError, AttributeError):
        process.terminate()  # not yet its own group: it has no workers yet
    process.join(10)
    if process.is_alive():
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, AttributeError):
            process.kill()
        process.join(10)


# --- uploads -----------------------------------------------------------------------------


def _refuse(message: str) -> HTTPException:
    return HTTPException(422, message)


class _Budget:
    """Bytes a portfolio may still unpack (MAX_UNCOMPRESSED_MB in all)."""

    def __init__(self, settings: Settings) -> None:
        self.left = settings.max_uncompressed_bytes
        self.limit_mb = settings.max_uncompressed_mb

    def take(self, size: int, what: str) -> None:
        self.left -= size
        if self.left < 0:
            raise _refuse(
                f"{what}: the portfolio unpacks to more than {self.limit_mb:g} MB "
                "(zip bomb?); limit MAX_UNCOMPRESSED_MB"
            )


def _unique(path: Path) -> Path:
    """`path`, or `stem-2.suffix`, `stem-3.suffix`… when the name is taken."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def _copy(source: IO[bytes], target: Path, limit: int, what: str, limit_mb: float) -> int:
    """Copy at most `limit` bytes into a new file `target`; refused beyond."""
    size = 0
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("xb") as out:
        while chunk := source.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                raise HTTPException(413, f"{what}: larger than {limit_mb:g} MB")
            out.write(chunk)
    return size


def _junk(parts: tuple[str, ...]) -> bool:
    """Entries no one meant as a contract: macOS resource forks, hidden files, Office lock
    files."""
    return any(p.startswith(".") or p == "__MACOSX" for p in parts) or parts[-1].startswith("~$")


def _checked_entries(
    archive: str, zf: zipfile.ZipFile, settings: Settings, budget: _Budget
) -> tuple[list[tuple[zipfile.ZipInfo, list[str]]], int]:
    """The contracts of a zip, each with its safe relative path, and how many other files it
    holds; refused (422) for any unsafe entry, before anything is written."""
    infos = zf.infolist()
    if len(infos) > settings.max_zip_entries:
        raise _refuse(
            f"{archive} has {len(infos)} entries (limit {settings.max_zip_entries}, "
            "MAX_ZIP_ENTRIES)"
        )
    keep: list[tuple[zipfile.ZipInfo, list[str]]] = []
    ignored = 0
    for info in infos:
        raw = info.filename
        parts = tuple(p for p in PurePosixPath(raw.replace("\\", "/")).parts if p not in ("", "."))
        if raw.startswith(("/", "\\")) or ".." in parts or ":" in raw or not parts:
            raise _refuse(f"{archive} has an entry with an unsafe path: {raw!r}")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise _refuse(f"{archive} has a symbolic link: {raw!r}")
        if info.flag_bits & 0x1:
            raise _refuse(f"{archive} has encrypted entries")
        if info.is_dir():
            continue
        if _junk(parts) or PurePosixPath(parts[-1]).suffix.lower() not in CONTRACT_TYPES:
            ignored += 1
            continue
        if info.file_size > settings.max_file_bytes:
            raise _refuse(
                f"{archive}: {raw} is larger than {settings.max_file_mb:g} MB (MAX_FILE_MB)"
            )
        ratio = info.file_size / max(1, info.compress_size)
        if info.file_size > _BIG_ENTRY and ratio > settings.max_compression_ratio:
            raise _refuse(
                f"{archive}: {raw} inflates {ratio:.0f}x (zip bomb?); limit "
                f"{settings.max_compression_ratio:g}x (MAX_COMPRESSION_RATIO)"
            )
        budget.take(info.file_size, archive)
        folders = [safe_name(p, "folder") for p in parts[:-1]]
        if len(folders) > _MAX_DEPTH:
            folders = [*folders[: _MAX_DEPTH - 1], "_".join(folders[_MAX_DEPTH - 1 :])[:120]]
        keep.append((info, [*folders, safe_name(parts[-1], f"contract{len(keep)}")]))
    return keep, ignored


def _unzip(
    archive: str, handle: IO[bytes], inbox: Path, settings: Settings, budget: _Budget
) -> tuple[int, int]:
    """Unpack the contracts of one zip into `inbox/<its name>/`; (stored, ignored)."""
    try:
        with zipfile.ZipFile(handle) as zf:
            entries, ignored = _checked_entries(archive, zf, settings, budget)
            root = _unique(inbox / safe_name(Path(archive).stem, "archive"))
            for info, parts in entries:
                target = _unique(root.joinpath(*parts))
                with zf.open(info) as source:
                    written = _copy(source, target, info.file_size, archive, settings.max_file_mb)
                if written != info.file_size:
                    raise _refuse(f"{archive}: {info.filename} is not the size its zip says")
    except HTTPException as exc:
        if exc.status_code == 413:  # an entry larger than its header said
            raise _refuse(f"{archive}: an entry is larger than its header says") from None
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error) as exc:
        raise _refuse(f"{archive} is not a readable zip archive: {one_line(exc)}") from None
    except (OSError, EOFError, NotImplementedError, RuntimeError, ValueError) as exc:
        raise _refuse(f"{archive} cannot be unpacked: {one_line(exc)}") from None
    return len(entries), ignored


def _store(
    files: Sequence[tuple[str, IO[bytes]]], inbox: Path, settings: Settings
) -> tuple[int, int]:
    """Store the uploaded contracts and unpack the zips into `inbox`; (contracts, ignored)."""
    budget = _Budget(settings)
    stored = ignored = 0
    inbox.mkdir(parents=True, exist_ok=True)
    for name, handle in files:
        suffix = Path(name).suffix.lower()
        if suffix == ".zip":
            kept, skipped = _unzip(name, handle, inbox, settings, budget)
            stored, ignored = stored + kept, ignored + skipped
            continue
        target = _unique(inbox / safe_name(name, f"contract{stored}{suffix}"))
        size = _copy(handle, target, settings.max_file_bytes, name, settings.max_file_mb)
        budget.take(size, name)
        stored += 1
    if not stored:
        raise _refuse(
            f"no contract in the upload (.docx, .pdf, .txt, .md); {ignored} other file(s) ignored"
        )
    return stored, ignored


def _check_type(upload: UploadFile) -> str:
    name = upload.filename or ""
    suffix = Path(name).suffix.lower()
    if suffix != ".zip" and suffix not in CONTRACT_TYPES:
        kinds = ", ".join(sorted(CONTRACT_TYPES | {".zip"}))
        raise HTTPException(415, f"{name or 'a file'}: unsupported type (use {kinds})")
    return name


# --- the service -------------------------------------------------------------------------


class Portfolios:
    """The web app's portfolios: uploads, the queue of batches (one runs at a time, in a
    process of its own), their state and their downloads, each visible only to its owner."""

    def __init__(self, settings: Settings) -> None:
        """Portfolios kept under `settings.state_dir / "web" / "portfolios"`."""
        self.settings = settings
        self.root = settings.state_dir / "web" / "portfolios"
        self._waiting: deque[str] = deque()
        self._running: tuple[str, BaseProcess] | None = None
        self._closed = False
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> None:
        """Queue every portfolio a previous server left unfinished (and not running in a
        process of its own still), then start running the queue."""
        with self._wake:
            self._closed = False
            self._waiting.clear()
        for state in self._states():
            folder = self._folder(state.portfolio_id)
            if state.status in ("queued", "running") and not _locked(folder):
                self._waiting.append(state.portfolio_id)
        self._thread = threading.Thread(target=self._loop, name="portfolios", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop: the running batch ends at once (a restarted server runs it again, skipping
        the contracts it finished)."""
        with self._wake:
            self._closed = True
            running = self._running
            self._wake.notify_all()
        if running is not None:
            _stop(running[1])
        if self._thread is not None:
            self._thread.join(30)

    def _loop(self) -> None:
        context = multiprocessing.get_context("spawn")
        while True:
            with self._wake:
                while not self._waiting and not self._closed:
                    self._wake.wait()
                if self._closed:
                    return
                portfolio_id = self._waiting.popleft()
                folder = self._folder(portfolio_id)
                if not (folder / _STATE).is_file():
                    continue  # deleted while it waited
                process = context.Process(
                    target=_run, args=(str(folder), self.settings), name=f"portfolio-{portfolio_id}"
                )
                try:
                    process.start()
                except Exception as exc:  # the portfolio's failure, not the queue's
                    self._ended_badly(folder, f"its batch process did not start: {one_line(exc)}")
                    continue
                self._running = (portfolio_id, process)
            process.join()
            with self._wake:
                self._running = None
                if self._closed:
                    return
                if process.exitcode != 0:
                    code = process.exitcode
                    self._ended_badly(folder, f"its batch process stopped (exit code {code})")

    def _ended_badly(self, folder: Path, reason: str) -> None:
        """A batch that ended without recording its end (killed, out of memory): failed."""
        state = _read_state(folder)
        if state is None or state.status not in ("queued", "running") or _locked(folder):
            return
        state.status, state.finished_at, state.reason = "failed", _now(), reason
        with contextlib.suppress(OSError):  # deleted meanwhile
            _write_state(folder, state)

    # queries

    def _folder(self, portfolio_id: str) -> Path:
        return self.root / portfolio_id

    def _states(self) -> list[PortfolioState]:
        if not self.root.is_dir():
            return []
        states = [_read_state(folder) for folder in sorted(self.root.iterdir())]
        return sorted(
            (s for s in states if s is not None), key=lambda s: s.created_at, reverse=True
        )

    def _own(self, portfolio_id: str, owner: str) -> PortfolioState:
        """The caller's portfolio, or 404 (an id of the wrong form builds no path)."""
        state = _read_state(self._folder(portfolio_id)) if _ID.match(portfolio_id) else None
        if state is None or state.owner != owner:
            raise HTTPException(404, f"no portfolio {portfolio_id}")
        return state

    def mine(self, owner: str) -> list[dict[str, Any]]:
        """The owner's portfolios, newest first."""
        return [s.summary() for s in self._states() if s.owner == owner]

    def get(self, portfolio_id: str, owner: str) -> dict[str, Any]:
        """One portfolio: its status and progress, and once complete its rows (per contract:
        file, status, error, duplicate of, counts by severity)."""
        state = self._own(portfolio_id, owner)
        data = state.summary()
        if state.status == "complete":
            path = self._folder(portfolio_id) / _ROWS
            data["rows"] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
        return data

    def download(self, portfolio_id: str, owner: str, name: str) -> Path:
        """A complete portfolio's `portfolio.xlsx` or `portfolio.json` (409 before)."""
        state = self._own(portfolio_id, owner)
        if state.status != "complete":
            raise HTTPException(
                409, f"the portfolio is {state.status} ({state.done}/{state.total} contracts)"
            )
        path = self._folder(portfolio_id) / "out" / name
        if name not in DOWNLOADS or not path.is_file():
            raise HTTPException(404, f"no {name} for portfolio {portfolio_id}")
        return path

    # changes

    async def create(
        self,
        owner: str,
        uploads: list[UploadFile],
        party: str,
        domain: str,
        inventory_only: bool,
    ) -> dict[str, Any]:
        """Store the uploads (zips unpacked safely) as a new portfolio and queue its batch;
        422 for a bad domain, party or zip, 415 for a file type the engine does not read,
        413 for a file too large, 503 when too many portfolios wait. A refused upload keeps
        nothing."""
        if domain not in SUBTYPES:
            raise HTTPException(422, f"domain must be one of {', '.join(SUBTYPES)}")
        party = party.strip()
        if not party:
            raise HTTPException(422, "party: name whom the review acts for (or 'neutral')")
        files = [(_check_type(u), u.file) for u in uploads if u.filename]
        if not files:
            raise HTTPException(422, "files: upload contracts or .zip archives")
        with self._wake:
            if len(self._waiting) >= self.settings.web_queue_limit:
                raise HTTPException(503, "too many portfolios waiting; try again later")
        portfolio_id = new_task_id()
        folder = self._folder(portfolio_id)
        folder.mkdir(parents=True)
        try:
            stored, ignored = await asyncio.to_thread(_store, files, folder / "in", self.settings)
            state = PortfolioState(
                portfolio_id=portfolio_id,
                owner=owner,
                created_at=_now(),
                party=party,
                domain=domain,
                inventory_only=inventory_only,
                total=stored,
                ignored=ignored,
            )
            _write_state(folder, state)  # last: a folder without it is an upload cut short
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        with self._wake:
            self._waiting.append(portfolio_id)
            self._wake.notify_all()
        return state.summary()

    def delete(self, portfolio_id: str, owner: str) -> None:
        """Remove a portfolio that is not running: its uploads, outputs and state (409 while
        its batch runs; a queued one leaves the queue)."""
        state = self._own(portfolio_id, owner)
        folder = self._folder(portfolio_id)
        with self._wake:
            started = self._running is not None and self._running[0] == portfolio_id
            if state.status not in ("complete", "failed") and (started or _locked(folder)):
                raise HTTPException(409, "the portfolio is running; delete it once it ends")
            if portfolio_id in self._waiting:
                self._waiting.remove(portfolio_id)
            shutil.rmtree(folder, ignore_errors=True)
