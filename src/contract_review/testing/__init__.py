"""Test doubles for LLM mode: in-process models (`FunctionModel`, `ScriptedModel`), a local
OpenAI-compatible endpoint (`FakeLLM`) with latency and failure modes, and a stand-in reviewer
that behaves like a well-mannered agent, a `RecordingDispatcher` for agent tests, and a real
web server in a subprocess (`running_server`). For tests and benchmarks; never used by a
review."""

from ._dispatcher import RecordingDispatcher
from ._endpoint import FakeLLM, Hang, HttpError, InvalidJSON, Reply, Responder, Step, free_port
from ._models import CallInfo, FunctionModel, ModelTurn, ScriptedModel, TurnFunction
from ._reviewer import clause_text_of, stand_in_responder, stand_in_reviewer
from ._server import WebServer, running_server

__all__ = [
    "CallInfo",
    "FakeLLM",
    "FunctionModel",
    "Hang",
    "HttpError",
    "InvalidJSON",
    "ModelTurn",
    "RecordingDispatcher",
    "Reply",
    "Responder",
    "ScriptedModel",
    "Step",
    "TurnFunction",
    "WebServer",
    "clause_text_of",
    "free_port",
    "running_server",
    "stand_in_responder",
    "stand_in_reviewer",
]
