"""The portfolio routes: many contracts (or zips of them) as one batch into one workbook. The
work itself is `contract_review.web.portfolios.Portfolios`'; these only speak HTTP."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Response, UploadFile
from fastapi.responses import FileResponse

from contract_review.web.deps import KeyDep, PortfoliosDep

__all__ = [
    "new_portfolio",
    "portfolio",
    "portfolio_delete",
    "portfolio_json",
    "portfolio_list",
    "portfolio_xlsx",
    "router",
]

router = APIRouter()


@router.post("/api/portfolios", status_code=202)
async def new_portfolio(
    who: KeyDep,
    portfolios: PortfoliosDep,
    files: Annotated[
        list[UploadFile],
        File(description="Contracts (.docx, .pdf, .txt, .md) and/or .zip archives of them."),
    ],
    party: Annotated[
        str, Form(description="Whom we act for: a name, a role, aliases 'A|B', or neutral.")
    ] = "neutral",
    domain: Annotated[str, Form(description="generic, fidic or sha_spa.")] = "generic",
    inventory_only: Annotated[
        bool, Form(description="Read only each contract's clause inventory (no risks).")
    ] = False,
) -> dict[str, Any]:
    """Upload a portfolio (zips unpacked safely) and start its batch review."""
    return await portfolios.create(who, files, party, domain, inventory_only)


@router.get("/api/portfolios")
async def portfolio_list(who: KeyDep, portfolios: PortfoliosDep) -> list[dict[str, Any]]:
    """The caller's portfolios, newest first."""
    return await asyncio.to_thread(portfolios.mine, who)


@router.get("/api/portfolios/{portfolio_id}")
async def portfolio(portfolio_id: str, who: KeyDep, portfolios: PortfoliosDep) -> dict[str, Any]:
    """Where a portfolio stands: status, done/total; once complete, a row per contract."""
    return await asyncio.to_thread(portfolios.get, portfolio_id, who)


@router.get("/api/portfolios/{portfolio_id}/portfolio.xlsx")
async def portfolio_xlsx(portfolio_id: str, who: KeyDep, portfolios: PortfoliosDep) -> FileResponse:
    """The portfolio's workbook (409 until it is complete)."""
    path = portfolios.download(portfolio_id, who, "portfolio.xlsx")
    return FileResponse(path, filename=path.name)


@router.get("/api/portfolios/{portfolio_id}/portfolio.json")
async def portfolio_json(portfolio_id: str, who: KeyDep, portfolios: PortfoliosDep) -> FileResponse:
    """The portfolio's rows as JSON (409 until it is complete)."""
    path = portfolios.download(portfolio_id, who, "portfolio.json")
    return FileResponse(path, filename=path.name)


@router.delete("/api/portfolios/{portfolio_id}", status_code=204)
async def portfolio_delete(portfolio_id: str, who: KeyDep, portfolios: PortfoliosDep) -> Response:
    """Remove a portfolio that is not running: uploads, outputs, state."""
    await asyncio.to_thread(portfolios.delete, portfolio_id, who)
    return Response(status_code=204)
