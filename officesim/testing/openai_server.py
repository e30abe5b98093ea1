"""A scripted OpenAI-compatible chat-completions server for tests and offline runs.

Agents that talk to real endpoints must be tested over real HTTP with the real ``openai`` client,
never with a mocked client: retries, timeouts, error bodies and parallel tool calls only behave
truthfully on the wire.  This server answers ``POST /v1/chat/completions`` from a *script*: a
queue of replies (consumed one per request) or a function of the request.  It records every
request body it received so tests can assert what the agent sent.

Reply kinds: ``Text`` (plain content), ``ToolCalls`` (one or several calls in parallel; a call's
arguments may be a raw string, e.g. malformed JSON), ``Refusal``, ``RateLimited`` (HTTP 429 with
``Retry-After``), ``ServerError`` (HTTP 5xx), ``Slow`` (waits, then gives another reply: for
timeouts) and ``ContextLengthExceeded`` (HTTP 400 with code ``context_length_exceeded``).

Run one by hand (``python -m officesim.testing.openai_server`` works too)::

    python -m officesim.testing --script replies.yaml --port 8011 [--repeat]

where the file is a YAML/JSON list of replies such as ``{text: "hi"}``,
``{tool_calls: [{name: mail_search_messages, arguments: {query: x}}]}``,
``{malformed: {name: submit, arguments: "{oops"}}``, ``{refusal: "no"}``, ``{rate_limited: 1}``,
``{server_error: 500}``, ``{slow: 3, then: {text: "late"}}``, ``{context_length_exceeded: true}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import uvicorn
import yaml
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from officesim.testing.serving import serve_app

DEFAULT_MODEL = "scripted"


@dataclass(frozen=True)
class Call:
    """One tool call in a reply; ``arguments`` as a dict (sent as JSON) or a raw string."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_text(self) -> str:
        """The ``arguments`` string as it goes on the wire (raw strings pass unchanged)."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments))


@dataclass(frozen=True)
class Text:
    """An assistant message with plain content and no tool calls."""

    content: str


@dataclass(frozen=True)
class ToolCalls:
    """An assistant message with one or several (parallel) tool calls and optional content."""

    calls: tuple[Call, ...]
    content: str | None = None

    def __init__(self, calls: Iterable[Call], content: str | None = None) -> None:
        object.__setattr__(self, "calls", tuple(calls))
        object.__setattr__(self, "content", content)


@dataclass(frozen=True)
class Refusal:
    """An assistant message whose ``refusal`` field is set (content null, no tool calls)."""

    text: str = "I'm sorry, I can't help with that."


@dataclass(frozen=True)
class RateLimited:
    """HTTP 429 with ``Retry-After`` (seconds) and ``retry-after-ms`` headers."""

    retry_after: float = 0.01


@dataclass(frozen=True)
class ServerError:
    """An HTTP 5xx (or any status) error with an OpenAI-style error body."""

    status: int = 500
    message: str = "The server had an error while processing your request."


@dataclass(frozen=True)
class ContextLengthExceeded:
    """HTTP 400 with code ``context_length_exceeded``, as OpenAI and vLLM send it."""

    limit: int = 8192


@dataclass(frozen=True)
class Slow:
    """Wait ``seconds`` before answering with ``then`` (a client timeout usually fires first)."""

    seconds: float
    then: Reply


Reply: TypeAlias = Text | ToolCalls | Refusal | RateLimited | ServerError | ContextLengthExceeded | Slow
ScriptFunction: TypeAlias = Callable[[dict[str, Any]], "Reply"]


def text(content: str) -> Text:
    """A plain-text reply."""
    return Text(content)


def tool_call(name: str, arguments: Mapping[str, Any] | str | None = None, **kwargs: Any) -> ToolCalls:
    """A reply with a single tool call; arguments as a mapping, keywords, or a raw string."""
    args: Mapping[str, Any] | str = arguments if arguments is not None else kwargs
    return ToolCalls([Call(name, args)])


def tool_calls(*calls: Call | tuple[str, Mapping[str, Any] | str]) -> ToolCalls:
    """A reply with several parallel tool calls, each a ``Call`` or a ``(name, arguments)`` pair."""
    return ToolCalls(c if isinstance(c, Call) else Call(c[0], c[1]) for c in calls)


def submit(answer: str | None = None) -> ToolCalls:
    """A reply calling the built-in ``submit`` tool."""
    return tool_call("submit", {"answer": answer})


def reply_from_dict(data: Mapping[str, Any]) -> Reply:
    """Build a reply from its file form (see the module docstring); unknown keys are an error."""
    if len(data) == 0:
        raise ValueError("empty reply")
    if "text" in data:
        return Text(str(data["text"]))
    if "tool_calls" in data:
        calls = [Call(c["name"], c.get("arguments", {}), c.get("id")) for c in data["tool_calls"]]
        return ToolCalls(calls, data.get("content"))
    if "malformed" in data:
        spec = data["malformed"]
        return ToolCalls([Call(spec["name"], str(spec.get("arguments", "{not json")))])
    if "refusal" in data:
        return Refusal(str(data["refusal"]))
    if "rate_limited" in data:
        return RateLimited(float(data["rate_limited"]))
    if "server_error" in data:
        return ServerError(int(data["server_error"]))
    if "context_length_exceeded" in data:
        return ContextLengthExceeded()
    if "slow" in data:
        return Slow(float(data["slow"]), reply_from_dict(data["then"]))
    raise ValueError(f"unknown reply {dict(data)!r}; expected one of text, tool_calls, malformed, "
                     "refusal, rate_limited, server_error, context_length_exceeded, slow")


def _error_body(message: str, type_: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _rough_tokens(value: Any) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    if value is None:
        return 0
    return max(1, len(value if isinstance(value, str) else json.dumps(value)) // 4)


class ScriptedServer:
    """The script, the request log and the FastAPI app; one instance per test, no global state.

    Args:
        script: a sequence of replies consumed in order, or a function ``request_body -> Reply``.
        default: the reply once a queue runs out; ``None`` answers HTTP 400 "script exhausted"
            (not retried by clients, so a test that under-scripts fails fast and clearly).
        context_limit: when set, any request whose messages exceed this many characters (JSON)
            gets a ``context_length_exceeded`` error without consuming the script.
        model: the model id listed by ``/v1/models``.
    """

    def __init__(
        self,
        script: Sequence[Reply] | ScriptFunction = (),
        *,
        default: Reply | None = None,
        context_limit: int | None = None,
        model: str = DEFAULT_MODEL,
    ) -> None:
        self._lock = threading.Lock()
        self._function: ScriptFunction | None = script if callable(script) else None
        self._queue: deque[Reply] = deque([] if callable(script) else script)
        self.default = default
        self.context_limit = context_limit
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.base_url: str | None = None  # set by ``serve`` while the server runs
        self._call_counter = 0
        self._closing = threading.Event()
        self.app = self._build_app()

    # -- script -----------------------------------------------------------------------------
    def push(self, *replies: Reply) -> None:
        """Append replies to the queue (e.g. between two phases of a test)."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Replies left in the queue."""
        with self._lock:
            return len(self._queue)

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        if self._function is not None:
            return self._function(body)
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.default

    def _next_call_id(self) -> str:
        with self._lock:
            self._call_counter += 1
            return f"call_{self._call_counter}"

    # -- HTTP -------------------------------------------------------------------------------
    def _build_app(self) -> FastAPI:
        app = FastAPI(title="officesim scripted OpenAI server", docs_url=None, redoc_url=None)

        @app.get("/v1/models")
        async def list_models() -> dict[str, Any]:
            return {"object": "list",
                    "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "officesim"}]}

        @app.post("/v1/chat/completions")
        async def chat_completions(request: Request) -> Response:
            try:
                body = await request.json()
            except ValueError:
                return JSONResponse(_error_body("request body is not JSON", "invalid_request_error"), 400)
            with self._lock:
                self.requests.append(body)
            return await self._answer(body)

        return app

    async def _answer(self, body: dict[str, Any]) -> Response:
        messages = body.get("messages") or []
        if self.context_limit is not None and len(json.dumps(messages)) > self.context_limit:
            return self._context_error(self.context_limit)
        reply = self._next_reply(body)
        while isinstance(reply, Slow):
            await self._sleep(reply.seconds)
            reply = reply.then
        if reply is None:
            return JSONResponse(_error_body("scripted server: script exhausted", "invalid_request_error",
                                            code="script_exhausted"), 400)
        if isinstance(reply, RateLimited):
            headers = {"retry-after": str(max(0, round(reply.retry_after))),
                       "retry-after-ms": str(int(reply.retry_after * 1000))}
            return JSONResponse(_error_body("Rate limit reached; retry later.", "requests",
                                            code="rate_limit_exceeded"), 429, headers=headers)
        if isinstance(reply, ServerError):
            return JSONResponse(_error_body(reply.message, "server_error"), reply.status)
        if isinstance(reply, ContextLengthExceeded):
            return self._context_error(reply.limit)
        completion = self._completion(body, reply)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(_sse(_stream_chunks(completion, include_usage=include_usage)),
                                     media_type="text/event-stream")
        return JSONResponse(completion)

    @staticmethod
    def _context_error(limit: int) -> JSONResponse:
        message = (f"This model's maximum context length is {limit} tokens. However, your messages "
                   "resulted in more tokens. Please reduce the length of the messages.")
        return JSONResponse(_error_body(message, "invalid_request_error", code="context_length_exceeded",
                                        param="messages"), 400)

    async def _sleep(self, seconds: float) -> None:
        """Sleep in short slices so a shutdown never waits for a long scripted delay."""
        deadline = time.monotonic() + seconds
        while not self._closing.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

    def _completion(self, body: dict[str, Any], reply: Text | ToolCalls | Refusal) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        finish = "stop"
        if isinstance(reply, Text):
            message["content"] = reply.content
        elif isinstance(reply, Refusal):
            message["refusal"] = reply.text
        else:
            message["content"] = reply.content
            message["tool_calls"] = [
                {"id": call.id or self._next_call_id(), "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments_text()}}
                for call in reply.calls
            ]
            finish = "tool_calls"
        prompt = _rough_tokens(body.get("messages")) + _rough_tokens(body.get("tools"))
        completion = _rough_tokens(message.get("content")) + _rough_tokens(message.get("tool_calls"))
        completion += _rough_tokens(message.get("refusal"))
        with self._lock:
            number = len(self.requests)
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }

    def close(self) -> None:
        """Wake any scripted delay so the server can stop at once."""
        self._closing.set()


def _stream_chunks(completion: dict[str, Any], *, include_usage: bool) -> list[dict[str, Any]]:
    """A finished completion as the ``chat.completion.chunk`` objects a streaming server sends.

    Harnesses that only stream (verifiers' chat program, for one) must see the same reply a
    non-streaming client gets: the role first, the content in pieces, each tool call as a header
    (id, name) followed by its arguments in pieces, then the finish reason and, when asked, usage.
    """
    message = completion["choices"][0]["message"]
    base = {"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"],
            "model": completion["model"]}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    content = message.get("content") or ""
    for start in range(0, len(content), 16):
        chunks.append(chunk({"content": content[start:start + 16]}))
    if message.get("refusal"):
        chunks.append(chunk({"refusal": message["refusal"]}))
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        chunks.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": function["name"], "arguments": ""}}]}))
        arguments = function["arguments"]
        for start in range(0, len(arguments), 32):
            chunks.append(chunk({"tool_calls": [{"index": index,
                                                 "function": {"arguments": arguments[start:start + 32]}}]}))
    chunks.append(chunk({}, completion["choices"][0]["finish_reason"]))
    if include_usage:
        chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks


