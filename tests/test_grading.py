"""Grading: tolerant comparison (property tests), every check kind, scores, gates and statuses."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from officesim import World, load_task
from officesim.errors import SpecError
from officesim.grading import grade
from officesim.grading.normalize import (
    contains_phrase,
    extract_dates,
    matches,
    parse_date,
    parse_number,
    stated_numbers,
    text_has_number,
    values_equal,
)
from officesim.person_refs import email_of
from officesim.task import Task

BASE_TASK = {
    "id": "grading-probe",
    "instruction": "Do the thing.",
    "world": {"spec": "tiny"},
    "tools": ["mail_send_message", "mail_reply_message", "mail_search_messages", "drive_create_doc",
              "drive_create_sheet", "crm_move_deal", "crm_log_activity", "mail_delete_message"],
    "max_steps": 20,
    "category": "test",
    "difficulty": "easy",
    "family": "grading_probe",
    "setup": [
        {"clock": "2026-10-05T08:00:00Z"},
        {"as": "role:controller", "call": "mail_send_message",
         "arguments": {"to": ["user"], "subject": "Q3 budget figures", "body": "Total 24,000."}},
    ],
}


def make_task(tmp_path: Path, gates: list[dict] | None = None, criteria: list[dict] | None = None,
              **task_fields: Any) -> Task:
    folder = tmp_path / "grading-probe"
    folder.mkdir(exist_ok=True)
    (folder / "task.yaml").write_text(yaml.safe_dump({**BASE_TASK, **task_fields}))
    (folder / "grader.yaml").write_text(yaml.safe_dump({"gates": gates or [], "criteria": criteria or []}))
    return load_task(folder)


def episode(task: Task, *calls: tuple[str, dict[str, Any]]) -> World:
    """The final world after the acting user made ``calls`` (each must succeed)."""
    world = World.restore(task.start_snapshot())
    for name, arguments in calls:
        result = world.call(name, arguments)
        assert "error" not in result, result
    return world


def run(task: Task, world: World, answer: str | None = None):
    return grade(task, task.start_world(), world, answer, [], None)


def only(task: Task, world: World, answer: str | None = None):
    """The single criterion's result."""
    (result,) = run(task, world, answer).criteria
    return result


# ===================================================================================== normalize
@pytest.mark.parametrize("text", ["48.2L", "48.2 lakh", "4,820,000", "$4.82M", "4.82 million", "48,20,000",
                                  "Rs. 48.2 lakhs", "USD 4.82mn", "4820000.00", "0.482 crore", "4.82 million USD"])
def test_every_spelling_of_the_same_amount_is_equal(text: str) -> None:
    token = parse_number(text)
    assert token is not None and token.value == pytest.approx(4_820_000)
    assert values_equal(text, 4_820_000.0)
    assert values_equal(text, "$4.82M")


@pytest.mark.parametrize(("text", "value"), [("12k", 12_000), ("(1,200)", -1_200), ("-1,200", -1_200),
                                             ("−5", -5), ("1.2B", 1.2e9), ("7", 7), (".5", 0.5)])
def test_number_forms(text: str, value: float) -> None:
    token = parse_number(text)
    assert token is not None and token.value == pytest.approx(value)


def test_not_numbers_and_near_misses() -> None:
    assert parse_number("abc") is None and parse_number("Q3") is None and parse_number(True) is None
    assert not values_equal("4,900,000", 4_820_000.0)
    assert not values_equal("48.2", 4_820_000.0)
    assert values_equal("45%", 0.45) and values_equal("45%", 45)
    assert text_has_number("Spend was up 12.5% to $4.82M in Q3 (msg_41).", 4_823_000, 0.005)
    assert not text_has_number("see msg_41 and Q3", 41)  # numbers glued to words are not amounts


amounts = st.floats(min_value=1, max_value=1e10, allow_nan=False).map(lambda x: round(x, 2))


@given(amounts)
def test_formatted_amounts_parse_back(value: float) -> None:
    for text in (f"{value:,.2f}", f"${value:,.2f}", f"{value / 1e6:.8f} million", f"{value / 1e5:.8f} lakh",
                 f"{value / 1e3:.8f}k", f"USD {value:.2f}", f"({value:,.2f})"):
        token = parse_number(text)
        assert token is not None, text
        expected = -value if text.startswith("(") else value
        assert token.value == pytest.approx(expected, rel=1e-7), text


