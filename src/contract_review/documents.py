"""Task documents: a file read (intake) and parsed (structure) in one step."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from contract_review.config import Settings
from contract_review.intake import load_document
from contract_review.models import DocumentRole, TaskDocument
from contract_review.structure_parser import DocumentParserConfig, StructureParser


def load_task_document(
    path: Path | str,
    role: DocumentRole,
    *,
    document_id: str | None = None,
    parser_config: DocumentParserConfig | None = None,
    settings: Settings | None = None,
) -> TaskDocument:
    """Read and parse one file of a review task."""
    path = Path(path)
    content = load_document(path, settings)
    doc_id = document_id or f"{role.value}:{path.stem}"
    structure = StructureParser(parser_config).parse(content.text, document_id=doc_id)
    return TaskDocument(
        document_id=doc_id, role=role, filename=path.name, content=content, structure=structure
    )


def load_task_documents(
    primary: Path,
    *,
    baseline: Path | None = None,
    supplement: Path | None = None,
    references: Sequence[Path] = (),
    parser_config: DocumentParserConfig | None = None,
    settings: Settings | None = None,
) -> list[TaskDocument]:
    """The documents of a task, primary first; references are parsed generically."""

    def load(path: Path, role: DocumentRole, config: DocumentParserConfig | None) -> TaskDocument:
        return load_task_document(path, role, parser_config=config, settings=settings)

    docs = [load(primary, DocumentRole.PRIMARY, parser_config)]
    if baseline is not None:
        docs.append(load(baseline, DocumentRole.BASELINE, parser_config))
    if supplement is not None:
        docs.append(load(supplement, DocumentRole.SUPPLEMENT, parser_config))
    docs.extend(load(p, DocumentRole.REFERENCE, None) for p in references)
    return docs
