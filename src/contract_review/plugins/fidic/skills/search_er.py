"""fidic_search_er: what the Employer's Requirements say about a clause's subject.

Retrieval over the review's reference documents (role REFERENCE: Employer's Requirements,
specifications, 发包人要求) with the index, tokenisation and ranking of `analysis.reference`.
The default query is the clause's subject — its heading (or its article's heading) and the start
of its text — expanded with what an Employer's Requirements document calls the same thing in a
FIDIC project: design → design criteria / specifications, performance → performance guarantees /
tests on completion, site → site data / geotechnical / sub-surface, 设计 → 设计标准 / 技术要求…
"""

from __future__ import annotations

import re

from pydantic import Field

from contract_review.analysis.reference import (
    ReferenceSearch,
    search_references,
    searchable_documents,
)
from contract_review.errors import SkillError
from contract_review.models import ClauseNode, DocumentStructure, TaskDocument
from contract_review.skills.context import StructureInput, require_clause
from contract_review.skills.schema import SkillBackend, SkillRegistration
from contract_review.skills.state import input_preparer

__all__ = [
    "FIDIC_TOPICS",
    "REGISTRATION",
    "SKILL_ID",
    "SearchErInput",
    "SearchErOutput",
    "handle",
    "prepare_input",
    "topic_expansion",
]

SKILL_ID = "fidic_search_er"
_SUBJECT_CHARS = 400

FIDIC_TOPICS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "design": (
        ("design", "设计"),
        ("design criteria", "design standards", "specifications", "设计标准", "技术要求"),
    ),
    "performance": (
        (
            "performance",
            "fitness for purpose",
            "fit for purpose",
            "fit for the purpose",
            "性能",
            "功能",
        ),
        (
            "performance guarantees",
            "guaranteed performance",
            "tests on completion",
            "性能保证",
            "竣工试验",
            "性能指标",
        ),
    ),
    "site": (
        ("site", "physical conditions", "ground", "现场", "场地", "地质", "地下"),
        (
            "site data",
            "geotechnical",
            "sub-surface",
            "ground conditions",
            "现场数据",
            "地质勘察",
            "地下设施",
        ),
    ),
    "testing": (
        ("test", "tests", "testing", "commissioning", "试验", "检验", "调试"),
        ("tests on completion", "test procedures", "commissioning", "竣工试验", "试验程序"),
    ),
    "programme": (
        ("programme", "time for completion", "milestone", "进度", "工期", "里程碑"),
        ("programme", "milestones", "time for completion", "进度计划", "里程碑", "工期要求"),
    ),
    "quality": (
        ("quality", "workmanship", "materials", "质量", "材料"),
        ("quality assurance", "materials and workmanship", "质量标准", "技术要求", "材料要求"),
    ),
    "safety": (
        ("safety", "health", "environment", "安全", "环境", "文明施工"),
        ("health and safety", "environmental protection", "安全文明施工", "环境保护"),
    ),
    "documents": (
        ("contractor's documents", "drawings", "as-built", "manuals", "图纸", "竣工资料"),
        ("contractor's documents", "drawings", "as-built drawings", "设计文件", "竣工图"),
    ),
}
"""Topic → (words of a contract clause that signal it, what the ER calls it)."""

_EN_WORD_CACHE: dict[str, re.Pattern[str]] = {}


def _has(text: str, word: str) -> bool:
    if not word.isascii():
        return word in text
    pattern = _EN_WORD_CACHE.get(word)
    if pattern is None:
        pattern = re.compile(rf"(?<![a-z]){re.escape(word)}(?:s|es)?(?![a-z])")
        _EN_WORD_CACHE[word] = pattern
    return pattern.search(text) is not None


def topic_expansion(subject: str) -> tuple[list[str], list[str]]:
    """(topics, expansion terms) of a clause subject, English and Chinese; the expansion terms
    are in the subject's language(s)."""
    low = subject.lower()
    cjk = not subject.isascii()
    latin = re.search(r"[a-z]", low) is not None
    topics: list[str] = []
    terms: list[str] = []
    for topic, (signals, expansions) in FIDIC_TOPICS.items():
        if any(_has(low, w) for w in signals):
            topics.append(topic)
            terms += [t for t in expansions if (t.isascii() and latin) or (not t.isascii() and cjk)]
    return topics, list(dict.fromkeys(terms))


class SearchErInput(StructureInput):
    """Input of fidic_search_er."""

    clause_id: str = Field(description="Contract clause whose subject is searched, e.g. '4.1'.")
    query: str | None = Field(
        None,
        description="Optional words to search instead of the clause's subject (English or "
        "Chinese); FIDIC topic expansion still applies.",
    )
    top_k: int = Field(5, ge=1, le=50, description="Most passages returned.")
    document_id: str | None = Field(
        None, description="Search only this reference document (its id); omit to search all."
    )
    reference_documents: list[TaskDocument] = Field(
        default_factory=list, description="Employer's Requirements (filled in by the system)."
    )


class SearchErOutput(ReferenceSearch):
    """Output of fidic_search_er: the passages found, with the FIDIC topics searched."""

    topics: list[str] = Field(
        description="FIDIC topics recognised in the subject (design, performance, site...)."
    )
    topic_terms: list[str] = Field(
        description="Terms added for those topics (design criteria, 设计标准...)."
    )


DESCRIPTION = (
    "Search the Employer's Requirements (and other reference documents of the review) for "
    "what they require on the subject of a FIDIC contract clause. The query is built from the "
    "clause's heading and opening text and expanded with Employer's Requirements vocabulary "
    "(design → design criteria/specifications; performance → performance guarantees/tests on "
    "completion; site → site data/geotechnical/sub-surface; 设计 → 设计标准/技术要求). Returns "
    "ranked passages (document, clause id, title, verbatim text, score, matched terms), the "
    "topics recognised and the terms added. Call it on design, fitness-for-purpose, "
    "performance, testing, site and programme clauses. Arguments: clause_id; optional query, "
    "top_k, document_id."
)


prepare_input = input_preparer(SearchErInput)
"""Input searching the review's reference documents for `clause_id`'s subject."""


def _heading(structure: DocumentStructure | None, clause: ClauseNode) -> str:
    node: ClauseNode | None = clause
    while node is not None and not node.title:
        node = structure.get_clause(node.parent_id) if structure and node.parent_id else None
    return node.title if node else ""


def handle(inp: SearchErInput) -> SearchErOutput:
    """Search the reference documents for the clause's subject, expanded for FIDIC."""
    if not inp.reference_documents:
        raise SkillError(
            "no Employer's Requirements in this review: add them as a reference document"
        )
    if inp.query is not None and inp.query.strip():
        subject = inp.query.strip()
    else:
        clause = require_clause(inp.document_structure, inp.clause_id)
        body = " ".join(clause.body[:_SUBJECT_CHARS].split())
        subject = f"{_heading(inp.document_structure, clause)}\n{body}".strip()
    topics, terms = topic_expansion(subject)
    query = "\n".join([subject, *terms])
    docs = searchable_documents(inp.reference_documents, inp.document_id)
    found = search_references(docs, query, top_k=inp.top_k)
    return SearchErOutput(**found.model_dump(), topics=topics, topic_terms=terms)


REGISTRATION = SkillRegistration(
    skill_id=SKILL_ID,
    name="Search Employer's Requirements",
    description=DESCRIPTION,
    input_schema=SearchErInput,
    output_schema=SearchErOutput,
    backend=SkillBackend.LOCAL,
    local_handler=handle,
    prepare_input_fn=prepare_input,
    domain="fidic",
    category="retrieval",
)