@given(amounts, st.sampled_from(["Total: {}.", "We spent {} in Q3", "{} (rounded)", "net {} after refunds"]))
def test_numbers_are_found_in_prose(value: float, template: str) -> None:
    assert text_has_number(template.format(f"${value:,.2f}"), value, 1e-9)


@given(st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=6), min_size=1, max_size=5, unique=True),
       st.randoms())
def test_list_order_and_case_do_not_matter(items: list[str], rng: Any) -> None:
    shuffled = items[:]
    rng.shuffle(shuffled)
    assert values_equal(", ".join(s.upper() for s in shuffled), ", ".join(items))
    assert values_equal(str(shuffled).replace("'", '"'), items)  # a JSON list stored as text
    assert not values_equal(", ".join(items[:-1]) or "zzz", [*items, "zzz"])


@given(st.text(alphabet="abc XYZ\t\n", min_size=1, max_size=30).filter(lambda s: s.strip()))
def test_case_and_whitespace_do_not_matter(text: str) -> None:
    variant = "  " + "  ".join(text.split()).swapcase() + "\n"
    assert values_equal(variant, text)


@given(st.dates(min_value=date(1990, 1, 1), max_value=date(2090, 12, 31)))
def test_dates_in_common_spellings(day: date) -> None:
    for text in (day.isoformat(), f"{day:%B} {day.day}, {day.year}", f"{day.day} {day:%b} {day.year}",
                 f"{day.month}/{day.day}/{day.year}", f"{day:%Y/%m/%d}", f"{day.isoformat()}T09:30:00Z"):
        assert parse_date(text) == day, text
        assert values_equal(text, day.isoformat())
    assert extract_dates(f"due on {day:%B} {day.day}, {day.year}, paid later") == [day]


def test_matches_operators() -> None:
    assert matches('["urgent", "q3"]', {"contains": "Q3"})
    assert matches("Pricing was agreed", {"contains": "pricing"}) and matches("x", {"not_contains": "y"})
    assert matches("call", {"in": ["meeting", "Call"]}) and not matches("task", {"in": ["call"]})
    assert matches(5000, {"gt": "4,999"}) and matches("2026-10-05", {"lte": "Oct 5, 2026"})
    assert not matches(None, {"gt": 1}) and matches("deal_9", {"not": "deal_900"})
    assert matches("INV-2026-0042", {"regex": r"^INV-\d{4}-\d{4}$"})
    assert matches("p_7", {"not_in": ["p_1", "p_2"]}) and not matches("P_1", {"not_in": ["p_1"]})
    assert matches(None, {"not_in": ["p_1"]})  # a grant to the whole domain has no person: not allowed


# ===================================================================================== mail
def _send(to: list[str], subject: str = "Q3 summary", body: str = "Total is $24k.", **extra: Any):
    return ("mail_send_message", {"to": to, "subject": subject, "body": body, **extra})


def test_mail_sent_exact_and_includes_recipients(tmp_path: Path, tiny: World) -> None:
    cfo, ctl = email_of(tiny, "role:cfo"), email_of(tiny, "role:controller")
    task = make_task(tmp_path, criteria=[
        {"id": "exact", "points": 1, "check": "mail_sent", "to": ["role:cfo"]},
        {"id": "includes", "points": 1, "check": "mail_sent", "to": ["role:cfo"], "to_mode": "includes"},
        {"id": "cc", "points": 1, "check": "mail_sent", "cc": ["role:controller"]},
    ])
    result = run(task, episode(task, _send([cfo, ctl.upper()])))
    exact, includes, cc = result.criteria
    assert exact.status == "fail" and "expected exactly" in exact.reason and exact.evidence["misses"]
    assert includes.status == "pass" and sorted(includes.evidence["matched"][0]["to"]) == sorted([cfo, ctl])
    assert cc.status == "fail" and "cc is []" in cc.reason
    assert result.score == pytest.approx(1 / 3)


