"""The delivery: group-aware split, byte-stable build, report contents, model mode."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from officesim.cli import main
from officesim.errors import OfficesimError
from officesim.pipeline.calibrate import CalibrationConfig
from officesim.pipeline.delivery import MANIFEST, DeliveryOptions, deliver
from officesim.pipeline.runner import AgentSpec, run
from officesim.pipeline.split import cut_groups, group_position, split_by_group, split_tasks
from officesim.task import find_tasks, load_task
from officesim.testing import Reply, ScriptedServer, serve, submit

FIXTURES = Path(__file__).parent / "fixtures" / "runner_tasks"
FAST = CalibrationConfig(oracle_seeds=2, regrade_attempts=1)


@given(st.dictionaries(st.text(min_size=1, max_size=6), st.sampled_from([f"g{i}" for i in range(12)]), max_size=40),
       st.floats(min_value=0, max_value=0.95), st.integers(0, 5))
@settings(max_examples=150, deadline=None)
def test_split_never_cuts_a_group_and_is_deterministic(groups: dict[str, str], fraction: float, seed: int) -> None:
    split = split_by_group(groups, fraction, seed)
    assert cut_groups(split, groups) == []
    assert sorted(split.train + split.heldout) == sorted(groups)
    assert split == split_by_group(dict(reversed(list(groups.items()))), fraction, seed)
    if fraction > 0 and len(set(groups.values())) >= 2:
        assert split.train and split.heldout


@pytest.mark.parametrize("fraction", [0.05, 0.1, 0.2, 0.3, 0.5])
def test_the_realised_share_stays_near_the_requested_one_and_covers_every_family(fraction: float) -> None:
    # 27 families of 2 to 6 groups of 2 to 7 tasks, like the shipped library (groups indivisible).
    groups, strata = {}, {}
    for family in range(27):
        for group in range(2 + family % 5):
            for task in range(2 + (family + group) % 6):
                groups[f"f{family}-g{group}-t{task}"] = f"f{family}/g{group}"
                strata[f"f{family}-g{group}-t{task}"] = f"f{family}"
    split = split_by_group(groups, fraction, 0, strata=strata)
    assert abs(split.realised - fraction) <= 0.03, split.realised
    held_families = {strata[t] for t in split.heldout}
    assert all(strata[t] in held_families for t in split.train) or split.uncovered  # uncovered ones say why
    assert len(held_families) + len(split.uncovered) == 27
    assert all(why.startswith("its smallest unit") for _, why in split.uncovered)
    assert {strata[t] for t in split.train} == set(strata.values())  # every family keeps training tasks
    assert split == split_by_group(dict(reversed(list(groups.items()))), fraction, 0, strata=strata)
    assert group_position("f3/g0", 0) == group_position("f3/g0", 0) != group_position("f3/g0", 1)


def test_the_budget_goes_first_to_uncovered_families_and_categories() -> None:
    # Family a has one big group and many small ones; family b two groups; category "rare" only in b/1.
    groups = {**{f"a{i}": f"a/{i % 6}" for i in range(30)}, "b1": "b/0", "b2": "b/0", "b3": "b/1", "b4": "b/1"}
    strata = {t: g.split("/")[0] for t, g in groups.items()}
    cover = {t: ("category:rare" if g == "b/1" else "category:common",) for t, g in groups.items()}
    split = split_by_group(groups, 0.2, 0, strata=strata, cover=cover)
    assert {"b3", "b4"} <= set(split.heldout)  # the one unit adding both a family and a category
    assert {strata[t] for t in split.heldout} == {"a", "b"} and split.uncovered == ()
    assert abs(split.realised - 0.2) <= 0.03
    single = split_by_group({"x1": "x", "x2": "x", "y1": "y", "y2": "y"}, 0.3, 0,
                            strata={"x1": "x", "x2": "x", "y1": "y", "y2": "y"})
    assert dict(single.uncovered).get("family:x", "").startswith("a single unit") or "x1" in single.heldout


@pytest.mark.slow
def test_the_readme_states_the_split_of_the_shipped_library() -> None:
    root = Path(__file__).parent.parent
    tasks = [load_task(p) for p in find_tasks([root / "tasks"])]
    split, _ = split_tasks(tasks, 0.2, 0)
    readme = " ".join((root / "README.md").read_text().split())
    assert (f"holds out {len(split.heldout)} of the library's {len(tasks)} tasks, {100 * split.realised:.1f}%"
            in readme)
    assert abs(split.realised - 0.2) <= 0.03
    # every family left without held-out tasks is one unit of near twins, not a victim of the budget
    assert all(why.startswith("a single unit") for _, why in split.uncovered), split.uncovered


def test_split_rejects_a_fraction_of_one() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        split_by_group({"a": "g"}, 1.0)


def _files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("delivery")
    result = deliver(DeliveryOptions(month="2026-05", tasks=FIXTURES, out=out / "a", work=out / "work-a", n=3,
                                     heldout=0.3, calibration=FAST, progress=False))
    return result.path


@pytest.mark.slow
def test_same_inputs_give_the_same_delivery(offline: Path, tmp_path: Path) -> None:
    again = deliver(DeliveryOptions(month="2026-05", tasks=FIXTURES, out=tmp_path, work=tmp_path / "work-a", n=3,
                                    heldout=0.3, calibration=FAST, workers=2, progress=False))
    assert (again.path / MANIFEST).read_bytes() == (offline / MANIFEST).read_bytes()
    assert _files(again.path) == _files(offline)


def test_offline_delivery_layout_manifest_and_split(offline: Path) -> None:
    manifest = json.loads((offline / MANIFEST).read_text())
    files = _files(offline)
    assert {k: v["sha256"] for k, v in manifest["files"].items()} == {k: v for k, v in files.items() if k != MANIFEST}
    train = {p.name for p in (offline / "tasks").iterdir()}
    heldout = {p.name for p in (offline / "heldout").iterdir()} if (offline / "heldout").exists() else set()
    assert train | heldout == {"who-is-ceo", "who-is-ceo-name", "who-is-hr-lead", "who-is-it-admin"}
    assert not train & heldout
    assert len({"who-is-ceo", "who-is-ceo-name"} & train) in (0, 2)  # one group, one side
    for folder in [*(offline / "tasks").iterdir()]:
        assert sorted(p.name for p in folder.iterdir()) == ["grader.yaml", "solution.yaml", "task.yaml", "tools.json"]
        tools = json.loads((folder / "tools.json").read_text())
        assert tools[-1]["function"]["name"] == "submit"
    assert manifest["baseline"] == {"agent": {"name": "random", "options": {}}, "n": 3, "model_used": False,
                                    "run": "work-a/random"}
    assert set(manifest["versions"]) >= {"officesim", "tools", "worlds", "tasks"}
    assert manifest["versions"]["tasks"]["who-is-ceo"]["grader"]
    assert (offline / "pass_rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert find_tasks([offline / "tasks"])  # the delivered folders load as tasks
    assert (offline / "worlds" / "tiny.yaml").is_file() and (offline / "tools.json").is_file()  # it travels


def test_offline_report_says_plainly_what_was_measured(offline: Path) -> None:
    report = (offline / "report.md").read_text()
    assert "**No model was used for this delivery.**" in report
    assert "the **random agent**'s (schema-valid random tool calls" in report
    assert "officesim deliver --agent openai --model MODEL" in report
    assert "## Baseline pass@1 (random agent, n = 3 per task)" in report
    assert "| passes-by-doing-nothing | remove | hackable | null passed" in report
    assert "| wrong-reference-answer | remove | unsolvable | the oracle failed on all 2 seed(s)" in report
    assert "`lookup/ceo` (2)" in report
    assert "| directory-lookup |" in report and "| hard |" in report
    assert "![spread of baseline pass@1 per task, by difficulty](pass_rates.png)" in report


class Model:
    """Right every time on the CEO's email, every other attempt on two tasks, never on the rest."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def __call__(self, body: dict[str, Any]) -> Reply:
        instruction = body["messages"][1]["content"]
        self.seen[instruction] = self.seen.get(instruction, 0) + 1
        odd = self.seen[instruction] % 2 == 1
        if "email address of our Chief Executive" in instruction:
            return submit("stephen.james@tinyco.test")
        if "full name of our Chief Executive" in instruction:
            return submit("Stephen James" if odd else "Steve")
        if "Head of People" in instruction:
            return submit("gabrielle.wright@tinyco.test" if odd else "hr@tinyco.test")
        return submit("no idea")


