"""Documents of running reviews, kept out of the graph state.

The state holds ids; branches look the parsed documents up here. A process that resumes a
review from its checkpoint registers the documents again before resuming (the documents are
re-read from the task's files), so nothing large is ever written to a checkpoint.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from contract_review.models import DocumentStructure, TaskDocument


@dataclass(frozen=True)
class TaskInputs:
    """The parsed documents of one review task."""

    documents: list[TaskDocument] = field(default_factory=list)
    primary: DocumentStructure | None = None


_lock = threading.Lock()
_tasks: dict[str, TaskInputs] = {}


def register(task_id: str, inputs: TaskInputs) -> None:
    """Make a task's documents available to its clause branches."""
    with _lock:
        _tasks[task_id] = inputs


def lookup(task_id: str) -> TaskInputs | None:
    """The documents registered for `task_id`, or None."""
    with _lock:
        return _tasks.get(task_id)


def forget(task_id: str) -> None:
    """Drop a finished task's documents."""
    with _lock:
        _tasks.pop(task_id, None)
