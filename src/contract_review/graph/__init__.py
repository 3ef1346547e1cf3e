"""The review graph: per-clause analysis, drafting, validation and human approval (LangGraph).

`risk_rules` turns deterministic skill outputs into `RiskPoint`s; the graph itself
(`state.py`, `builder.py`) follows.
"""
