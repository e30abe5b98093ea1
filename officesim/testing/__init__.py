"""Test helpers shipped with officesim: a scripted OpenAI-compatible server for offline agent tests."""

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
    "submit",
    "text",
    "tool_call",
    "tool_calls",
]
