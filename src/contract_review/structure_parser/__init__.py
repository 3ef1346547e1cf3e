"""StructureParser: document text → DocumentStructure (clause tree, definitions, references).

Every clause carries offsets into the text it was parsed from, so that
`text[clause.start_offset:clause.end_offset] == clause.text` and quotes, skills and redlines
can all point back at exact characters.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contract_review.models import (
    ClauseKind,
    ClauseNode,
    CrossReference,
    DefinedTerm,
    DocumentStructure,
)
from contract_review.text import HAN

from ._definitions import find_definitions
from ._tree import Node, TreeBuilder, find_candidates, find_toc_ranges
from ._xrefs import find_references

__all__ = ["DocumentParserConfig", "StructureParser", "detect_language"]

_CJK = HAN
_NOT_LETTERS = bytes(b for b in range(256) if not chr(b).isascii() or not chr(b).isalpha())


class DocumentParserConfig(BaseModel):
    """How to parse one kind of document; a domain plugin may pass its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    structure_type: str = Field("generic", description="Name of the profile: 'generic', 'fidic'.")
    language: Literal["auto", "en", "zh-CN"] = Field("auto", description="Document language.")
    parse_items: bool = Field(True, description="Make (a)/(i)/（一） list items clauses.")
    max_depth: int = Field(6, ge=1, le=12, description="Deepest clause level kept.")
    detect_toc: bool = Field(True, description="Skip numbers inside a table of contents.")


def detect_language(text: str) -> Literal["en", "zh-CN"]:
    """'zh-CN' when Chinese characters make up a fair share of the letters, else 'en'."""
    sample = text[:30_000]
    cjk = len(_CJK.findall(sample))
    latin = len(sample.encode("ascii", "ignore").translate(None, _NOT_LETTERS))
    return "zh-CN" if cjk and cjk * 3 >= latin else "en"


class StructureParser:
    """Parses normalised document text into a `DocumentStructure`."""

    def __init__(self, config: DocumentParserConfig | None = None) -> None:
        self.config = config or DocumentParserConfig()

    def parse(self, text: str, document_id: str = "document") -> DocumentStructure:
        """The structure of `text`; offsets index into `text` exactly as given."""
        language = detect_language(text) if self.config.language == "auto" else self.config.language
        candidates = find_candidates(text)
        toc = find_toc_ranges(text, candidates) if self.config.detect_toc else []
        builder = TreeBuilder(text, max_depth=self.config.max_depth)
        ti = 0
        for cand in candidates:
            start = cand.token.start
            while ti < len(toc) and toc[ti][1] <= start:
                ti += 1
            if ti < len(toc) and toc[ti][0] <= start < toc[ti][1]:
                continue
            if not self.config.parse_items and cand.token.kind is ClauseKind.ITEM:
                continue
            builder.add(cand)
        roots = builder.finish()
        clauses = [_to_model(n, text) for n in roots]
        clauses = _with_preamble(clauses, text)
        structure = DocumentStructure(
            document_id=document_id,
            structure_type=self.config.structure_type,
            language=language,
            clauses=clauses,
            total_clauses=0,
            text_length=len(text),
            toc_ranges=toc,
        )
        structure.total_clauses = sum(1 for _ in structure.iter_clauses())
        heading_starts = {n.start for n in builder.order} | {
            _number_start(n, text) for n in builder.order
        }
        structure.definitions = _definitions(structure, text)
        structure.cross_references = _references(structure, text, heading_starts)
        return structure


def _number_start(node: Node, text: str) -> int:
    p = node.start
    while p < len(text) and text[p] in "#*_ \t":
        p += 1
    return p


def _to_model(node: Node, text: str) -> ClauseNode:
    return ClauseNode(
        clause_id=node.clause_id,
        number=node.number,
        title=node.title,
        text=text[node.start : node.end],
        level=node.depth,
        kind=node.kind,
        start_offset=node.start,
        end_offset=node.end,
        body_offset=node.body,
        parent_id=node.parent.clause_id if node.parent and node.parent.clause_id else None,
        children=[_to_model(c, text) for c in node.children],
    )


def _with_preamble(clauses: list[ClauseNode], text: str) -> list[ClauseNode]:
    """Text before the first clause becomes a 'preamble' node (or 'body' if nothing is numbered)."""
    first = clauses[0].start_offset if clauses else len(text)
    start = 0
    while start < first and text[start].isspace():
        start += 1
    end = first
    while end > start and text[end - 1].isspace():
        end -= 1
    if end <= start:
        return clauses
    cid = "preamble" if clauses else "body"
    pre = ClauseNode(
        clause_id=cid,
        number="",
        title="",
        text=text[start:end],
        level=1,
        kind=ClauseKind.PREAMBLE,
        start_offset=start,
        end_offset=end,
        body_offset=start,
    )
    return [pre, *clauses]


def _definitions(structure: DocumentStructure, text: str) -> dict[str, DefinedTerm]:
    out: dict[str, DefinedTerm] = {}
    for d in find_definitions(text):
        if d.term in out:
            continue  # the first definition wins; later ones are usually references back
        clause = structure.clause_at(d.start_offset)
        out[d.term] = d.model_copy(update={"clause_id": clause.clause_id if clause else None})
    return out


def _references(
    structure: DocumentStructure, text: str, heading_starts: set[int]
) -> list[CrossReference]:
    refs: list[CrossReference] = []
    for raw in find_references(text, heading_starts):
        if any(s <= raw.start < e for s, e in structure.toc_ranges):
            continue
        source = structure.clause_at(raw.start)
        refs.append(
            CrossReference(
                source_clause_id=source.clause_id if source else None,
                target_clause_id=raw.target,
                reference_text=raw.text,
                start_offset=raw.start,
                end_offset=raw.end,
                is_valid=_exists(structure, raw.target),
            )
        )
    refs.sort(key=lambda r: r.start_offset)
    return refs


_ITEM_SUFFIX = re.compile(r"^(?P<base>[^()]+)(?P<items>(?:\([^()]+\))+)$")


def _exists(structure: DocumentStructure, target: str) -> bool:
    if structure.get_clause(target) is not None:
        return True
    m = _ITEM_SUFFIX.match(target)
    if m:
        # "Section 3(b)" is valid when clause 3 exists and has a (b) in its text.
        base = structure.get_clause(m.group("base"))
        if base is not None:
            last = re.findall(r"\([^()]+\)", m.group("items"))[-1]
            own_end = base.children[0].start_offset if base.children else base.end_offset
            return last in base.text[: own_end - base.start_offset]
    return False
