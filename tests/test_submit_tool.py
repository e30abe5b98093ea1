"""``submit`` is a registered episode tool: one definition for the schema, the exports and the env's checks."""

from __future__ import annotations

import pytest

from officesim.env import OfficeEnv
from officesim.task import Task, load_task
from officesim.toolexport import export_tools, relax
from officesim.tools import episode_registry, registry
from officesim.toolschema import strict_schema
from officesim.world_spec import load_spec

TASK = "tasks/budget-variance-answer-001"


@pytest.fixture(scope="module")
def task() -> Task:
    return load_task(TASK)


def test_submit_is_registered_apart_from_the_app_tools() -> None:
    spec = episode_registry()["submit"]
    assert spec.app == "episode" and "submit" not in registry()
    assert list(spec.parameters["properties"]) == ["answer"]
    assert spec.parameters["properties"]["answer"]["maxLength"] == 20_000


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_every_export_takes_submit_from_the_registry(fmt: str) -> None:
    spec = episode_registry()["submit"]
    entry = export_tools([], fmt, submit=True)[0]
    if fmt == "openai":
        assert entry["function"]["parameters"] == strict_schema(spec.parameters)
        assert entry["function"]["description"] == spec.description
    else:
        schema = entry["input_schema"] if fmt == "anthropic" else entry["inputSchema"]
        assert schema == relax(spec.parameters, spec.args_model)
        assert schema["required"] == []  # answer is optional outside strict mode


def test_the_task_tools_json_holds_the_registered_submit(task: Task) -> None:
    shipped = {t["function"]["name"]: t for t in task.tools_json()}
    assert shipped["submit"]["function"]["parameters"] == strict_schema(episode_registry()["submit"].parameters)


@pytest.mark.parametrize(("arguments", "message"), [
    ({"answer": ["a", "b"]}, "invalid arguments for submit: 'answer': Input should be a valid string"),
    ({"answer": "x", "note": "hi"}, "'note' is not a parameter (parameters: answer)"),
    ({"answer": "x" * 20_001}, "'answer' is too long: 20,001 characters, at most 20,000 allowed"),
    ({"answer": "bad \ud800 text"}, "unable to parse raw data as a unicode string"),
])
def test_a_bad_submit_is_refused_by_the_registry_and_the_episode_goes_on(task: Task, arguments: dict,
                                                                          message: str) -> None:
    env = OfficeEnv(task)
    env.reset(seed=0)
    obs, _, terminated, _, _ = env.step({"name": "submit", "arguments": arguments})
    assert not terminated and obs["result"]["error"]["type"] == "invalid_argument"
    assert message in obs["result"]["error"]["message"]


@pytest.mark.parametrize(("given", "recorded"), [(42, "42"), (12.5, "12.5"), ("null", None), (None, None)])
def test_a_bare_number_is_an_answer_and_a_spelled_null_is_none(task: Task, given: object, recorded: object) -> None:
    env = OfficeEnv(task)
    env.reset(seed=0)
    obs, _, terminated, _, _ = env.step({"name": "submit", "arguments": {"answer": given}})
    assert terminated and obs["result"] == {"status": "submitted"} and env.answer == recorded


def test_the_task_holds_its_world_spec_and_effective_seed(task: Task) -> None:
    assert task.world_spec() is task.world_spec()  # parsed once
    expected = load_spec(task.spec_path).seed_for(task.spec.world.seed)
    assert task.world_seed == expected
    assert load_spec(task.spec_path).seed_for(7) == 7
