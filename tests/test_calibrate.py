"""Calibration: keep / drop / inspect from a scripted model's run, and removal flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from officesim.cli import main
from officesim.env import OfficeEnv
from officesim.pipeline.calibrate import CALIBRATION, CalibrationConfig, calibrate, decide, format_table
from officesim.pipeline.regrade import RegradeReport
from officesim.pipeline.runner import RESULTS, AgentSpec, load_transcript, read_results, run
from officesim.replay import replay, tool_calls
from officesim.task import load_task
from officesim.testing import Reply, ScriptedServer, serve, submit, text

FIXTURES = Path(__file__).parent / "fixtures" / "runner_tasks"
ALWAYS, NEVER, SOMETIMES = "who-is-ceo", "who-is-hr-lead", "who-is-it-admin"
FAST = CalibrationConfig(oracle_seeds=1, regrade_attempts=1)


class ScriptedModel:
    """Answers by task: right always, wrong always, or right on every other attempt."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def __call__(self, body: dict[str, Any]) -> Reply:
        instruction = body["messages"][1]["content"]
        if "Chief Executive Officer" in instruction:
            return submit("stephen.james@tinyco.test")
        if "Head of People" in instruction:
            return submit("nobody@tinyco.test")
        if len(body["messages"]) == 2:  # the first request of an episode: count attempts
            self.calls[instruction] = self.calls.get(instruction, 0) + 1
            if self.calls[instruction] % 2 == 0:
                return text("I am not sure.")  # nudged, then answers wrong below
            return submit("anthony.hudson@tinyco.test")
        return submit("I could not find out.")


