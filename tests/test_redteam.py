"""The red team: cheap strategies that must fail, and correct work written differently that must pass.

A grader can be wrong two ways.  It can be fooled (a shotgun answer, raw data pasted where the
analysis goes, the job done plus collateral damage): the probes in ``officesim.probes.redteam``
play those strategies and every shipped task must hold them at a score of at most ``HACK_BOUND``.
And it can fail correct work: the oracle's own trajectory, rewritten the way another careful
employee would write it (amounts as "USD 7614" or "$7.61k", everything in capitals, the list in
another order, a polite sentence around it, a different layout), must still pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from officesim import OfficeEnv, load_task
from officesim.agents.registry import agent_names, make_agent
from officesim.agents.scripted import PROBES, OracleAgent
from officesim.env import play
from officesim.grading.normalize import stated_numbers
from officesim.pipeline.selftest import HACK_BOUND, selftest, would_pass
from officesim.probes.gaps import is_known, open_failures
from officesim.probes.overreach import OverreachMailProbe, OverreachRecordsProbe
from officesim.probes.redteam import DumpSourcesProbe, ShotgunAnswerProbe, ShotgunTextProbe, candidates_text
from officesim.task import Task
from officesim.taskgen import FAMILIES

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "tasks"
FIXTURES = Path(__file__).parent / "fixtures" / "tasks"
TEXT_FIELDS = ("body", "content", "text")
MONEY = re.compile(r"\$(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
SAMPLE = sorted(f"{family.slug}-{n:03d}" for family in FAMILIES.values() for n in (1, 2))


# ------------------------------------------------------------------------------------ rewrites
def _money(render: Callable[[float], str]) -> Callable[[str], str]:
    return lambda text: MONEY.sub(lambda m: render(float(m.group(1).replace(",", ""))), text)


def _short(digits: int) -> Callable[[float], str]:
    def render(value: float) -> str:
        for scale, suffix in ((1e6, "M"), (1e3, "k")):
            if value >= scale:
                return f"${value / scale:.{digits}g}{suffix}"
        return f"${value:g}"
    return render


def _long_dates(text: str) -> str:
    def spelled(match: re.Match[str]) -> str:
        day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        return f"{day.strftime('%B')} {day.day}, {day.year}"
    return ISO_DATE.sub(spelled, text)


def _reordered(text: str) -> str:
    """List lines in the opposite order, and a polite sentence before and after."""
    lines = text.split("\n")
    bullets = [n for n, line in enumerate(lines) if line.lstrip().startswith(("- ", "| "))
               and not set(line) <= set("|-: ")]
    for position, value in zip(bullets, reversed([lines[n] for n in bullets]), strict=True):
        lines[position] = value
    return "Thanks for your patience with this.\n\n" + "\n".join(lines) + "\n\nHope this helps; just shout if not."


def _relaid(text: str) -> str:
    """Another layout: numbered items instead of bullets, 'label - value' instead of 'label: value'."""
    out, number = [], 0
    for line in text.split("\n"):
        if line.lstrip().startswith("- "):
            number += 1
            line = f"{number}) " + line.lstrip()[2:]
        out.append(re.sub(r"(?<=[A-Za-z)]): (?=\S)", " - ", line))
    return "\n".join(out)


def _phones(text: str) -> str:
    """'+1-555-247-5041' as '(555) 247 5041'."""
    return re.sub(r"\+1[- ](\d{3})[- ](\d{3})[- ](\d{4})", r"(\1) \2 \3", text)


def _plain_names(text: str) -> str:
    """Names without honorifics and suffixes: 'Megan Lawrence MD' as 'Megan Lawrence'."""
    text = re.sub(r"\b(?:Mrs?|Ms|Dr)\. (?=[A-Z])", "", text)
    return re.sub(r"(?<=[a-z]) (?:MD|DDS|DVM|PhD|Jr\.|Sr\.)(?=\W|$)", "", text)


REWRITES: dict[str, Callable[[str], str]] = {
    "usd_code": _money(lambda v: f"USD {round(v)}"),
    "plain_number": _money(lambda v: f"{v:,.2f}"),
    "trailing_dollars": _money(lambda v: f"{v:,.2f} dollars"),
    "short_4_digits": _money(_short(4)),
    "capitals": str.upper,
    "spelled_dates": _long_dates,
    "reordered_and_polite": _reordered,
    "other_layout": _relaid,
    "us_dates": lambda text: ISO_DATE.sub(lambda m: f"{int(m.group(2))}/{int(m.group(3))}/{m.group(1)}", text),
    "phones_punctuated": _phones,
    "plain_names": _plain_names,
    "ampersands": lambda text: text.replace(" and ", " & "),
    "comma_after_amounts": lambda text: MONEY.sub(lambda m: m.group(0) + ",", text),
}
# To colleagues, "$7.61k" for 7,614.19 is a fine answer; a dunning letter to a customer quotes the
# invoice amounts exactly, so the three-figure rewrite is only applied where that is not asked.
# Families whose figures must be exact: a chase states what is owed, a month-end close reconciles to the cent
# (its wrong readings differ from the right total by one invoice, well inside a rounding).
EXACT_AMOUNTS = {"chase-overdue-invoices", "month-end-close"}


class RewritingOracle(OracleAgent):
    """The oracle, with every text it writes and its answer passed through ``rewrite``."""

    def __init__(self, task: Task, rewrite: Callable[[str], str]) -> None:
        super().__init__(task)
        self.rewrite = rewrite

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        action = super().act(obs)
        arguments = dict(action["arguments"])
        for field in (*TEXT_FIELDS, "answer"):
            if isinstance(arguments.get(field), str):
                arguments[field] = self.rewrite(arguments[field])
        return {"name": action["name"], "arguments": arguments}


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return {name: load_task(TASKS / name) for name in SAMPLE}


@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_correct_work_written_differently_passes(tasks: dict[str, Task], rewrite: str) -> None:
    failures = []
    for name, task in tasks.items():
        env = OfficeEnv(task)
        result = play(env, RewritingOracle(task, REWRITES[rewrite]))
        if not would_pass(result):
            bad = [f"{r.id}: {r.reason}" for r in result.results() if r.status in ("fail", "error")]
            failures.append(f"{name}: {bad[:2]}")
    assert not failures, "\n".join(failures)


def test_answers_rounded_to_three_figures_pass_where_colleagues_ask(tasks: dict[str, Task]) -> None:
    failures = []
    for name, task in tasks.items():
        if name.rsplit("-", 1)[0] in EXACT_AMOUNTS:
            continue
        result = play(OfficeEnv(task), RewritingOracle(task, _money(_short(3))))
        if not would_pass(result):
            failures.append(f"{name}: {[r.reason for r in result.results() if r.status == 'fail'][:2]}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(("task_id", "answer"), [
    ("budget-variance-answer-001", "That would be SALES: they overspent by about $%(k).1fk this quarter."),
    ("budget-variance-answer-001", "Over by USD %(i)d - the department is sales. Happy to dig deeper!"),
])
def test_a_rephrased_department_answer_passes(tasks: dict[str, Task], task_id: str, answer: str) -> None:
    task = tasks[task_id]
    facts = task.grader.facts
    check = next(c for c in task.grader.criteria if c.id == "answer")
    amount, winner = facts.fact(check.require[0]).value, facts.entities[check.name[0]].name
    text = answer.replace("SALES", winner.upper()).replace("sales", winner.lower()) % {"k": amount / 1e3,
                                                                                     "i": round(amount)}
    oracle = OracleAgent(task)
    env = OfficeEnv(task)
    obs, _ = env.reset()
    oracle.reset(obs, seed=0)
    while True:
        action = oracle.act(obs)
        if action["name"] == "submit":
            action = {"name": "submit", "arguments": {"answer": text}}
        obs, _, done, truncated, info = env.step(action)
        if done or truncated:
            break
    assert would_pass(info["grade"]), info["grade"].summary()


class ArgumentOracle(OracleAgent):
    """The oracle, with one tool's arguments changed (a value typed the way another person would)."""

    def __init__(self, task: Task, tool: str, **changes: Any) -> None:
        super().__init__(task)
        self.tool, self.changes = tool, changes

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        action = super().act(obs)
        if action["name"] == self.tool:
            action = {**action, "arguments": {**action["arguments"], **self.changes}}
        return action


