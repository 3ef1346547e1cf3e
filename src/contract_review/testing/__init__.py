"""Test doubles for LLM mode: in-process models (`FunctionModel`, `ScriptedModel`), a local
OpenAI-compatible endpoint (`FakeLLM`) with latency and failure modes, and a stand-in reviewer
that behaves like a well-mannered agent. For tests and benchmarks; never used by a review."""

from ._endpoint import FakeLLM, Hang, HttpError, InvalidJSON, Reply, Responder, Step, free_port
from ._models import CallInfo, FunctionModel, ModelTurn, ScriptedModel, TurnFunction
from ._reviewer import clause_text_of, stand_in_responder, stand_in_reviewer

__all__ = [
    "CallInfo",
    "FakeLLM",
    "FunctionModel",
    "Hang",
    "HttpError",
    "InvalidJSON",
    "ModelTurn",
    "Reply",
    "Responder",
    "ScriptedModel",
    "Step",
    "TurnFunction",
    "clause_text_of",
    "free_port",
    "stand_in_responder",
    "stand_in_reviewer",
]