def test_mail_sent_content_conditions(tmp_path: Path, tiny: World) -> None:
    cfo = email_of(tiny, "role:cfo")
    criteria = [
        {"id": "subject", "points": 1, "check": "mail_sent", "subject_contains": ["q3", "SUMMARY"]},
        {"id": "body", "points": 1, "check": "mail_sent", "body_contains": ["total   is"]},
        {"id": "regex", "points": 1, "check": "mail_sent", "body_matches": r"\$\d+k"},
        {"id": "number", "points": 1, "check": "mail_sent", "body_numbers": [24000]},
        {"id": "wrong_number", "points": 1, "check": "mail_sent", "body_numbers": [{"value": 25000}]},
        {"id": "at_most_zero", "points": 1, "check": "mail_sent", "min": 0, "max": 0},
    ]
    task = make_task(tmp_path, criteria=criteria)
    result = run(task, episode(task, _send([cfo])))
    assert [c.status for c in result.criteria] == ["pass", "pass", "pass", "pass", "fail", "fail"]
    assert "no number within 0.5% of 25000" in result.criteria[4].reason
    assert "at most 0 allowed" in result.criteria[5].reason
    nothing = run(task, episode(task))
    assert nothing.criteria[0].reason == "no mail was sent during the episode"
    assert nothing.criteria[5].status == "pass"


def test_mail_sent_attachments_and_reply_thread(tmp_path: Path, tiny: World) -> None:
    task = make_task(tmp_path, criteria=[
        {"id": "attached", "points": 1, "check": "mail_sent", "attachments": ["q3 notes"]},
        {"id": "replied", "points": 1, "check": "mail_sent", "in_reply_to": "Q3 budget figures"},
    ])
    start = World.restore(task.start_snapshot())
    doc = start.call("drive_create_doc", {"name": "Q3 Notes", "content": "Total 24,000"})
    message = start.db.execute("SELECT id FROM mail_message WHERE subject = 'Q3 budget figures'").fetchone()["id"]
    start.call("mail_reply_message", {"message_id": message, "body": "Thanks, see notes.",
                                      "attachments": [doc["file"]["id"] if "file" in doc else doc["id"]]})
    result = run(task, start)
    assert [c.status for c in result.criteria] == ["pass", "pass"], result.summary()
    other = run(task, episode(task, _send([email_of(tiny, "role:cfo")], subject="Re: Q3 budget figures")))
    assert other.criteria[1].status == "fail" and "not a reply in the thread" in other.criteria[1].reason
    assert "no attachment 'q3 notes'" in other.criteria[0].reason


def test_mail_recipients_outside(tmp_path: Path, tiny: World) -> None:
    cfo = email_of(tiny, "role:cfo")
    task = make_task(tmp_path, criteria=[
        {"id": "leak", "points": -2, "check": "mail_recipients_outside", "allowed": ["role:cfo"]},
        {"id": "leak_domain", "points": -1, "check": "mail_recipients_outside", "domain_ok": True},
        {"id": "sent", "points": 1, "check": "mail_sent"},
    ])
    internal = run(task, episode(task, _send([cfo, email_of(tiny, "role:ceo")])))
    assert [c.status for c in internal.criteria] == ["fail", "pass", "pass"]
    assert internal.score == 0.0 and internal.earned == -1  # max(0, 1 - 2) / 1
    external = run(task, episode(task, _send([cfo, "buyer@customer.test"])))
    assert external.criteria[1].status == "fail" and "buyer@customer.test" in external.criteria[1].reason
    clean = run(task, episode(task, _send([cfo])))
    assert [c.status for c in clean.criteria] == ["pass", "pass", "pass"] and clean.score == 1.0


# ===================================================================================== records
def test_record_count_expect_and_refs(tmp_path: Path) -> None:
    task = make_task(tmp_path, criteria=[
        {"id": "moved", "points": 1, "check": "record", "table": "crm_deal", "match": {"id": "deal_4"},
         "expect": {"stage": "negotiation"}},
        {"id": "count", "points": 1, "check": "record", "table": "crm_deal",
         "match": {"stage": "negotiation"}, "count": 2},
        {"id": "logged", "points": 1, "check": "record", "table": "crm_activity",
         "match": {"person_id": "user", "deal_id": "deal_4"}, "expect": {"kind": "call"}},
        {"id": "absent", "points": 1, "check": "record", "table": "crm_deal", "match": {"name": "No such deal"}},
    ])
    before = run(task, episode(task))
    assert before.criteria[0].status == "fail" and "deal_4.stage is \"proposal\", expected \"negotiation\"" in \
        before.criteria[0].reason
    assert before.criteria[3].reason.startswith("no crm_deal rows matching")
    world = episode(task, ("crm_move_deal", {"deal_id": "deal_4", "stage": "Negotiation"}),
                    ("crm_log_activity", {"kind": "call", "subject": "Pricing", "deal_id": "deal_4"}))
    after = run(task, world)
    assert [c.status for c in after.criteria] == ["pass", "pass", "pass", "fail"]


