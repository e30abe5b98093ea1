"""TRL's environment_factory contract, checked without torch: transformers' real get_json_schema
reads every tool method, and TRL's discovery rules (public functions on the class, reset, get_reward)
find only the task's tools.  TRL itself needs torch, which CI does not install."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import jsonschema
import pytest

transformers_utils = pytest.importorskip("transformers.utils")  # part of the dev extra: CI has it

from officesim import load_task  # noqa: E402
from officesim.integrations.trl import dataset_rows, environment_class, environment_factories, reward_function  # noqa: E402
from officesim.resources import PACKAGED_TASKS  # noqa: E402

pytestmark = pytest.mark.framework
FIXTURES = Path(__file__).parent / "fixtures" / "tasks"


def _tools(cls: type) -> list:
    """What GRPOTrainer does: public functions on the class, minus reset and get_reward."""
    return [fn for name, fn in inspect.getmembers(cls, predicate=inspect.isfunction)
            if not name.startswith("_") and name not in {"reset", "get_reward"}]


def test_each_class_offers_only_its_tasks_tools_with_schemas_transformers_reads() -> None:
    task = load_task(PACKAGED_TASKS / "sheet-update-from-request-001")
    cls = environment_class(task)
    names = sorted(fn.__name__ for fn in _tools(cls))
    assert names == sorted([*task.tools, "submit"]) and "drive_update_rows" in names
    relaxed = {t["function"]["name"]: t["function"]["parameters"] for t in task.tools_json("openai", "relaxed")}
    for fn in _tools(cls):
        schema = transformers_utils.get_json_schema(fn)["function"]
        assert schema["name"] == fn.__name__
        parameters = schema["parameters"]
        assert set(parameters["properties"]) == set(relaxed[fn.__name__]["properties"])
        assert set(parameters.get("required", [])) == set(relaxed[fn.__name__]["required"])
        jsonschema.Draft202012Validator.check_schema(parameters)
    rows = transformers_utils.get_json_schema(cls.drive_update_rows)["function"]["parameters"]["properties"]["values"]
    assert rows["type"] == "array" and rows["items"]["type"] == "object"  # a pydantic model as a plain object


def test_the_reference_solution_through_the_methods_earns_reward_one() -> None:
    tasks = [load_task(FIXTURES / "move-deal-negotiation"), load_task(FIXTURES / "lookup-cfo-email")]
    factories = environment_factories(tasks)
    rows = dataset_rows(tasks)
    assert [r["environment"] for r in rows] == list(factories) == [t.id for t in tasks]
    environments = []
    for task, row in zip(tasks, rows, strict=True):
        env = factories[row["environment"]]()
        assert env.reset(**row) is None
        for step in task.solution.steps:
            result = json.loads(getattr(env, step.name)(**step.arguments))
            assert "error" not in result, result
        env.submit(answer=task.solution.answer)
        environments.append(env)
    assert reward_function(environments) == [1.0, 1.0]
    idle = factories["lookup-cfo-email"]()
    idle.reset()
    assert idle.get_reward() == 0.0  # no submit: graded as it stands
    env = environments[1]
    env.reset()
    assert json.loads(env.directory_search_people(query="Chief Financial Officer", limit="2"))["error"]