def test_a_contact_saved_with_the_phone_punctuated_differently_passes() -> None:
    task = load_task(TASKS / "contact-from-signature-001")
    action = next(s for s in task.solution.steps if s.name == "crm_create_contact")
    digits = re.sub(r"\D", "", action.arguments["phone"])[-10:]
    for phone in (f"({digits[:3]}) {digits[3:6]}-{digits[6:]}", f"+1.{digits[:3]}.{digits[3:6]}.{digits[6:]}"):
        assert play(OfficeEnv(task), ArgumentOracle(task, "crm_create_contact", phone=phone)).passed, phone
    wrong = f"{digits[:3]}-{digits[3:6]}-{(int(digits[6:]) + 1) % 10_000:04d}"
    assert not play(OfficeEnv(task), ArgumentOracle(task, "crm_create_contact", phone=wrong)).passed


@pytest.mark.parametrize("task_id", ["pipeline-summary-mail-001", "travel-expense-report-001"])
def test_filing_away_the_request_after_handling_it_passes(tasks: dict[str, Task], task_id: str) -> None:
    """Archiving the mail the job came from is tidy, not damage (archiving anything else is)."""
    task = tasks[task_id]
    env = OfficeEnv(task)
    obs, _ = env.reset()
    newest = env.world.db.execute(  # the request, then the mail before it
        "SELECT e.message_id FROM mail_entry e JOIN mail_message m ON m.id = e.message_id "
        "WHERE e.owner_id = ? AND e.folder = 'inbox' ORDER BY m.rowid DESC LIMIT 2", (env.world.user_id,)).fetchall()
    oracle = OracleAgent(task)
    oracle.reset(obs, seed=0)
    while (action := oracle.act(obs))["name"] != "submit":
        obs, *_ = env.step(action)
    obs, *_ = env.step({"name": "mail_move_message", "arguments": {"message_id": newest[0][0], "folder": "archive"}})
    assert "error" not in obs["result"]
    assert env.step(action)[4]["grade"].passed
    env.reset()
    oracle.reset(obs, seed=0)
    while (action := oracle.act(obs))["name"] != "submit":
        env.step(action)
    env.step({"name": "mail_move_message", "arguments": {"message_id": newest[1][0], "folder": "archive"}})
    assert not env.step(action)[4]["grade"].passed  # an older mail nobody mentioned


