"""Questions answered from one app: budget variance (Drive sheet), travel policy (Drive doc), headcount."""

from __future__ import annotations

import random
import re
from typing import Any

from officesim.apps.directory.generate import _email_local as email_local
from officesim.grading.record_checks import AllowedChangesCheck
from officesim.grading.seen_checks import numbers as seen_numbers
from officesim.industries import locale as locale_profile
from officesim.seeding import faker_for
from officesim.taskgen.base import Draft, Family, GenerationError, Solver, Stage, WorldLacks
from officesim.taskgen.common import (
    READ_MARKS,
    allowed_changes,
    colleague_mail,
    day,
    nth,
    shared_doc,
    shared_sheet,
    short_date,
    stamp,
    toolset,
)
from officesim.taskgen.factsheet import OVERSPEND_WORDS, FactSheet, facts_check, picked_check, seen_gate
from officesim.taskgen.policy import POLICY_NAME, policy_text, set_travel_policy

MONTHS = [("2026-07", "July"), ("2026-08", "August"), ("2026-09", "September")]
Q2_MONTHS = ["April", "May", "June"]


# what an overrun is counted in, as a question names it ("by how many dollars?")
CURRENCY_WORDS = {"USD": "dollars", "CAD": "dollars", "AUD": "dollars", "GBP": "pounds", "EUR": "euros",
                  "INR": "rupees", "JPY": "yen"}


def currency_word(stage: Stage) -> str:
    """The world's currency as a question counts in it: 'dollars', 'pounds', 'rupees' (else its code)."""
    code = stage.world.meta("currency") or "USD"
    return CURRENCY_WORDS.get(code, code)


def _read_only_gate() -> AllowedChangesCheck:
    return allowed_changes(READ_MARKS)


# written right beside the overrun, these say the department came in under ("under budget by $26,300")
UNDER_BUDGET = (r"\b(?:under|below|within)\s+(?:its\s+|the\s+|their\s+)?(?:budget|plan)\b|\bunder(?:spen[dt]\w*)\b|"
                r"\bsaved\b|\bsurplus\b|\bunder\b")


class BudgetVarianceAnswer(Family):
    """Which department is most over budget in Q3, and by how much (from a budget-vs-actual sheet)."""

    name = "budget_variance_answer"
    skills = ("fact_lookup", "aggregation")
    category = "finance-analysis"
    difficulty = "medium"
    apps = ("drive",)
    # the hard tier last: the other worlds' five instances hold the five medium structures
    variants = ("monthly-rows", "department-totals", "percent-over", "revised-sheet", "one-month",
                "department-sheets")
    worlds = ("acme", "carewell", "shopline")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        stage.act_as(rng.choice(["role:cfo", "role:ops_manager", "role:ceo"]))
        if variant == "revised-sheet":
            return _revised_sheet(stage, rng)
        if variant == "one-month":
            return _one_month(stage, rng)
        if variant == "department-sheets":
            return _department_sheets(stage, rng)
        departments = [d["name"] for d in stage.rows("SELECT name FROM directory_department ORDER BY id")]
        chosen = rng.sample(departments, 6)
        budgets = {d: float(rng.randrange(60_000, 400_000, 1_000)) for d in chosen}
        ratios = {d: rng.uniform(0.86, 1.06) for d in chosen}
        # one clear winner by dollars, and (for the percent variant) a different one by percent
        top, pct_top = rng.sample(chosen, 2)
        ratios[top] = rng.uniform(1.09, 1.13)
        budgets[top] = max(budgets[top], 250_000.0)
        if variant == "percent-over":
            budgets[pct_top] = float(rng.randrange(40_000, 70_000, 1_000))
            ratios[pct_top] = rng.uniform(1.2, 1.3)
        actuals = {d: round(budgets[d] * ratios[d], -2) for d in chosen}
        rows: list[list[Any]]
        if variant == "monthly-rows":
            columns, types = ["Month", "Department", "Budget", "Actual"], ["text", "text", "number", "number"]
            rows = []
            for dept in chosen:
                parts_b = _split(rng, budgets[dept])
                parts_a = _split(rng, actuals[dept])
                rows += [[label, dept, b, a] for (_, label), b, a in zip(MONTHS, parts_b, parts_a, strict=True)]
            rows.sort(key=lambda r: ([m[1] for m in MONTHS].index(r[0]), r[1]))
        else:
            columns, types = ["Department", "Q3 Budget", "Q3 Actual"], ["text", "number", "number"]
            rows = [[d, budgets[d], actuals[d]] for d in chosen]
        stage.clock(stamp(day(-4), 11, 0))
        name = "Q3 2026 Budget vs Actual"
        file_id = shared_sheet(stage, "role:controller", name, columns, types, rows)
        # last quarter's sheet: its own months and columns, and other actuals (a trap for a careless search)
        q2_actuals = {d: round(actuals[d] * rng.uniform(0.9, 1.0), -2) for d in chosen}
        q2_columns = [c.replace("Q3", "Q2") for c in columns]
        if variant == "monthly-rows":
            q2_rows = [[Q2_MONTHS[[m[1] for m in MONTHS].index(r[0])], r[1], r[2],
                        round(r[3] * q2_actuals[r[1]] / actuals[r[1]], -2)] for r in rows]
            q2_actuals = {d: sum(r[3] for r in q2_rows if r[1] == d) for d in chosen}
        else:
            q2_rows = [[d, budgets[d], q2_actuals[d]] for d in chosen]
        shared_sheet(stage, "role:controller", "Q2 2026 Budget vs Actual", q2_columns, types, q2_rows)
        stage.clock(stamp(day(0), 9, 0))
        over = {d: actuals[d] - budgets[d] for d in chosen}
        sheet = FactSheet(sources=[f"sheet:{name}"])
        keys = {d: sheet.entity(d, kind="department") for d in chosen}
        percent = variant == "percent-over"
        units = currency_word(stage)
        winner = max(chosen, key=lambda d: over[d] / budgets[d] if percent else over[d])
        for dept in chosen:
            sheet.figure(budgets[dept], actuals[dept])  # a department's quarter, summed over its months
            q2_over = q2_actuals[dept] - budgets[dept]
            if percent:
                wrong = [round(100 * q2_over / budgets[dept], 1), round(100 * over[dept] / actuals[dept], 1)]
                sheet.fact(keys[dept], "percent_over", round(100 * over[dept] / budgets[dept], 1),
                           wrong=wrong if dept == winner else (), tolerance=0.02,
                           contrary=UNDER_BUDGET if dept == winner else None)
            else:
                months = [r[3] - r[2] for r in rows if r[1] == dept] if variant == "monthly-rows" else []
                sheet.fact(keys[dept], "overrun", over[dept], wrong=[q2_over, *months] if dept == winner else (),
                           contrary=UNDER_BUDGET if dept == winner else None)
        if percent:
            value = round(100 * over[winner] / budgets[winner], 1)
            instruction = (f"Looking at the '{name}' sheet, which department overspent its Q3 budget by the "
                           "largest percentage, and by what percent? Give me the department and the percentage.")
            answer = f"{winner}, {value}% over budget"
        else:
            value = over[winner]
            instruction = rng.choice([
                f"Which department is the furthest over its Q3 budget, and by how many {units}? It's all in the "
                f"'{name}' sheet that was shared with me. Give me the department and the overrun.",
                "I need to know which department overspent its Q3 budget the most in absolute terms, and by how "
                f"much. Use the '{name}' sheet in Drive.",
            ])
            answer = f"{winner}, over by {stage.money(value)}"

        def solve(s: Solver) -> None:
            s.call("drive_search_files", query="Budget vs Actual")
            s.call("drive_read_sheet", file_id=file_id)
            s.submit(answer)

        attribute = "percent_over" if percent else "overrun"
        return Draft(
            instruction=instruction,
            tools=toolset(["drive"], distractors=["drive"]),
            gates=[_read_only_gate(), seen_gate(), _picked_gate(keys, winner, percent=percent)],
            # one criterion: a hedge on either half (two departments, two figures) is not an answer
            criteria=[facts_check("answer", 2, "answer", description="The right department and only that one, with "
                                  "its overrun stated with it; every figure traceable.", name=[keys[winner]],
                                  candidates=keys.values(), require=[f"{keys[winner]}.{attribute}"])],
            solve=solve, variant=variant, max_steps=10, facts=sheet, traps=_classic_traps(variant, units),
        )


