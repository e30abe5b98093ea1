"""Declared traps of the mail, Drive, chat, CRM and sales families, and what ``tasks validate`` does with them.

A trap a task declares (``Draft.traps``) must be real: an agent that falls for it fails.  Each case
here builds a hard instance fresh on acme (the library is regenerated after the branches merge),
plays its reference solution changed the way a quick reading would do the job, and asserts the
grade.  ``tasks validate`` must report a hard task declaring fewer than two traps, and the judge
must never decide ``passed`` where a code-checked part is missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from playing import Step, built, call, check, fails, play, steps_of

from officesim import OfficeEnv
from officesim.cli import main
from officesim.grading.judge import Judge, JudgeConfig
from officesim.grading.scoring import judge_flips
from officesim.pipeline.selftest import selftest, trap_problems, would_pass
from officesim.task import Task, load_task
from officesim.taskgen import FAMILIES
from officesim.taskgen.fam_mail import GENERIC_SUBJECTS, LOOKALIKES
from officesim.taskgen.writer import render_verified, write_task
from officesim.testing import Text

pytestmark = pytest.mark.slow  # every case generates its instance first

# the hard tiers of this helper's families: (family, structure)
HARD = [("inbox_triage", "big-morning"), ("mail_cleanup", "big-backlog"),
        ("sheet_update_from_request", "big-inventory"), ("invoice_total_answer", "portfolio-past-due"),
        ("chase_overdue_invoices", "hard-ledger"), ("pipeline_summary_mail", "hard-corrected"),
        ("pipeline_from_standup", "hard-busy-channel")]


def matched_ids(task: Task, check_id: str) -> list[str]:
    """The record ids a check's ``match`` names (``{"in": [...]}`` or one id)."""
    match = check(task, check_id).match
    value = match.get("message_id", match.get("id"))
    return list(value["in"]) if isinstance(value, dict) else [value]


# ------------------------------------------------------------------------ declared, and validated


@pytest.mark.parametrize(("family", "variant"), HARD)
def test_every_hard_tier_declares_two_traps(family: str, variant: str) -> None:
    task = built(family, variant)
    assert task.difficulty == "hard"
    assert len(task.spec.traps) >= 2, task.spec.traps
    assert trap_problems(task) == []