def test_with_a_model_run_keep_drop_inspect_apply(tmp_path: Path) -> None:
    with serve(ScriptedServer(Model())) as url:
        spec = AgentSpec("openai", {"model": "scripted", "base_url": url, "api_key": "k"})
        run(find_tasks([FIXTURES]), spec, 4, tmp_path / "model", progress=False)
    result = deliver(DeliveryOptions(month="2026-06", tasks=None, runs=tmp_path / "model", out=tmp_path,
                                     work=tmp_path / "work", calibration=FAST, heldout=0.0, progress=False))
    decisions = {t: v.decision for t, v in result.calibration.tasks.items()}
    assert decisions == {"who-is-ceo": "drop", "who-is-ceo-name": "keep", "who-is-hr-lead": "keep",
                         "who-is-it-admin": "inspect", "passes-by-doing-nothing": "remove",
                         "wrong-reference-answer": "remove"}
    assert result.train == ("who-is-ceo-name", "who-is-hr-lead") and result.heldout == ()
    report = (result.path / "report.md").read_text()
    assert "No model was used" not in report
    assert "baseline **openai (scripted)**, n = 4 attempts per task" in report
    assert "| who-is-ceo | drop | - | pass rate 1.00 >= 1.00: too easy" in report
    assert "| **overall** | 2 | 4 / 8 | 50.0% |" in report


