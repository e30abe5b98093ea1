"""Test helpers shipped with officesim: a scripted OpenAI-compatible server for offline agent tests,
and ``serve_app`` to run any of our ASGI apps on a local port."""

from officesim.testing.openai_server import (
    Call,
    ContextLengthExceeded,
    RateLimited,
    Refusal,
    Reply,
    ScriptedServer,
    ServerError,
    Slow,
    Text,
    ToolCalls,
    serve,
    submit,
    text,
    tool_call,
    tool_calls,
)
from officesim.testing.serving import serve_app

__all__ = [
    "Call",
    "ContextLengthExceeded",
    "RateLimited",
    "Refusal",
    "Reply",
    "ScriptedServer",
    "ServerError",
    "Slow",
    "Text",
    "ToolCalls",
    "serve",
    "serve_app",
    "submit",
    "text",
    "tool_call",
    "tool_calls",
]
