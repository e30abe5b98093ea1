"""Serve an ASGI app on a local port in a background thread, for tests and offline runs.

The scripted OpenAI server, the HTTP API, the OpenEnv adapter and the viewer are all tested over
real HTTP; this is the one way they are started.  The socket is bound before uvicorn starts, so
the port is free by construction (no probe-then-bind race between parallel test workers).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn


def _free_socket(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


@contextlib.contextmanager
def serve_app(app: Any, *, host: str = "127.0.0.1", port: int = 0, startup_timeout: float = 10.0,
              name: str = "asgi", **config: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn in a daemon thread; yields its base URL (``http://host:port``).

    Args:
        app: an ASGI application (FastAPI, Starlette, ...).
        host: the interface to bind; loopback by default (tests never listen outside).
        port: the port; 0 picks a free one.
        startup_timeout: seconds to wait for uvicorn to report it started.
        name: the thread's name prefix (it shows in a hung test's thread dump).
        **config: further ``uvicorn.Config`` options (``lifespan="off"``, ...).

    Raises:
        RuntimeError: the server did not start within ``startup_timeout``.

    Leaving the block stops the server and joins its thread.
    """
    sock = _free_socket(host, port)
    bound_port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name=f"{name}-{bound_port}")
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError(f"the {name} server did not start within {startup_timeout:g} s")
        time.sleep(0.005)
    try:
        yield f"http://{host}:{bound_port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