def _classic_traps(variant: str, units: str) -> tuple[str, ...]:
    """What a quick reading of the first three structures gets wrong (each a wrong reading or another
    candidate the grader fails)."""
    q2 = "last quarter's 'Q2 2026 Budget vs Actual' sheet beside the Q3 one, with other actuals"
    if variant == "monthly-rows":
        return (q2, "one month's overrun of the top department is not its quarter's")
    if variant == "percent-over":
        return (q2, f"the largest overrun in {units} is another department than the largest in percent",
                "a percentage of the actual instead of the budget")
    return (q2,)


def _split(rng: random.Random, total: float) -> list[float]:
    first = round(total * rng.uniform(0.3, 0.36), -2)
    second = round(total * rng.uniform(0.3, 0.36), -2)
    return [first, second, round(total - first - second, 2)]


# a pick said of another measure or time than the question's ("largest in dollars" beside a percent
# question, "last quarter", "for the quarter as a whole" beside September's) crowns nothing asked about
_OTHER_TIME = r"\bQ2\b|last\s+quarter|previous\s+quarter|original|superseded|earlier\s+version|first\s+version"
_IN_PERCENT = r"percent\w*|%|relative|proportion\w*"
_IN_MONEY = r"dollar\w*|euro\w*|pound\w*|rupee\w*|\$|€|£|₹|absolute|amount|in\s+(?:USD|EUR|GBP|INR|CAD|AUD)"


def _picked_gate(keys: dict[str, str], winner: str, *, percent: bool = False, month: bool = False) -> Any:
    """The answer picks the top department: "Executive overspent the most (9.1%); Operations was 27.6%
    over" states every figure right and names the answer, but crowns the wrong one; a list of every
    department with its figure picks none."""
    unless = "|".join([_OTHER_TIME, _IN_MONEY if percent else _IN_PERCENT,
                       *([r"\bquarter\b|overall|as\s+a\s+whole|in\s+total|Q3\s+total"] if month else [])])
    return picked_check("picked", "answer", name=keys[winner], options=keys.values(), dimension=OVERSPEND_WORDS,
                        committed=True, unless=unless, description="The answer picks the department most over "
                        "budget: every 'most' or 'largest' goes to it, and it is said to be the one or named first.")


def _winner_criterion(keys: dict[str, str], winner: str, attribute: str) -> list[Any]:
    """The one criterion of every structure: the right department, only it, with its figure."""
    return [facts_check("answer", 2, "answer", description="The right department and only that one, with its "
                        "figure stated with it; every figure traceable.", name=[keys[winner]],
                        candidates=keys.values(), require=[f"{keys[winner]}.{attribute}"])]


def _budget_people(stage: Stage, rng: random.Random, n: int) -> list[str]:
    departments = [d["name"] for d in stage.rows("SELECT name FROM directory_department ORDER BY id")]
    return rng.sample(departments, n)


