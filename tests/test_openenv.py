"""OpenEnv, the real package: its server over OfficeEnv, spoken to by its own WebSocket client."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openenv.core")  # part of the dev extra: CI has it

import uvicorn
from openenv.core.generic_client import GenericEnvClient

from officesim import load_task
from officesim.integrations.openenv import create_app

pytestmark = [pytest.mark.framework, pytest.mark.slow]
TASKS = Path(__file__).parent / "fixtures" / "tasks"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(TASKS), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.mark.parametrize("task_id", ["lookup-cfo-email", "move-deal-negotiation"])
def test_reference_solutions_score_one_over_openenvs_websocket_client(base_url: str, task_id: str) -> None:
    task = load_task(TASKS / task_id)
    with GenericEnvClient(base_url=base_url).sync() as client:
        first = client.reset(seed=0, task=task_id)
        assert first.observation["instruction"] == task.instruction and not first.done
        assert sorted(t["function"]["name"] for t in first.observation["tools"]) == sorted([*task.tools, "submit"])
        for step in task.solution.steps:
            result = client.step({"name": step.name, "arguments": step.arguments})
            assert not result.done and "error" not in result.observation["result"]
        final = client.step({"name": "submit", "arguments": {"answer": task.solution.answer}})
    assert final.done and final.reward == 1.0
    assert final.observation["grade"]["passed"] is True and "gates" not in final.observation["grade"]


def test_a_bad_call_is_an_error_result_not_a_failure(base_url: str) -> None:
    with GenericEnvClient(base_url=base_url).sync() as client:
        client.reset(task="lookup-cfo-email")
        result = client.step({"name": "directory_get_person", "arguments": {"person": 12}})
    assert not result.done and result.observation["result"]["error"]["type"] == "invalid_argument"
