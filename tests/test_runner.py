"""The runner: result lines, transcripts, resume (done, half-written, stale), parallel workers, errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from officesim.agents.openai_agent import OpenAIAgent
from officesim.cli import main
from officesim.env import OfficeEnv
from officesim.episode import run_episode
from officesim.errors import OfficesimError
from officesim.pipeline.runner import (
    RESULTS,
    AgentSpec,
    RunError,
    attempt_seed,
    load_transcript,
    read_results,
    read_run_info,
    run,
)
from officesim.task import find_tasks, load_task
from officesim.testing import ScriptedServer, ServerError, serve, submit, tool_call

FIXTURES = Path(__file__).parent / "fixtures" / "runner_tasks"
LOOKUPS = ["who-is-ceo", "who-is-hr-lead"]
FIELDS = {"task", "attempt", "seed", "agent", "score", "passed", "status", "grade", "steps", "tokens",
          "wall_time", "versions", "category", "difficulty", "group", "family", "error"}


@pytest.fixture
def tasks(tmp_path: Path) -> list[Path]:
    """Copies of two lookup tasks (copies, so a test may edit them)."""
    folders = []
    for name in LOOKUPS:
        shutil.copytree(FIXTURES / name, tmp_path / "tasks" / name)
        folders.append(tmp_path / "tasks" / name)
    return folders


def test_result_lines_have_every_field_and_a_transcript(tasks: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "run"
    report = run(tasks, AgentSpec("oracle"), 2, out, progress=False)
    assert (report.played, report.passed, report.errors) == (4, 4, 0)
    records = read_results(out)
    assert [(r["task"], r["attempt"]) for r in records] == [(t, a) for t in LOOKUPS for a in (0, 1)]
    for record in records:
        assert set(record) >= FIELDS
        assert record["seed"] == attempt_seed(record["task"], record["attempt"])
        assert (record["status"], record["score"], record["passed"]) == ("ok", 1.0, True)
        assert record["steps"] == 2  # one search, then submit
        assert set(record["versions"]) >= {"world", "start_state", "tools", "task", "grader"}
        start = load_task(tasks[0].parent / record["task"]).start_state_hash()
        assert record["versions"]["start_state"] == start
        assert record["versions"]["task"] == load_task(tasks[0].parent / record["task"]).task_hash
        assert record["grade"]["criteria"][0]["id"] == "right_answer"
        transcript = load_transcript(out, record["task"], record["attempt"])
        assert transcript[0]["role"] == "user"
        assert transcript[1]["tool_calls"][0]["function"]["name"] == "directory_search_people"
    info = read_run_info(out)
    assert info["agent"] == {"name": "oracle", "options": {}}
    assert sorted(info["tasks"]) == LOOKUPS


def test_resume_skips_done_attempts_and_tolerates_a_half_written_line(tasks: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(tasks, AgentSpec("random", {"seed": 1}), 2, out, progress=False)
    first = read_results(out)
    with (out / RESULTS).open("a") as handle:
        handle.write('{"task": "who-is-ceo", "attempt": 2, "sco')  # killed mid-write
    report = run(tasks, AgentSpec("random", {"seed": 1}), 3, out, progress=False)
    assert (report.skipped, report.played) == (4, 2)
    records = read_results(out)
    assert len(records) == 6
    assert [r for r in records if r["attempt"] < 2] == first
    lines = (out / RESULTS).read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line) for line in lines)
    again = run(tasks, AgentSpec("random", {"seed": 1}), 3, out, progress=False)
    assert (again.played, again.skipped) == (0, 6)


def test_a_changed_task_is_played_again(tasks: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(tasks, AgentSpec("oracle"), 1, out, progress=False)
    task_file = tasks[0] / "task.yaml"
    task_file.write_text(task_file.read_text().replace("max_steps: 6", "max_steps: 7"))
    report = run(tasks, AgentSpec("oracle"), 1, out, progress=False)
    assert report.played == 1
    assert read_results(out)[0]["versions"]["task"] == load_task(tasks[0]).task_hash


def test_resuming_with_another_agent_is_refused(tasks: list[Path], tmp_path: Path) -> None:
    run(tasks, AgentSpec("null"), 1, tmp_path / "run", progress=False)
    with pytest.raises(RunError, match="cannot be resumed"):
        run(tasks, AgentSpec("oracle"), 1, tmp_path / "run", progress=False)


def test_unknown_agent_fails_before_any_episode(tasks: list[Path], tmp_path: Path) -> None:
    with pytest.raises(OfficesimError, match="Did you mean 'oracle'"):
        run(tasks, AgentSpec("oracel"), 1, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_two_workers_give_the_same_records_as_one(tasks: list[Path], tmp_path: Path) -> None:
    spec = AgentSpec("random", {"seed": 7})
    run(tasks, spec, 4, tmp_path / "one", workers=1, progress=False)
    report = run(tasks, spec, 4, tmp_path / "two", workers=2, progress=False)
    assert report.played == 8
    keys = ("task", "attempt", "seed", "score", "passed", "status", "steps", "grade")

    def strip(out: Path) -> list[tuple]:
        return [tuple(json.dumps(r[k], sort_keys=True) for k in keys) for r in read_results(out)]

    assert strip(tmp_path / "one") == strip(tmp_path / "two")
    assert load_transcript(tmp_path / "one", "who-is-ceo", 3) == load_transcript(tmp_path / "two", "who-is-ceo", 3)


def test_an_api_that_keeps_failing_makes_error_attempts_not_zeros(tasks: list[Path], tmp_path: Path) -> None:
    server = ScriptedServer(default=ServerError(503))
    with serve(server) as url:
        options = {"model": "m", "base_url": url, "api_key": "k", "max_retries": 1, "timeout": 5.0}
        report = run(tasks, AgentSpec("openai", options), 1, tmp_path / "run", progress=False)
    assert (report.played, report.errors, report.crashes) == (2, 2, [])
    for record in read_results(tmp_path / "run"):
        assert (record["status"], record["score"], record["passed"]) == ("error", None, None)
        assert "giving up after 2 failed requests" in record["error"]
    assert "api_key" not in json.dumps(read_run_info(tmp_path / "run"))
    again = run(tasks, AgentSpec("openai", options), 1, tmp_path / "run", progress=False)
    assert again.played == 0  # recorded errors are kept unless retry_errors


def test_openai_agent_episode_end_to_end_with_malformed_arguments(openai_server: ScriptedServer) -> None:
    openai_server.push(tool_call("directory_search_people", '{"query": "Chief Exec'),
                       tool_call("directory_search_people", query="Chief Executive Officer"),
                       submit("stephen.james@tinyco.test"))
    env = OfficeEnv(load_task(FIXTURES / "who-is-ceo"))
    agent = OpenAIAgent("m", base_url=openai_server.base_url, api_key="k")
    result = run_episode(env, agent, seed=5)
    assert (result.status, result.passed, result.steps) == ("ok", True, 3)
    fed_back = openai_server.requests[1]["messages"][-1]
    assert fed_back["role"] == "tool"
    assert json.loads(fed_back["content"])["error"]["type"] == "invalid_argument"
    assert result.tokens is not None and result.tokens["total"] > 0
    assert openai_server.requests[0]["seed"] == 5


def test_cli_run_prints_metrics(tasks: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(tasks[0].parent), "--agent", "oracle", "--n", "2", "--out", str(tmp_path / "run"),
                 "--workers", "1", "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "oracle: 4 attempt(s) played" in printed
    assert "overall" in printed and "100.0%" in printed
    assert find_tasks([tasks[0].parent]) == sorted(tasks)


def test_openai_without_key_or_endpoint_fails_up_front(tasks: list[Path], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(OfficesimError, match="OPENAI_API_KEY"):
        run(tasks, AgentSpec("openai", {"model": "gpt-x"}), 1, tmp_path / "run", progress=False)


def test_a_broken_run_folder_is_reported_not_a_traceback(tasks: list[Path], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text("{broken")
    with pytest.raises(RunError, match=r"run\.json is not valid JSON"):
        read_run_info(out)
    assert main(["run", *map(str, tasks), "--agent", "null", "--n", "1", "--out", str(out)]) == 2
    assert "is not valid JSON" in capsys.readouterr().err
    with pytest.raises(RunError, match="is missing"):
        load_transcript(out, "who-is-ceo", 0)


def test_a_result_line_with_a_non_integer_attempt_is_skipped(tmp_path: Path) -> None:
    (tmp_path / RESULTS).write_text('{"task": "t", "attempt": "a"}\n{"task": "t", "attempt": 1, "passed": true}\n')
    assert read_results(tmp_path) == [{"task": "t", "attempt": 1, "passed": True}]


def test_a_run_in_process_keeps_only_the_task_it_plays_in_memory(tmp_path: Path) -> None:
    """Each task is one job, played once through: when the next task starts, the previous one's
    start state (a snapshot and a world, several MB each) is already released."""
    from officesim.pipeline.runner import AgentSpec, RunPlan, run_plans

    folders = find_tasks([Path(__file__).parent / "fixtures" / "tasks"])
    tasks = {folder: load_task(folder) for folder in folders}
    held: list[int] = []  # after each attempt: tasks whose start state is in memory

    def on_record(record: dict) -> None:
        held.append(sum(t._snapshot is not None for t in tasks.values()))

    reports = run_plans(folders, [RunPlan(AgentSpec("oracle"), 1, tmp_path / "run")], progress=False,
                        on_record=on_record, loaded=tasks)
    assert reports[0].played == len(folders) >= 3 and reports[0].errors == 0
    assert held == [1] * len(folders)
