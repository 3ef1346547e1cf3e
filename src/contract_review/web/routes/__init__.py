"""The web app's routes, one router per area; `create_app` includes them in `ROUTERS`' order
(the order of the OpenAPI schema and of `/docs`)."""

from __future__ import annotations

from fastapi import APIRouter

from contract_review.web.routes import health, outputs, pages, portfolios, reviews, session

__all__ = ["ROUTERS"]

ROUTERS: tuple[APIRouter, ...] = (
    health.router,
    session.router,
    reviews.router,
    outputs.router,
    portfolios.router,
    pages.router,
)
