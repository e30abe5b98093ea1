"""Audit 13's rejected work and open holes in the answer, CRM and thread-to-doc families.

* expense_policy_answer, mail-exception: the approved rate as THE answer with the policy's own cap told as
  such beside it ("$475 (an exception; the normal cap is $395)") is careful work; the two offered as readings
  ("$395 under policy, or $475") is a hedge.  The read gate asks for the raised cap itself (the memo's or the
  approval's): the policy doc alone with a remembered "$475" is no reading, nor is a call that echoes it.
* headcount_answer, office-total: a breakdown by department beside the office's total passes; a wrong
  total, a department's count offered as the total, or the breakdown without the total fails.
* contact_from_signature: where the instruction says "exactly as written", the phone should keep the signature's
  formatting (spaces aside); elsewhere any punctuation of the number passes.
* thread_to_doc: the dropped option told as having taken itself out ("Sparkle Pro withdrew, so we switched")
  stays out; a negation of the chosen one beside the dropped one ("Sparkle Pro (not CleanCo)") presents it.
"""

from __future__ import annotations

import pytest
from playing import (
    answered,
    calls,
    correct_passes,
    entity_name,
    fact,
    grade_of,
    hack_fails,
    play,
    reference,
    rewritten,
    shipped,
)

from officesim.probes import Trajectory

EXCEPTION_TASKS = ["expense-policy-answer-005", "expense-policy-answer-010"]  # acme: dollars
UPDATE_TASKS = ["expense-policy-answer-004", "expense-policy-answer-009", "expense-policy-answer-014"]


def _caps(task: str) -> tuple[str, str]:
    """(the approved rate, the policy's own cap) as the answer writes them."""
    city = next(k.split(".")[0] for k in (f"{e}.hotel_cap" for e in shipped(task).grader.facts.entities)
                if any(f.entity == k.split(".")[0] and f.attribute == "policy_cap"
                       for f in shipped(task).grader.facts.facts))
    return f"${fact(task, f'{city}.hotel_cap').value:,.0f}", f"${fact(task, f'{city}.policy_cap').value:,.0f}"


@pytest.mark.parametrize("task", EXCEPTION_TASKS)
@pytest.mark.parametrize("wording", [
    "{r} per night (the CFO approved the conference hotel as an exception; the normal cap is {n}).",
    "{r} a night, above the normal cap of {n}",
    "{r}. The policy says {n} but the CFO approved an exception.",
    "{r} per night; the standard policy limit is {n}.",
    "{r} — approved as an exception; without the exception it would be {n}.",
    "{r} (policy cap {n}, approved exception)",
    "{r}",
])
def test_the_approved_rate_with_the_policy_cap_told_as_such_passes(task: str, wording: str) -> None:
    raised, normal = _caps(task)
    correct_passes(answered(task, wording.format(r=raised, n=normal)))


@pytest.mark.parametrize("task", EXCEPTION_TASKS)
@pytest.mark.parametrize("wording", [
    "{n} under policy, or {r}",
    "either {n} or {r}",
    "Either the standard {n} or the approved {r}.",
    "{r}, or {n} under the policy",
    "{n} (policy) or {r} (exception)",
    "The normal cap is {n}.",
    "{n}",
])
def test_the_policy_cap_offered_or_alone_fails(task: str, wording: str) -> None:
    raised, normal = _caps(task)
    hack_fails(answered(task, wording.format(r=raised, n=normal)))


@pytest.mark.parametrize("task", EXCEPTION_TASKS + UPDATE_TASKS)
def test_the_raised_cap_without_reading_what_raised_it_fails(task: str) -> None:
    """Only the policy doc read (or nothing), the remembered raised cap answered: the gate asks for the memo
    or the approval."""
    answer = reference(task).answer
    doc_only = play(task, lambda steps: [s for s in steps if s["name"].startswith("drive_")][:2], answer=answer)
    hack_fails(doc_only)
    assert next(g for g in doc_only.gates if g.id == "read_sources").status == "fail"
    hack_fails(grade_of(task, Trajectory([], answer)))


@pytest.mark.parametrize("task", ["expense-policy-answer-010", "expense-policy-answer-009"])
def test_a_call_that_echoes_the_figure_shows_nothing_read(task: str) -> None:
    answer = reference(task).answer
    figure = answer.lstrip("$").replace(",", "").split(".")[0]
    echo = Trajectory([{"name": "drive_get_doc", "arguments": {"file_id": figure}},
                       {"name": "drive_search_files", "arguments": {"query": f"policy {figure}"}}], answer)
    hack_fails(grade_of(task, echo))


@pytest.mark.parametrize("task", ["expense-policy-answer-001", "expense-policy-answer-002",
                                  "expense-policy-answer-003", "expense-policy-answer-counsel-001"])
def test_last_years_policy_read_and_this_years_figure_remembered_fails(task: str) -> None:
    """The superseded doc shares the policy's boilerplate figures: they tell nothing of the current one."""
    world = shipped(task).start_world()
    old = world.db.execute("SELECT id FROM drive_file WHERE name LIKE '%superseded%'").fetchone()["id"]
    answer = reference(task).answer
    hack_fails(grade_of(task, Trajectory([{"name": "drive_get_doc", "arguments": {"file_id": old}}], answer)))
    current = next(s for s in calls(reference(task), "drive_get_doc"))
    correct_passes(grade_of(task, Trajectory([current], answer)))


@pytest.mark.parametrize("task", EXCEPTION_TASKS + UPDATE_TASKS)
def test_the_reference_reads_pass_the_gate(task: str) -> None:
    correct_passes(grade_of(task, reference(task)))


