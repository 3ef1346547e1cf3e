"""Many contracts at once: `batch`, and the queue's `worker`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from contract_review.domains import Domain
from contract_review.errors import InputError

from ._common import _DOMAIN_HELP, _err, user_errors
from .live import _Progress


def batch(
    paths: Annotated[list[str], typer.Argument(help="Contracts: files, folders, globs.")],
    out: Annotated[Path, typer.Option(help="Output folder (portfolio.xlsx, per contract).")],
    party: Annotated[
        str,
        typer.Option(
            help="Whom we act for in every contract: a role (licensee, buyer, 甲方), aliases "
            "separated by '|', or neutral."
        ),
    ] = "neutral",
    parties: Annotated[
        Path | None, typer.Option(help="CSV of file, party: each contract's own party.")
    ] = None,
    domain: Annotated[Domain, typer.Option(help=_DOMAIN_HELP)] = Domain.GENERIC,
    criteria: Annotated[Path | None, typer.Option(help="Review playbook.")] = None,
    workers: Annotated[int, typer.Option(help="Local worker processes (0: one per core).")] = 0,
    inventory_only: Annotated[
        bool, typer.Option("--inventory-only", help="Only the clause inventory, no risk review.")
    ] = False,
    queue: Annotated[
        bool,
        typer.Option(
            "--queue",
            help="Send the contracts to Celery workers (contract-review worker) instead of "
            "local processes; needs CELERY_BROKER_URL and POSTGRES_URL.",
        ),
    ] = False,
) -> None:
    """Review many contracts into one workbook (portfolio.xlsx, portfolio.json); every redline
    is left pending. Run again, it skips the contracts already done."""
    from contract_review.batch import BatchOptions, run_batch

    with user_errors():
        if criteria is not None and not criteria.is_file():
            raise InputError(f"--criteria {criteria}: file not found")
        if queue:
            _warn_without_workers()
        options = BatchOptions(
            paths=paths,
            out=out,
            party=party,
            parties_file=parties,
            domain=domain.value,
            criteria=criteria,
            workers=workers,
            inventory_only=inventory_only,
            queue=queue,
        )
        with _Progress() as progress:
            rows = run_batch(options, progress=progress)
    done = sum(1 for r in rows if r.status == "done")
    errors = [r for r in rows if r.status == "error"]
    same = sum(1 for r in rows if r.status == "duplicate")
    _err.print(
        f"{len(rows)} contract(s): {done} reviewed, {same} duplicate(s), {len(errors)} error(s)",
        markup=False,
    )
    for row in errors:
        _err.print(f"  {row.file}: {row.error}", markup=False, soft_wrap=True)
    _err.print(f"  portfolio {out / 'portfolio.xlsx'}", markup=False)


def _warn_without_workers() -> None:
    """A queued batch with no worker listening would wait silently: say so (it still waits,
    a worker may be started later)."""
    from contract_review.config import get_settings
    from contract_review.jobs.celery_app import make_app, ping

    if not ping(make_app(get_settings())):
        _err.print(
            "warning: no worker answers on the queue yet; start one with `contract-review "
            "worker` (the contracts wait in the queue)",
            markup=False,
        )


def worker(
    concurrency: Annotated[
        int, typer.Option(help="Reviews run at the same time (pool processes; 0: one per core).")
    ] = 0,
    loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "warning",
) -> None:
    """Run queued reviews (batch --queue, the web app with a broker) on this machine: a Celery
    worker on CELERY_BROKER_URL, with checkpoints, locks and results in POSTGRES_URL."""
    import os

    from contract_review.config import get_settings

    with user_errors():
        from contract_review.jobs.celery_app import make_app

        if concurrency < 0:
            raise InputError("--concurrency must be 0 (one per core) or more")
        settings = get_settings()
        celery = make_app(settings)
        argv = [
            "worker",
            f"--concurrency={concurrency or os.cpu_count() or 1}",
            f"--loglevel={loglevel.upper()}",
            f"--queues={settings.celery_queue}",
            "--hostname=contract-review-%h-" + str(os.getpid()),
            "--without-gossip",
            "--without-mingle",
        ]
    celery.worker_main(argv)