def test_deliver_will_not_replace_a_folder_it_did_not_build(tmp_path: Path) -> None:
    (tmp_path / "delivery-2026-05").mkdir()
    (tmp_path / "delivery-2026-05" / "notes.txt").write_text("mine")
    options = DeliveryOptions(month="2026-05", tasks=FIXTURES / "who-is-ceo", out=tmp_path, work=tmp_path / "w",
                              n=1, calibration=CalibrationConfig(oracle_seeds=1, probes=()), progress=False)
    with pytest.raises(OfficesimError, match="is not a delivery"):
        deliver(options)
    assert (tmp_path / "delivery-2026-05" / "notes.txt").read_text() == "mine"


def test_cli_deliver_rejects_a_bad_month(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deliver", "--tasks", str(FIXTURES), "--month", "May"]) == 2
    assert "--month must look like 2026-05" in capsys.readouterr().err


def test_a_task_folder_that_does_not_load_is_removed_and_reported(tmp_path: Path) -> None:
    library = tmp_path / "library"
    shutil.copytree(FIXTURES / "who-is-ceo", library / "who-is-ceo")
    shutil.copytree(FIXTURES / "who-is-hr-lead", library / "broken-task")  # id no longer equals the folder
    result = deliver(DeliveryOptions(month="2026-05", tasks=library, out=tmp_path, work=tmp_path / "w", n=1,
                                     calibration=CalibrationConfig(oracle_seeds=1, probes=()), progress=False))
    assert result.train + result.heldout == ("who-is-ceo",)
    report = (result.path / "report.md").read_text()
    assert "| broken-task | remove | invalid | the task folder does not load:" in report
    assert json.loads((result.path / MANIFEST).read_text())["invalid"] == ["broken-task"]
