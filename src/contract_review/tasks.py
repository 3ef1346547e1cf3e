"""Review tasks on disk: what the user asked for (the manifest) and where each task stands.

Light on purpose (no LangGraph, no document libraries): `contract-review status` and `list`
read manifests without loading the engine.

A task is `queued` while it waits for a worker (web), `running` while a process works on it, `interrupted` when it stopped before the end
(stopped by the user, waiting for decisions, or its process is gone), `failed` with the reason
when something broke (its outputs could not be written, say), and `complete` once every output
is in place. Only `complete` tasks have outputs; all others can be resumed.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import socket
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from contract_review.config import Settings, get_settings
from contract_review.domains import check_domain
from contract_review.errors import InputError, one_line
from contract_review.fileio import write_atomic
from contract_review.models import TokenUsage

__all__ = [
    "ClauseStamp",
    "OutputLock",
    "ReviewOptions",
    "TaskCounts",
    "TaskManifest",
    "TaskStatus",
    "check_output_folder",
    "file_digest",
    "input_digests",
    "list_tasks",
    "load_manifest",
    "new_task_id",
    "save_manifest",
]

Approval = Literal["interactive", "all", "none"]
TaskStatus = Literal["queued", "running", "interrupted", "failed", "complete"]
"""Where a task stands (see the module docstring)."""


class ReviewOptions(BaseModel):
    """What the user asked for (the task manifest)."""

    file: Path = Field(description="The contract.")
    domain: str = Field("generic", description="generic, fidic or sha_spa.")
    subtype: str | None = Field(None, description="Domain subtype.")
    party: str = Field("", description="The party we act for.")
    language: Literal["auto", "en", "zh-CN"] = Field("auto", description="Contract language.")
    baseline: Path | None = Field(None, description="Baseline document.")
    supplement: Path | None = Field(None, description="Supplement (e.g. Particular Conditions).")
    references: list[Path] = Field(default_factory=list, description="Reference documents.")
    criteria: Path | None = Field(None, description="Review playbook.")
    approve: Approval = Field("interactive", description="Approval policy.")
    out: Path = Field(Path("out"), description="Output folder.")
    author: str | None = Field(
        None, description="Name on the Word file's changes and comments (default: settings)."
    )
    comments: Literal["all", "medium", "high"] = Field(
        "medium", description="Issues with a Word comment: all, medium and high, or high only."
    )
    kind: str | None = Field(
        None, description="The contract's kind as the user gave it (--kind); None: detected."
    )

    def check(self) -> None:
        """An InputError naming the first option that cannot work — a missing file, a
        subtype of another domain, an output folder that is a file or cannot be written —
        before any document is read (and so before any work is done)."""
        named = [("contract", self.file), ("--baseline", self.baseline)]
        named += [("--supplement", self.supplement), ("--criteria", self.criteria)]
        named += [("--reference", path) for path in self.references]
        for option, path in named:
            if path is not None and not path.is_file():
                what = "is a folder, not a file" if path.is_dir() else "file not found"
                raise InputError(f"{option} {path}: {what}")
        check_domain(self.domain, self.subtype)
        if self.kind is not None:
            from contract_review.analysis.kinds import check_kind  # the kind table: only now

            check_kind(self.kind)
        check_output_folder(self.out)


def check_output_folder(folder: Path) -> None:
    """An InputError unless `folder` is a folder we can write files into, or could be made
    one (nothing is created here: a review that stops before any work leaves no trace)."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder} is a file, not a folder")
    if folder.is_dir():
        try:
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as exc:
            raise InputError(f"--out {folder}: cannot write there ({exc.strerror})") from None
        return
    parent = folder.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"--out {folder}: cannot write there ({parent} is a file)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out {folder}: cannot write there (no permission in {parent})")


class ClauseStamp(BaseModel):
    """A clause as reviewed: a hash of its text and where it started."""

    digest: str = Field(description="SHA-256 of the clause's text.")
    start: int = Field(description="Offset of the clause in the document text.")