def _revised_sheet(stage: Stage, rng: random.Random) -> Draft:
    """The controller shared the Q3 sheet, then a revised copy (late credits and accruals): the
    revision moves the biggest overspend to another department."""
    chosen = _budget_people(stage, rng, 6)
    first_top, top = rng.sample(chosen, 2)
    budgets = {d: float(rng.randrange(80_000, 400_000, 1_000)) for d in chosen}
    budgets[first_top] = budgets[top] = float(rng.randrange(250_000, 400_000, 1_000))
    first = {d: round(budgets[d] * rng.uniform(0.88, 1.04), -2) for d in chosen}
    first[first_top] = round(budgets[first_top] * rng.uniform(1.12, 1.15), -2)
    first[top] = round(budgets[top] * rng.uniform(1.06, 1.08), -2)
    revised = dict(first)
    revised[first_top] = round(budgets[first_top] * rng.uniform(0.97, 1.01), -2)  # a vendor credit posted late
    revised[top] = round(budgets[top] * rng.uniform(1.09, 1.11), -2)  # an accrual booked after close
    columns, types = ["Department", "Q3 Budget", "Q3 Actual"], ["text", "number", "number"]
    name, newer = "Q3 2026 Budget vs Actual", "Q3 2026 Budget vs Actual (revised)"
    stage.clock(stamp(day(-8), 11, 0))
    shared_sheet(stage, "role:controller", name, columns, types, [[d, budgets[d], first[d]] for d in chosen])
    shared_sheet(stage, "role:controller", "Q2 2026 Budget vs Actual", ["Department", "Q2 Budget", "Q2 Actual"],
                 types, [[d, budgets[d], round(first[d] * rng.uniform(0.9, 0.98), -2)] for d in chosen])
    stage.clock(stamp(day(-2), 16, 0))
    file_id = shared_sheet(stage, "role:controller", newer, columns, types,
                           [[d, budgets[d], revised[d]] for d in chosen])
    stage.clock(stamp(day(0), 9, 0))
    sheet = FactSheet(sources=[f"sheet:{newer}", f"sheet:{name}"])
    keys = {d: sheet.entity(d, kind="department") for d in chosen}
    for d in chosen:
        sheet.figure(budgets[d], revised[d])
        sheet.fact(keys[d], "overrun", revised[d] - budgets[d],
                   wrong=[first[d] - budgets[d]] if d in (top, first_top) else (),
                   contrary=UNDER_BUDGET if d == top else None)
    over = revised[top] - budgets[top]
    units = currency_word(stage)
    instruction = rng.choice([
        f"Which department ended Q3 furthest over budget, and by how many {units}? The controller's budget vs "
        "actual numbers are in Drive. Give me the department and the overrun.",
        "Quick one for the board deck: who overspent their Q3 budget the most, and by how much? Use the latest "
        "budget vs actual figures from the controller.",
        f"From the controller's Q3 budget vs actual, which department is the most over budget in {units}, and "
        "what's the overrun?",
    ])

    def solve(s: Solver) -> None:
        s.call("drive_search_files", query="Q3 Budget vs Actual")
        s.call("drive_read_sheet", file_id=file_id)
        s.submit(f"{top}, over by {stage.money(over)}")

    return Draft(instruction=instruction, tools=toolset(["drive"], distractors=["drive"]),
                 gates=[_read_only_gate(), seen_gate(), _picked_gate(keys, top)],
                 criteria=_winner_criterion(keys, top, "overrun"),
                 solve=solve,
                 variant="revised-sheet", max_steps=10, facts=sheet,
                 traps=("the first Q3 sheet, superseded by its revised copy, puts another department on top",
                        "last quarter's sheet beside the Q3 ones"))


def _one_month(stage: Stage, rng: random.Random) -> Draft:
    """Monthly rows; the question is about September alone, whose biggest overspend is not the quarter's."""
    chosen = _budget_people(stage, rng, 6)
    quarter_top, top = rng.sample(chosen, 2)
    budgets = {d: float(rng.randrange(60_000, 400_000, 1_000)) for d in chosen}
    budgets[quarter_top] = float(rng.randrange(300_000, 400_000, 1_000))
    budgets[top] = float(rng.randrange(100_000, 200_000, 1_000))
    rows: list[list[Any]] = []
    actual: dict[tuple[str, str], float] = {}
    planned: dict[tuple[str, str], float] = {}
    for d in chosen:
        for (_, label), b in zip(MONTHS, _split(rng, budgets[d]), strict=True):
            ratio = rng.uniform(0.9, 1.05)
            if d == quarter_top:
                ratio = 1.0 if label == "September" else rng.uniform(1.18, 1.2)
            elif d == top and label == "September":
                ratio = rng.uniform(1.3, 1.33)
            planned[(d, label)], actual[(d, label)] = b, round(b * ratio, -2)
            rows.append([label, d, b, actual[(d, label)]])
    rows.sort(key=lambda r: ([m[1] for m in MONTHS].index(r[0]), r[1]))
    name = "Q3 2026 Budget vs Actual"
    stage.clock(stamp(day(-4), 11, 0))
    file_id = shared_sheet(stage, "role:controller", name, ["Month", "Department", "Budget", "Actual"],
                           ["text", "text", "number", "number"], rows)
    stage.clock(stamp(day(0), 9, 0))
    sep = {d: actual[(d, "September")] - planned[(d, "September")] for d in chosen}
    quarter = {d: sum(actual[(d, m)] - planned[(d, m)] for _, m in MONTHS) for d in chosen}
    if max(sep, key=sep.__getitem__) != top or max(quarter, key=quarter.__getitem__) == top:
        raise GenerationError("budget_variance_answer one-month: September's top is the quarter's")
    sheet = FactSheet(sources=[f"sheet:{name}"])
    keys = {d: sheet.entity(d, kind="department") for d in chosen}
    for d in chosen:
        sheet.fact(keys[d], "september_overrun", sep[d], wrong=[quarter[d], actual[(d, "August")] -
                                                                planned[(d, "August")]] if d == top else (),
                   contrary=UNDER_BUDGET if d == top else None)
    units = currency_word(stage)
    instruction = rng.choice([
        "Which department overspent its budget the most in September alone, and by how much? The monthly "
        f"numbers are in the '{name}' sheet.",
        f"Looking only at September in the '{name}' sheet: which department was furthest over budget that "
        f"month, in {units}?",
        "I want the September picture, not the quarter: which department blew through its monthly budget by "
        f"the most, and by how many {units}? Use '{name}'.",
    ])

    def solve(s: Solver) -> None:
        s.call("drive_search_files", query=name)
        s.call("drive_read_sheet", file_id=file_id)
        s.submit(f"{top}, over by {stage.money(sep[top])} in September")

    return Draft(instruction=instruction, tools=toolset(["drive"], distractors=["drive"]),
                 gates=[_read_only_gate(), seen_gate(), _picked_gate(keys, top, month=True)],
                 criteria=_winner_criterion(keys, top, "september_overrun"),
                 solve=solve, variant="one-month", max_steps=10, facts=sheet,
                 traps=("the department furthest over for the quarter is another one than September's",
                        "the top department's quarter overrun is not its September one"))