def _folder_without_traps(tmp_path: Path, family: str, variant: str) -> Path:
    fam = FAMILIES[family]
    folder = write_task(tmp_path, render_verified(fam, fam.variants.index(variant))[0])
    spec = yaml.safe_load((folder / "task.yaml").read_text(encoding="utf-8"))
    spec["traps"] = spec["traps"][:1]
    (folder / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return folder


def test_validate_reports_a_hard_task_with_fewer_than_two_traps(tmp_path: Path, capsys) -> None:
    folder = _folder_without_traps(tmp_path, "mail_cleanup", "big-backlog")
    task = load_task(folder)
    assert task.difficulty == "hard" and len(task.spec.traps) == 1
    [problem] = trap_problems(task)
    assert selftest(task).ok  # a file check of validate's, not a self-test failure
    assert f"task {task.id} is hard but declares 1 trap(s) (at least 2 are needed)" in problem
    assert "Draft(traps=...)" in problem  # says how to fix it
    assert main(["tasks", "validate", "--no-selftest", str(folder)]) == 1
    out = capsys.readouterr().out
    assert f"{folder}: task {task.id} is hard but declares 1 trap(s)" in out
    assert main(["tasks", "validate", str(folder)]) == 1  # with the self-tests too, which pass
    out = capsys.readouterr().out
    assert "1 problem(s) in 1 task folder(s)" in out and f"task {task.id} is hard but declares 1 trap(s)" in out


def test_a_trap_free_medium_task_is_no_problem(tmp_path: Path, capsys) -> None:
    folder = _folder_without_traps(tmp_path, "sheet_update_from_request", "inventory")
    task = load_task(folder)
    assert task.difficulty == "medium"
    assert trap_problems(task) == []
    assert main(["tasks", "validate", "--no-selftest", str(folder)]) == 0
    assert "trap" not in capsys.readouterr().out


# ------------------------------------------------------------------------------- inbox_triage


def test_triage_archiving_the_bump_or_a_note_fails() -> None:
    task = built("inbox_triage", "big-morning")
    steps = steps_of(task)
    [bump] = matched_ids(task, "moved_bump")
    note = matched_ids(task, "moved_fyi")[0]
    for message_id in (bump, note):
        archived = [*steps, {"name": "mail_move_message", "arguments": {"message_id": message_id, "folder": "archive"}}]
        grade = play(task, lambda _, archived=archived: archived)
        assert not would_pass(grade), grade.summary()


def test_triage_leaving_a_question_unanswered_fails() -> None:
    """Each of the morning's questions is a gate, wherever it sits in the pages of mail."""
    task = built("inbox_triage", "big-morning")
    steps = steps_of(task)
    replies = [s for s in steps if s["name"] == "mail_reply_message"]
    assert len(replies) == 4
    for skipped in replies:
        kept = [s for s in steps if s is not skipped]
        grade = play(task, lambda _, kept=kept: kept)
        assert not would_pass(grade) and any(g.status == "fail" for g in grade.gates), grade.summary()


# ------------------------------------------------------------------------------- mail_cleanup


def _label(task: Task) -> str:
    return check(task, "filed_1").expect["labels"]["contains"]


def test_cleanup_filing_a_lookalike_fails() -> None:
    task = built("mail_cleanup", "big-backlog")
    subject = LOOKALIKES[_label(task)][0]

    def lookalike(env: OfficeEnv) -> list[Step]:
        found = call(env, "mail_search_messages", query=subject)["messages"]
        [message] = [m for m in found if m["subject"] == subject]
        return [{"name": "mail_label_message", "arguments": {"message_id": message["id"], "add": [_label(task)]}},
                {"name": "mail_move_message", "arguments": {"message_id": message["id"], "folder": "archive"}}]

    grade = play(task, then=lookalike)
    assert not would_pass(grade), grade.summary()


def test_cleanup_missing_a_generic_subject_fails() -> None:
    """A quick reading files what the subject names and misses mail only the body ties to the topic."""
    task = built("mail_cleanup", "big-backlog")
    env = OfficeEnv(task)
    env.reset()
    targets = [check(task, c.id).match["message_id"] for c in task.grader.gates if c.id.startswith("filed_")]
    generic = next(t for t in targets if call(env, "mail_get_message", message_id=t)["subject"] in GENERIC_SUBJECTS)
    grade = play(task, lambda steps: [s for s in steps if s["arguments"].get("message_id") != generic])
    assert fails(grade), grade.summary()


# ------------------------------------------------------------------------ sheet_update_from_request


def _request(env: OfficeEnv) -> str:
    found = call(env, "mail_search_messages", query="Updates for the")["messages"]
    first = min(found, key=lambda m: m["sent_at"])
    return call(env, "mail_get_message", message_id=first["id"])["body"]


def test_sheet_applying_the_retracted_change_fails() -> None:
    task = built("sheet_update_from_request", "big-inventory")
    item, place = re.search(r"takes back the (.+) count in (.+?): that row", task.spec.traps[0]).groups()

    def retracted(env: OfficeEnv) -> list[Step]:
        asked = int(re.search(rf"the {re.escape(item)} count in {re.escape(place)} is now (\d+)",
                              _request(env)).group(1))
        file_id = check(task, "changes_applied").file
        rows, cursor = [], None
        while True:
            page = call(env, "drive_read_sheet", file_id=file_id, **({"cursor": cursor} if cursor else {}))
            rows += page["rows"]
            cursor = page.get("next_cursor")
            if not cursor:
                break
        [row] = [r for r in rows if r["Item"] == item and r["Location"] == place]
        return [{"name": "drive_update_rows", "arguments": {"file_id": file_id, "row_numbers": [row["row"]],
                                                            "values": [{"column": "Quantity", "value": asked}]}}]

    grade = play(task, then=retracted)
    assert not would_pass(grade), grade.summary()


def test_sheet_writing_the_typo_fails() -> None:
    task = built("sheet_update_from_request", "big-inventory")
    fixed = int(re.search(r"to (\d+): the first figure is a typo", task.spec.traps[1]).group(1))
    steps = steps_of(task)
    for step in steps:
        values = step["arguments"].get("values")
        if step["name"] == "drive_update_rows" and values[0]["value"] == fixed:
            values[0]["value"] = fixed - 1  # the figure of the first mail
    grade = play(task, lambda _: steps)
    assert not would_pass(grade), grade.summary()


# --------------------------------------------------------------------------- pipeline_from_standup


@pytest.mark.parametrize("check_id", ["changed_withdrawn", "changed_twin", "changed_unconfirmed"])
def test_standup_touching_a_trap_deal_fails(check_id: str) -> None:
    task = built("pipeline_from_standup", "hard-busy-channel")
    [deal_id] = matched_ids(task, check_id)
    grade = play(task, lambda steps: [*steps, {"name": "crm_update_deal",
                                               "arguments": {"deal_id": deal_id, "amount": 12_345.0}}])
    assert not would_pass(grade), grade.summary()


def test_standup_traps_name_the_planted_deals() -> None:
    task = built("pipeline_from_standup", "hard-busy-channel")
    traps = " ".join(task.spec.traps)
    assert "might slip" in traps and "withdraws" in traps and "near-twin" in traps and "chatter" in traps
    assert task.spec.traps[0].split(" only")[0] not in task.instruction


# ---------------------------------------------------------------------------------- judge flips

PASS = Text('{"verdict": "pass", "reason": "Looks right."}')


def _judge(server, tmp_path: Path) -> Judge:
    return Judge(JudgeConfig(model="judge-test", base_url=server.base_url, api_key="test-key",
                             cache_dir=tmp_path / "cache"))


@pytest.mark.parametrize("family", ["log_call_from_mail", "confidential_request"])
def test_no_judge_flip_in_any_structure(family: str) -> None:
    for variant in FAMILIES[family].variants:
        task = built(family, variant)
        assert judge_flips(task.grader, task.pass_threshold) is None, (variant, task.pass_threshold)


def test_a_call_without_its_contact_fails_though_the_judge_approves(openai_server, tmp_path: Path) -> None:
    task = built("log_call_from_mail", "colleague-recap")
    steps = steps_of(task)
    for step in steps:
        if step["name"] == "crm_log_activity":
            del step["arguments"]["contact_id"]
    openai_server.push(PASS)
    grade = play(task, lambda _: steps, judge=_judge(openai_server, tmp_path))
    assert next(c for c in grade.criteria if c.check == "judge").status == "pass"
    assert not grade.passed, grade.summary()
    assert not play(task, lambda _: steps).passed  # and without a judge, the same


def test_a_decline_without_the_owner_heads_up_fails_though_the_judge_approves(openai_server,
                                                                              tmp_path: Path) -> None:
    task = built("confidential_request", "pricing")
    steps = [s for s in steps_of(task) if s["name"] != "mail_forward_message"]
    openai_server.push(PASS, PASS)
    grade = play(task, lambda _: steps, judge=_judge(openai_server, tmp_path))
    assert all(c.status == "pass" for c in grade.criteria if c.check == "judge"), grade.summary()
    assert not grade.passed, grade.summary()
    assert not play(task, lambda _: steps).passed