async def _sse(chunks: list[dict[str, Any]]) -> AsyncIterator[bytes]:
    """Server-sent events as OpenAI sends them, ending with ``data: [DONE]``."""
    for item in chunks:
        yield f"data: {json.dumps(item)}\n\n".encode()
    yield b"data: [DONE]\n\n"


@contextlib.contextmanager
def serve(
    script: ScriptedServer | Sequence[Reply] | ScriptFunction,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    startup_timeout: float = 10.0,
) -> Iterator[str]:
    """Run a scripted server in a background thread; yields its base URL (ending in ``/v1``).

    Pass a ``ScriptedServer`` to keep access to its request log; a plain script is wrapped.  The
    port is free by construction (bound before uvicorn starts), and leaving the block stops the
    server and joins its thread.
    """
    server_obj = script if isinstance(script, ScriptedServer) else ScriptedServer(script)
    with serve_app(server_obj.app, host=host, port=port, startup_timeout=startup_timeout, name="scripted-openai",
                   access_log=False, lifespan="off", timeout_graceful_shutdown=1) as url:
        server_obj.base_url = f"{url}/v1"
        try:
            yield server_obj.base_url
        finally:
            server_obj.base_url = None
            server_obj.close()


def load_script(path: str | Path) -> list[Reply]:
    """Read a YAML or JSON list of replies (see the module docstring)."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of replies")
    return [reply_from_dict(item) for item in data]


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a script file until interrupted (for trying agents by hand)."""
    parser = argparse.ArgumentParser(prog="python -m officesim.testing",
                                     description="A scripted OpenAI-compatible chat-completions server.")
    parser.add_argument("--script", required=True, help="YAML/JSON list of replies")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--repeat", action="store_true", help="start the script over when it runs out")
    args = parser.parse_args(argv)
    replies = load_script(args.script)
    if args.repeat:
        counter = iter(range(10**12))

        def cycle(_body: dict[str, Any]) -> Reply:
            return replies[next(counter) % len(replies)]

        scripted = ScriptedServer(cycle)
    else:
        scripted = ScriptedServer(replies)
    print(f"serving {len(replies)} scripted replies on http://{args.host}:{args.port}/v1", flush=True)
    uvicorn.run(scripted.app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
