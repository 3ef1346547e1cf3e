"""The reviews kept in this folder: `status`, `list` and `transcript`."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from contract_review.errors import InputError

from ._common import _err, user_errors
from .live import _report_task


def status(task_id: Annotated[str, typer.Argument(help="Task id.")]) -> None:
    """Where a review stands: status, clauses done, redlines by decision, outputs, next step."""
    from contract_review.tasks import load_manifest

    with user_errors():
        manifest = load_manifest(task_id)
    _report_task(manifest)


def list_reviews() -> None:
    """The reviews run from this folder, newest first, with how far each got."""
    from contract_review.tasks import list_tasks

    problems: list[str] = []
    for m in list_tasks(problems=problems):
        step = m.next_step()
        sys.stdout.write(
            f"{m.task_id}  {m.current_status():11s} {m.counts.describe()}  {m.options.file}"
            f"{f'  → {step}' if step else ''}\n"
        )
    for problem in problems:
        _err.print(f"warning: {problem}", markup=False, highlight=False, soft_wrap=True)


def transcript(
    task_id: Annotated[str, typer.Argument(help="Task id.")],
    clause: Annotated[
        str | None,
        typer.Argument(help="Clause id ('(plan)' for the review's plan); none: a summary."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The stored JSON lines.")] = False,
) -> None:
    """What the model was shown and answered (audit): per clause, every message, tool call
    with its arguments and result, the final answer, time and tokens."""
    from contract_review.tasks import load_manifest
    from contract_review.transcripts import read_transcripts, summary

    with user_errors():
        load_manifest(task_id)  # an unknown task is an error, not an empty transcript
        entries = read_transcripts(task_id, clause=clause)
        if clause is not None and not entries:
            raise InputError(f"no transcript of clause {clause} in task {task_id}")
    if as_json:
        for entry in entries:
            sys.stdout.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return
    if clause is None:
        if not entries:
            sys.stdout.write("no transcripts (the review ran without a model)\n")
        for row in summary(entries):
            sys.stdout.write(
                f"{row['clause_id']:>10}  {row['runs']} run(s)  {row['rounds']} round(s)  "
                f"{row['tool_calls']} tool call(s)  {row['prompt_tokens']}+"
                f"{row['completion_tokens']} tokens  {row['seconds']:.1f} s  "
                f"{row['stop_reason']}\n"
            )
        return
    for entry in entries:
        _print_transcript(entry)


def _print_transcript(entry: dict[str, Any]) -> None:
    tokens = entry.get("tokens") or {}
    sys.stdout.write(
        f"== clause {entry.get('clause_id')}  {entry.get('ended_at', '')}  "
        f"model {entry.get('model', '?')}  {entry.get('stop_reason', '')}  "
        f"{entry.get('elapsed_seconds', 0)} s  "
        f"{tokens.get('prompt', 0)}+{tokens.get('completion', 0)} tokens\n"
    )
    for message in entry.get("messages") or []:
        role = str(message.get("role", "?"))
        content = str(message.get("content") or "")
        calls = message.get("tool_calls") or []
        if content:
            sys.stdout.write(f"-- {role}\n{content}\n")
        for call in calls:
            function = call.get("function") or {}
            sys.stdout.write(
                f"-- {role} calls {function.get('name', '?')}({function.get('arguments', '')})\n"
            )
