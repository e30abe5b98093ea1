"""``officesim replay`` and ``officesim regress``: result differences by kind, grades, paired intervals."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from officesim.cli import main
from officesim.task import load_task
from officesim.testing import ScriptedServer, serve
from officesim.testing.openai_server import submit, tool_call
from officesim.toolapi.regress import compare_sides, render
from officesim.toolapi.replay import compare_results

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "tasks"
CORPUS = ROOT / "tests" / "fixtures" / "reference-corpus.json"
TASK = FIXTURES / "move-deal-negotiation"


def test_result_differences_by_kind() -> None:
    old = {"files": [{"id": "f_1", "size": 3}, {"id": "f_2", "size": 4}], "next_cursor": None}
    assert compare_results(old, old) == {}
    new = {"files": [{"id": "f_1", "size": "3", "owner": "a"}, {"id": "f_9", "size": 4}]}
    assert compare_results(old, new) == {
        "field_added": ["files[].owner"], "field_removed": ["next_cursor"],
        "changed_type": ["files[].size"], "changed_value": ["files[].id"]}
    error = {"error": {"type": "invalid_argument", "message": "no"}}
    assert compare_results(old, error) == {"ok->error": [""]}
    assert compare_results(error, old) == {"error->ok": [""]}


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "run"
    assert main(["run", str(FIXTURES), "--agent", "oracle", "--out", str(out), "--workers", "1", "--quiet"]) == 0
    return out


def test_replay_of_a_run_finds_a_tampered_result(run_folder: Path, capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    assert main(["replay", str(run_folder), "--workers", "1"]) == 0  # unchanged code: nothing differs
    capsys.readouterr()
    copy = tmp_path / "run"
    shutil.copytree(run_folder, copy)
    path = copy / "transcripts" / TASK.name / "0.json"
    transcript = json.loads(path.read_text())
    first_tool = next(m for m in transcript if m["role"] == "tool")
    result = json.loads(first_tool["content"])
    result["served_by"] = "old-api"  # as if the recording version's results had another field
    first_tool["content"] = json.dumps(result)
    path.write_text(json.dumps(transcript))
    assert main(["replay", str(copy), "--workers", "1", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["tasks_changed"] == [TASK.name]
    (changed,) = report["changed"]
    assert changed["calls"][0]["changes"] == {"field_removed": ["served_by"]}
    assert report["grade_changes"] == 0
    assert main(["replay", str(copy), "--workers", "1", "--fail-on", "grades"]) == 0


def test_reference_corpus_record_and_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.json"
    assert main(["replay", str(FIXTURES), "--record", str(corpus), "--workers", "1"]) == 0
    data = json.loads(corpus.read_text())
    assert sorted(data["trajectories"]) == sorted(p.name for p in FIXTURES.iterdir())
    assert all(e["passed"] for e in data["trajectories"].values())
    capsys.readouterr()
    assert main(["replay", str(FIXTURES), "--corpus", str(corpus), "--workers", "1"]) == 0
    entry = data["trajectories"][TASK.name]
    entry["calls"][0][1]["digest"] = "0" * 16
    entry["passed"] = False
    corpus.write_text(json.dumps(data))
    assert main(["replay", str(FIXTURES), "--corpus", str(corpus), "--workers", "1"]) == 1
    out = capsys.readouterr().out
    assert f"tasks whose results changed: {TASK.name}" in out and "1 grades changed" in out


def test_replay_says_what_to_compare_with(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURES)]) == 2
    assert "pass --against REV" in capsys.readouterr().err
    assert main(["replay", str(FIXTURES), "--against", "no-such-rev"]) == 2
    assert "is not a git revision" in capsys.readouterr().err


def _records(side: str, outcomes: dict[str, list[float]]) -> list[dict]:
    return [{"key": f"{task}#{i}", "task": task, "attempt": i, "status": "ok", "score": s, "passed": s == 1.0}
            for task, scores in outcomes.items() for i, s in enumerate(scores)]


def test_regress_pairs_attempts_and_bootstraps_over_tasks() -> None:
    base = _records("base", {"a": [1, 1, 1, 1], "b": [1, 0, 1, 0], "c": [1, 1, 1, 1]})
    head = _records("head", {"a": [0, 0, 1, 0], "b": [1, 0, 1, 0], "c": [1, 1, 1, 1]})
    head.append({"key": "c#9", "task": "c", "attempt": 9, "status": "error", "score": None, "passed": None})
    report = compare_sides(base, head, {"a": "x", "b": "x", "c": "y"}, base_label="b", head_label="h", agent="t")
    by_task = {t.task: t for t in report.tasks}
    assert by_task["a"].pass_rate.change == -0.75 and by_task["b"].pass_rate.change == 0.0
    assert report.overall.pass_rate.change == pytest.approx(-0.25)
    low, high = report.overall.pass_rate.interval
    assert low <= -0.25 <= high <= 0.0
    assert [g.name for g in report.categories] == ["x", "y"] and report.categories[0].pass_rate.change == -0.375
    assert report.dropped == 1  # an agent error has no score: its pair is dropped, not counted as 0
    assert [t.task for t in report.changed()] == ["a"]
    text = render(report)
    assert "1 of 3 tasks changed" in text and "-25.0pp" in text


def test_regress_needs_two_conditions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regress", "--tasks", str(FIXTURES), "--agent", "oracle"]) == 2
    assert "same condition" in capsys.readouterr().err


@pytest.mark.slow
def test_reference_corpus_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    """Every shipped task's reference trajectory gives the recorded results: CI shows which a change alters."""
    code = main(["replay", str(ROOT / "tasks"), "--corpus", str(CORPUS), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["trajectories"] == len(list((ROOT / "tasks").glob("*/task.yaml")))
    assert code == 0, (
        f"tool results changed for {len(report['tasks_changed'])} tasks: {', '.join(report['tasks_changed'][:20])}. "
        "See how with 'python3 -m officesim replay tasks --against main'; if intended, accept with "
        f"'python3 -m officesim replay tasks --record {CORPUS.relative_to(ROOT)}' and commit it.")


@pytest.mark.slow
def test_regress_plays_an_openai_agent_over_http(capsys: pytest.CaptureFixture[str]) -> None:
    """A scripted model (the reference solution, sent over HTTP) passes the real surface and not a drifted one."""
    task = load_task(TASK)
    steps = task.solution.steps

    def model(body: dict) -> object:
        done = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if done < len(steps):
            return tool_call(steps[done].name, dict(steps[done].arguments))
        return submit(task.solution.answer)

    server = ScriptedServer(model)
    with serve(server) as base_url:
        code = main(["regress", "--tasks", str(TASK), "--agent", "openai", "--model", "scripted",
                     "--base-url", base_url, "--drift", "3", "--workers", "1", "--json"])
    report = json.loads(capsys.readouterr().out)
    (only,) = report["tasks"]
    assert (only["pass_rate"]["base"], only["pass_rate"]["head"]) == (1.0, 0.0) and code == 1
    assert any("deprecated" in note for note in only["notes"])
    offered = {t["function"]["name"] for t in server.requests[-1]["tools"]}
    assert "crm_deals_search" in offered  # the head's requests carried the drifted tool list