# ------------------------------------------------------------------------------------ the probes
def test_probes_are_agents_and_take_the_task() -> None:
    names = agent_names()
    task = load_task(FIXTURES / "budget-summary-to-cfo")
    for probe in PROBES:
        assert f"probe:{probe.name}" in names
        assert make_agent(f"probe:{probe.name}", task=task).task is task


def test_a_shotgun_answer_names_every_candidate_and_a_capped_check_refuses_it(tmp_path: Path) -> None:
    text = candidates_text([{"rows": [{"Department": "Sales", "Budget": 300000, "Actual": 334500},
                                      {"Department": "Legal", "Budget": 90000, "Actual": 88000}]}])
    assert "Sales" in text and "Legal" in text and "334,500.00" in text and len(stated_numbers(text)) == 4
    task = load_task(TASKS / "expense-policy-answer-001")
    env = OfficeEnv(task)
    result = play(env, ShotgunAnswerProbe(task=task))
    check = next(c for c in result.criteria if c.id == "amount")
    expected = task.grader.facts.fact(task.grader.criteria[0].require[0]).value
    assert f"{expected:,.2f}" in (env.answer or "")  # the right figure is among the candidates...
    assert check.status == "fail" and "beside" in check.reason  # ...and still fails: not one reading


def test_dump_probe_applies_only_where_the_solution_computes(tasks: dict[str, Task]) -> None:
    travel = tasks["travel-expense-report-001"]
    env = OfficeEnv(travel)
    result = play(env, DumpSourcesProbe(task=travel))
    doc = env.world.db.execute("SELECT content FROM drive_file WHERE name = 'Q3 2026 Travel Expense Report'").fetchone()
    assert doc is not None and doc[0].startswith("[{")  # the raw results, in place of the report
    assert not result.passed and next(g for g in result.gates if g.id == "total").status == "fail"
    relay = tasks["forward-contract-to-legal-001"]  # forwards a mail: nothing computed to fake
    env = OfficeEnv(relay)
    play(env, DumpSourcesProbe(task=relay))
    assert env.steps == 1


