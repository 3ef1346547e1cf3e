"""Review tasks on disk: what the user asked for (the manifest) and where each task stands.

Light on purpose (no LangGraph, no document libraries): `contract-review status` and `list`
read manifests without loading the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

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
    """Write a task's manifest (created or updated)."""
    folder = _tasks_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{manifest.task_id}.json").write_text(manifest.model_dump_json(indent=2))


def load_manifest(task_id: str, settings: Settings | None = None) -> TaskManifest:
    """The manifest of a task, or an InputError naming the known tasks."""
    settings = settings or get_settings()
    path = _tasks_dir(settings) / f"{task_id}.json"
    if not path.is_file():
        raise InputError(f"no review task '{task_id}' in {settings.state_dir}")
    return TaskManifest.model_validate_json(path.read_text())


def list_tasks(settings: Settings | None = None) -> list[TaskManifest]:
    """All tasks, newest first."""
    settings = settings or get_settings()
    folder = _tasks_dir(settings)
    manifests = [TaskManifest.model_validate_json(p.read_text()) for p in folder.glob("*.json")]
    return sorted(manifests, key=lambda m: m.created_at, reverse=True)