COST_LINES = ["Salaries", "Contractors", "Software", "Travel", "Events"]


def _department_sheets(stage: Stage, rng: random.Random) -> Draft:
    """Hard tier: one budget-vs-actual sheet per department (line items by month, a total row),
    last quarter's and the quarter before beside them, and one department's sheet revised after a
    first version that put it on top.  No summary anywhere: every department's sheet is read."""
    n = 9
    departments = [d["name"] for d in stage.rows("SELECT name FROM directory_department ORDER BY id")]
    if len(departments) < n:
        raise WorldLacks(f"budget_variance_answer department-sheets needs {n} departments")
    chosen = rng.sample(departments, n)
    stale, top = rng.sample(chosen, 2)
    ratio = {d: rng.uniform(0.9, 1.04) for d in chosen}
    ratio[top] = rng.uniform(1.08, 1.1)
    budgets = {d: {(m, line): float(rng.randrange(6_000, 30_000, 500)) for _, m in MONTHS for line in COST_LINES}
               for d in chosen}
    for d in (stale, top):  # two big departments: the stale figure must outrank the true top
        budgets[d] = {k: v + 12_000.0 for k, v in budgets[d].items()}

    def actuals(d: str, r: float) -> dict[tuple[str, str], float]:
        return {k: round(v * r * rng.uniform(0.97, 1.03), -2) for k, v in budgets[d].items()}

    spent = {d: actuals(d, ratio[d]) for d in chosen}
    first_stale = actuals(stale, rng.uniform(1.16, 1.2))
    names = {d: f"Q3 2026 Budget vs Actual - {d}" for d in chosen}

    def rows_of(d: str, got: dict[tuple[str, str], float]) -> list[list[Any]]:
        out: list[list[Any]] = [[m, line, budgets[d][(m, line)], got[(m, line)]] for _, m in MONTHS
                                for line in COST_LINES]
        out.append(["Q3 total", "All lines", sum(budgets[d].values()), round(sum(got.values()), 2)])
        return out

    columns, types = ["Month", "Cost line", "Budget", "Actual"], ["text", "text", "number", "number"]
    stage.clock(stamp(day(-12), 10, 0))
    for quarter, months in (("Q1", ["January", "February", "March"]), ("Q2", Q2_MONTHS)):
        for d in chosen:
            back = actuals(d, rng.uniform(0.9, 1.2))
            relabel = dict(zip([m for _, m in MONTHS], months, strict=True))
            shared_sheet(stage, "role:controller", f"{quarter} 2026 Budget vs Actual - {d}", columns, types,
                         [[relabel.get(r[0], f"{quarter} total"), *r[1:]] for r in rows_of(d, back)])
    stage.clock(stamp(day(-9), 10, 0))
    ids = {d: shared_sheet(stage, "role:controller", names[d], columns, types,
                           rows_of(d, first_stale if d == stale else spent[d])) for d in chosen}
    stage.clock(stamp(day(-3), 15, 0))
    revised_name = f"{names[stale]} (revised)"
    revised_id = shared_sheet(stage, "role:controller", revised_name, columns, types, rows_of(stale, spent[stale]))
    stage.clock(stamp(day(0), 9, 0))
    over = {d: round(sum(spent[d].values()) - sum(budgets[d].values()), 2) for d in chosen}
    stale_over = round(sum(first_stale.values()) - sum(budgets[stale].values()), 2)
    if max(over, key=over.__getitem__) != top or stale_over <= over[top]:
        raise GenerationError("budget_variance_answer department-sheets: the planted top is not the top")
    sheet = FactSheet(sources=[f"sheet:{names[d]}" for d in chosen] + [f"sheet:{revised_name}"])
    keys = {d: sheet.entity(d, kind="department") for d in chosen}
    for d in chosen:
        sheet.figure(sum(budgets[d].values()), round(sum(spent[d].values()), 2))
        wrong = [2 * over[d]] if d == top else [stale_over] if d == stale else []
        sheet.fact(keys[d], "overrun", over[d], wrong=wrong, contrary=UNDER_BUDGET if d == top else None)
    units = currency_word(stage)
    instruction = rng.choice([
        f"Which department is furthest over its Q3 budget, and by how many {units}? The controller keeps a "
        "budget vs actual sheet per department in Drive.",
        "For the Q3 close: every department has its own budget vs actual sheet from the controller. Which one "
        f"overspent the most in {units}, and by how much?",
        "I need the single biggest Q3 overspend across departments (the per-department budget vs actual "
        "sheets in Drive) and the amount.",
    ])

    def solve(s: Solver) -> None:
        page = s.call("drive_search_files", query="Budget vs Actual")
        while page.get("next_cursor"):
            page = s.call("drive_search_files", query="Budget vs Actual", cursor=page["next_cursor"])
        for d in chosen:
            s.call("drive_read_sheet", file_id=ids[d])
        s.call("drive_read_sheet", file_id=revised_id)
        s.submit(f"{top}, over by {stage.money(over[top])}")

    return Draft(instruction=instruction, tools=toolset(["drive"]),
                 gates=[_read_only_gate(), seen_gate(), _picked_gate(keys, top)],
                 criteria=_winner_criterion(keys, top, "overrun"), solve=solve, variant="department-sheets",
                 max_steps=40, facts=sheet, difficulty="hard",
                 traps=("one department's first sheet is superseded by a revised copy that takes it off the top",
                        "each sheet ends in a total row: summing every row counts the quarter twice",
                        "Q1 and Q2 sheets of the same departments beside the Q3 ones"))