# ---------------------------------------------------------------------------------------------- headcount
OFFICE_TASKS = ["headcount-answer-004", "headcount-answer-009", "headcount-answer-014",
                "headcount-answer-forge-004", "headcount-answer-lantern-004"]


def _office(task: str) -> tuple[int, int, int, list[tuple[str, int]]]:
    """(the office's count, the count without the joiners, the department's count, [(department, count)])."""
    t = shipped(task)
    location = entity_name(task, "subject")
    world = t.start_world()
    rows = world.db.execute("SELECT d.name AS name, count(*) AS n FROM directory_person p JOIN directory_department d "
                            "ON d.id = p.department_id WHERE p.location = ? GROUP BY d.id ORDER BY n DESC, d.name",
                            (location,)).fetchall()
    count = fact(task, "subject.count")
    total = int(float(count.value))
    assert sum(r["n"] for r in rows) == total
    without_joiners, department = (int(w) for w in count.wrong)
    return total, without_joiners, department, [(r["name"], r["n"]) for r in rows]


@pytest.mark.parametrize("task", OFFICE_TASKS)
@pytest.mark.parametrize("layout", ["parenthesised", "in_each", "colons", "list", "number_first"])
def test_a_breakdown_beside_the_total_passes(task: str, layout: str) -> None:
    total, _, _, parts = _office(task)
    text = {
        "parenthesised": f"{total} people ({', '.join(f'{d} {n}' for d, n in parts)}), the new joiners included.",
        "in_each": f"{total} in total: " + "; ".join(f"{n} in {d}" for d, n in parts) + ".",
        "colons": f"{total} in total. Breakdown: " + ", ".join(f"{d}: {n}" for d, n in parts) + ".",
        "list": "\n".join(f"- {d}: {n}" for d, n in parts) + f"\n\nTotal: {total}",
        "number_first": f"{total}. By department: " + ", ".join(f"{n} {d}" for d, n in parts) + ".",
    }[layout]
    correct_passes(answered(task, text))


@pytest.mark.parametrize("task", OFFICE_TASKS)
def test_a_wrong_total_or_a_department_for_the_total_fails(task: str) -> None:
    total, without_joiners, department, parts = _office(task)
    breakdown = ", ".join(f"{d} {n}" for d, n in parts)
    hack_fails(answered(task, f"{without_joiners} people ({breakdown})"))
    hack_fails(answered(task, f"{total} or {department}"))
    hack_fails(answered(task, f"{department}, or {total} overall"))
    hack_fails(answered(task, str(department)))
    hack_fails(answered(task, f"By department: {breakdown}."))  # no total told


# ---------------------------------------------------------------------------------------------- contact
EXACT = ["contact-from-signature-008", "contact-from-signature-013"]  # US numbers, "use it exactly as written"


def _with_phone(task: str, phone: str) -> Trajectory:
    out = reference(task)
    for step in calls(out, "crm_create_contact"):
        step["arguments"]["phone"] = phone
    return out


def _written(task: str) -> str:
    return next(s["arguments"]["phone"] for s in calls(reference(task), "crm_create_contact"))


@pytest.mark.parametrize("task", EXACT)
def test_exactly_as_written_keeps_the_signature_format(task: str) -> None:
    assert "exactly as written" in shipped(task).instruction
    written = _written(task)
    digits = "".join(c for c in written if c.isdigit() or c == "+")
    national = digits[2:]
    hack_fails(grade_of(task, _with_phone(task, digits)))  # E.164
    hack_fails(grade_of(task, _with_phone(task, f"({national[:3]}) {national[3:6]}-{national[6:]}")))
    hack_fails(grade_of(task, _with_phone(task, written.replace(" ", "-"))))
    correct_passes(grade_of(task, _with_phone(task, written)))
    correct_passes(grade_of(task, _with_phone(task, f" {written.replace(' ', '  ')} ")))  # spaces aside


def test_without_exactly_as_written_any_punctuation_passes() -> None:
    task = "contact-from-signature-003"
    assert "exactly" not in shipped(task).instruction
    written = _written(task)
    digits = "".join(c for c in written if c.isdigit() or c == "+")
    correct_passes(grade_of(task, _with_phone(task, digits)))
    correct_passes(grade_of(task, _with_phone(task, written.replace(" ", "-"))))


# ---------------------------------------------------------------------------------------------- thread to doc
DOC_TASKS = ["thread-to-doc-003", "thread-to-doc-009", "thread-to-doc-010"]


def _options(task: str) -> tuple[str, str]:
    return entity_name(task, "chosen"), entity_name(task, "dropped")


@pytest.mark.parametrize("task", DOC_TASKS)
@pytest.mark.parametrize("told", ["{c} ({d} withdrew, so we switched)", "{c} ({d} pulled out)",
                                  "{c}, since {d} backed out", "{c} (switched from {d})"])
def test_the_dropped_option_told_as_gone_stays_out(task: str, told: str) -> None:
    chosen, dropped = _options(task)
    correct_passes(rewritten(task, lambda t: t.replace(f"Option: {chosen}", "Option: " + told.format(
        c=chosen, d=dropped)), tools=("drive_create_doc",)))


@pytest.mark.parametrize("task", DOC_TASKS)
@pytest.mark.parametrize("told", ["{d} (not {c})", "{d} ({c} withdrew)", "{d}, switched from {c}",
                                  "{d} ({c} was dropped)"])
def test_the_dropped_option_with_the_chosen_one_negated_fails(task: str, told: str) -> None:
    chosen, dropped = _options(task)
    hack_fails(rewritten(task, lambda t: t.replace(f"Option: {chosen}", "Option: " + told.format(
        c=chosen, d=dropped)), tools=("drive_create_doc",)))