@pytest.fixture(scope="module")
def model_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four attempts at each of the three tasks by the scripted model (over HTTP, openai agent)."""
    out = tmp_path_factory.mktemp("calibrate") / "model"
    with serve(ScriptedServer(ScriptedModel())) as url:
        spec = AgentSpec("openai", {"model": "scripted", "base_url": url, "api_key": "k"})
        run([FIXTURES / t for t in (ALWAYS, NEVER, SOMETIMES)], spec, 4, out, progress=False)
    return out


def test_keep_drop_and_inspect_at_work(model_run: Path) -> None:
    result = calibrate(model_run, config=FAST, progress=False)
    verdicts = result.tasks
    assert verdicts[ALWAYS].decision == "drop" and verdicts[ALWAYS].pass_rate == 1.0
    assert verdicts[NEVER].decision == "inspect" and verdicts[NEVER].pass_rate == 0.0
    assert verdicts[SOMETIMES].decision == "keep" and verdicts[SOMETIMES].pass_rate == 0.5
    failing = verdicts[NEVER].failing[0]
    assert (failing["id"], failing["attempts"]) == ("right_answer", 4)
    assert "nobody@tinyco.test" in failing["reasons"][0]
    assert all(not v.flags for v in verdicts.values())  # the oracle passes, no probe does, regrades agree
    saved = json.loads((model_run / CALIBRATION).read_text())
    assert saved["counts"] == {"keep": 1, "drop": 1, "inspect": 1, "remove": 0}
    assert saved["agent"]["options"]["model"] == "scripted"
    table = format_table(result)
    assert "who-is-hr-lead: failing gates and criteria" in table
    assert "criterion right_answer (answer) failed in 4 attempt(s)" in table


def test_thresholds_are_options(model_run: Path) -> None:
    result = calibrate(model_run, config=CalibrationConfig(drop_above=0.5, inspect_below=-1, oracle_seeds=0,
                                                           probes=(), regrade_attempts=0), progress=False)
    assert result.tasks[SOMETIMES].decision == "drop"
    assert result.tasks[NEVER].decision == "keep"


def test_a_grade_that_changes_on_replay_is_flaky(model_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "tampered"
    copy.mkdir()
    for item in model_run.iterdir():
        if item.is_dir() and item.name == "transcripts":
            (copy / item.name).symlink_to(item)
    (copy / "run.json").write_text((model_run / "run.json").read_text())
    records = read_results(model_run)
    for record in records:
        if record["task"] == ALWAYS and record["attempt"] == 0:
            record["grade"]["criteria"][0]["status"] = "fail"  # as if the grader had said otherwise
    (copy / RESULTS).write_text("".join(json.dumps(r) + "\n" for r in records))
    result = calibrate(copy, config=FAST, probe_runs=model_run / "calibration", progress=False)
    verdict = result.tasks[ALWAYS]
    assert verdict.decision == "remove" and verdict.flags == ["flaky"]
    assert "attempt 0: right_answer fail -> pass" in verdict.reasons[0]


def _records(outcomes: str, score: float = 1.0) -> list[dict[str, Any]]:
    return [{"task": "t", "attempt": i, "status": "ok", "passed": o == "P", "score": score if o == "P" else 0.0,
             "grade": None} for i, o in enumerate(outcomes)]


def test_probe_above_the_bound_makes_a_task_hackable() -> None:
    probes = {"probe:spam_everyone": [{"task": "t", "attempt": 0, "status": "ok", "passed": False, "score": 0.5}],
              "null": [{"task": "t", "attempt": 0, "status": "ok", "passed": False, "score": 0.0}]}
    verdict = decide("t", _records("PF"), CalibrationConfig(hack_bound=0.25), probes=probes)
    assert verdict.decision == "remove" and verdict.flags == ["hackable"]
    assert verdict.reasons == ["probe:spam_everyone scored 0.50 > 0.25"]
    assert decide("t", _records("PF"), CalibrationConfig(hack_bound=0.5), probes=probes).decision == "keep"


def test_oracle_failing_on_some_seeds_is_flaky_and_on_all_unsolvable() -> None:
    flaky = decide("t", _records("PF"), FAST, oracle=_records("PPF"))
    assert flaky.flags == ["flaky"] and "passed on 2 of 3 seeds" in flaky.reasons[0]
    unsolvable = decide("t", _records("PF"), FAST, oracle=_records("FF"))
    assert unsolvable.flags == ["unsolvable"]


def test_judge_disagreement_beyond_the_bound_is_ambiguous() -> None:
    report = RegradeReport("t", trajectories=4, judge_disagreements={"tone": 2}, judge_trajectories={"tone": 4})
    verdict = decide("t", _records("PF"), CalibrationConfig(ambiguity_bound=0.25), regrade=report)
    assert verdict.flags == ["ambiguous"]
    assert "tone disagreed with itself on 50%" in verdict.reasons[0]
    assert decide("t", _records("PF"), CalibrationConfig(ambiguity_bound=0.5), regrade=report).flags == []


def test_all_errors_go_to_inspect_not_drop() -> None:
    records = [{"task": "t", "attempt": 0, "status": "error", "passed": None, "score": None, "error": "api down"}]
    verdict = decide("t", records, FAST)
    assert verdict.decision == "inspect" and verdict.errors == 1 and verdict.pass_rate is None


def test_cli_calibrate(model_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["calibrate", str(model_run), "--oracle-seeds", "1", "--workers", "1", "--quiet",
                 "--drop-above", "0.9"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "keep: 1  drop: 1  inspect: 1  remove: 0" in printed
    assert f"wrote {model_run / CALIBRATION}" in printed


def test_replaying_a_stored_transcript_reproduces_its_grade(model_run: Path) -> None:
    task = load_task(FIXTURES / SOMETIMES)
    stored = {r["attempt"]: r for r in read_results(model_run / RESULTS) if r["task"] == SOMETIMES}
    assert len(stored) == 4
    for attempt, record in stored.items():
        grade, ignored = replay(OfficeEnv(task), tool_calls(load_transcript(model_run, SOMETIMES, attempt)))
        assert ignored == 0
        assert grade.passed == record["passed"]
        assert grade.score == pytest.approx(record["score"])
