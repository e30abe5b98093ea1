"""The task library: deterministic generation, the checked-in tasks/, and the shape of the library.

One full generation into a temporary folder (session fixture, ~20 s) backs the byte-for-byte
comparisons; everything else reads it or renders single instances.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from officesim.cli import main as cli_main
from officesim.grading.facts import phone_regex
from officesim.pipeline.selftest import selftest
from officesim.probes.gaps import open_failures
from officesim.task import TASK_ID, load_task
from officesim.taskgen import FAMILIES, generate_all
from officesim.taskgen.base import Draft, Family, GenerationError, Solver, Stage
from officesim.taskgen.common import (
    allowed_changes,
    answer_tolerance,
    core_name,
    day,
    nth,
    stamp,
    toolset,
    weigh_penalties,
)
from officesim.taskgen.writer import FILES, base_snapshot, render_instance
from officesim.taskgen.yamlout import dump_yaml

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "tasks"


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("generated")
    generate_all(out)
    return out


@pytest.fixture(scope="session")
def specs(generated: Path) -> dict[str, dict[str, Any]]:
    """task.yaml of every generated task, by id."""
    return {d.name: yaml.safe_load((d / "task.yaml").read_text()) for d in _folders(generated)}


def _folders(root: Path) -> list[Path]:
    return sorted(d for d in root.iterdir() if d.is_dir())


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------------------------ determinism
@pytest.mark.slow
def test_checked_in_tasks_equal_a_fresh_generation(generated: Path) -> None:
    fresh, checked_in = _tree(generated), _tree(TASKS)
    assert sorted(fresh) == sorted(checked_in), "tasks/ has missing or extra files: run 'officesim tasks generate'"
    stale = [name for name in fresh if fresh[name] != checked_in[name]]
    assert not stale, f"stale files in tasks/ (run 'officesim tasks generate'): {stale[:5]}"


@pytest.mark.slow
def test_generation_is_identical_in_another_process(generated: Path, tmp_path: Path) -> None:
    """A second generation, in a process with another hash seed, writes the same bytes."""
    families = ["travel_expense_report", "inbox_triage", "mail_cleanup"]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    command = [sys.executable, "-m", "officesim", "tasks", "generate", "-o", str(tmp_path)]
    for name in families:
        command += ["--family", name]
    subprocess.run(command, check=True, cwd=ROOT, env=env, capture_output=True)
    second = _tree(tmp_path)
    first = {name: data for name, data in _tree(generated).items()  # (INDEX.md: only with every family)
             if any(name.startswith(FAMILIES[f].slug + "-") for f in families)}
    assert second == first


def test_the_index_lists_every_family(generated: Path) -> None:
    index = (generated / "INDEX.md").read_text()
    for family in FAMILIES.values():
        assert f"| `{family.name}` | {family.difficulty} |" in index
    assert f"{len(FAMILIES)} families" in index


def test_rendering_twice_gives_the_same_bytes() -> None:
    base = base_snapshot()
    family = FAMILIES["chase_overdue_invoices"]
    assert render_instance(family, 1, base) == render_instance(family, 1, base)


# ------------------------------------------------------------------------------------ library shape
def test_library_has_twenty_families_and_three_hundred_tasks(specs: dict[str, dict[str, Any]]) -> None:
    per_family = Counter(spec["family"] for spec in specs.values())
    assert len(FAMILIES) >= 20
    assert set(per_family) == set(FAMILIES)
    assert len(specs) >= 300
    assert all(count >= 10 for count in per_family.values()), per_family


def test_library_spreads_over_apps_and_difficulties(specs: dict[str, dict[str, Any]]) -> None:
    difficulty = Counter(spec["difficulty"] for spec in specs.values())
    assert all(difficulty[level] >= 40 for level in ("easy", "medium", "hard")), difficulty
    single = [f for f in FAMILIES.values() if len(f.apps) == 1]
    multi = [f for f in FAMILIES.values() if len(f.apps) >= 2]
    three = [f for f in FAMILIES.values() if len(f.apps) >= 3]
    assert len(single) >= 4 and len(multi) >= 12 and len(three) >= 3
    used_apps = {app for f in FAMILIES.values() for app in f.apps}
    assert used_apps == {"mail", "drive", "chat", "crm", "directory", "calendar"}
    assert len({spec["category"] for spec in specs.values()}) >= 12


def test_ids_are_distinct_and_named_after_their_family(specs: dict[str, dict[str, Any]]) -> None:
    for task_id, spec in specs.items():
        assert spec["id"] == task_id
        assert task_id.startswith(FAMILIES[spec["family"]].slug + "-")
        assert re.match(TASK_ID, task_id)


def test_groups_hold_several_near_twins_of_one_family(specs: dict[str, dict[str, Any]]) -> None:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for spec in specs.values():
        groups[spec["group"]].append(spec)
    for group, members in groups.items():
        assert {m["family"] for m in members} == {group.split("/")[0]}, group
        assert len(members) >= 2, f"group {group} has a single instance: the held-out split would be trivial"
        assert len({m["difficulty"] for m in members}) == 1
    per_family = Counter(group.split("/")[0] for group in groups)
    assert all(count >= 2 for count in per_family.values()), "every family needs two groups to split"


def test_instances_are_not_copies(specs: dict[str, dict[str, Any]]) -> None:
    seen: dict[tuple[str, str], str] = {}
    for task_id, spec in specs.items():
        key = (spec["family"], dump_yaml({"i": spec["instruction"], "s": spec["setup"]}))
        assert key not in seen, f"{task_id} repeats {seen[key]}"
        seen[key] = task_id


def test_every_task_has_a_collateral_damage_gate_and_a_positive_criterion(generated: Path) -> None:
    for folder in _folders(generated):
        grader = yaml.safe_load((folder / "grader.yaml").read_text())
        kinds = [gate["check"] for gate in grader["gates"]]
        assert "allowed_changes" in kinds, folder.name
        assert any((c.get("points") or 0) > 0 and c["check"] != "judge" for c in grader["criteria"]) or \
            any(g["check"] != "allowed_changes" for g in grader["gates"]), folder.name


def test_setup_starts_with_the_clock_and_instructions_hide_the_grader(specs: dict[str, dict[str, Any]]) -> None:
    for task_id, spec in specs.items():
        assert "clock" in spec["setup"][0], task_id
        text = spec["instruction"].lower()
        assert not any(word in text for word in ("grader", "gate", "criteria", "points", "allowed_changes")), task_id


def test_folders_hold_exactly_the_generated_files(generated: Path) -> None:
    for folder in _folders(generated):
        assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)


# ------------------------------------------------------------------------------------ self-tests
def test_oracle_passes_and_cheap_agents_fail_on_a_sample(generated: Path) -> None:
    """One instance per family through the full self-test (validate runs it over all of them)."""
    picker = random.Random(7)
    for family in FAMILIES.values():
        folder = generated / family.task_id(picker.randrange(family.count))
        task = load_task(folder)
        report = selftest(task)
        assert not open_failures(report, task.family), (folder.name, report.to_dict())  # known gaps are listed


# ------------------------------------------------------------------------------------ the writer
class _Broken(Family):
    """A toy family whose parts can be broken one at a time."""

    name = "toy_broken"
    category = "test"
    difficulty = "easy"
    apps = ("crm",)
    variants = ("only",)
    count = 1

    def __init__(self, flaw: str) -> None:
        self.flaw = flaw

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        if self.flaw != "no-clock":
            stage.clock(stamp(day(0), 9, 0))
        account = stage.one("SELECT id, name FROM crm_account ORDER BY id LIMIT 1")
        if self.flaw == "bad-setup":
            stage.act("role:cfo", "crm_get_account", account_id="acc_does_not_exist")

        def solve(s: Solver) -> None:
            s.call("crm_get_account", account_id=account["id"])
            s.submit("wrong" if self.flaw == "wrong-answer" else account["name"])

        return Draft(instruction=f"What is the name of account {account['id']}?", tools=toolset(["crm"]),
                     gates=[allowed_changes({"mail_entry": ["is_read"]})],
                     criteria=[{"id": "name", "check": "answer", "points": 1, "contains": [account["name"]]}],
                     solve=solve, variant="only")


def test_a_sound_toy_family_renders() -> None:
    rendered = render_instance(_Broken("none"), 0, base_snapshot())
    assert rendered.task_id == "toy-broken-001"
    assert yaml.safe_load(rendered.files["solution.yaml"])["steps"][0]["name"] == "crm_get_account"


@pytest.mark.parametrize(("flaw", "message"), [
    ("wrong-answer", "does not pass"),
    ("bad-setup", "failed"),
    ("no-clock", "clock"),
])
def test_the_writer_refuses_broken_tasks(flaw: str, message: str) -> None:
    with pytest.raises(GenerationError, match=message):
        render_instance(_Broken(flaw), 0, base_snapshot())


def test_the_solver_refuses_tools_the_task_does_not_allow(tiny) -> None:
    solver = Solver(tiny, frozenset({"crm_search_accounts"}))
    with pytest.raises(GenerationError, match="does not allow"):
        solver.call("mail_send_message", to=["x@example.test"], subject="s", body="b")
    with pytest.raises(GenerationError, match="failed"):
        solver.call("crm_search_accounts", limit=0)


# ------------------------------------------------------------------------------------ the command
def test_generate_command_rewrites_one_family_and_leaves_the_rest(tmp_path: Path) -> None:
    stale = tmp_path / "headcount-answer-099"
    stale.mkdir()
    (stale / "task.yaml").write_text("stale")
    other = tmp_path / "hand-written-001"
    other.mkdir()
    assert cli_main(["tasks", "generate", "-o", str(tmp_path), "--family", "headcount_answer"]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    family = FAMILIES["headcount_answer"]
    on_worlds = [family.task_id(i, world) for world in family.worlds for i in range(family.count_on(world))]
    assert written == sorted([*on_worlds, "hand-written-001"])


def test_generate_command_names_the_families_when_one_is_unknown(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["tasks", "generate", "-o", str(tmp_path), "--family", "no_such_family"]) == 2
    error = capsys.readouterr().err
    assert "no task family 'no_such_family'" in error and "travel_expense_report" in error


# ------------------------------------------------------------------------------------ helpers
def test_yaml_output_is_literal_wide_and_without_anchors() -> None:
    shared = {"clock": "2026-10-05T08:00:00Z"}
    text = dump_yaml({"b": "two\nlines\n", "a": [shared, shared], "row": ["x", 1, None], "long": "w " * 200})
    assert text.index("b:") < text.index("a:")  # insertion order, not sorted
    assert "b: |\n  two\n  lines\n" in text
    assert "&" not in text and "*" not in text
    assert "row: [x, 1, null]" in text
    assert len(max(text.splitlines(), key=len)) > 300  # never wrapped


def test_nth_walks_the_pool_before_repeating() -> None:
    pool = list(range(9))
    picks = [nth(pool, i, "some_family") for i in range(9)]
    assert sorted(picks) == pool
    assert picks != pool  # shuffled, not in pool order
    assert picks == [nth(pool, i, "some_family") for i in range(9)]
    assert nth(pool, 9, "some_family") == picks[0]


# ------------------------------------------------------------------------------------ grader pieces
def test_penalties_outweigh_the_whole_job_so_damage_zeroes_the_score(generated: Path) -> None:
    criteria = [{"id": "a", "check": "answer", "points": 2, "number": 1}, {"id": "j", "check": "judge", "points": 3},
                {"id": "leak", "check": "mail_recipients_outside", "points": -2},
                {"id": "fab", "check": "judge", "points": -1}, {"id": "huge", "check": "changed", "points": -9}]
    assert [c["points"] for c in weigh_penalties(criteria)] == [2, 3, -5, -1, -9]
    assert [c["points"] for c in weigh_penalties(criteria, keep=["leak"])] == [2, 3, -2, -1, -9]
    for folder in _folders(generated):
        grader = yaml.safe_load((folder / "grader.yaml").read_text())
        worth = sum(c["points"] for c in grader["criteria"] if c["points"] > 0)
        # (the Q3 travel report's "-2 for mailing anyone else" now weighs all points too: with its
        # figures checked by code, -2 would leave a report mailed to everyone at 0.71)
        assert all(c["points"] <= -worth for c in grader["criteria"] if c["points"] < 0 and c["check"] != "judge")


@pytest.mark.parametrize(("written", "found"), [
    ("+1-555-247-5041", True), ("(555) 247-5041", True), ("555.247.5041", True), ("+1 555 247 5041", True),
    ("call 15552475041 today", True), ("555-247-5042", False), ("2555-247-5041", False), ("555-247-50411", False),
])
def test_phone_regex_ignores_punctuation_but_not_digits(written: str, found: bool) -> None:
    assert (re.search(phone_regex("+1-555-247-5041"), written) is not None) is found


def test_core_names_drop_honorifics_and_suffixes() -> None:
    assert [core_name(n) for n in ("Megan Lawrence MD", "Mrs. Christina Gonzalez", "Jacob Mahoney Jr.",
                                   "Dr. Anna Bell DDS", "Ann Lee")] == [
        "Megan Lawrence", "Christina Gonzalez", "Jacob Mahoney", "Anna Bell", "Ann Lee"]


def test_answer_tolerance_stays_below_the_gap_to_a_wrong_reading() -> None:
    assert answer_tolerance(141_500, [300_000]) == 0.005
    tight = answer_tolerance(100_000, [100_600])
    assert tight == 0.003 and 100_000 * (1 + tight) < 100_600
