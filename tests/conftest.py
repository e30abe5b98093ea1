"""Shared fixtures: the tiny world is generated once per session, restored per test."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from officesim import World
from officesim.testing import ScriptedServer, serve

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def tiny_snapshot() -> bytes:
    return World.generate(ROOT / "worlds" / "tiny.yaml").snapshot()


@pytest.fixture
def tiny(tiny_snapshot: bytes) -> World:
    """A fresh tiny world for each test (a restore costs well under a millisecond)."""
    return World.restore(tiny_snapshot)


@pytest.fixture(scope="session")
def acme_snapshot() -> bytes:
    return World.generate(ROOT / "worlds" / "acme.yaml").snapshot()


@pytest.fixture
def acme(acme_snapshot: bytes) -> World:
    return World.restore(acme_snapshot)


@pytest.fixture
def openai_server():
    """A running scripted OpenAI-compatible server: ``.push(replies)``, ``.requests``, ``.base_url``."""
    server = ScriptedServer()
    with serve(server):
        yield server


STARTED = pytest.StashKey[float]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """Print where the browser tests saved their screenshots (CI keeps ``test-artifacts/``)."""
    written = sorted(str(p) for p in (ROOT / "test-artifacts" / "viewer").glob("*.png")
                     if p.stat().st_mtime >= config.stash.get(STARTED, 0.0))
    if written:
        terminalreporter.write_sep("-", "viewer screenshots")
        for path in written:
            terminalreporter.write_line(path)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[STARTED] = time.time()