# a comparison with a city or two is an answer; the policy's every city pasted in is not
POLICY_OTHERS = 2
POLICY_CITIES = ["New York", "London", "San Francisco", "Chicago", "Toronto", "Berlin", "Singapore", "Austin"]


class ExpensePolicyAnswer(Family):
    """Answer a travel-policy question from the current policy doc (not last year's superseded one)."""

    name = "expense_policy_answer"
    skills = ("fact_lookup", "policy_application")
    category = "policy-lookup"
    difficulty = "easy"
    apps = ("drive", "mail")
    variants = ("hotel-cap", "meal-per-diem", "trip-maximum", "policy-update", "mail-exception")
    worlds = ("acme", "shopline", "counsel")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        user = rng.choice(["role:ops_manager", "role:sales_rep_1", "role:marketing_lead", "role:it_admin"])
        stage.act_as(user)
        if variant in ("policy-update", "mail-exception"):
            return _policy_override(stage, rng, variant, user)
        cities = rng.sample(POLICY_CITIES, 5)
        hotel = {c: rng.randrange(160, 420, 5) for c in cities}
        meals = {c: rng.randrange(55, 110, 5) for c in cities}
        mileage = round(rng.uniform(0.6, 0.72), 2)
        stage.clock(stamp(day(-60), 10, 0))
        old = shared_doc(stage, "role:travel_coordinator", f"{POLICY_NAME} 2025 (superseded)",
                         policy_text("2025", {c: v - 20 for c, v in hotel.items()},
                                     {c: v - 10 for c, v in meals.items()}, mileage - 0.03, stage.money),
                         share_with=[])
        stage.act("role:travel_coordinator", "drive_share_file", file_id=old, domain=True, role="viewer")
        stage.clock(stamp(day(-30), 10, 0))
        current = set_travel_policy(stage, hotel, meals, mileage)
        stage.clock(stamp(day(0), 9, 0))
        city = rng.choice(cities)
        sheet = FactSheet(sources=[f"doc:{POLICY_NAME}"])
        keys = {c: sheet.entity(c, kind="city") for c in cities}
        nights = rng.randint(2, 4)
        for c in cities:
            if variant == "hotel-cap":
                sheet.fact(keys[c], "hotel_cap", hotel[c], wrong=[hotel[c] - 20, 180] if c == city else (),
                           tolerance=0.001)
            elif variant == "meal-per-diem":
                sheet.fact(keys[c], "meal_allowance", meals[c], wrong=[meals[c] - 10, 60] if c == city else (),
                           tolerance=0.001)
            else:
                right = nights * hotel[c] + (nights + 1) * meals[c]
                wrong = [nights * (hotel[c] + meals[c]), (nights + 1) * (hotel[c] + meals[c]),
                         nights * (hotel[c] - 20) + (nights + 1) * (meals[c] - 10)]
                sheet.fact(keys[c], "trip_maximum", right, wrong=wrong if c == city else (), tolerance=0.001)
        if variant == "hotel-cap":
            value, attribute = float(hotel[city]), "hotel_cap"
            instruction = f"What's the most I can expense per night for a hotel in {city} under our travel policy?"
        elif variant == "meal-per-diem":
            value, attribute = float(meals[city]), "meal_allowance"
            instruction = f"What's the daily meal allowance for a trip to {city} in our current travel policy?"
        else:
            value, attribute = float(nights * hotel[city] + (nights + 1) * meals[city]), "trip_maximum"
            sheet.figure(hotel[city], meals[city], nights, nights + 1, nights * hotel[city],
                         (nights + 1) * meals[city])
            instruction = (f"I'm going to {city} for {nights} nights ({nights + 1} days, counting the days I fly out "
                           "and back). Under the current travel policy, what's the most I can claim for hotel plus "
                           "meals in total?")
        instruction += " Just give me the number."

        def solve(s: Solver) -> None:
            s.call("drive_search_files", query="Travel & Expense Policy")
            s.call("drive_get_doc", file_id=current)
            s.submit(stage.money(value))

        return Draft(
            instruction=instruction,
            tools=toolset(["drive"], distractors=["drive"]),
            gates=[_read_only_gate(), seen_gate()],
            criteria=[facts_check("amount", 1, "answer", description="The current policy's figure, and only it.",
                                  require=[f"{keys[city]}.{attribute}"], subject=keys[city],
                                  candidates=keys.values(), others_at_most=POLICY_OTHERS,
                                  # a total: its working may show, the policy pasted whole may not
                                  trace_to="facts" if variant == "trip-maximum" else "sources")],
            solve=solve, variant=variant, max_steps=10, facts=sheet,
            traps=(OLD_POLICY_TRAP, "meals count for every day of the trip, one more than the nights")
            if variant == "trip-maximum" else (OLD_POLICY_TRAP,),
        )


OLD_POLICY_TRAP = "last year's policy, superseded, still shared company-wide with lower figures"
# the words only the update memo, or the CFO's approval, says (what its reading shows where its figure is not its own)
RATE_SURVEY = "after this year's rate survey"
APPROVED_EXCEPTION = "Approved as an exception for this trip"
# the words that tell a figure as the written policy's cap, not the one approved for this trip
POLICY_CAP_LABEL = (r"\b(?:normal(?:ly)?|standard|usual(?:ly)?|regular|ordinary|default|base|written|official)\b|"
                    r"\bpolic(?:y|ies)(?:'s)?\s+(?:cap|limit|max(?:imum)?|rate|ceiling|says|allows|sets|is|was)\b|"
                    r"\b(?:under|per|in|by|from|of)\s+(?:the\s+|our\s+)?(?:written\s+|travel\s+)?policy\b|"
                    r"\bwithout\s+(?:the|an|this|that|his|her|their)\s+(?:exception|approval)\b")


