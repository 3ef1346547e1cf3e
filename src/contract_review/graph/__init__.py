"""The review graph: per-clause analysis, drafting, validation and human approval (LangGraph).

The run context (`context.py`) carries documents and services; the state (`state.py`) and the
nodes (`builder.py`) follow; each skill's own risk rule (`contract_review.skills.risks`) turns
its output into `RiskPoint`s.
"""
