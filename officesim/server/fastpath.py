"""The HTTP server's hot routes answered below FastAPI's routing, for the common well-formed request.

An episode is mostly steps, and each tool call costs tens of microseconds; FastAPI's per-request
machinery (route matching over every route, dependency solving, body validation through its
generic field model) cost several times that.  This ASGI middleware recognises the requests
that make up an episode's hot path (``POST /sessions/{id}/step`` with a JSON body and no query,
``DELETE /sessions/{id}``), validates the body with the very same pydantic models, and calls the
very same handler the FastAPI route calls.  Anything else (a query string, another content
type, a body the models reject, a root path) goes on to FastAPI unchanged, with the body
replayed, so its answers (the 422 detail above all) and the OpenAPI schema stay FastAPI's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import HTTPException
from pydantic import TypeAdapter, ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# (session id, parsed body) -> the response's JSON body; raises HTTPException like the route.
StepHandler = Callable[[Any, str, dict[str, Any]], Awaitable[bytes]]
DeleteHandler = Callable[[Any, str], Awaitable[None]]
STEP_PATH = re.compile(r"/sessions/([^/]+)/step")
SESSION_PATH = re.compile(r"/sessions/([^/]+)")
JSON_HEADERS = [(b"content-type", b"application/json")]


class FastPath:
    """ASGI middleware: an episode's well-formed steps and deletes, without FastAPI's routing.

    Args:
        app: the rest of the stack (FastAPI's router), which answers everything else.
        body: the step body's type (the route's ``ToolCall | OpenAIToolCall``), validated alike.
        step: the step route's handler, ``(state, session_id, action) -> JSON bytes``.
        delete: the delete route's handler, ``(state, session_id) -> None``.
        state: the app's server state, given to the handlers.
    """

    def __init__(self, app: ASGIApp, *, body: Any, step: StepHandler, delete: DeleteHandler,
                 state: Any) -> None:
        self.app = app
        self.body = TypeAdapter(body)
        self.step = step
        self.delete = delete
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("query_string") or scope.get("root_path"):
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        if method == "POST" and (match := STEP_PATH.fullmatch(path)):
            await self._step(match.group(1), scope, receive, send)
        elif method == "DELETE" and (match := SESSION_PATH.fullmatch(path)):
            await self._answer(scope, receive, send, self._delete(match.group(1)))
        else:
            await self.app(scope, receive, send)

    async def _step(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        raw, disconnected = await _read_body(receive)
        if disconnected:
            return
        action = self._action(scope, raw)
        if action is None:  # not the common case: FastAPI answers it, from the same bytes
            await self.app(scope, _replay(raw, receive), send)
            return
        await self._answer(scope, receive, send, self._stepped(session_id, action))

    def _action(self, scope: Scope, raw: bytes) -> dict[str, Any] | None:
        """The parsed action when the body is a JSON object the route's models accept, else ``None``."""
        content_type = dict(scope["headers"]).get(b"content-type")
        if content_type is not None and content_type.split(b";", 1)[0].strip().lower() != b"application/json":
            return None
        try:
            return self.body.validate_python(json.loads(raw)).action()  # json.loads: as FastAPI reads it
        except (ValueError, ValidationError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            return None

    async def _stepped(self, session_id: str, action: dict[str, Any]) -> tuple[int, bytes | None]:
        return 200, await self.step(self.state, session_id, action)

    async def _delete(self, session_id: str) -> tuple[int, bytes | None]:
        await self.delete(self.state, session_id)
        return 204, None

    async def _answer(self, scope: Scope, receive: Receive, send: Send,
                      work: Awaitable[tuple[int, bytes | None]]) -> None:
        try:
            code, content = await work
        except HTTPException as exc:  # as FastAPI's own handler answers it
            await JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)(
                scope, receive, send)
            return
        headers = [*JSON_HEADERS, (b"content-length", str(len(content)).encode())] if content is not None else []
        await send({"type": "http.response.start", "status": code, "headers": headers})
        await send({"type": "http.response.body", "body": content or b""})


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """(the whole request body, whether the client disconnected first)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"", True
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks), False


def _replay(raw: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read once, then defers to the real one."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return replay