def _policy_override(stage: Stage, rng: random.Random, variant: str, user: str) -> Draft:
    """The policy doc's hotel cap for a city is not the answer: a newer update memo raised it
    (policy-update), or the CFO approved a higher rate for the user's trip in mail (mail-exception)."""
    cities = rng.sample(POLICY_CITIES, 5)
    city, other = cities[0], cities[1]
    hotel = {c: rng.randrange(160, 420, 5) for c in cities}
    meals = {c: rng.randrange(55, 110, 5) for c in cities}
    stage.clock(stamp(day(-60), 10, 0))
    old = shared_doc(stage, "role:travel_coordinator", f"{POLICY_NAME} 2025 (superseded)",
                     policy_text("2025", {c: v - 20 for c, v in hotel.items()},
                                 {c: v - 10 for c, v in meals.items()}, 0.62, stage.money), share_with=[])
    stage.act("role:travel_coordinator", "drive_share_file", file_id=old, domain=True, role="viewer")
    stage.clock(stamp(day(-30), 10, 0))
    current = set_travel_policy(stage, hotel, meals, round(rng.uniform(0.6, 0.72), 2))
    raised = hotel[city] + rng.randrange(30, 95, 5)
    sources = [f"doc:{POLICY_NAME}"]
    wrong: list[float] = [hotel[city], hotel[city] - 20]

    def cap(amount: float) -> str:
        return stage.money(amount, cents=False)

    if variant == "policy-update":
        memo_name = "Travel Policy Update (October 2026)"
        meal_city = other
        stage.clock(stamp(day(-6), 14, 0))
        memo = shared_doc(stage, "role:travel_coordinator", memo_name,
                          f"# {memo_name}\n\nEffective {short_date(day(-6))}, these changes to the {POLICY_NAME} "
                          "apply. Everything not listed here is unchanged.\n\n"
                          f"- Hotels, {city}: the nightly cap rises from {cap(hotel[city])} to {cap(raised)} per night "
                          f"(taxes included), {RATE_SURVEY}.\n"
                          f"- Meals, {meal_city}: the daily allowance rises from {cap(meals[meal_city])} to "
                          f"{cap(meals[meal_city] + 10)} per day.\n", share_with=[])
        stage.act("role:travel_coordinator", "drive_share_file", file_id=memo, domain=True, role="viewer")
        sources.append(f"doc:{memo_name}")
        instruction = rng.choice([
            f"What's the most I can expense per night for a hotel in {city} under our travel policy right now?",
            f"I'm booking a hotel in {city}: what's the current nightly cap I can claim?",
            f"Under the travel rules as they stand today, how much per night can I spend on a hotel in {city}?",
        ]) + " Just give me the number."
        subject_of_override = memo_name
        traps = (f"the {POLICY_NAME} doc's {city} cap, raised by a newer update memo",
                 OLD_POLICY_TRAP)

        def reads(s: Solver) -> None:
            s.call("drive_search_files", query="travel policy")
            s.call("drive_get_doc", file_id=current)
            s.call("drive_get_doc", file_id=memo)
    else:
        cfo = stage.person("role:cfo")
        subject = subject_of_override = f"Hotel for the {city} trip"
        earlier = f"Hotel for the {other} trip"
        stage.clock(stamp(day(-40), 10, 0))
        ask = colleague_mail(stage, user, [cfo["email"]], earlier,
                             f"Hi,\n\nThe only hotel near the {other} venue is above the cap. Could I go up to "
                             f"{cap(hotel[other] + 60)} a night?\n\nThanks")
        stage.clock(stamp(day(-40), 15, 0))
        stage.act("role:cfo", "mail_reply_message", message_id=ask["id"],
                  body=f"Approved for the {other} trip only: up to {cap(hotel[other] + 60)} a night.")
        stage.clock(stamp(day(-3), 10, 0))
        ask = colleague_mail(stage, user, [cfo["email"]], subject,
                             f"Hi,\n\nFor next week's {city} trip the conference hotel is {cap(raised)} a night, above "
                             f"the policy cap of {cap(hotel[city])}. Is that OK to book?\n\nThanks")
        stage.clock(stamp(day(-3), 16, 30))
        stage.act("role:cfo", "mail_reply_message", message_id=ask["id"],
                  body=f"{APPROVED_EXCEPTION}: book the conference hotel, up to {cap(raised)} a "
                       "night. Anything above that is on you.")
        sources += [f"mail:{subject}", f"mail:{earlier}"]
        wrong.append(hotel[other] + 60)
        instruction = rng.choice([
            f"For my {city} trip next week, what's the most I can expense per night for the hotel?",
            f"How much per night am I allowed to claim for the hotel on next week's {city} trip?",
            f"Booking my {city} hotel for next week: what nightly rate can I expense at most?",
        ]) + " Just the number, please."
        traps = (f"the policy's {city} cap, overridden for this trip by the CFO's approval in mail",
                 f"an older approval in mail for a {other} trip, at another rate")

        def reads(s: Solver) -> None:
            s.call("drive_search_files", query="travel policy")
            s.call("drive_get_doc", file_id=current)
            found = s.call("mail_search_messages", query=city)
            s.call("mail_get_thread", thread_id=found["messages"][0]["thread_id"])
    stage.clock(stamp(day(0), 9, 0))
    sheet = FactSheet(sources=sources)
    keys = {c: sheet.entity(c, kind="city") for c in cities}
    for c in cities:
        sheet.fact(keys[c], "hotel_cap", raised if c == city else hotel[c],
                   wrong=wrong if c == city else (), tolerance=0.001)
    if variant == "mail-exception":
        # the policy's own cap, told as such beside the approved rate ("$475 (an exception; the normal cap is
        # $395)"), is context; alone, or offered as another reading ("$395, or $475"), it is still the trap
        sheet.fact(keys[city], "policy_cap", hotel[city], tolerance=0.001, label=POLICY_CAP_LABEL)

    def solve(s: Solver) -> None:
        reads(s)
        s.submit(stage.money(raised))

    apps = ["drive", "mail"] if variant == "mail-exception" else ["drive"]
    # the answer rests on the memo or the approval, not on the policy doc: a tool result must have shown the
    # raised cap (the policy doc alone and the remembered "$475" is no reading); where some other file or
    # mail holds that figure too (another city's cap), the memo's or the approval's own words
    elsewhere = [r["text"] for r in stage.rows("SELECT content AS text FROM drive_file WHERE name NOT LIKE ? "
                                               "UNION ALL SELECT body AS text FROM mail_message WHERE subject NOT "
                                               "LIKE ?", "Travel Policy Update%", f"%{subject_of_override}%")]
    shown_elsewhere = any(float(raised) in seen_numbers(text or "") for text in elsewhere)
    return Draft(instruction=instruction, tools=toolset(apps, distractors=["drive"]),
                 gates=[_read_only_gate(), seen_gate(words=[RATE_SURVEY if variant == "policy-update" else
                                                            APPROVED_EXCEPTION])
                        if shown_elsewhere else seen_gate(figures=[raised])],
                 criteria=[facts_check("amount", 1, "answer", description="The nightly cap in force for this "
                                       "trip, and only it.", require=[f"{keys[city]}.hotel_cap"], subject=keys[city],
                                       candidates=keys.values(), others_at_most=POLICY_OTHERS,
                                  # a total: its working may show, the policy pasted whole may not
                                  trace_to="facts" if variant == "trip-maximum" else "sources")],
                 solve=solve, variant=variant, max_steps=12, facts=sheet, traps=traps)