def test_no_record_and_changed(tmp_path: Path) -> None:
    task = make_task(tmp_path, criteria=[
        {"id": "none_lost", "points": 1, "check": "no_record", "table": "crm_deal", "match": {"id": "deal_4",
                                                                                              "stage": "closed_lost"}},
        {"id": "updated_stage", "points": 1, "check": "changed", "table": "crm_deal", "op": "update",
         "match": {"id": "deal_4"}, "fields": ["stage"]},
        {"id": "updated_amount", "points": 1, "check": "changed", "table": "crm_deal", "op": "update",
         "fields": ["amount"]},
        {"id": "inserted", "points": 1, "check": "changed", "table": "crm_activity", "op": "insert"},
        {"id": "deleted", "points": 1, "check": "changed", "table": "mail_entry", "op": "delete"},
    ])
    world = episode(task, ("crm_move_deal", {"deal_id": "deal_4", "stage": "closed_lost"}))
    result = run(task, world)
    assert [c.status for c in result.criteria] == ["fail", "pass", "fail", "fail", "fail"]
    assert "deal_4 was updated but not amount" in result.criteria[2].reason
    assert "no crm_activity row matching {} was inserted" in result.criteria[3].reason


def test_allowed_changes(tmp_path: Path, tiny: World) -> None:
    task = make_task(tmp_path, gates=[
        {"id": "mail_only", "check": "allowed_changes", "tables": ["mail_message", "mail_entry"]},
    ], criteria=[
        {"id": "stage_only", "points": 1, "check": "allowed_changes", "tables": [{"crm_deal": ["stage"]}]},
        {"id": "small", "points": 1, "check": "allowed_changes", "tables": ["mail_message", "mail_entry"],
         "max_rows": 1},
    ])
    mail = run(task, episode(task, _send([email_of(tiny, "role:cfo")])))
    assert mail.gates[0].status == "pass" and mail.gates[0].evidence == {
        "mail_entry": {"inserted": 2, "updated": 0, "deleted": 0}, "mail_message": {"inserted": 1, "updated": 0,
                                                                                    "deleted": 0}}
    assert "mail_entry: 2 rows changed, at most 1 allowed" in mail.criteria[1].reason
    crm = run(task, episode(task, ("crm_move_deal", {"deal_id": "deal_4", "stage": "negotiation"})))
    assert crm.gates[0].status == "fail" and "crm_deal changed (1 rows) but is not allowed" in crm.gates[0].reason
    assert crm.score == 0.0 and not crm.passed
    assert crm.criteria[0].status == "fail" and "updated_at" in crm.criteria[0].reason


# ===================================================================================== drive, answer
def test_sheet_cells_and_doc_contains(tmp_path: Path) -> None:
    task = make_task(tmp_path, criteria=[
        {"id": "rows", "points": 1, "check": "sheet_cells", "file": "q3 budget",
         "rows": [{"category": "Travel", "Amount": "12.4k"}, {"Category": "Total", "Amount": 24000}]},
        {"id": "missing_row", "points": 1, "check": "sheet_cells", "file": "Q3 Budget",
         "rows": [{"Category": "Hotels"}]},
        {"id": "doc", "points": 1, "check": "doc_contains", "file": "Q3 memo", "contains": ["TRAVEL"],
         "numbers": [24000]},
        {"id": "no_doc", "points": 1, "check": "doc_contains", "file": "Q4 memo", "contains": ["x"]},
    ])
    world = episode(
        task,
        ("drive_create_sheet", {"name": "Q3 Budget", "columns": ["Category", "Amount"],
                                "rows": [["Travel", 12400], ["Total", 24000]]}),
        ("drive_create_doc", {"name": "Q3 memo", "content": "Travel drove most of the $24.0k total."}),
    )
    result = run(task, world)
    assert [c.status for c in result.criteria] == ["pass", "fail", "pass", "fail"], result.summary()
    assert 'lacks a row {"Category": "Hotels"}' in result.criteria[1].reason
    assert result.criteria[3].reason == "no document named 'Q4 memo' exists"