class TaskCounts(BaseModel):
    """How far a task got: clauses reviewed, and its redlines by decision."""

    clauses_done: int = Field(0, description="Checklist items reviewed so far.")
    clauses_total: int = Field(0, description="Checklist items to review.")
    pending: int = Field(0, description="Redlines waiting for a decision.")
    approved: int = Field(0, description="Redlines approved (as proposed or edited).")
    rejected: int = Field(0, description="Redlines rejected.")

    def describe(self) -> str:
        """One line for people: '12/12 clauses, redlines: 3 pending, 2 approved, 1 rejected'."""
        return (
            f"{self.clauses_done}/{self.clauses_total} clauses, redlines: {self.pending} "
            f"pending, {self.approved} approved, {self.rejected} rejected"
        )


class TaskManifest(BaseModel):
    """A task on disk."""

    task_id: str = Field(description="The task's id (also its checkpoint thread).")
    created_at: str = Field(description="When the task was started (ISO 8601, UTC).")
    options: ReviewOptions = Field(description="What the user asked for.")
    status: TaskStatus = Field("running", description="As last recorded by its process.")
    owner: str | None = Field(
        None, description="The API key name that created the task (web); None from the CLI."
    )
    reason: str | None = Field(None, description="Why the task failed or was interrupted.")
    pid: int | None = Field(None, description="The process running the task, while it runs.")
    host: str | None = Field(None, description="The machine of that process.")
    process_start: str | None = Field(
        None, description="When that process started (tells a reused pid from ours)."
    )
    inputs: dict[str, str] = Field(
        default_factory=dict,
        description="SHA-256 of every input file (contract, other documents, playbook) by "
        "path, as read when the task started: resume refuses changed inputs.",
    )
    clauses: dict[str, ClauseStamp] = Field(
        default_factory=dict,
        description="Each clause as reviewed, by clause id: tells which clauses changed when "
        "a task is restarted on an edited contract.",
    )
    restarts: int = Field(0, description="Times the task was restarted on changed inputs.")
    stale_decisions: list[str] = Field(
        default_factory=list,
        description="Decisions the last restart could not keep (their words are gone).",
    )
    outputs: dict[str, str] = Field(default_factory=dict, description="Output files by kind.")
    counts: TaskCounts = Field(
        default_factory=TaskCounts, description="Clauses done and redlines by decision."
    )
    waiting: bool = Field(
        False, description="Whether the task stopped to wait for decisions on its redlines."
    )
    llm_usage: TokenUsage | None = Field(
        None, description="Model calls and tokens of all runs of the task so far."
    )

    @property
    def thread(self) -> str:
        """The checkpoint thread of the task's current run (a restart starts a new one)."""
        return self.task_id if not self.restarts else f"{self.task_id}.r{self.restarts}"

    def mark_running(self) -> None:
        """Record that this process now runs the task (no reason, no outputs yet)."""
        self.status, self.reason, self.outputs, self.waiting = "running", None, {}, False
        self.pid, self.host, self.process_start = _this_process()

    def current_status(self) -> TaskStatus:
        """The status, with a `running` task whose process is gone seen as `interrupted`."""
        if self.status == "running" and not _process_alive(self):
            return "interrupted"
        return self.status

    def describe_status(self) -> str:
        """The status with its reason, for people."""
        status = self.current_status()
        if status == "interrupted" and self.status == "running":
            return "interrupted (its process is gone; resume it)"
        return f"{status} ({self.reason})" if self.reason else status

    def next_step(self) -> str | None:
        """The command that carries the task on, or None when it is complete or running."""
        status = self.current_status()
        if status in ("complete", "running"):
            return None
        if self.waiting:
            return f"contract-review approve {self.task_id}"
        return f"contract-review resume {self.task_id}"


