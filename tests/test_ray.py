"""Ray, the real package on a local instance: a Ray-backed run and a pool of env actors."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")  # part of the dev extra: CI has it

from officesim.cli import main  # noqa: E402
from officesim.pipeline.runner import AgentSpec, read_results, run  # noqa: E402
from officesim.task import find_tasks, load_task  # noqa: E402

pytestmark = [pytest.mark.framework, pytest.mark.slow]
ROOT = Path(__file__).resolve().parent.parent
RUNNER_TASKS = Path(__file__).parent / "fixtures" / "runner_tasks"
TASKS = Path(__file__).parent / "fixtures" / "tasks"


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    # Workers import officesim from this checkout, as the driver does.
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_a_ray_run_matches_a_local_run_and_resumes(tmp_path: Path) -> None:
    tasks = find_tasks([RUNNER_TASKS])
    local = run(tasks, AgentSpec("oracle"), 2, tmp_path / "local", progress=False)
    remote = run(tasks, AgentSpec("oracle"), 2, tmp_path / "ray", workers=2, progress=False, backend="ray")
    assert remote.played == local.played == 2 * len(tasks) and not remote.crashes

    def key(records: list[dict]) -> dict:
        return {(r["task"], r["attempt"]): (r["seed"], r["score"], r["passed"], r["versions"]) for r in records}

    assert key(read_results(tmp_path / "ray")) == key(read_results(tmp_path / "local"))
    transcript = json.loads((tmp_path / "ray" / "transcripts" / "who-is-ceo" / "1.json").read_text())
    assert transcript == json.loads((tmp_path / "local" / "transcripts" / "who-is-ceo" / "1.json").read_text())
    again = run(tasks, AgentSpec("oracle"), 3, tmp_path / "ray", workers=2, progress=False, backend="ray")
    assert again.skipped == 2 * len(tasks) and again.played == len(tasks)  # only the new attempts


def test_officesim_run_backend_ray_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", str(TASKS / "lookup-cfo-email"), str(TASKS / "move-deal-negotiation"), "--agent", "oracle",
                 "--n", "2", "--out", str(out), "--workers", "2", "--backend", "ray", "--quiet"]) == 0
    records = read_results(out)
    assert len(records) == 4 and all(r["score"] == 1.0 and r["passed"] for r in records)
    assert main(["run", str(TASKS / "lookup-cfo-email"), "--agent", "oracle", "--out", str(out),
                 "--address", "auto"]) == 2
    assert "--address applies to --backend ray" in capsys.readouterr().err


def test_env_pool_plays_reference_solutions_in_actors() -> None:
    from officesim.integrations.ray import EnvPool

    tasks = [load_task(TASKS / "lookup-cfo-email"), load_task(TASKS / "move-deal-negotiation")]
    pool = EnvPool(tasks, 2)
    try:
        for task in tasks:  # both envs play the same task, then the next one
            observations = pool.reset([task.id, task.id], seeds=[0, 1])
            assert [obs["instruction"] for obs, _ in observations] == [task.instruction] * 2
            for step in task.solution.steps:
                results = pool.step([{"name": step.name, "arguments": step.arguments}] * 2)
                assert not any(r[2] or r[3] for r in results)
            submit = {"name": "submit", "arguments": {"answer": task.solution.answer}}
            finals = pool.step([submit, submit])
            assert [(r[1], r[2], r[4]["grade"]["passed"]) for r in finals] == [(1.0, True, True)] * 2
        with pytest.raises(ray.exceptions.RayTaskError, match="no task 'nope' in this pool"):
            pool.reset(["nope", "nope"])
    finally:
        pool.close()