class HeadcountAnswer(Family):
    """Count people in the directory: by department and office, a whole office, two departments together, or a
    manager's direct reports.

    This week's new joiners are planted in the directory, so every instance has its own count.
    """

    name = "headcount_answer"
    skills = ("fact_lookup", "aggregation")
    category = "directory-lookup"
    difficulty = "easy"
    apps = ("directory",)
    variants = ("department-office", "department-total", "manager-reports", "office-total", "two-departments")
    worlds = ("acme", "forge", "lantern")

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        variant = self.variant_for(index)
        turn = index // len(self.variants)
        stage.act_as(rng.choice(["role:hr_lead", "role:exec_assistant", "role:ops_manager"]))
        stage.clock(stamp(day(-2), 9, 0))
        home = stage.world.meta("locale") or "en_US"
        domain = stage.world.meta("domain") or "acme.test"
        fake = faker_for(0, home, self.name, index)
        phone = locale_profile(home).phone or "+1-555-###-####"
        if variant == "manager-reports":
            managers = stage.rows("SELECT m.id, m.name, m.email, m.department_id, m.location FROM directory_person m "
                                  "WHERE EXISTS (SELECT 1 FROM directory_person p WHERE p.manager_id = m.id) "
                                  "AND m.manager_id IS NOT NULL ORDER BY CAST(substr(m.id, 3) AS INTEGER)")
            pick = nth(managers, turn, self.name, salt=variant)
            department_id, location, manager_id = pick["department_id"], pick["location"], pick["id"]
        else:
            cells = stage.rows("SELECT d.id AS department_id, d.name AS department, d.head_id, p.location "
                               "FROM directory_person p JOIN directory_department d ON d.id = p.department_id "
                               "GROUP BY 1, 2, 3, 4 HAVING count(*) >= 2 ORDER BY 2, 4")
            if variant in ("department-total", "two-departments"):
                cells = list({c["department"]: c for c in cells}.values())
            if variant == "office-total":  # an office with two departments or more: one department is not it
                spread = {c["location"] for c in cells if sum(x["location"] == c["location"] for x in cells) > 1}
                cells = [c for c in cells if c["location"] in spread and c["location"] != "Remote"]
            pick = nth(cells, turn, self.name, salt=variant)
            department_id, location, manager_id = pick["department_id"], pick["location"], pick["head_id"]
        joiners = []
        for _ in range(rng.randint(1, 3)):
            first, last = fake.first_name(), fake.last_name()
            local = f"{first.lower()}.{last.lower()}" if home == "en_US" else email_local(f"{first} {last}", plain=True)
            joiners.append({"name": f"{first} {last}", "email": f"{local}@{domain}",
                            "title": "New Joiner", "department_id": department_id, "manager_id": manager_id,
                            "role": None, "location": location, "phone": fake.numerify(phone)})
        stage.insert("directory_person", joiners)
        stage.clock(stamp(day(0), 9, 0))
        if variant == "two-departments":
            second = nth([c for c in cells if c["department_id"] != department_id], turn, self.name, salt="second")
        if variant == "department-office":
            value = stage.one("SELECT count(*) AS n FROM directory_person WHERE department_id = ? AND location = ?",
                              department_id, location)["n"]
            others = stage.one("SELECT count(*) AS n FROM directory_person WHERE department_id = ?",
                               department_id)["n"]
            where = "working remotely" if location == "Remote" else f"based in {location}"
            instruction = f"How many people in the {pick['department']} department are {where}? Answer with the number."
            first_step: tuple[str, dict[str, Any]] = ("directory_search_people",
                                                      {"department": pick["department"], "limit": 100})
            subject, wrong = pick["department"], [value - len(joiners), others]
        elif variant == "department-total":
            value = stage.one("SELECT count(*) AS n FROM directory_person WHERE department_id = ?", department_id)["n"]
            instruction = f"What's the current headcount of {pick['department']}? Just the number, please."
            first_step = ("directory_list_departments", {})
            subject, wrong = pick["department"], [value - len(joiners), value - 1]
        elif variant == "office-total":
            value = stage.one("SELECT count(*) AS n FROM directory_person WHERE location = ?", location)["n"]
            department = stage.one("SELECT count(*) AS n FROM directory_person WHERE department_id = ? AND "
                                   "location = ?", department_id, location)["n"]
            instruction = rng.choice([f"How many people work out of our {location} office, across all teams? "
                                      "Just the number.",
                                      f"What's the headcount of the {location} office right now? I need the total, "
                                      "every department."])
            first_step = ("directory_search_people", {"limit": 100})
            subject, wrong = location, [value - len(joiners), department]
        elif variant == "two-departments":
            one_count = stage.one("SELECT count(*) AS n FROM directory_person WHERE department_id = ?",
                                  department_id)["n"]
            two_count = stage.one("SELECT count(*) AS n FROM directory_person WHERE department_id = ?",
                                  second["department_id"])["n"]
            value = one_count + two_count
            instruction = rng.choice([f"How many people are in {pick['department']} and {second['department']} "
                                      "together? Answer with the number.",
                                      f"We're planning an offsite for {pick['department']} plus "
                                      f"{second['department']}: how many people is that in total?"])
            first_step = ("directory_list_departments", {})
            subject, wrong = f"{pick['department']} and {second['department']}", [value - len(joiners)]
        else:
            value = stage.one("SELECT count(*) AS n FROM directory_person WHERE manager_id = ?", manager_id)["n"]
            instruction = f"How many direct reports does {pick['name']} have now? Answer with the number."
            first_step = ("directory_get_person", {"person": pick["email"]})
            subject, wrong = pick["name"], [value - len(joiners)]
        # what the count must have been read from: the people counted (their emails), or where the directory
        # lists departments with their headcounts, those headcounts
        counted_where = {"department-office": ("department_id = ? AND location = ?", (department_id, location)),
                         "office-total": ("location = ?", (location,)),
                         "manager-reports": ("manager_id = ?", (manager_id,))}.get(variant)
        if counted_where is not None:
            emails = [r["email"] for r in stage.rows(f"SELECT email FROM directory_person WHERE {counted_where[0]}",
                                                     *counted_where[1])]
            read_gate = seen_gate(words=emails)
        else:
            read_gate = seen_gate(figures=[one_count, two_count] if variant == "two-departments" else [value])
        sheet = FactSheet()
        key = sheet.entity(subject, key="subject", person=pick["email"] if variant == "manager-reports" else None)
        sheet.fact(key, "count", value, wrong=[w for w in wrong if w != value and w >= 0], tolerance=0.0)
        if variant == "department-office" and others != value:
            # the department's headcount, told as such beside the answer ("5 (14 in the department across all
            # offices)", "Four (Marketing has 27 in total)"), is context; alone, or offered as another reading of
            # the office's ("5 or 14"), it is still the trap (a fact of the subject's, so nothing reads as a swap)
            sheet.fact(key, "department_count", others, tolerance=0.0, label=DEPARTMENT_LABEL)
        if variant == "office-total":
            # the office's breakdown by department beside its total ("25 people (People 6, Sales 2, ...)") is careful
            # work: each department's count told with its name is context; alone, or offered as another reading of
            # the office's ("25 or 6"), the one department's count is still the trap
            for row in stage.rows("SELECT d.name, count(*) AS n FROM directory_person p JOIN directory_department d "
                                  "ON d.id = p.department_id WHERE p.location = ? GROUP BY d.id ORDER BY d.name",
                                  location):
                sheet.fact(key, f"{_slug(row['name'])}_count", row["n"], tolerance=0.0, label=_name_label(row["name"]))
        if variant == "two-departments":  # a breakdown beside the total is careful work, not a wrong reading
            sheet.figure(one_count, two_count)

        def solve(s: Solver) -> None:
            page = s.call(first_step[0], **first_step[1])
            while variant == "office-total" and page.get("next_cursor"):  # no office filter: read everyone
                page = s.call(first_step[0], **first_step[1], cursor=page["next_cursor"])
            s.submit(str(value))

        return Draft(
            instruction=instruction,
            tools=toolset([]),
            gates=[_read_only_gate(), read_gate],
            criteria=[facts_check("count", 1, "answer", description="The right count, and only it.",
                                  require=[f"{key}.count"], subject=key)],
            solve=solve, variant=variant, max_steps=10, facts=sheet, traps=HEADCOUNT_TRAPS[variant],
        )


