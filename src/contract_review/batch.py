"""Portfolio review: many contracts in one run, into one workbook.

`run_batch` collects the contracts (files, folders walked without leaving them, globs),
reviews each in a local worker process, or on Celery workers with `queue` (`jobs.contract`:
every redline left pending, or only its clause inventory), and writes per-contract outputs
plus `portfolio.xlsx` (a row per contract, a sheet of every issue, a heat map contract × topic)
and `portfolio.json`. Identical files (same SHA-256) are reviewed once; a contract that cannot
be read, or where no party matches, is a row with its error and the batch goes on. The state of
the batch (`batch.jsonl` in the output folder) lets the same command, run again, skip the
contracts already done.
"""

from __future__ import annotations

import csv
import glob
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract_review.config import Settings, get_settings
from contract_review.errors import InputError, one_line
from contract_review.exports.portfolio import PortfolioRow
from contract_review.jobs.contract import review_one
from contract_review.tasks import file_digest

__all__ = ["BatchOptions", "batch_scope", "collect_files", "run_batch"]

CONTRACT_SUFFIXES = frozenset({".docx", ".pdf", ".txt", ".md"})
_OUT_OF_SCOPE = {".doc": "legacy .doc files are not read (save as .docx)"}


@dataclass
class BatchOptions:
    """What a batch reviews and how."""

    paths: list[str]
    out: Path
    party: str = "neutral"
    """A party name, a role, several aliases separated by '|' or ',', or 'neutral'."""
    parties_file: Path | None = None
    """CSV of file, party: a contract's own party (its file name or path)."""
    domain: str = "generic"
    criteria: Path | None = None
    workers: int = 0
    """Local worker processes (0: one per core)."""
    inventory_only: bool = False
    queue: bool = False
    """Send the contracts to Celery workers (`contract-review worker`) instead of local
    processes; needs CELERY_BROKER_URL and POSTGRES_URL."""


def collect_files(paths: Iterable[str]) -> list[Path]:
    """The contracts named by `paths` (files, folders walked recursively without following
    links out of them, glob patterns), sorted, each once."""
    found: dict[Path, None] = {}
    for raw in paths:
        matches = [Path(m) for m in sorted(glob.glob(raw, recursive=True))] or [Path(raw)]
        for path in matches:
            if path.is_dir():
                root = path.resolve()
                for folder, dirs, files in os.walk(path, followlinks=False):
                    dirs.sort()
                    for name in sorted(files):
                        candidate = Path(folder) / name
                        if candidate.resolve().is_relative_to(root):
                            found.setdefault(candidate, None)
            elif path.is_file():
                found.setdefault(path, None)
            else:
                raise InputError(f"{raw}: no such file or folder")
    return [p for p in found if p.suffix.lower() in CONTRACT_SUFFIXES | set(_OUT_OF_SCOPE)]


def _aliases(party: str) -> list[str]:
    return [p.strip() for p in re.split(r"[|,]", party) if p.strip()] or ["neutral"]


