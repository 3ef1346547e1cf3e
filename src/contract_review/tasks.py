"""Review tasks on disk: what the user asked for (the manifest) and where each task stands.

Light on purpose (no LangGraph, no document libraries): `contract-review status` and `list`
read manifests without loading the engine.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from contract_review.config import Settings, get_settings
from contract_review.errors import InputError
from contract_review.models import TokenUsage

__all__ = ["ReviewOptions", "TaskManifest", "list_tasks", "load_manifest", "save_manifest"]

Approval = Literal["interactive", "all", "none"]


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


class TaskManifest(BaseModel):
    """A task on disk."""

    task_id: str
    created_at: str
    options: ReviewOptions
    status: str = "running"
    outputs: dict[str, str] = Field(default_factory=dict)
    llm_usage: TokenUsage | None = Field(
        None, description="Model calls and tokens of all runs of the task so far."
    )


def _tasks_dir(settings: Settings) -> Path:
    return settings.state_dir / "tasks"


def save_manifest(manifest: TaskManifest, settings: Settings) -> None:
    """Write a task's manifest (created or updated) atomically: to a temporary file beside it,
    then renamed over it, so a crash mid-write never leaves a truncated manifest."""
    folder = _tasks_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{manifest.task_id}.json"
    with tempfile.NamedTemporaryFile(
        "w", dir=folder, prefix=f".{manifest.task_id}.", suffix=".tmp", delete=False
    ) as tmp:
        tmp.write(manifest.model_dump_json(indent=2))
        tmp.flush()
        os.fsync(tmp.fileno())
    os.replace(tmp.name, target)


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
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"task manifest {path} cannot be read ({reason})") from None


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