def _slug(name: str) -> str:
    return re.sub(r"\W+", "_", name.casefold()).strip("_")


def _name_label(name: str) -> str:
    """A label regex for a department's name: as written, or in any case where it is no short acronym (the "IT"
    of a breakdown, not the "it" of a sentence)."""
    words = r"\s+".join(re.escape(w) for w in name.split())
    return rf"(?-i:\b{words}\b)" if len(name) <= 3 else rf"\b{words}\b"


JOINERS = "this week's new joiners are in the directory and count"
# the words that tell a figure as the whole department's headcount, not the office's
DEPARTMENT_LABEL = (r"\b(?:in|across|within|for)\s+(?:the\s+|that\s+|this\s+|our\s+|its\s+)?(?:whole\s+|entire\s+)?"
                    r"department\b|\bdepartment(?:[\s-]wide|\s+(?:has|have|had|overall|total|in\s+total|as\s+a\s+whole|"
                    r"headcount))\b|\bacross\s+(?:all|every)\s+(?:the\s+|its\s+|our\s+)?(?:offices?|locations?|sites?)\b|"
                    r"\bin\s+total\b|(?<=\d)\s*total\b|\boverall\b|\ball\s+told\b|\baltogether\b|\binsgesamt\b|\bgesamt\b|"
                    r"\bin\s+der\s+(?:ganzen\s+|gesamten\s+)?Abteilung\b|\bau\s+total\b|\ben\s+tout\b|"
                    r"\bdans\s+(?:tout\s+)?(?:le|ce)\s+(?:service|département)\b")
# each one a wrong count the grader fails (the count is exact)
HEADCOUNT_TRAPS = {
    "department-office": (JOINERS, "the department's headcount across every office is not this office's"),
    "department-total": (JOINERS,),
    "office-total": (JOINERS, "one department's people in the office are not the office's headcount"),
    "manager-reports": ("this week's new joiners report to this manager too",),
    "two-departments": (JOINERS,),
}