def _party_map(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    if not path.is_file():
        raise InputError(f"--parties {path}: file not found")
    rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    mapping = {}
    for n, row in enumerate(rows, 1):
        if len(row) < 2 or not row[0].strip():
            continue
        if n == 1 and row[0].strip().lower() in ("file", "path", "contract"):
            continue
        mapping[row[0].strip()] = row[1].strip()
    return mapping


def _slug(path: Path, digest: str) -> str:
    stem = re.sub(r"[^\w.-]+", "_", path.stem)[:60] or "contract"
    return f"{stem}-{digest[:8]}"


def run_batch(
    options: BatchOptions,
    *,
    settings: Settings | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[PortfolioRow]:
    """Review every contract of the batch (skipping those a previous run finished) and write
    the portfolio; returns its rows in file order."""
    settings = settings or get_settings()
    if options.queue:
        from contract_review.jobs.runs import require_queue

        require_queue(settings)  # before any file is read or folder made
    files = collect_files(options.paths)
    if not files:
        raise InputError("no contracts found (.docx, .pdf, .txt, .md)")
    parties = _party_map(options.parties_file)
    options.out.mkdir(parents=True, exist_ok=True)
    state_path = options.out / "batch.jsonl"
    previous = _finished(state_path)
    rows: list[PortfolioRow] = []
    first_of: dict[str, PortfolioRow] = {}
    todo: list[PortfolioRow] = []
    for path in files:
        digest = file_digest(path)
        row = PortfolioRow(file=str(path), sha256=digest)
        rows.append(row)
        reason = _OUT_OF_SCOPE.get(path.suffix.lower())
        if reason:
            row.status, row.error = "error", reason
            continue
        if digest in first_of:
            row.status, row.same_as = "duplicate", first_of[digest].file
            continue
        first_of[digest] = row
        done = previous.get(digest)
        if (
            done
            and done.get("status") == "done"
            and bool(options.inventory_only) == bool(done.get("inventory_only"))
        ):
            _fill(row, done)
            continue
        todo.append(row)
    shared = {
        "domain": options.domain,
        "criteria": str(options.criteria.resolve()) if options.criteria else None,
        "inventory_only": options.inventory_only,
    }
    # The largest contracts first: one started last would be the run's tail.
    todo.sort(key=lambda r: Path(r.file).stat().st_size, reverse=True)
    jobs = [
        _Job(
            row,
            _aliases(parties.get(Path(row.file).name) or parties.get(row.file) or options.party),
            str((options.out / _slug(Path(row.file), row.sha256)).resolve()),
        )
        for row in todo
    ]
    finished = len(rows) - len(todo)

    def finish(job: _Job, data: dict[str, Any]) -> None:
        nonlocal finished
        _fill(job.row, data)
        finished += 1
        if job.row.status == "done":
            _remember(state_path, job.row, options.inventory_only)
        if progress is not None:
            progress(finished, len(rows), job.row.file)

    if jobs and options.queue:
        _run_queued(jobs, shared, options, settings, finish)
    elif jobs:
        _run_local(jobs, shared, options.workers or os.cpu_count() or 1, settings, finish)
    for row in rows:
        if row.status == "duplicate":
            original = first_of[row.sha256]
            row.counts, row.parties = dict(original.counts), list(original.parties)
            row.kind = original.kind
    from contract_review.exports.portfolio import write_portfolio

    write_portfolio(rows, options.out)
    return rows


@dataclass
class _Job:
    row: PortfolioRow
    aliases: list[str]
    out: str


def _run_local(
    jobs: list[_Job],
    shared: dict[str, Any],
    workers: int,
    settings: Settings,
    finish: Callable[[_Job, dict[str, Any]], None],
) -> None:
    """Review the contracts in local worker processes (spawned: a clean interpreter each)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        futures = {
            pool.submit(review_one, j.row.file, j.aliases, shared, j.out, settings): j for j in jobs
        }
        for future in as_completed(futures):
            try:
                data = future.result()
            except Exception as exc:  # a crashed worker is that contract's error only
                data = {"status": "error", "error": one_line(exc)}
            finish(futures[future], data)


def batch_scope(options: BatchOptions) -> str:
    """The queue's name for a batch: its output folder and what every contract is asked
    (the same command run again is the same batch, so finished contracts are not redone)."""
    what = [
        str(options.out.resolve()),
        options.domain,
        str(options.criteria.resolve()) if options.criteria else "",
        "inventory" if options.inventory_only else "review",
    ]
    return "batch:" + hashlib.sha256("\0".join(what).encode()).hexdigest()[:24]


def _run_queued(
    jobs: list[_Job],
    shared: dict[str, Any],
    options: BatchOptions,
    settings: Settings,
    finish: Callable[[_Job, dict[str, Any]], None],
    poll_seconds: float = 0.25,
) -> None:
    """Send the contracts to the Celery workers and collect each row as it is recorded."""
    from contract_review.jobs.celery_app import BATCH_TASK, make_app
    from contract_review.jobs.runs import RunStore, require_queue

    _, url = require_queue(settings)
    scope = batch_scope(options)
    keys = {f"{j.row.sha256}:{'|'.join(j.aliases)}": j for j in jobs}
    app = make_app(settings)
    with RunStore(url) as store:
        store.expect(scope, list(keys))
        store.retry_failed(scope, list(keys))
        waiting = dict(keys)
        for key, ready in store.results(scope, list(keys)).items():
            finish(waiting.pop(key), ready)
        for key, job in waiting.items():
            app.send_task(
                BATCH_TASK,
                args=[scope, key, str(Path(job.row.file).resolve()), job.aliases, shared, job.out],
                queue=settings.celery_queue,
            )
        while waiting:
            time.sleep(poll_seconds)
            for key, ready in store.results(scope, list(waiting)).items():
                finish(waiting.pop(key), ready)


def _fill(row: PortfolioRow, data: dict[str, Any]) -> None:
    row.status = str(data.get("status", "error"))
    row.error = str(data.get("error", ""))
    row.party = str(data.get("party", ""))
    row.parties = list(data.get("parties", []))
    row.kind = str(data.get("kind", ""))
    row.inventory = dict(data.get("inventory", {}))
    row.counts = dict(data.get("counts", {}))
    row.top = list(data.get("top", []))
    row.issues = list(data.get("issues", []))
    row.outputs = str(data.get("outputs", ""))


def _finished(path: Path) -> dict[str, dict[str, Any]]:
    """The contracts a previous run finished, by SHA-256 (a line cut short by a crash is
    skipped: that contract is reviewed again)."""
    if not path.is_file():
        return {}
    done: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        done[row["sha256"]] = row
    return done


def _remember(path: Path, row: PortfolioRow, inventory_only: bool) -> None:
    """Append a finished contract to the batch's state (one line each: appending stays
    cheap however many contracts the batch holds)."""
    line = json.dumps({**row.__dict__, "inventory_only": inventory_only}, ensure_ascii=False)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