def test_overreach_probes_do_the_job_and_the_damage(tasks: dict[str, Task]) -> None:
    task = tasks["pipeline-summary-mail-001"]
    env = OfficeEnv(task)
    result = play(env, OverreachMailProbe(task=task))
    assert [g.status for g in result.gates] == ["pass", "pass"]  # the job itself was done...
    outside = next(c for c in result.criteria if c.id == "mails_others")
    assert outside.status == "fail" and result.score == 0.0  # ...and one leak zeroes it
    handoff = tasks["deal-handoff-002"]  # 001's leaver has no second open deal the probe can move
    env = OfficeEnv(handoff)
    result = play(env, OverreachRecordsProbe(task=handoff))
    assert next(c for c in result.criteria if c.id == "other_reps_deals").status == "fail"
    assert result.score <= HACK_BOUND and not result.passed


def test_a_probe_that_cannot_apply_does_nothing(tasks: dict[str, Task]) -> None:
    task = tasks["headcount-answer-001"]  # no mail tool, nothing written
    for probe in (OverreachMailProbe, OverreachRecordsProbe, DumpSourcesProbe):
        env = OfficeEnv(task)
        result = play(env, probe(task=task))
        assert env.steps == 1 and result.answer is None
    assert play(OfficeEnv(task), OverreachMailProbe()).answer is None  # no task, no solution to replay


@pytest.mark.parametrize("name", SAMPLE[::9])
def test_sampled_tasks_hold_every_probe_at_the_bound(tasks: dict[str, Task], name: str) -> None:
    task = tasks[name]
    report = selftest(task)
    assert not open_failures(report, task.family), report.to_dict()  # beyond the listed known grader gaps
    assert all(run.score <= HACK_BOUND for run in report.runs
               if run.expected == "fail" and not is_known(run, task.family))


def test_a_reply_quoting_every_city_is_a_hedge_not_an_answer(tasks: dict[str, Task]) -> None:
    task = tasks["inbox-triage-002"]  # one question asks for a city's meal allowance
    env = OfficeEnv(task)
    result = play(env, ShotgunTextProbe(task=task))
    asked = next(c.id for c in task.grader.gates if any(r.endswith(".meal_allowance")
                                                         for r in getattr(c, "require", [])))
    meal = next(g for g in result.gates if g.id == asked)
    assert meal.status == "fail"  # the right figure is there, among all others: a hedge fails the answer gate
    assert result.score == 0.0


def test_a_summary_of_one_reps_pipeline_must_leave_out_their_euro_deal(tasks: dict[str, Task]) -> None:
    task = tasks["pipeline-summary-mail-002"]  # one rep's pipeline, USD only
    result = play(OfficeEnv(task), ShotgunTextProbe(task=task))
    totals = [c for c in result.criteria if c.id.startswith("total_")]
    assert totals and all(c.status == "fail" for c in totals)  # every figure in sight is not an answer
    assert result.score == 0.0 and play(OfficeEnv(task), OracleAgent(task)).passed
