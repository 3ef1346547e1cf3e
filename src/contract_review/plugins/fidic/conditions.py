"""FIDIC document preparation: the conditions in force, read from General + Particular
Conditions, and the amendment skills every checklist item gets when a PC amends the GC."""

from __future__ import annotations

import re

from contract_review.models import (
    DocumentFormat,
    DocumentRole,
    LoadedText,
    ReviewChecklistItem,
    TaskDocument,
)
from contract_review.plugins.fidic.skills.merge_gc_pc import merge_documents
from contract_review.structure_parser import DocumentParserConfig, StructureParser

__all__ = ["CONDITIONS_ID", "amendment_checklist", "conditions_in_force"]

CONDITIONS_ID = "conditions"
"""Document id of the merged conditions in force (a derived document, not a user's file)."""

_PC_INSTRUCTION = re.compile(
    r"(?i)\bdelete (?:sub-clause|the words)|\badd at the end\b|\bdelete and replace\b|"
    r"删除第|末尾增加|修改为"
)
"""Wording of amendment instructions: a primary document made of them is a PC."""

_AMENDMENT_SKILLS = ("assess_deviation", "fidic_check_pc_consistency")
"""Skills every item gets when the review reads amended conditions (GC + PC)."""


def conditions_in_force(
    docs: list[TaskDocument], config: DocumentParserConfig
) -> list[TaskDocument]:
    """With General Conditions (baseline) and Particular Conditions (supplement, or a primary
    document made of PC instructions), the review reads the conditions in force: the merged
    text becomes the primary document; otherwise the documents are returned unchanged."""
    baseline = next((d for d in docs if d.role is DocumentRole.BASELINE), None)
    supplement = next((d for d in docs if d.role is DocumentRole.SUPPLEMENT), None)
    primary = docs[0]
    if baseline is None or baseline.structure is None:
        return docs
    if supplement is None:
        text = primary.content.text if primary.content else ""
        if not _PC_INSTRUCTION.search(text):
            return docs
        supplement = primary.model_copy(update={"role": DocumentRole.SUPPLEMENT})
        docs = [*docs, supplement]
    if supplement.structure is None:
        return docs
    merged = merge_documents(baseline.structure, supplement.structure)
    parts = []
    for mc in merged.clauses:
        body = mc.effective_text.strip() or "[Deleted by the Particular Conditions]"
        parts.append(f"Sub-Clause {mc.clause_id} {mc.title}".rstrip() + "\n" + body)
    text = "\n\n".join(parts) + "\n"
    warnings = [f"{p.clause_id}: {p.message}" for p in merged.problems]
    content = LoadedText(format=DocumentFormat.TXT, text=text, warnings=warnings)
    structure = StructureParser(config).parse(text, document_id=CONDITIONS_ID)
    conditions = TaskDocument(
        document_id=CONDITIONS_ID,
        role=DocumentRole.PRIMARY,
        filename=f"{supplement.filename} + {baseline.filename} (conditions in force)",
        content=content,
        structure=structure,
        derived_from_supplement=True,
    )
    return [conditions, *(d for d in docs if d.role is not DocumentRole.PRIMARY)]


def amendment_checklist(
    items: list[ReviewChecklistItem], docs: list[TaskDocument]
) -> list[ReviewChecklistItem]:
    """When Particular Conditions amend the baseline, every item also gets the amendment
    skills (deviation from the GC, PC consistency)."""
    if not any(d.role is DocumentRole.SUPPLEMENT for d in docs):
        return items
    return [
        i.model_copy(
            update={
                "required_skills": [
                    *i.required_skills,
                    *(s for s in _AMENDMENT_SKILLS if s not in i.required_skills),
                ]
            }
        )
        for i in items
    ]