def _process_start(pid: int) -> str | None:
    """The start time of a process in clock ticks (Linux /proc), or None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def _this_process() -> tuple[int, str, str | None]:
    """pid, host and start time of the current process."""
    pid = os.getpid()
    return pid, socket.gethostname(), _process_start(pid)


def _process_alive(manifest: TaskManifest) -> bool:
    if manifest.pid is None:
        return False  # a manifest from before tasks recorded their process
    if manifest.host != socket.gethostname():
        return True  # another machine's task (a shared state folder): cannot tell, trust it
    try:
        os.kill(manifest.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    started = _process_start(manifest.pid)
    return manifest.process_start is None or started in (None, manifest.process_start)


def take_over(manifest: TaskManifest, settings: Settings) -> None:
    """Mark a task recorded as running as interrupted, so it can be resumed: for the queue,
    whose lock guarantees that no other process runs it (a worker on another machine that
    was lost cannot be asked whether it lives)."""
    if manifest.status == "running":
        manifest.status, manifest.reason, manifest.pid = "interrupted", "its worker was lost", None
        save_manifest(manifest, settings)


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def input_digests(options: ReviewOptions) -> dict[str, str]:
    """SHA-256 of every input file of a task, by path."""
    paths = [options.file, options.baseline, options.supplement, *options.references]
    paths.append(options.criteria)
    return {str(p): file_digest(p) for p in paths if p is not None and p.is_file()}


class OutputLock:
    """One task at a time writes into an output folder.

    An advisory lock (flock) on a file in the folder, held while the task runs: a second
    review into the folder stops at once, naming the task that holds it. The operating system
    drops the lock when its process dies, so a killed review never leaves the folder locked.
    """

    FILE = ".contract-review.lock"

    def __init__(self, folder: Path, task_id: str) -> None:
        self.folder = folder
        self.task_id = task_id
        self._fd: int | None = None

    def __enter__(self) -> OutputLock:
        if self.folder.exists() and not self.folder.is_dir():
            raise InputError(f"--out {self.folder} is a file, not a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.folder / self.FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"--out {self.folder}: cannot write ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another task"
            os.close(fd)
            raise InputError(
                f"--out {self.folder} is in use by review task {holder}, still running; "
                "wait for it or choose another folder"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, self.task_id.encode(), 0)
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def new_task_id() -> str:
    """A new task id: the UTC time it was made, then six random hex digits."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def _tasks_dir(settings: Settings) -> Path:
    return settings.state_dir / "tasks"


def save_manifest(manifest: TaskManifest, settings: Settings) -> None:
    """Write a task's manifest (created or updated) atomically: to a temporary file beside it,
    then renamed over it, so a crash mid-write never leaves a truncated manifest."""
    folder = _tasks_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / f"{manifest.task_id}.json", manifest.model_dump_json(indent=2))


def _read(path: Path) -> TaskManifest:
    """A manifest file, or an InputError saying which one cannot be read and why."""
    try:
        return TaskManifest.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        reason = f"{where}: {first['msg']}" if where else first["msg"]
        raise InputError(f"task manifest {path} cannot be read ({reason})") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"task manifest {path} cannot be read ({one_line(exc)})") from None


def load_manifest(task_id: str, settings: Settings | None = None) -> TaskManifest:
    """The manifest of a task, or an InputError naming the known tasks."""
    settings = settings or get_settings()
    path = _tasks_dir(settings) / f"{task_id}.json"
    if not path.is_file():
        raise InputError(f"no review task '{task_id}' in {settings.state_dir}")
    return _read(path)


def list_tasks(
    settings: Settings | None = None, problems: list[str] | None = None
) -> list[TaskManifest]:
    """All tasks, newest first. A manifest that cannot be read is left out (its error added to
    `problems` when given): one damaged file must not hide every other task."""
    settings = settings or get_settings()
    folder = _tasks_dir(settings)
    manifests = []
    for path in sorted(folder.glob("*.json")):
        try:
            manifests.append(_read(path))
        except InputError as exc:
            if problems is not None:
                problems.append(str(exc))
    return sorted(manifests, key=lambda m: m.created_at, reverse=True)
