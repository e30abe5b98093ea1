"""officesim through the real verifiers package (v1): the taskset, the MCP tool server, the reward.

verifiers 0.4 pins ``mcp==2.0.0`` while the dev environment carries a newer ``mcp``, so these tests
skip there and ``.ci/verifiers-smoke`` runs this file in its own virtual environment with the
``verifiers`` extra installed.  The rollouts are real ``vf-eval`` runs: verifiers' null harness (its
chat program) talks to our scripted OpenAI-compatible server and calls the task's tools over MCP on
the tool server verifiers starts; the reward is officesim's grade of the calls, replayed host-side.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

vf = pytest.importorskip("verifiers.v1", reason="verifiers pins mcp==2.0.0; .ci/verifiers-smoke runs this file")

from officesim.integrations.verifiers import OfficesimConfig, OfficesimData, OfficesimTaskset, grade_calls  # noqa: E402
from officesim.resources import tasks_dir  # noqa: E402
from officesim.task import load_task  # noqa: E402
from officesim.testing.openai_server import Reply, ScriptedServer, serve, submit, text, tool_call  # noqa: E402

pytestmark = pytest.mark.framework
TASKS = ["invoice-total-answer-001", "share-doc-exact-001"]


def _reference(task_id: str) -> list[Reply]:
    task = load_task(tasks_dir() / task_id)
    assert task.solution is not None
    replies: list[Reply] = [tool_call(step.name, step.arguments) for step in task.solution.steps]
    return [*replies, submit(task.solution.answer), text("Done.")]


def test_taskset_yields_prompts_without_grader_or_solution() -> None:
    taskset = OfficesimTaskset(OfficesimConfig(id="officesim-verifiers", ids=TASKS))
    tasks = list(taskset)
    assert [t.data.task_id for t in tasks] == TASKS
    first = tasks[0].data
    task = load_task(tasks_dir() / TASKS[0])
    assert task.instruction.strip() in first.prompt_text
    assert f"at most {task.max_steps} tool calls" in first.prompt_text
    assert task.solution is not None and task.solution.answer not in json.dumps(first.model_dump())
    assert tasks[0].key == TASKS[0]


def test_unknown_task_id_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="no task 'nope-001'"):
        list(OfficesimTaskset(OfficesimConfig(id="officesim-verifiers", ids=["nope-001"])))


def test_reward_replays_the_calls_on_the_start_state() -> None:
    task = load_task(tasks_dir() / TASKS[0])
    assert task.solution is not None
    data = OfficesimData(task_id=task.id, task_dir=str(task.dir), max_steps=task.max_steps)
    calls = [{"name": s.name, "arguments": s.arguments} for s in task.solution.steps]
    assert grade_calls(data, [*calls, {"name": "submit", "arguments": {"answer": task.solution.answer}}]).score == 1.0
    assert grade_calls(data, [{"name": "submit", "arguments": {"answer": "$1"}}]).passed is False
    assert grade_calls(data, []).passed is False  # an episode that never submits is ended unanswered


def _script_by_task(scripts: dict[str, list[Reply]]) -> Any:
    """Each rollout's n-th model turn gets the n-th reply of its task's script (found by its prompt)."""
    prompts = {task_id: load_task(tasks_dir() / task_id).instruction.strip()[:80] for task_id in scripts}

    def reply(body: dict[str, Any]) -> Reply:
        messages = body.get("messages") or []
        first_user = next(m for m in messages if m.get("role") == "user")
        content = first_user["content"] if isinstance(first_user["content"], str) else json.dumps(first_user["content"])
        task_id = next(t for t, p in prompts.items() if p in content)
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        return scripts[task_id][min(turn, len(scripts[task_id]) - 1)]

    return reply


def _vf_eval(base_url: str, out: Path, ids: list[str]) -> list[dict[str, Any]]:
    vf_eval = shutil.which("vf-eval", path=str(Path(sys.executable).parent)) or "vf-eval"
    env = {**os.environ, "OFFICESIM_TEST_KEY": "sk-test",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [vf_eval, "officesim-verifiers", "--env.taskset.ids", json.dumps(ids),
               "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess",
               "--client.base-url", base_url, "--client.api-key-var", "OFFICESIM_TEST_KEY", "-m", "scripted",
               "-c", "1", "--no-push", "-o", str(out), "--clean"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, check=False)
    traces = sorted(out.glob("*/traces.jsonl"))
    assert traces, f"vf-eval wrote no traces (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return [json.loads(line) for line in traces[0].read_text().splitlines() if line.strip()]


@pytest.mark.slow
def test_vf_eval_reference_scores_one_and_a_blind_answer_fails(tmp_path: Path) -> None:
    scripts = {TASKS[0]: _reference(TASKS[0]),
               # no reads, a made-up total: must not be rewarded
               TASKS[1]: [submit("done"), text("Done.")]}
    with serve(ScriptedServer(_script_by_task(scripts))) as base_url:
        episodes = _vf_eval(base_url, tmp_path / "out", TASKS)
    rewards: dict[str, float] = {}
    for episode in episodes:
        for trace in episode["traces"]:
            assert not trace.get("errors"), trace["errors"]
            rewards[episode["task"]["data"]["task_id"]] = trace["rewards"]["officesim"]["score"]
    assert rewards[TASKS[0]] == 1.0
    assert rewards[TASKS[1]] < 0.5, rewards
