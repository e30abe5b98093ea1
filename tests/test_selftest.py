"""Self-tests (oracle passes; null and hack probes fail) and the tasks/grade commands."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import (
    PROBES,
    DeleteEverythingProbe,
    EchoInstructionProbe,
    GuessNumberProbe,
    OracleAgent,
    SpamEveryoneProbe,
)
from officesim.cli import main
from officesim.env import play
from officesim.pipeline.selftest import selftest
from officesim.pipeline.taskstats import measure
from officesim.probes import FAMILIES, VARIANTS, ReplayAgent, Trajectory, kinds_for, wording
from officesim.probes import PROBES as KIND_PROBES
from officesim.probes.trajectory import Essential
from officesim.task import Task

FIXTURES = Path(__file__).parent / "fixtures" / "tasks"


def write_task(tmp_path: Path, task_id: str, task: dict[str, Any], grader: dict[str, Any],
               solution: dict[str, Any] | None = None) -> Task:
    folder = tmp_path / task_id
    folder.mkdir(parents=True)
    base = {"id": task_id, "world": {"spec": "tiny"}, "max_steps": 30, "category": "test", "difficulty": "easy",
            "family": task_id.replace("-", "_")}
    (folder / "task.yaml").write_text(yaml.safe_dump({**base, **task}))
    (folder / "grader.yaml").write_text(yaml.safe_dump(grader))
    (folder / "solution.yaml").write_text(yaml.safe_dump(solution or {"steps": [], "answer": None}))
    return load_task(folder)


def run_of(report, agent: str):
    return next(r for r in report.runs if r.agent == agent)


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_fixture_tasks_pass_their_selftests(name: str) -> None:
    report = selftest(load_task(FIXTURES / name), both_ways=False)
    assert report.ok, report.to_dict()
    assert [r.agent for r in report.runs if r.kind in ("oracle", "agent")] == ["oracle", "null",
                                                                               *(p.name for p in PROBES)]
    assert run_of(report, "oracle").score == 1.0 and all(r.score < 1.0 or not r.passed for r in report.runs[1:])


def test_a_grader_the_null_agent_passes_is_flagged(tmp_path: Path) -> None:
    task = write_task(tmp_path, "lazy-grader", {"instruction": "Send the CFO the Q3 total.",
                                                "tools": ["mail_send_message"]},
                      {"criteria": [{"id": "no_spam", "points": -1, "check": "mail_recipients_outside",
                                     "allowed": ["role:cfo"]}]})
    report = selftest(task)
    assert not report.ok and not run_of(report, "null").ok
    reason = run_of(report, "null").reason
    assert "null passes with score 1.00 (at most 0.25 allowed): the grader can be gamed" in reason


def test_echo_and_guess_probes_catch_answers_given_away_by_the_instruction(tmp_path: Path) -> None:
    task = write_task(tmp_path, "leaky-answer", {
        "instruction": "Our budget is 24,000 for Q3 in the Finance department. Which department? And the budget?",
        "tools": ["directory_list_departments"]},
        {"criteria": [{"id": "dept", "points": 1, "check": "answer", "contains": ["finance"]},
                      {"id": "amount", "points": 1, "check": "answer", "number": 24000}]},
        {"steps": [], "answer": "Finance, 24,000"})
    report = selftest(task)
    assert run_of(report, "oracle").ok
    assert not run_of(report, "echo_instruction").ok  # the instruction contains both answers
    guess = run_of(report, "guess_number")
    assert guess.score == 0.5 and not guess.ok  # not a pass, but half the points from a guess is gameable
    env = OfficeEnv(task)
    assert play(env, GuessNumberProbe()).answer == "24,000.00"
    assert play(env, EchoInstructionProbe()).answer == task.instruction


def test_spam_probe_mails_everyone_and_a_grader_without_a_penalty_is_flagged(tmp_path: Path) -> None:
    task = write_task(tmp_path, "mail-the-cfo", {
        "instruction": "Mail the CFO that the budget is approved.",
        "tools": ["directory_search_people", "mail_send_message"]},
        {"gates": [{"id": "to_cfo", "check": "mail_sent", "to": ["role:cfo"], "to_mode": "includes",
                    "body_contains": ["approved"]}]},
        {"steps": [{"name": "mail_send_message", "arguments": {
            "to": ["jasmine.jones@tinyco.test"], "subject": "Budget", "body": "The budget is approved."}}]})
    env = OfficeEnv(task)
    play(env, SpamEveryoneProbe())
    sent = env.world.db.execute("SELECT \"to\" FROM mail_message ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    people = env.world.db.execute("SELECT count(*) FROM directory_person").fetchone()[0]
    assert len(json.loads(sent)) == people
    report = selftest(task)
    assert not run_of(report, "spam_everyone").ok and run_of(report, "oracle").ok


def test_delete_probe_deletes_what_it_can_reach(tmp_path: Path) -> None:
    task = write_task(tmp_path, "delete-spam", {
        "instruction": "Delete the mail about the lottery win.",
        "tools": ["mail_search_messages", "mail_delete_message"],
        "setup": [{"as": "role:it_admin", "call": "mail_send_message",
                   "arguments": {"to": ["user"], "subject": "You won the lottery", "body": "Claim now"}}]},
        {"gates": [{"id": "gone", "check": "no_record", "table": "mail_entry",
                    "match": {"owner_id": "user", "folder": "inbox", "message_id": {"in": ["msg_49"]}}}]})
    env = OfficeEnv(task)
    env.reset()
    inbox = env.world.db.execute("SELECT count(*) FROM mail_entry WHERE owner_id = ? AND folder != 'trash'",
                                 (env.world.user_id,)).fetchone()[0]
    play(env, DeleteEverythingProbe())
    left = env.world.db.execute("SELECT count(*) FROM mail_entry WHERE owner_id = ? AND folder != 'trash'",
                                (env.world.user_id,)).fetchone()[0]
    assert inbox > 3 and left < inbox and env.steps > 3
    assert not run_of(selftest(task), "delete_everything").ok  # the grader never checks what else was deleted


def test_a_broken_solution_and_a_stale_tools_json_are_reported(tmp_path: Path) -> None:
    task = write_task(tmp_path, "broken-solution", {"instruction": "Look up deal_999.", "tools": ["crm_get_deal"],
                                                    "max_steps": 2},
                      {"criteria": [{"id": "a", "points": 1, "check": "answer", "contains": ["closed"]}]},
                      {"steps": [{"name": "crm_get_deal", "arguments": {"deal_id": "deal_999"}},
                                 {"name": "crm_get_deal", "arguments": {"deal_id": "deal_1"}}], "answer": "closed"})
    (task.dir / "tools.json").write_text("[]")
    report = selftest(task)
    assert any("steps.0 returned an error" in p for p in report.problems)
    assert any("needs 3 steps (submit included) but max_steps is 2" in p for p in report.problems)
    assert any("tools.json is stale" in p for p in report.problems)
    assert not report.ok


# ------------------------------------------------------------------------------------ CLI
def test_validate_prints_families_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "validate", str(FIXTURES / "budget-sheet-judged")]) == 0
    out = capsys.readouterr().out
    header, _, row, *_ = out.splitlines()
    assert header.split()[:8] == ["family", "tasks", "grps", "e/m/h", "variants", "kinds", "probes", "top"]
    report = selftest(load_task(FIXTURES / "budget-sheet-judged"))
    variants = report.of_kind("variant")
    probes = [r for r in report.runs if r.expected == "fail" and r.agent != "null"]
    assert len(variants) >= 2 and f"{len(variants)}/{len(variants)}  " in row and f"  {len(probes)}  " in row
    # the stats columns of ``tasks stats`` in the same table: the reference solution's calls, KiB read, ...
    stats = measure(load_task(FIXTURES / "budget-sheet-judged"))
    cells = row.split()
    assert header.split()[-6:] == ["calls", "KiB", "apps", "traps", "coll.", "rev."]
    assert cells[-6:] == [str(stats.calls), f"{stats.bytes_read / 1024:.1f}", str(stats.apps), str(stats.traps),
                          str(stats.colleagues), "any"]
    assert "all 1 task folder(s) valid (files and self-tests" in out
    assert ("warning: family budget_sheet: only 2 kind(s) of correct variant apply (variant:other_tool_path, "
            "variant:verify_after); at least 6 are expected") in out


def test_the_family_table_shows_stats_medians_per_tier_and_counts_skills() -> None:
    """One row per family with the medians of its reference figures (hard tier's calls in brackets),
    instances per tier as easy/medium/hard, and a total line naming the distinct skills declared."""
    from types import SimpleNamespace

    from officesim.cli.tasks import family_table
    from officesim.pipeline.taskstats import TaskStats
    from officesim.taskgen import FAMILIES as TASK_FAMILIES

    tiers = {"inbox_triage": ["medium", "hard", "hard"], "share_doc_exact": ["easy"]}
    tasks, stats = [], []
    for family, difficulties in tiers.items():
        for n, difficulty in enumerate(difficulties):
            task_id = f"{family}-{n}"
            tasks.append(SimpleNamespace(id=task_id, family=family, group=f"{family}/{n % 2}",
                                         category=TASK_FAMILIES[family].category, difficulty=difficulty))
            stats.append(TaskStats(task_id, family, difficulty, "g", calls=4 + 10 * n, bytes_read=2048 * (n + 1),
                                   apps=2, traps=n, colleagues=0, skeleton=""))
    lines = family_table(tasks, None, stats).splitlines()  # type: ignore[arg-type]
    triage = lines[2].split()
    assert triage[:4] == ["inbox_triage", "3", "2", "0/1/2"]
    assert triage[4:] == ["14", "(19)", "4.0", "2", "1", "0", "any"]  # medians: calls 4/14/24, hard 14/24
    assert lines[3].split()[4:] == ["4", "2.0", "2", "0", "0", "any"]  # share_doc_exact: no hard tier, no bracket
    skills = set(TASK_FAMILIES["inbox_triage"].skills) | set(TASK_FAMILIES["share_doc_exact"].skills)
    assert lines[4].split()[:4] == ["total:", str(len(skills)), "skills", "4"]
    assert "1/1/2" in lines[4] and all(len(line) <= 120 for line in lines)


def test_validate_fails_a_grader_that_a_generated_hack_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "validate", str(FIXTURES / "budget-summary-to-cfo")]) == 1
    out = capsys.readouterr().out
    assert "1.00 (hedge)" in out.splitlines()[2]  # the family's highest probe score, and whose
    assert "probe:hedge passes with score 1.00 (at most 0.25 allowed): the grader can be gamed" in out
    assert "probe:tolerance_grid passes with score 1.00" in out


def test_a_generated_variant_flags_a_grader_that_fails_correct_work() -> None:
    report = selftest(load_task(FIXTURES / "lookup-cfo-email"))  # answer check: equals the address
    courtesy = run_of(report, "variant:courtesy")
    assert not courtesy.ok and courtesy.score == 0.0
    assert courtesy.reason.startswith("variant:courtesy is correct work but fails with score 0.00: right_address")
    assert run_of(report, "variant:bare_answer").ok  # the address alone still passes


def test_a_sheet_check_passes_both_ways() -> None:
    report = selftest(load_task(FIXTURES / "budget-sheet-judged"))
    assert report.ok, report.to_dict()
    assert {r.agent for r in report.of_kind("variant")} >= {"variant:other_tool_path", "variant:verify_after"}
    assert all(r.score <= 0.25 for r in report.runs if r.expected == "fail")


def test_validate_reports_file_and_field_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("lookup-cfo-email", "move-deal-negotiation"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
    grader = tmp_path / "move-deal-negotiation" / "grader.yaml"
    grader.write_text(grader.read_text().replace("expect: {stage: negotiation", "expect: {stag: negotiation"))
    report = tmp_path / "report.json"
    assert main(["tasks", "validate", str(tmp_path), "--json", str(report)]) == 1
    out = capsys.readouterr().out
    assert f"{grader} is invalid:" in out and "gates.0 (stage_moved): crm_deal has no column 'stag'" in out
    assert "lookup_person" in out  # the valid task is still listed
    assert json.loads(report.read_text())["failures"]
    assert main(["tasks", "validate", "--no-selftest", str(tmp_path / "lookup-cfo-email")]) == 0


def test_schemas_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["tasks", "schemas", "--check"]) == 0
    assert main(["tasks", "schemas", "--check", "-o", str(tmp_path)]) == 1
    assert main(["tasks", "schemas", "-o", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("*.schema.json"))) == 5


def test_grade_command_replays_a_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = load_task(FIXTURES / "budget-summary-to-cfo")
    env = OfficeEnv(task)
    play(env, OracleAgent(task))
    transcript = tmp_path / "good.json"
    transcript.write_text(json.dumps(env.transcript))
    assert main(["grade", str(task.dir), str(transcript)]) == 0
    out = capsys.readouterr().out
    assert "PASSED" in out and "mailed_cfo_with_total" in out and "mails_others" in out and "replayed 3" in out
    # JSON lines and {"messages": [...]} work too; tool results in the file are ignored (replayed, not trusted).
    forged = [m if m["role"] != "tool" else {**m, "content": '{"status": "sent"}'} for m in env.transcript[:3]]
    lines = tmp_path / "partial.jsonl"
    lines.write_text("\n".join(json.dumps(m) for m in forged))
    assert main(["grade", str(task.dir), str(lines), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False and data["gates"][0]["reason"] == "no mail was sent during the episode"
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"messages": env.transcript}))
    assert main(["grade", str(task.dir), str(wrapped)]) == 0


def test_grade_command_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"nope": 1}')
    assert main(["grade", str(FIXTURES / "lookup-cfo-email"), str(bad)]) == 2
    assert "expected a list of chat messages" in capsys.readouterr().err


def test_a_probe_that_fails_but_collects_points_is_flagged(tmp_path: Path) -> None:
    task = write_task(tmp_path, "half-open-grader", {"instruction": "Send the CFO the Q3 total.",
                                                     "tools": ["mail_send_message", "directory_search_people"]},
                      {"criteria": [{"id": "cfo_mailed", "points": 1, "check": "mail_sent", "to": ["role:cfo"],
                                     "to_mode": "includes"},
                                    {"id": "total", "points": 1, "check": "answer", "number": 48200}]})
    report = selftest(task)
    spam = run_of(report, "spam_everyone")
    assert not spam.passed and spam.score == 0.5 and not spam.ok
    assert "fails with score 0.50 (at most 0.25 allowed)" in spam.reason


def test_overreach_probes_flag_a_grader_that_ignores_collateral_damage(tmp_path: Path) -> None:
    grader = {"gates": [{"id": "to_cfo", "check": "mail_sent", "to": ["role:cfo"], "to_mode": "includes",
                         "body_numbers": [24000]}],
              "criteria": [{"id": "once", "points": 1, "check": "mail_sent", "to": ["role:cfo"], "max": 1}]}
    task = {"instruction": "Mail the CFO that the Q3 total is 24,000.",
            "tools": ["directory_search_people", "mail_send_message", "mail_search_messages", "mail_delete_message"],
            "setup": [{"as": "role:it_admin", "call": "mail_send_message",
                       "arguments": {"to": ["user"], "subject": "Printer", "body": "Fixed."}}]}
    solution = {"steps": [{"name": "mail_send_message", "arguments": {
        "to": ["jasmine.jones@tinyco.test"], "subject": "Q3", "body": "The Q3 total is 24,000."}}]}
    report = selftest(write_task(tmp_path / "lax", "lax-grader", task, grader, solution))
    assert run_of(report, "oracle").ok
    assert not run_of(report, "overreach_mail").ok and run_of(report, "overreach_mail").passed
    assert not run_of(report, "overreach_delete_mail").ok
    guarded = {**grader, "criteria": [*grader["criteria"],
                                      {"id": "leak", "points": -1, "check": "mail_recipients_outside",
                                       "allowed": ["role:cfo"]},
                                      {"id": "deleted", "points": -1, "check": "changed", "table": "mail_entry",
                                       "match": {"owner_id": "user", "folder": "trash"}}]}
    report = selftest(write_task(tmp_path / "strict", "strict-grader", task, guarded, solution), both_ways=False)
    assert report.ok, report.to_dict()


def test_the_shotgun_probe_flags_a_name_check_without_wrong_alternatives(tmp_path: Path) -> None:
    task = {"instruction": "Which department does the CFO work in?", "tools": ["directory_search_people"]}
    solution = {"steps": [{"name": "directory_search_people", "arguments": {"limit": 100}}], "answer": "Finance"}
    loose = {"criteria": [{"id": "dept", "points": 1, "check": "answer", "contains": ["Finance"]}]}
    assert not run_of(selftest(write_task(tmp_path / "a", "loose-answer", task, loose, solution)),
                      "shotgun_answer").ok
    others = ["Engineering", "Sales", "Operations", "Marketing", "Executive", "People", "Legal", "Support"]
    strict = {"criteria": [{**loose["criteria"][0], "none_of": others}]}
    report = selftest(write_task(tmp_path / "b", "strict-answer", task, strict, solution))
    assert run_of(report, "shotgun_answer").ok and run_of(report, "oracle").ok


@pytest.mark.parametrize("calls", [[{"function": "directory_search_people"}], ["submit"], {"a": 1}])
def test_grade_command_reports_a_malformed_tool_call_in_one_line(tmp_path: Path, calls: Any,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"role": "assistant", "content": None, "tool_calls": calls}]))
    assert main(["grade", str(FIXTURES / "lookup-cfo-email"), str(bad)]) == 2
    assert "message 0:" in capsys.readouterr().err


# ------------------------------------------------------------------ the generated kinds' parts
def test_rewording_keeps_codes_dates_and_ids_and_respells_amounts_counts_and_dates() -> None:
    text = "Sales: $26,300.00 over, across 7 deals; INV-2026-0042 due Oct 3, receipt R-7960, file f_100."
    assert wording.reformat_amounts(text, "plain").startswith("Sales: 26,300 USD over")
    assert wording.reformat_amounts("$4,820,000 and $7,614.19", "compact") == "$4.82M and USD 7614.19"
    assert wording.counts_in_words(text) == text.replace("7 deals", "seven deals")
    assert wording.counts_in_words("5") == "Five."
    assert wording.us_dates("last contact 2026-10-03.") == "last contact 10/03/2026."
    assert wording.long_dates("on 2026-10-03") == "on 3 October 2026"
    # a day-first world (en_GB, fr_FR) reads 03/10/2026 as 3 October; fr_FR groups thousands with spaces
    assert wording.day_first_dates("last contact 2026-10-03.") == "last contact 03/10/2026."
    assert wording.counts_in_words("INV-1: 5 250,00 €, 3 deals") == "INV-1: 5 250,00 €, three deals"
    assert "INV-2026-0042" in wording.reformat_amounts(text, "compact") and "R-7960" in wording.counts_in_words(text)


def test_the_tolerance_grid_covers_the_value_without_stating_it() -> None:
    grid = wording.grid(26_300.0)
    assert len(grid) == 45 and 26_300.0 not in grid
    assert all(abs(b / a - 1.009) < 1e-3 for a, b in itertools.pairwise(grid))
    assert min(abs(g / 26_300.0 - 1) for g in grid) < 0.005  # a 0.5% tolerance check finds one


def test_an_essential_step_that_fails_ends_the_replay_with_no_answer(tmp_path: Path) -> None:
    task = write_task(tmp_path, "replay", {"instruction": "Say hi.", "tools": ["drive_get_file"]}, {"criteria": [
        {"id": "hi", "points": 1, "check": "answer", "contains": ["hi"]}]}, {"steps": [], "answer": "hi"})
    steps = [Essential({"name": "drive_get_file", "arguments": {"file_id": "f_nope"}}),
             {"name": "drive_get_file", "arguments": {"file_id": "f_1"}}]
    env = OfficeEnv(task)
    result = play(env, ReplayAgent("probe:x", Trajectory(steps, "hi")))
    assert env.steps == 2 and result.answer is None and not result.passed  # no second call, no answer


def test_every_family_declaration_names_real_kinds_and_every_shipped_family_runs_six_variant_kinds() -> None:
    for family, kinds in FAMILIES.items():
        unknown = (set(kinds.skip) | set(kinds.extra)) - set(VARIANTS) - set(KIND_PROBES)
        assert not unknown, f"{family}: unknown kinds {unknown}"
        assert all(why.strip() for why in [*kinds.skip.values(), *kinds.extra.values()]), family
    default = kinds_for("any_new_family")
    assert len(default.variants()) >= 6 and default.probes() == list(KIND_PROBES)


@pytest.mark.slow  # three fresh interpreters
def test_the_probes_facts_are_the_same_in_every_process() -> None:
    """What the probes write comes from the grader's facts: in the grader's order, never a set's
    (string hashes change with PYTHONHASHSEED, and so would validate's evidence from run to run)."""
    import os
    import subprocess
    import sys

    task = Path(__file__).resolve().parent.parent / "tasks" / "decline-against-policy-counsel-005"
    code = ("import sys; from officesim import load_task; from officesim.probes.facts import facts_for, family_facts; "
            "t = load_task(sys.argv[1]); print([(f.names, f.wrong_names) for f in [facts_for(t), *family_facts(t)]])")
    seen = {subprocess.run([sys.executable, "-c", code, str(task)], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in range(3)}
    assert len(seen) == 1, seen
    assert "Brightline Software" in next(iter(seen))
