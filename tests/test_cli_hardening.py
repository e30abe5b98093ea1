"""Bad input from people gets a clear error, never a traceback, and nothing is lost (issue 7).

Each test pins one case the red-team pass found: the message, the exit code and the state after.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from officesim import load_task
from officesim.agents.openai_agent import NUDGE
from officesim.apps import app_names
from officesim.cli import main
from officesim.env import OfficeEnv
from officesim.errors import OfficesimError, SpecError
from officesim.grading.judge import JudgeConfig
from officesim.pipeline.runner import read_results
from officesim.replay import model_messages, replay, tool_calls
from officesim.testing import ScriptedServer, serve
from officesim.testing.openai_server import ServerError, text, tool_call
from officesim.world import World
from officesim.world_spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "tasks"
C_LOCALE = {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}


def _cli(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python3 -m officesim ARGS`` in a child process (this worktree's package first on the path)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "officesim", *args], capture_output=True, text=True,
                          encoding="utf-8", errors="replace", env=full_env, cwd=cwd, timeout=120)


# ----------------------------------------------------------------------------- 7: encoding
@pytest.mark.slow  # four child processes
def test_files_are_read_and_written_as_utf8_under_a_c_locale(tmp_path: Path) -> None:
    transcript = [
        {"role": "system", "content": "Du bist Jürgen — ☕"},
        {"role": "user", "content": "What is the CFO's address? Grüße, Zoë ✓"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "directory_search_people", "arguments": '{"query": "Chief Financial Officer"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"people\": [\"Jasmine Jönes\"]}"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "type": "function", "function": {
            "name": "submit", "arguments": '{"answer": "jasmine.jones@tinyco.test"}'}}]},
    ]
    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(transcript, ensure_ascii=False), encoding="utf-8")
    graded = _cli("grade", str(FIXTURES / "lookup-cfo-email"), str(path), env=C_LOCALE)
    assert graded.returncode == 0, graded.stderr
    assert "PASSED" in graded.stdout and "Traceback" not in graded.stderr

    spec = (ROOT / "worlds" / "tiny.yaml").read_text(encoding="utf-8").replace(
        "company: ", "company: Müller & Söhne — ", 1)
    spec_path = tmp_path / "umlaut.yaml"
    spec_path.write_text(spec, encoding="utf-8")
    built = _cli("world", "build", str(spec_path), "-o", str(tmp_path / "w.db"), env=C_LOCALE)
    assert built.returncode == 0, built.stderr
    shown = _cli("world", "show", str(tmp_path / "w.db"), env=C_LOCALE)
    assert shown.returncode == 0, shown.stderr
    assert "Müller & Söhne" in shown.stdout or "M\\xfcller & S\\xf6hne" in shown.stdout


# ----------------------------------------------------------------------------- 8: bad regex in grader.yaml
def _copy_task(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True)
    for item in src.iterdir():
        (dst / item.name).write_bytes(item.read_bytes())
    return dst


def test_a_bad_regex_names_file_and_field_and_validate_goes_on(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    good = _copy_task(FIXTURES / "lookup-cfo-email", tmp_path / "lookup-cfo-email")
    bad = _copy_task(FIXTURES / "budget-summary-to-cfo", tmp_path / "budget-summary-to-cfo")
    grader = bad / "grader.yaml"
    grader.write_text(grader.read_text(encoding="utf-8") + (
        "  - id: broken_regex\n    points: 1\n    check: mail_sent\n    body_matches: 'total (\\d+'\n"
        "  - id: broken_operator\n    points: 1\n    check: record\n    table: crm_deal\n"
        "    match: {name: {regex: '[unclosed'}}\n"), encoding="utf-8")
    assert main(["tasks", "validate", "--no-selftest", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "1 problem(s) in 2 task folder(s)" in out
    assert str(grader) in out
    assert "body_matches: Value error, invalid regular expression 'total (\\\\d+': missing ), unterminated " \
           "subpattern at position 6" in out
    assert "name.regex: invalid regular expression '[unclosed': unterminated character set at position 0" in out
    assert re.search(r"^lookup_person +1 ", out, re.M)  # the good folder was loaded and counted in the family table
    assert main(["tasks", "validate", "--no-selftest", str(good)]) == 0


# ----------------------------------------------------------------------------- 10: serve http --port
@pytest.mark.parametrize(("args", "message"), [
    (["--port", "99999"], "argument --port: port must be 1-65535, not 99999"),
    (["--port", "0"], "argument --port: port must be 1-65535, not 0"),
    (["--port", "eighty"], "argument --port: port must be a whole number, not 'eighty'"),
    (["--max-sessions", "0"], "argument --max-sessions: --max-sessions must be at least 1, not 0"),
    (["--session-ttl", "-5"], "argument --session-ttl: --session-ttl must be a number above 0, not -5"),
])
def test_serve_http_rejects_bad_numbers_before_starting(args: list[str], message: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "http", "--tasks", str(FIXTURES), *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# ----------------------------------------------------------------------------- 14: grade, tools export
@pytest.mark.parametrize(("content", "message"), [
    ("", "is empty; a transcript is a JSON list of chat messages"),
    ("  \n\n", "is empty; a transcript is a JSON list of chat messages"),
    ("[]", "holds no messages"),
    ('{"messages": []}', "holds no messages"),
    ('[{"name": "submit", "arguments": {}}]', "message 0 has no 'role'"),
    ('{"score": 1.0}\n{"passed": true}\n', "message 0 has no 'role'"),
])
def test_grade_refuses_an_empty_or_non_transcript_file(tmp_path: Path, content: str, message: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.json"
    path.write_text(content, encoding="utf-8")
    assert main(["grade", str(FIXTURES / "lookup-cfo-email"), str(path)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""  # no grade was printed


def test_tools_export_prints_unless_told_where_to_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.json").write_text("checked in", encoding="utf-8")
    assert main(["tools", "export", "--format", "anthropic", "--only", "mail_send_message"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [t["name"] for t in printed] == ["mail_send_message"] and "input_schema" in printed[0]
    assert (tmp_path / "tools.json").read_text(encoding="utf-8") == "checked in"
    assert main(["tools", "export", "-o", "tools.json"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (tmp_path / "tools.json").read_bytes() == (ROOT / "tools.json").read_bytes()


# ----------------------------------------------------------------------------- 17: "null" means no answer
@pytest.mark.parametrize("spelled", ["null", " NULL ", "None", "none", "", "   \n"])
def test_a_spelled_out_null_answer_is_no_answer(spelled: str) -> None:
    task = load_task(FIXTURES / "lookup-cfo-email")
    env = OfficeEnv(task)
    env.reset(seed=0)
    *_, info = env.step({"name": "submit", "arguments": json.dumps({"answer": spelled})})
    assert env.answer is None
    env.reset(seed=0)
    *_, reference = env.step({"name": "submit", "arguments": {"answer": None}})
    assert info["grade"].model_dump()["criteria"] == reference["grade"].model_dump()["criteria"]


@pytest.mark.parametrize("text", ["nullify", "none of them", "'null'", "N/A"])
def test_answers_that_only_contain_null_stay_text(text: str) -> None:
    env = OfficeEnv(load_task(FIXTURES / "lookup-cfo-email"))
    env.reset(seed=0)
    env.step({"name": "submit", "arguments": {"answer": text}})
    assert env.answer == text


# ----------------------------------------------------------------------------- 13: a model with no endpoint
@pytest.fixture
def no_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OFFICESIM_JUDGE_BASE_URL", "OFFICESIM_JUDGE_MODEL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_a_judge_model_without_url_or_key_fails_at_once(no_endpoint: None, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    transcript = tmp_path / "t.json"
    transcript.write_text('[{"role": "user", "content": "hi"}]', encoding="utf-8")
    assert main(["grade", str(FIXTURES / "lookup-cfo-email"), str(transcript), "--judge-model", "gpt-x"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing was graded, so no judge was asked
    assert ("judge model 'gpt-x' has no endpoint: set OFFICESIM_JUDGE_BASE_URL (or --judge-base-url)"
            in captured.err and "or OPENAI_API_KEY for OpenAI" in captured.err)
    with pytest.raises(OfficesimError, match="has no endpoint"):
        JudgeConfig(model="gpt-x")
    assert JudgeConfig(model="gpt-x", base_url="http://127.0.0.1:9/v1").base_url == "http://127.0.0.1:9/v1"
    assert JudgeConfig(model="gpt-x", api_key="sk-test").api_key == "sk-test"


def test_the_openai_agent_without_url_or_key_fails_before_the_run(no_endpoint: None, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["run", str(FIXTURES / "lookup-cfo-email"), "--agent", "openai", "--model", "m",
                 "--out", str(out), "--quiet"]) == 2
    assert "needs OPENAI_API_KEY for OpenAI, or --base-url" in capsys.readouterr().err
    assert not out.exists()


# ----------------------------------------------------------------------------- 9: world specs
def _spec_file(tmp_path: Path, **changes: object) -> Path:
    import yaml

    data = yaml.safe_load((ROOT / "worlds" / "tiny.yaml").read_text(encoding="utf-8"))
    for key, value in changes.items():
        if key.startswith("size_"):
            data["size"][key[len("size_"):]] = value
        else:
            data[key] = value
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("changes", "expected"), [
    ({"acting_user": "chief_wizard"},
     "acting_user: Value error, 'chief_wizard' is neither a role key nor an email. Role keys: ceo, cfo"),
    ({"acting_user": "cs_lead", "size_people": 10},
     "acting_user: Value error, role 'cs_lead' needs at least 17 people (size.people is 10)"),
    ({"acting_user": "someone@elsewhere.test"},
     "'someone@elsewhere.test' is not at the company's domain 'tinyco.test'"),
    ({"locale": "xx_YY"}, "locale: Value error, 'xx_YY' is not one of the"),
    ({"currency": "BANANA"}, "currency: Value error, 'BANANA' is not an ISO 4217 currency code"),
    ({"size_deals": 1_000_000_000},
     "size.deals: Input should be less than or equal to 5000 (got 1000000000); Deals in the CRM pipeline (1-5,000)."),
    ({"size_people": 100_000}, "size.people: Input should be less than or equal to 2000 (got 100000); "
                               "Employees in the directory (5-2,000)."),
    ({"size_people": 2_000, "size_mail_per_person": 200},
     "the biggest are people * mail_per_person = 400,000"),
    ({"start": "2026-10-05T09:00:00"}, "start: Input should have timezone info (got '2026-10-05T09:00:00'); "
                                       "The simulated clock at the start, with a timezone, e.g. 2026-10-05T09:00:00Z"),
    ({"start": "9999-12-31T00:00:00Z"}, "start must fall in the years 1970-2200, not 9999"),
    ({"domain": "bad domain.test"}, "'bad domain.test' is not a mail domain"),
    ({"seed": -1}, "seed: Input should be greater than or equal to 0 (got -1)"),
])
def test_every_world_spec_field_is_checked(tmp_path: Path, changes: dict[str, object], expected: str) -> None:
    with pytest.raises(SpecError) as raised:
        load_spec(_spec_file(tmp_path, **changes))
    assert expected in str(raised.value) and str(tmp_path / "spec.yaml") in str(raised.value)


def test_a_bad_spec_builds_nothing_and_prints_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec_file(tmp_path, locale="xx_YY", currency="BANANA", size_deals=1_000_000_000)
    out = tmp_path / "w.db"
    assert main(["world", "build", str(spec), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "locale:" in err and "currency:" in err and "size.deals:" in err and "Traceback" not in err
    assert not out.exists()


def test_spec_values_that_are_fine_are_kept(tmp_path: Path) -> None:
    spec = load_spec(_spec_file(tmp_path, currency="eur", locale="de_DE", acting_user="ap_specialist"))
    assert (spec.currency, spec.locale, spec.acting_user) == ("EUR", "de_DE", "ap_specialist")


def test_an_acting_user_email_must_be_an_employee(tiny: World, tmp_path: Path) -> None:
    someone = tiny.db.execute("SELECT email FROM directory_person WHERE id = 'p_9'").fetchone()[0]
    world = World.generate(_spec_file(tmp_path, acting_user=someone.upper().replace("@TINYCO.TEST", "@tinyco.test")))
    assert world.user["email"] == someone
    with pytest.raises(SpecError, match=r"acting_user 'ghost@tinyco\.test' is no employee of world 'tiny'"):
        World.generate(_spec_file(tmp_path, acting_user="ghost@tinyco.test"))


def test_big_world_builds_show_progress_on_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("officesim.cli.world.PROGRESS_ABOVE", 0)  # tiny counts as big here
    assert main(["world", "build", str(ROOT / "worlds" / "tiny.yaml"), "-o", str(tmp_path / "a.db")]) == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("world build: generating")]
    assert [line.split()[3] for line in lines] == list(app_names())
    assert f"({len(lines)}/{len(lines)}, ~" in lines[-1] and "records in all," in lines[-1]
    assert "world build" not in captured.out
    assert main(["world", "build", str(ROOT / "worlds" / "tiny.yaml"), "-o", str(tmp_path / "b.db"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "a.db").read_bytes() == (tmp_path / "b.db").read_bytes()  # progress changes nothing


# ----------------------------------------------------------------------------- 11: officesim run
RUNNER_TASKS = ROOT / "tests" / "fixtures" / "runner_tasks"


def test_run_checks_every_task_before_any_attempt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    library = tmp_path / "tasks"
    _copy_task(RUNNER_TASKS / "who-is-ceo", library / "who-is-ceo")
    for name, broken in (("who-is-hr-lead", "grader.yaml"), ("who-is-it-admin", "task.yaml")):
        folder = _copy_task(RUNNER_TASKS / name, library / name)
        (folder / broken).write_text((folder / broken).read_text(encoding="utf-8") + "\nbogus_field: 1\n",
                                     encoding="utf-8")
    out = tmp_path / "run"
    assert main(["run", str(library), "--agent", "oracle", "--out", str(out), "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "2 of 3 task folder(s) are invalid; nothing was run" in err
    assert str(library / "who-is-hr-lead" / "grader.yaml") in err and str(library / "who-is-it-admin") in err
    assert "bogus_field" in err and "Traceback" not in err
    assert not out.exists()  # no results.jsonl, no crash records


def test_run_against_a_dead_endpoint_fails_in_seconds_naming_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import socket
    import time

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    out = tmp_path / "run"
    started = time.monotonic()
    code = main(["run", str(RUNNER_TASKS / "who-is-ceo"), "--agent", "openai", "--model", "m", "--base-url", url,
                 "--out", str(out), "--quiet", "--workers", "1"])
    assert code == 2 and time.monotonic() - started < 15
    assert f"the model endpoint {url} does not answer (APIConnectionError" in capsys.readouterr().err
    assert read_results(out) == []  # no attempt was played or recorded


def test_a_run_whose_attempts_end_in_agent_errors_exits_non_zero(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    server = ScriptedServer(default=ServerError(503))
    with serve(server) as url:
        code = main(["run", str(RUNNER_TASKS / "who-is-ceo"), "--agent", "openai", "--model", "m",
                     "--base-url", url, "--max-retries", "0", "--out", str(tmp_path / "run"), "--quiet",
                     "--workers", "1"])
    assert code == 1
    assert "1 attempt(s) ended in an agent error" in capsys.readouterr().err
    assert [r["status"] for r in read_results(tmp_path / "run")] == ["error"]


# ----------------------------------------------------------------------------- 18: stop after N repeats
def test_identical_failing_calls_in_a_row_stop_the_episode() -> None:
    task = load_task(FIXTURES / "budget-summary-to-cfo")  # 12 steps
    env = OfficeEnv(task, stop_after_repeats=3)
    env.reset(seed=0)
    bad = {"name": "mail_get_message", "arguments": {"message_id": "m_nope"}}
    other = {"name": "mail_get_message", "arguments": {"message_id": "m_other"}}
    good = {"name": "directory_search_people", "arguments": {"query": "Chief Financial"}}
    for action in (bad, bad, other, bad, good, bad, bad):  # a different failure or a success resets the count
        *_, truncated, info = env.step(action)
        assert not truncated and "stopped" not in info
    *_, truncated, info = env.step({"name": "mail_get_message", "arguments": '{"message_id":  "m_nope"}'})
    assert truncated and env.steps == 8 and info["grade"].passed is False
    assert info["stopped"] == {"reason": "repeated_failing_call", "repeats": 3, "tool": "mail_get_message",
                               "error": "not_found"}
    note = env.transcript[-1]
    assert note["officesim"]["actor"] == "harness" and "stopped after 3 identical failing calls" in note["content"]
    # Replaying the saved transcript (no stop option) reaches the same grade.
    replayed, _ = replay(OfficeEnv(task), tool_calls(env.transcript))
    assert replayed.model_dump()["criteria"] == info["grade"].model_dump()["criteria"]
    with pytest.raises(OfficesimError, match="stop_after_repeats must be a whole number of at least 2"):
        OfficeEnv(task, stop_after_repeats=1)


def test_run_stop_after_repeats_is_recorded_in_the_attempt(tmp_path: Path) -> None:
    server = ScriptedServer(default=tool_call("directory_get_person", person="nobody"))
    with serve(server) as url:
        base = ["run", str(RUNNER_TASKS / "who-is-ceo"), "--agent", "openai", "--model", "m", "--base-url", url,
                "--quiet", "--workers", "1"]
        assert main([*base, "--out", str(tmp_path / "stopped"), "--stop-after-repeats", "2"]) == 0
        assert main([*base, "--out", str(tmp_path / "full")]) == 0
    [stopped] = read_results(tmp_path / "stopped")
    assert (stopped["status"], stopped["steps"], stopped["passed"]) == ("truncated", 2, False)
    assert stopped["stopped"]["reason"] == "repeated_failing_call" and stopped["grade"] is not None
    [full] = read_results(tmp_path / "full")
    assert (full["status"], full["steps"], full["stopped"]) == ("truncated", 6, None)


# ----------------------------------------------------------------------------- 16: the openai agent's transcript
def test_the_saved_transcript_is_what_the_model_saw_and_said(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    server = ScriptedServer([tool_call("directory_search_people", '{"query":"Chief Executive Officer"}'),
                             text("I think I have it."), text("stephen.james@tinyco.test")])
    with serve(server) as url:
        assert main(["run", str(RUNNER_TASKS / "who-is-ceo"), "--agent", "openai", "--model", "m",
                     "--base-url", url, "--out", str(tmp_path / "run"), "--quiet", "--workers", "1"]) == 0
    path = tmp_path / "run" / "transcripts" / "who-is-ceo" / "0.json"
    saved = json.loads(path.read_text(encoding="utf-8"))
    last_request = server.requests[-1]["messages"]
    # Everything the model was sent, in order, then its last reply, then the harness's submit and its result.
    assert saved[:len(last_request)] == last_request
    assert [m["role"] for m in saved] == ["system", "user", "assistant", "tool", "assistant", "user", "assistant",
                                          "assistant", "tool"]
    assert "You are" in saved[0]["content"] and saved[1]["content"].startswith("What is the email address")
    assert saved[2]["tool_calls"][0]["function"]["arguments"] == '{"query":"Chief Executive Officer"}'  # as written
    assert saved[4]["content"] == "I think I have it." and saved[5]["content"] == NUDGE
    assert saved[6] == {"role": "assistant", "content": "stephen.james@tinyco.test"}
    submit_call, submit_result = saved[7], saved[8]
    assert submit_call["officesim"] == submit_result["officesim"] == {"actor": "harness"}
    assert submit_call["tool_calls"][0]["function"] == {"name": "submit",
                                                        "arguments": '{"answer": "stephen.james@tinyco.test"}'}
    assert submit_result["tool_call_id"] == submit_call["tool_calls"][0]["id"]
    # Training data drops the harness's messages: the model made one tool call, and no submit.
    said = [c["function"]["name"] for m in model_messages(saved) for c in m.get("tool_calls", [])]
    assert said == ["directory_search_people"]
    # Regrading replays the harness's submit too, and reaches the recorded grade.
    [record] = read_results(tmp_path / "run")
    assert record["passed"] is True
    capsys.readouterr()
    assert main(["grade", str(RUNNER_TASKS / "who-is-ceo"), str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["criteria"] == record["grade"]["criteria"]


@pytest.mark.parametrize(("args", "message"), [
    (["--k", "0"], "argument --k: --k must be at least 1, not 0"),
    (["--timeout", "-1"], "argument --timeout: --timeout must be a number above 0, not -1"),
    (["--max-retries", "-2"], "argument --max-retries: --max-retries must be at least 0, not -2"),
    (["--stop-after-repeats", "1"], "argument --stop-after-repeats: --stop-after-repeats must be at least 2, not 1"),
])
def test_run_rejects_bad_numbers_before_starting(tmp_path: Path, args: list[str], message: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", str(RUNNER_TASKS / "who-is-ceo"), "--agent", "null", "--out", str(tmp_path / "r"), *args])
    assert exited.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
