"""The HTTP server's hot routes answered below FastAPI's routing, for the common well-formed request.

An episode is mostly steps, and each tool call costs tens of microseconds; FastAPI's per-request
machinery (route matching over every route, dependency solving, body validation through its
generic field model, and the middleware around it: error pages, telemetry hooks, the body limit)
cost several times that.  This ASGI wrapper, which ``officesim.server.http.OfficesimAPI`` puts in
front of FastAPI's whole stack, recognises the requests
that make up an episode (``POST /sessions``, ``POST /sessions/{id}/step`` with a JSON body and
no query, ``DELETE /sessions/{id}``), validates the body with the very same pydantic models, and
calls the very same handler the FastAPI route calls.  Anything else (a query string, another content
type, a body the models reject, a root path) goes on to FastAPI unchanged, with the body
replayed, so its answers (the 422 detail above all) and the OpenAPI schema stay FastAPI's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import HTTPException
from pydantic import TypeAdapter, ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

JSON_HEADERS = [(b"content-type", b"application/json")]


@dataclass(frozen=True)
class FastRoute:
    """One route the fast path answers.

    Attributes:
        method: the HTTP method.
        path: the path pattern (its groups are the handler's path arguments).
        handler: ``(state, *path arguments[, body]) -> JSON bytes`` (``None``: no content), raising
            ``HTTPException`` like the FastAPI route it stands in for.
        status: the success status.
        body: the body's type (the route's own model), validated alike; ``None``: the route has none.
    """

    method: str
    path: re.Pattern[str]
    handler: Callable[..., Awaitable[bytes | None]]
    status: int
    body: TypeAdapter[Any] | None = None


class FastPath:
    """ASGI middleware: an episode's well-formed requests, without FastAPI's routing.

    Args:
        app: the rest of the stack (FastAPI's router), which answers everything else.
        routes: what is answered here.
        state: the app's server state, given to the handlers.
    """

    def __init__(self, app: ASGIApp, *, routes: list[FastRoute], state: Any) -> None:
        self.app = app
        self.routes = routes
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("query_string") and not scope.get("root_path"):
            for route in self.routes:
                if route.method == scope["method"] and (match := route.path.fullmatch(scope["path"])):
                    await self._serve(route, match.groups(), scope, receive, send)
                    return
        await self.app(scope, receive, send)

    async def _serve(self, route: FastRoute, args: tuple[str, ...], scope: Scope, receive: Receive,
                     send: Send) -> None:
        if route.body is not None:
            raw, disconnected = await _read_body(receive)
            if disconnected:
                return
            body = _parse(route.body, scope, raw)
            if body is None:  # not the common case: FastAPI answers it, from the same bytes
                await self.app(scope, _replay(raw, receive), send)
                return
            args = (*args, body)
        try:
            content = await route.handler(self.state, *args)
        except HTTPException as exc:  # as FastAPI's own handler answers it
            await JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)(
                scope, receive, send)
            return
        headers = [*JSON_HEADERS, (b"content-length", str(len(content)).encode())] if content is not None else []
        await send({"type": "http.response.start", "status": route.status, "headers": headers})
        await send({"type": "http.response.body", "body": content or b""})


def _parse(model: TypeAdapter[Any], scope: Scope, raw: bytes) -> Any:
    """The body as the route's model when it is a JSON object the model accepts, else ``None``."""
    content_type = dict(scope["headers"]).get(b"content-type")
    if content_type is not None and content_type.split(b";", 1)[0].strip().lower() != b"application/json":
        return None
    try:
        return model.validate_python(json.loads(raw))  # json.loads: as FastAPI reads a body
    except (ValueError, ValidationError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None


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