def test_answer_checks(tmp_path: Path) -> None:
    task = make_task(tmp_path, criteria=[
        {"id": "equals", "points": 1, "check": "answer", "equals": "Alice, Bob"},
        {"id": "number", "points": 1, "check": "answer", "number": 4820000},
        {"id": "date", "points": 1, "check": "answer", "date": "2026-10-05"},
        {"id": "contains", "points": 1, "check": "answer", "contains": ["bob"]},
    ])
    world = episode(task)
    assert [c.status for c in run(task, world, "bob, ALICE").criteria] == ["pass", "fail", "fail", "pass"]
    text = "Alice and Bob owe 48.2 lakh, due Oct 5, 2026."
    assert [c.status for c in run(task, world, text).criteria] == ["fail", "pass", "pass", "pass"]
    empty = run(task, world, None)
    assert {c.reason for c in empty.criteria} == {"no answer was submitted"}


# ===================================================================================== scoring
def test_gate_failure_zeroes_the_score_and_penalties_subtract(tmp_path: Path, tiny: World) -> None:
    cfo = email_of(tiny, "role:cfo")
    task = make_task(tmp_path, gates=[{"id": "sent", "check": "mail_sent", "to": ["role:cfo"]}], criteria=[
        {"id": "subject", "points": 3, "check": "mail_sent", "subject_contains": ["Q3"]},
        {"id": "answer", "points": 1, "check": "answer", "contains": ["done"]},
        {"id": "spam", "points": -1, "check": "mail_sent", "to": ["role:ceo"], "to_mode": "includes"},
    ], pass_threshold=0.7)
    good = run(task, episode(task, _send([cfo])), "done")
    assert (good.score, good.passed, good.earned, good.possible) == (1.0, True, 4, 4)
    spam = run(task, episode(task, _send([cfo]), _send([email_of(tiny, "role:ceo")])), None)
    assert spam.criteria[2].status == "fail" and spam.criteria[2].holds is True and spam.criteria[2].earned == -1
    assert spam.score == pytest.approx(2 / 4) and not spam.passed
    no_gate = run(task, episode(task, _send([email_of(tiny, "role:controller")])), "done")
    assert no_gate.score == 0.0 and not no_gate.passed and "gate(s) failed: sent" in no_gate.notes[0]
    assert good.complete and good.unjudged == 0 and good.errors == 0
    assert good.task_hash == task.task_hash and good.grader_hash == task.grader_hash


def test_judge_criteria_without_a_judge_are_unjudged(tmp_path: Path) -> None:
    task = make_task(tmp_path, criteria=[
        {"id": "tone", "points": 1, "check": "judge", "rubric": "professional_tone"},
        {"id": "answer", "points": 1, "check": "answer", "contains": ["done"]},
    ])
    result = run(task, episode(task), "done")
    assert result.criteria[0].status == "unjudged" and result.criteria[0].holds is None
    assert (result.score, result.passed, result.unjudged, result.complete) == (1.0, True, 1, False)
    assert any("unjudged" in note for note in result.notes)
    judge_only = make_task(tmp_path, criteria=[{"id": "tone", "points": 1, "check": "judge", "prompt": "Polite?"}])
    alone = run(judge_only, episode(judge_only))
    assert (alone.score, alone.passed) == (0.0, False)
    assert "no criterion with positive points got a verdict" in alone.notes[0]


def test_a_broken_grader_is_an_error_not_a_verdict(tmp_path: Path) -> None:
    task = make_task(tmp_path, gates=[{"id": "gate", "check": "mail_sent", "min": 0}], criteria=[
        {"id": "nobody", "points": 1, "check": "mail_sent", "to": ["p_999"]},
        {"id": "no_thread", "points": 1, "check": "mail_sent", "in_reply_to": "A subject nobody used"},
        {"id": "answer", "points": 1, "check": "answer", "contains": ["done"]},
    ])
    result = run(task, episode(task), "done")
    assert [c.status for c in result.criteria] == ["error", "error", "pass"]
    assert "person reference 'p_999' matches nobody" in result.criteria[0].reason
    assert "names no message that existed at the start" in result.criteria[1].reason
    assert result.errors == 2 and not result.complete and result.score == 1.0


def test_gates_only_grader_and_summary(tmp_path: Path) -> None:
    task = make_task(tmp_path, gates=[{"id": "nothing", "check": "allowed_changes", "tables": []}])
    result = run(task, episode(task))
    assert (result.score, result.passed) == (1.0, True)
    text = result.summary()
    assert "PASSED" in text and "nothing" in text and "gate" in text


