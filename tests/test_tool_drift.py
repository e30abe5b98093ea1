"""API drift: what the model sees changes with the seed; the world and the grader do not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.cli import main
from officesim.env import play
from officesim.errors import OfficesimError
from officesim.pipeline.runner import read_results
from officesim.task import SUBMIT
from officesim.toolapi.drift import KINDS, DriftSpec, drift_spec

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tasks"
TASK = FIXTURES / "move-deal-negotiation"


@pytest.fixture(scope="module")
def task():
    return load_task(TASK)


def _names(obs: dict) -> list[str]:
    return [t["function"]["name"] for t in obs["tools"]]


def test_drift_is_a_function_of_seed_and_task(task) -> None:
    env = OfficeEnv(task)
    _, first = env.reset(options={"drift": 3})
    _, again = env.reset(options={"drift": 3})
    _, other = env.reset(options={"drift": 4})
    assert first["drift"] == again["drift"] != other["drift"]
    assert [c.split(":")[0] for c in first["drift"]] == list(KINDS)
    obs, info = env.reset()
    assert "drift" not in info and obs["tools"] == task.tools_json()  # no option, no drift


def test_drifted_surface_is_served_and_translated(task) -> None:
    env = OfficeEnv(task, drift={"seed": 1, "kinds": ["rename_param", "deprecate_tool"]})
    obs, _ = env.reset()
    drift = env.drift
    (tool, names), = drift.renamed.items()
    (old_param, new_param), = names.items()
    (moved, replacement), = drift.moved.items()
    shown = {t["function"]["name"]: t["function"] for t in obs["tools"]}
    assert replacement in shown and shown[moved]["description"].startswith(f"Deprecated: moved to {replacement}")
    visible = shown[drift.moved.get(tool, tool)]["parameters"]
    assert new_param in visible["properties"] and old_param not in visible["properties"]
    # the deprecated tool's error says where it moved
    obs, *_ = env.step({"name": moved, "arguments": {}})
    assert obs["result"]["error"]["type"] == "deprecated" and replacement in obs["result"]["error"]["message"]
    # the real parameter name is rejected in the drifted vocabulary
    obs, *_ = env.step({"name": tool, "arguments": {old_param: "x"}})
    message = obs["result"]["error"]["message"]
    assert f"{old_param!r} is not a parameter" in message and new_param in message
    assert task.tools_json() == load_task(TASK).tools_json()  # the task itself is untouched


def test_graders_read_the_real_state_under_drift(task) -> None:
    """The reference solution, spoken in the drifted vocabulary, passes; spoken in the old one it fails."""
    failed_somewhere = False
    for seed in range(6):
        env = OfficeEnv(task, drift=seed)
        env.reset()
        drift = env.drift
        for step in task.solution.steps:
            names = drift.renamed.get(step.name, {})
            env.step({"name": drift.moved.get(step.name, step.name),
                      "arguments": {names.get(k, k): v for k, v in step.arguments.items()}})
        *_, info = env.step({"name": SUBMIT, "arguments": {"answer": task.solution.answer}})
        assert info["grade"].passed, (seed, drift.changes)
        failed_somewhere |= not play(OfficeEnv(task, drift=seed), OracleAgent(task)).passed
    assert failed_somewhere  # the literal reference trajectory is brittle to at least one drift


def test_page_size_and_extra_field(task) -> None:
    env = OfficeEnv(task, drift={"seed": 0, "kinds": ["page_size", "result_field"]})
    obs, _ = env.reset()
    (tool, size), = env.drift.page_size.items()
    shown = next(t["function"] for t in obs["tools"] if t["function"]["name"] == tool)
    assert f"Default: {size}." in shown["parameters"]["properties"]["limit"]["description"]
    (field_tool, (key, value)), = env.drift.extra_field.items()
    plain = OfficeEnv(task)
    plain.reset()
    obs, *_ = env.step({"name": tool, "arguments": {}})
    real, *_ = plain.step({"name": tool, "arguments": {"limit": size}})
    expected = dict(real["result"], **({key: value} if field_tool == tool else {}))
    assert obs["result"] == expected  # the smaller default page, as if the model had asked for it


def test_bad_drift_options_say_what_to_pass(task) -> None:
    assert drift_spec(5) == DriftSpec(5) and drift_spec(None) is None
    for bad in ("7", True, {"seed": 1, "kinds": ["shuffle"]}, {"sede": 1}):
        with pytest.raises(OfficesimError, match="drift"):
            OfficeEnv(task).reset(options={"drift": bad})


def test_run_with_drift_records_it_and_refuses_to_mix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = ["run", str(TASK), "--agent", "oracle", "--out", str(out), "--workers", "1", "--quiet"]
    assert main([*args, "--drift", "2"]) == 0
    (record,) = read_results(out)
    assert record["drift"] == 2 and record["versions"]["tool_surface"]["version"]
    assert main(args) == 2
    assert "played with drift 2" in capsys.readouterr().err
    transcript = json.loads((out / "transcripts" / TASK.name / "0.json").read_text())
    assert transcript  # replayable: officesim replay applies the recorded drift
    assert main(["replay", str(out), "--workers", "1"]) == 0
    assert "0 trajectories in 0 tasks changed" in capsys.readouterr().out
