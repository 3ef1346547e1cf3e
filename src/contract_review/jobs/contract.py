"""One contract of a batch, reviewed in the process that runs it (a local worker process or a
Celery worker): every redline left pending, or only its clause inventory; the result is the
contract's portfolio row as JSON.

A contract's review keeps its task beside its outputs, so a run cut short (a killed worker, a
second delivery) carries on the task it started, from its checkpoint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contract_review.config import Settings
from contract_review.errors import InputError, one_line
from contract_review.tasks import ReviewOptions

__all__ = ["review_one"]


def _contract_settings(settings: Settings, out: Path) -> Settings:
    """A contract's review keeps its task (and, without PostgreSQL, its checkpoints) beside
    its outputs: the contracts of a batch share no database file, so workers never wait on
    each other's writes, and a contract's folder holds all of it."""
    return settings.model_copy(update={"state_dir": out / ".state"})


def _earlier_task(party: str, settings: Settings) -> Any:
    """The task an earlier run (or a delivery cut short) made for this contract and party."""
    from contract_review.tasks import list_tasks

    for manifest in list_tasks(settings):
        if manifest.options.party == party:
            return manifest
    return None


async def _review(review: ReviewOptions, settings: Settings) -> Any:
    """Start the contract's review, or carry on the one a killed worker left (from its
    checkpoint), or take the one already finished."""
    from contract_review.review import resume_review, start_review
    from contract_review.tasks import take_over

    earlier = _earlier_task(review.party, settings)
    if earlier is None:
        return await start_review(review, settings=settings)
    if earlier.waiting or earlier.status == "complete":
        return earlier
    take_over(earlier, settings)  # one run per contract (the pool, or the queue's lock)
    return await resume_review(earlier.task_id, settings=settings)


def review_one(
    file: str, aliases: list[str], options: dict[str, Any], out: str, settings: Settings
) -> dict[str, Any]:
    """Review one contract (in a worker process) and return its portfolio row (JSON)."""
    import asyncio

    from contract_review.exports.issues import as_rows, build_view
    from contract_review.models import ReviewResult
    from contract_review.parties import PartyNotFound
    from contract_review.review import review_positions

    row: dict[str, Any] = {"status": "error"}
    if options.get("inventory_only"):
        return _inventory_row(Path(file), options["domain"])
    own = _contract_settings(settings, Path(out))
    last_error = ""
    for alias in aliases:
        review = ReviewOptions(
            file=Path(file),
            domain=options["domain"],
            party=alias,
            criteria=Path(options["criteria"]) if options.get("criteria") else None,
            approve="none",
            out=Path(out),
        )
        try:
            manifest = asyncio.run(_review(review, own))
        except PartyNotFound as exc:
            last_error = one_line(exc)
            continue
        except InputError as exc:
            return {"status": "error", "error": one_line(exc)}
        result = ReviewResult.model_validate_json((Path(out) / "findings.json").read_bytes())
        view = build_view(result, review_positions(review))
        rows = as_rows(view)
        inventory = {
            e.category: e.value or ("yes" if e.present else "")
            for e in (result.inventory.entries if result.inventory else [])
        }
        parties = inventory.get("Parties", "")
        return {
            "status": "done",
            "party": alias,
            "parties": [p.strip() for p in parties.split(";") if p.strip()],
            "kind": result.contract_kinds[0].kind if result.contract_kinds else "",
            "inventory": inventory,
            "counts": dict(view.counts),
            "top": [f"{i.clause_id or '—'} {i.title} ({i.level.value})" for i in view.top[:3]],
            "issues": rows,
            "outputs": str(Path(out)),
            "task": manifest.task_id,
        }
    row["error"] = last_error or "no party of the contract matches --party"
    return row


def _inventory_row(path: Path, domain: str) -> dict[str, Any]:
    from contract_review.analysis.kinds import detect_kinds
    from contract_review.documents import load_task_document
    from contract_review.models import DocumentRole
    from contract_review.plugins import load_builtin_plugins
    from contract_review.plugins.registry import require_plugin

    load_builtin_plugins()
    plugin = require_plugin(domain)
    try:
        doc = load_task_document(path, DocumentRole.PRIMARY, parser_config=plugin.parser_config)
    except InputError as exc:
        return {"status": "error", "error": one_line(exc)}
    if doc.structure is None or plugin.build_inventory is None:
        return {"status": "error", "error": "no clause inventory for this domain"}
    inventory = plugin.build_inventory(doc.structure)
    values = {e.category: e.value or ("yes" if e.present else "") for e in inventory.entries}
    parties = values.get("Parties", "")
    kinds = detect_kinds(doc.structure)
    return {
        "status": "done",
        "kind": kinds[0].kind if kinds else "",
        "inventory": values,
        "parties": [p.strip() for p in parties.split(";") if p.strip()],
    }