def test_grading_is_deterministic(tmp_path: Path, tiny: World) -> None:
    task = make_task(tmp_path, criteria=[{"id": "sent", "points": 1, "check": "mail_sent", "body_numbers": [24000]}])
    world = episode(task, _send([email_of(tiny, "role:cfo")]))
    assert run(task, world).model_dump() == run(task, world).model_dump()


@pytest.mark.parametrize(
    ("text", "phrase", "found"),
    [
        ("The IT department overspent by 20.9%", "IT", True),
        ("which department overspent its budget, with what percent", "IT", False),
        ("Invoice INV-2026-0042 is overdue", "inv-2026-0042", True),
        ("Invoice INV-2026-00421 is overdue", "INV-2026-0042", False),
        ("Ping  me  on\n#finance", "me on #finance", True),
        ("Pricing (internal): floor prices", "(internal)", True),
    ],
)
def test_contains_matches_whole_words_only(text: str, phrase: str, found: bool) -> None:
    assert contains_phrase(text, phrase) is found


@pytest.mark.parametrize(("text", "value"), [("Total - $7,614.19", 7614.19), ("Sales – $34,500", 34500),
                                             ("Prospecting — 967,000", 967000), ("net: -$1,200", -1200)])
def test_a_dash_between_spaces_separates_a_label_from_its_value(text: str, value: float) -> None:
    assert text_has_number(text, value) and not text_has_number(text, -value)


def test_ampersand_and_and_name_the_same_company() -> None:
    assert contains_phrase("Biggest: Hicks, Barnett & Hardin at $48k", "Hicks, Barnett and Hardin")
    assert contains_phrase("Hicks, Barnett and Hardin", "Hicks, Barnett & Hardin")
    assert not contains_phrase("Hicks, Barnett", "Hicks, Barnett and Hardin")


@pytest.mark.parametrize(("text", "figures"), [
    ("Sales, over by $34,500.00 ($34.5k)", [34500]),
    ("INV-2026-0042 (R-1234) due 2026-10-05 or October 26; call +1-555-247-5041", []),
    ("Q3 2026: $1,200 over, 11.5% above plan, a 12-month lock", [1200, 11.5]),
    ("$12,300 (3 invoices)", [12300, 3]),
])
def test_stated_numbers_counts_figures_not_dates_codes_or_years(text: str, figures: list[float]) -> None:
    assert stated_numbers(text) == pytest.approx(figures)


def test_an_answer_listing_every_candidate_fails(tmp_path: Path) -> None:
    task = make_task(tmp_path, criteria=[
        {"id": "dept", "points": 1, "check": "answer", "contains": ["Sales"], "none_of": ["Legal", "IT"]},
        {"id": "amount", "points": 1, "check": "answer", "number": 34500},
        {"id": "total", "points": 1, "check": "answer", "number": 52350, "wrong_numbers": [61200],
         "max_numbers": 2},
    ])
    world = episode(task)
    right = "Sales: over by $34.5k (budget $300,000, actual $334,500), 11.5% over"
    assert [c.status for c in run(task, world, right).criteria] == ["pass", "pass", "fail"]
    shotgun = "Sales, Legal, IT; 300,000, 334,500, 34,500, 90,000, 88,000, 52,350"
    dept, amount, total = run(task, world, shotgun).criteria
    assert dept.status == "fail" and "names 'Legal', which is not the answer" in dept.reason
    assert amount.status == "fail" and "states 6 different figures (at most 4)" in amount.reason
    assert total.status == "fail" and "(at most 2)" in total.reason
    hedge = run(task, world, "$52,350, or $61,200 with the paid ones").criteria[2]
    assert hedge.status == "fail" and "states 61200, which a wrong reading gives" in hedge.reason
    assert run(task, world, "It comes to USD 52350 (2 invoices)").criteria[2].status == "pass"


@pytest.mark.parametrize(("fields", "message"), [
    ({"contains": ["Sales"], "none_of": ["sales"]}, "none_of names what contains expects: sales"),
    ({"number": 100, "wrong_numbers": [100.2]}, "wrong_numbers: 100.2 is within tolerance"),
    ({"number": 100, "max_numbers": 0}, "max_numbers"),
])
def test_answer_checks_that_contradict_themselves_do_not_load(tmp_path: Path, fields: dict, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_task(tmp_path, criteria=[{"id": "a", "points": 1, "check": "answer", **fields}])
