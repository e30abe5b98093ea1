"""OpenEnv, the real package: its server over OfficeEnv, spoken to by its own WebSocket client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openenv.core")  # part of the dev extra: CI has it

from openenv.core.generic_client import GenericEnvClient

from officesim import load_task
from officesim.integrations.openenv import create_app
from officesim.testing import serve_app

pytestmark = [pytest.mark.framework, pytest.mark.slow]
TASKS = Path(__file__).parent / "fixtures" / "tasks"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve_app(create_app(TASKS), name="openenv") as url:
        yield url


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
