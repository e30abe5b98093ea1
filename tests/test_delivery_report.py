"""The delivery's claims, checked: counts that agree, judge status, soundness, coverage, twins, uplift."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from officesim.cli import main
from officesim.errors import OfficesimError
from officesim.grading.judge import JudgeConfig
from officesim.pipeline.calibrate import CalibrationConfig
from officesim.pipeline.compare import compare_runs, newcombe_interval, paired_bootstrap
from officesim.pipeline.delivery import MANIFEST, DeliveryOptions, deliver
from officesim.pipeline.metrics import summarize
from officesim.pipeline.runner import AgentSpec, run
from officesim.pipeline.split import split_by_group
from officesim.pipeline.twins import content_of, find_twins
from officesim.task import find_tasks, load_task
from officesim.testing import ScriptedServer, Text, serve

FIXTURES = Path(__file__).parent / "fixtures" / "runner_tasks"
FAST = CalibrationConfig(oracle_seeds=2, regrade_attempts=1)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """An offline delivery built through the CLI, with its stdout and the runs it used."""
    out = tmp_path_factory.mktemp("report")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["deliver", "--tasks", str(FIXTURES), "--out", str(out), "--work", str(out / "work"),
                     "--month", "2026-07", "--n", "3", "--heldout", "0.3", "--oracle-seeds", "2", "--workers", "1",
                     "--quiet"])
    assert code == 0
    return out / "delivery-2026-07", buffer.getvalue(), out / "work"


def test_counts_agree_between_stdout_report_and_manifest(built: tuple[Path, str, Path]) -> None:
    folder, stdout, _ = built
    counts = json.loads((folder / MANIFEST).read_text())["counts"]
    report = (folder / "report.md").read_text()
    said = re.search(r"(\d+) tasks delivered \((\d+) training \+ (\d+) held-out\) of (\d+) considered; (\d+) removed "
                     r"\((\d+) unsound, (\d+) invalid\), (\d+) dropped, (\d+) set aside", stdout)
    assert said, stdout
    keys = ["delivered", "train", "heldout", "considered", "removed", "remove", "invalid", "drop", "inspect"]
    assert dict(zip(keys, map(int, said.groups()), strict=True)) == {k: counts[k] for k in keys}
    assert (f"{counts['delivered']} tasks delivered: {counts['train']} for training in `tasks/`, "
            f"{counts['heldout']} held out in `heldout/`; {counts['considered']} task folders") in report
    assert f"{counts['removed']} removed ({counts['remove']} unsound, {counts['invalid']} invalid" in report
    listed = re.findall(r"^\| [\w-]+ \| remove \|", report, re.MULTILINE)
    assert len(listed) == counts["removed"] == 2  # the stdout count and the rows listed are the same
    assert counts["delivered"] == len(list((folder / "tasks").iterdir())) + len(list((folder / "heldout").iterdir()))


def test_report_states_oracle_and_probe_results_per_family(built: tuple[Path, str, Path]) -> None:
    folder, _, work = built
    report = (folder / "report.md").read_text()
    oracle = [json.loads(line) for line in (work / "oracle" / "results.jsonl").read_text().splitlines()]
    passed = sum(r["passed"] for r in oracle)
    assert f"The reference solution passed **{passed} of {len(oracle)}** oracle attempts" in report
    assert "| runner_lookup | 5 | 8 of 10 | 70 | 0 | 0.00 by every probe on every task | 0 |" in report
    # the null agent passes the planted task: the highest probe score is 1.00, and names who and where
    assert "1.00 (`null`, `passes-by-doing-nothing`)" in report
    assert "| baseline pass@1, scores, plots | `random` (random agent) | `work/random` |" in report


def test_report_says_the_judge_was_not_configured_and_what_it_does(built: tuple[Path, str, Path]) -> None:
    folder, _, _ = built
    report = (folder / "report.md").read_text()
    manifest = json.loads((folder / MANIFEST).read_text())
    assert "Judge: **none configured** for this build" in report
    assert manifest["judge"]["configured"] is None
    judged = manifest["judge"]
    assert f"have {judged['criteria']} judge check(s)" in report
    assert "an unjudged or errored check counts neither way" in report or judged["verdicts"]["unjudged"] == 0


def test_coverage_warns_for_empty_cells_and_intervals_are_not_points(built: tuple[Path, str, Path]) -> None:
    folder, _, _ = built
    report = (folder / "report.md").read_text()
    manifest = json.loads((folder / MANIFEST).read_text())
    for attribute in ("category", "family", "world"):
        empty = manifest["coverage"][attribute]["empty"]
        if empty:
            assert f"have no held-out task**: {', '.join(f'`{v}`' for v in empty)}" in report
        else:
            assert f"{attribute} value(s) has held-out tasks" in report
    # every random attempt fails: a bootstrap would say [0.0%, 0.0%]; the Wilson interval does not
    assert "0.0% - 0.0%" not in report
    assert "Wilson on" in report
    assert (folder / "dataset_card.md").read_text().startswith("# Dataset card: officesim delivery-2026-07")
    for png in ("pass_rate_per_category.png", "score_per_family.png", "difficulty.png", "calibration_per_family.png"):
        assert (folder / png).read_bytes()[:4] == b"\x89PNG" and png in manifest["files"]


def test_a_degenerate_group_reports_the_pooled_wilson_interval() -> None:
    records = [{"task": t, "attempt": a, "passed": False, "score": 0.0, "status": "ok", "category": "c"}
               for t in ("a", "b") for a in range(2)]
    group = summarize(records, ks=(1,)).categories["c"]
    assert group.pass1 == 0.0 and group.pass1_ci[0] == 0.0 and group.pass1_ci[1] > 0.4
    assert group.pass1_ci_method == "Wilson on 4 pooled attempts"


def test_deliver_again_keeps_files_a_user_added(built: tuple[Path, str, Path], tmp_path: Path) -> None:
    _, _, work = built
    target = tmp_path / "out"
    options = DeliveryOptions(month="2026-07", tasks=FIXTURES, out=target, work=work, n=3, heldout=0.3,
                              calibration=FAST, progress=False)
    deliver(options)
    notes = target / "delivery-2026-07" / "notes.txt"
    notes.write_text("my review notes")
    with pytest.raises(OfficesimError, match=r"holds 1 file\(s\) officesim did not write .*notes.txt.*--force"):
        deliver(options)
    assert notes.read_text() == "my review notes"  # nothing lost
    report = target / "delivery-2026-07" / "report.md"
    report.write_text("edited by hand")
    with pytest.raises(OfficesimError, match=r"report\.md"):
        deliver(options)
    assert report.read_text() == "edited by hand"
    deliver(replace(options, force=True))
    assert not notes.exists()


def test_missing_folders_are_named_as_missing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["deliver", "--runs", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "the folder does not exist" in err and "no task library" not in err
    assert main(["calibrate", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "the run folder does not exist" in err and "run.json" not in err


def test_twins_by_content_join_groups_and_the_split_keeps_them_together() -> None:
    # the generator put these two in different groups, with the same instruction word for word
    library = Path(__file__).parent.parent / "tasks"
    twins = [load_task(library / "deal-handoff-004"), load_task(library / "deal-handoff-008")]
    other = load_task(library / "budget-variance-answer-001")
    assert twins[0].group != twins[1].group
    pairs = find_twins([content_of(t) for t in [*twins, other]])
    assert [(p.a, p.b) for p in pairs] == [("deal-handoff-004", "deal-handoff-008")]
    assert pairs[0].instruction == 1.0 and "ch_5" in pairs[0].shared  # the same #sales thread, the same deals
    # two groups whose tasks are twins by content move as one unit
    groups = {"a1": "g1", "a2": "g2", "b1": "g3", "b2": "g4"}
    strata = {"a1": "fa", "a2": "fa", "b1": "fb", "b2": "fb"}
    split = split_by_group(groups, 0.5, 0, strata=strata, links=[("a1", "a2")])
    assert ("g1", "g2") in split.units
    assert ({"a1", "a2"} <= set(split.train)) or ({"a1", "a2"} <= set(split.heldout))
    assert {"b1", "b2"} & set(split.heldout) and {"b1", "b2"} & set(split.train)  # family fb covered both sides


def test_split_audit_finds_twins_straddling_a_split(built: tuple[Path, str, Path], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder, _, _ = built
    assert main(["split", "audit", str(folder)]) == 0
    assert ("0 near-twin pair(s), 0 group(s) and 0 instruction text(s) straddle the split: the split holds"
            in capsys.readouterr().out)
    leaky = tmp_path / "leaky"
    shutil.copytree(folder, leaky)
    (leaky / "heldout").mkdir(exist_ok=True)
    train = {p.name for p in (leaky / "tasks").iterdir()}
    if "who-is-ceo" in train:
        shutil.move(leaky / "tasks" / "who-is-ceo", leaky / "heldout" / "who-is-ceo")
    else:
        shutil.move(leaky / "heldout" / "who-is-ceo", leaky / "tasks" / "who-is-ceo")
    assert main(["split", "audit", str(leaky)]) == 1
    out = capsys.readouterr().out
    assert "groups cut by the split: lookup/ceo" in out and ", 1 group(s) and" in out


def test_compare_pairs_by_task_with_intervals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folders = find_tasks([FIXTURES])
    run(folders, AgentSpec("null"), 2, tmp_path / "before", progress=False)
    run(folders, AgentSpec("oracle"), 2, tmp_path / "after", progress=False)
    comparison = compare_runs(tmp_path / "before", tmp_path / "after")
    overall = comparison.overall
    assert overall.tasks == len(folders)
    assert overall.delta["pass@1"] == pytest.approx(overall.after["pass@1"] - overall.before["pass@1"])
    assert overall.ci["pass@1"][0] <= overall.delta["pass@1"] <= overall.ci["pass@1"][1]
    assert compare_runs(tmp_path / "before", tmp_path / "after").to_dict() == comparison.to_dict()  # seeded
    assert main(["compare", str(tmp_path / "before"), str(tmp_path / "after"), "--out", str(tmp_path / "u")]) == 0
    out = capsys.readouterr().out
    assert "uplift: oracle" in out and "overall" in out and "pass^2" in out
    assert (tmp_path / "u" / "uplift.png").read_bytes()[:4] == b"\x89PNG"
    assert "## Uplift (all tasks)" in (tmp_path / "u" / "uplift.md").read_text()
    assert paired_bootstrap([0.5, 0.5]) == ((0.5, 0.5), True)  # every task moved the same: said, not hidden
    # ... and pass@1 then gets Newcombe's interval from the pooled attempts, not a point
    low, high = newcombe_interval(0, 80, 80, 80)
    assert 0.93 < low < 0.94 and high == 1.0
    if overall.degenerate["pass@1"]:
        assert overall.ci["pass@1"][0] < overall.delta["pass@1"] or overall.delta["pass@1"] == 0


def test_deliver_uplift_puts_the_section_in_the_report(tmp_path: Path) -> None:
    folders = find_tasks([FIXTURES])
    run(folders, AgentSpec("null"), 1, tmp_path / "before", progress=False)
    run(folders, AgentSpec("oracle"), 1, tmp_path / "after", progress=False)
    result = deliver(DeliveryOptions(month="2026-08", tasks=FIXTURES, out=tmp_path, work=tmp_path / "work", n=2,
                                     heldout=0.3, calibration=FAST, progress=False,
                                     uplift=(tmp_path / "before", tmp_path / "after")))
    report = (result.path / "report.md").read_text()
    assert "## Uplift (heldout tasks)" in report and "![change in pass@1 per category](uplift.png)" in report
    assert "uplift.png" in result.manifest["files"]


def test_an_oracle_run_as_baseline_is_called_the_oracles(tmp_path: Path) -> None:
    run(find_tasks([FIXTURES]), AgentSpec("oracle"), 2, tmp_path / "oracle-run", progress=False)
    result = deliver(DeliveryOptions(month="2026-10", tasks=None, runs=tmp_path / "oracle-run", out=tmp_path,
                                     work=tmp_path / "work", calibration=FAST, heldout=0.3, progress=False))
    report = (result.path / "report.md").read_text()
    assert "The pass@1 figures below are the **oracle agent**'s (the reference solution played back" in report
    assert "random agent" not in report
    assert f"`oracle` (oracle agent) | `{(tmp_path / 'oracle-run').as_posix()}` |" in report


def test_a_judged_build_names_the_judge_and_counts_its_verdicts(tmp_path: Path) -> None:
    library = tmp_path / "library"
    judged = Path(__file__).parent / "fixtures" / "tasks" / "budget-sheet-judged"
    shutil.copytree(judged, library / judged.name)
    verdict = Text('{"verdict": "pass", "reason": "Every figure matches."}')
    with serve(ScriptedServer(default=verdict)) as url:
        judge = JudgeConfig(model="judge-test", base_url=url, api_key="k", cache_dir=tmp_path / "cache")
        result = deliver(DeliveryOptions(month="2026-11", tasks=library, out=tmp_path, work=tmp_path / "work", n=1,
                                         calibration=CalibrationConfig(oracle_seeds=2, probes=("null",)),
                                         env_options={"judge": judge}, progress=False))
    report = (result.path / "report.md").read_text()
    manifest = result.manifest["judge"]
    assert manifest["configured"]["model"] == "judge-test" and manifest["configured"]["base_url"] == url
    assert f"Judge: model `judge-test` at `{url}`" in report
    assert manifest["verdicts"]["pass"] >= 2 and manifest["verdicts"]["unjudged"] == 0
    assert manifest["cached"] >= 1  # the second oracle seed's identical evidence is a cache hit
    assert "| budget-sheet-judged |" in report and "| judged |" in report


@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=4), st.tuples(st.sampled_from("xyz"), st.integers(0, 5)),
                       max_size=40),
       st.lists(st.tuples(st.text("abcdef", min_size=1, max_size=4), st.text("abcdef", min_size=1, max_size=4)),
                max_size=6),
       st.floats(min_value=0.05, max_value=0.9), st.integers(0, 3))
@settings(max_examples=150, deadline=None)
def test_a_stratified_split_covers_every_family_it_can_and_never_cuts_a_link(
        tasks: dict[str, tuple[str, int]], links: list[tuple[str, str]], fraction: float, seed: int) -> None:
    groups = {t: f"{family}/{g}" for t, (family, g) in tasks.items()}
    strata = {t: family for t, (family, _) in tasks.items()}
    split = split_by_group(groups, fraction, seed, strata=strata, links=links)
    assert sorted(split.train + split.heldout) == sorted(tasks)
    for a, b in links:
        if a in tasks and b in tasks:
            assert split.side(a) == split.side(b)
    assert split == split_by_group(dict(reversed(list(groups.items()))), fraction, seed, strata=strata, links=links)
    units = {g for unit in split.units for g in unit}
    uncovered = dict(split.uncovered)
    for family in set(strata.values()):
        members = {groups[t] for t in tasks if strata[t] == family}
        sides = {split.side(t) for t in tasks if strata[t] == family}
        if len(members) >= 2 and not members & units:  # two units or more (no link joined them): one trains
            assert "train" in sides, family
        assert ("heldout" in sides) != (f"family:{family}" in uncovered), family  # uncovered says why
    unit_of = {g: unit[0] for unit in split.units for g in unit}
    sizes = Counter(unit_of.get(g, g) for g in groups.values())
    if tasks and fraction <= 0.5:  # off the budget by at most the tolerance or one unit (groups are indivisible;
        # above one half, each family keeping a unit in training can hold the side below the request)
        assert abs(len(split.heldout) - fraction * len(tasks)) <= max(0.03 * len(tasks), max(sizes.values()))
