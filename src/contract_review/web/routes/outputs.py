"""A review's documents for download: the report, the redlines, the workbook."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

from contract_review.web.deps import ReviewDep

__all__ = ["output", "router"]

router = APIRouter()


@router.get("/api/reviews/{task_id}/outputs/{name}")
async def output(task_id: str, name: str, manifest: ReviewDep) -> FileResponse:
    """Download one output (report.html, redline.docx, clean.docx, issues-list.docx,
    findings.xlsx, report.md, findings.json)."""
    files = {Path(p).name: Path(p) for p in manifest.outputs.values()}
    if name not in files or not files[name].is_file():
        raise HTTPException(404, f"no output {name} for review {task_id}")
    return FileResponse(files[name], filename=name)
