"""Task distributions: families on any world, the sampler, held-out pairs, env and adapters over it."""

from __future__ import annotations

import pickle
import random
import shutil
from pathlib import Path

import pytest
import yaml

from officesim.agents.scripted import OracleAgent
from officesim.cli import main
from officesim.env import OfficeEnv
from officesim.errors import OfficesimError
from officesim.pipeline.selftest import selftest
from officesim.pipeline.split import heldout_pairs, same_instruction_links, shared_instructions, split_tasks
from officesim.probes.gaps import is_known, known_gaps
from officesim.sampler import (
    FIRST_INDEX,
    HeldOut,
    SampleRef,
    TaskSampler,
    family_totals,
    instance_key,
    instance_stats,
    rebuild,
)
from officesim.task import find_tasks, load_task, load_task_files
from officesim.taskgen import FAMILIES, generate_all
from officesim.taskgen.base import Draft, Family, GenerationError, Solver, Stage, WorldLacks
from officesim.taskgen.writer import render_instance, world_choice

ROOT = Path(__file__).resolve().parent.parent
QUICK = ["share_doc_exact", "headcount_answer", "dm_answer_question"]


@pytest.fixture(scope="module")
def beta_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throwaway world of another company (acme's sizes, its own name, domain and seed)."""
    text = (ROOT / "worlds" / "acme.yaml").read_text(encoding="utf-8")
    text = (text.replace("name: acme", "name: beta").replace("company: Acme Analytics", "company: Beta Works")
            .replace("domain: acme.test", "domain: beta.test").replace("seed: 0", "seed: 5"))
    path = tmp_path_factory.mktemp("worlds") / "beta.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def play_oracle(env: OfficeEnv, seed: int) -> tuple[float, dict]:
    obs, info = env.reset(seed=seed)
    agent = OracleAgent(env.task)
    agent.reset(obs, seed=seed)
    while True:
        obs, reward, terminated, truncated, _ = env.step(agent.act(obs))
        if terminated or truncated:
            return reward, info


# ---------------------------------------------------------------------------- determinism and variety
def test_same_seed_same_bytes_and_different_seeds_differ() -> None:
    one = TaskSampler(QUICK, seed=3).sample(11)
    again = TaskSampler(QUICK, seed=99).sample(11)  # the stream seed does not matter to sample(s)
    assert one.files == again.files
    assert one.task.task_hash == again.task.task_hash
    assert one.task.start_snapshot() == again.task.start_snapshot()
    others = TaskSampler(QUICK).take(6)
    assert len({instance_key(d.files) for d in others}) == 6
    assert all(d.task.id.startswith(FAMILIES[d.family].slug + "-acme-i") for d in others)


def test_the_sample_seed_drives_the_family_rng() -> None:
    """Two seeds on the same family and world give other names or figures, not just another id."""
    sampler = TaskSampler(["headcount_answer"])
    a, b = sampler.sample(1), sampler.sample(2)
    assert a.ref.index != b.ref.index and a.ref.index >= FIRST_INDEX
    assert a.files["solution.yaml"] != b.files["solution.yaml"] or a.files["grader.yaml"] != b.files["grader.yaml"]
    assert instance_key(a.files) != instance_key(b.files)


def test_a_sampled_task_is_in_memory_and_its_reference_rebuilds_it() -> None:
    drawn = TaskSampler(["share_doc_exact"]).sample(5)
    assert not drawn.task.dir.exists()
    assert drawn.task.files is not None and drawn.task.solution is not None
    assert drawn.group == drawn.task.group and drawn.group.startswith("share_doc_exact/")
    again = rebuild(str(drawn.ref))
    assert again.files == drawn.files
    assert SampleRef.parse(str(drawn.ref)) == drawn.ref
    unpickled = pickle.loads(pickle.dumps(drawn.task))
    assert unpickled.task_hash == drawn.task.task_hash and unpickled.start_snapshot() == drawn.task.start_snapshot()
    with pytest.raises(OfficesimError, match="not a sample reference"):
        SampleRef.parse("tasks/share-doc-exact-001")


def test_world_seeds_vary_the_company_content() -> None:
    sampler = TaskSampler(["share_doc_exact"], world_seeds=[0, 1])
    labels = {sampler.sample(seed).world for seed in range(8)}
    assert labels == {"acme", "acme@1"}


def test_bad_configuration_is_a_clear_error() -> None:
    with pytest.raises(OfficesimError, match="no task family 'nope'"):
        TaskSampler(["nope"])
    with pytest.raises(OfficesimError, match="non-negative"):
        TaskSampler(QUICK, seed=-1)
    with pytest.raises(OfficesimError, match="a sample seed"):
        TaskSampler(QUICK).sample(-3)
    with pytest.raises(OfficesimError, match="nothing to draw"):
        TaskSampler(["share_doc_exact"], exclude=["share_doc_exact@*"])


# ---------------------------------------------------------------------------- families on any world
def test_a_family_renders_on_another_world_which_its_task_records(beta_spec: Path) -> None:
    world = world_choice(beta_spec)
    rendered = render_instance(FAMILIES["share_doc_exact"], 0, None, world, "share-doc-exact-beta-001")
    task = load_task_files(rendered.files)
    assert task.spec.world.spec == str(beta_spec.resolve()) and task.world_seed == 5
    assert "@beta.test" in rendered.files["solution.yaml"]  # the people are beta's, not acme's
    assert not any("acme.test" in text for text in rendered.files.values())
    acme = render_instance(FAMILIES["share_doc_exact"], 0, None)
    assert acme.files == {name: (ROOT / "tasks" / "share-doc-exact-001" / name).read_text(encoding="utf-8")
                          for name in acme.files}


class _NeedsLegal(Family):
    """Needs a role no shipped world has."""

    name = "needs_legal"
    category = "test"
    difficulty = "easy"
    apps = ("mail",)
    variants = ("only",)

    def requires(self, stage: Stage) -> str | None:
        if not stage.rows("SELECT id FROM directory_person WHERE role = 'general_counsel'"):
            return "no general counsel in the directory"
        return None

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        raise AssertionError("never built: requires said no")


class _LooksUpNothing(Family):
    """Assumes a row that is not there (``stage.one``)."""

    name = "looks_up_nothing"
    category = "test"
    difficulty = "easy"
    apps = ("mail",)
    variants = ("only",)

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        stage.one("SELECT * FROM directory_person WHERE role = ?", "chief_astronaut")

        def solve(solver: Solver) -> None:
            solver.submit(None)

        return Draft("x", ["mail_list_messages"], [], [], solve, "only")


class _Clashes(Family):
    """Plants a person the world already has (as a faker name collision would)."""

    name = "clashes"
    category = "test"
    difficulty = "easy"
    apps = ("mail",)
    variants = ("only",)

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        stage.clock("2026-10-05T09:00:00Z")
        stage.insert("directory_person", [stage.one("SELECT * FROM directory_person LIMIT 1")])
        raise AssertionError("the insert fails first")


@pytest.mark.parametrize(("family", "reason"), [
    (_NeedsLegal(), "no general counsel"), (_LooksUpNothing(), "the world has no row"),
    (_Clashes(), "planting clashes with this world"),
])
def test_a_family_the_world_lacks_something_for_is_skipped_with_the_reason(family: Family, reason: str,
                                                                           tmp_path: Path) -> None:
    with pytest.raises(WorldLacks, match=f"skipped for world acme: {reason}"):
        render_instance(family, 0, None)
    FAMILIES[family.name] = family
    try:
        sampler = TaskSampler([family.name, "share_doc_exact"])
        drawn = [sampler.sample(seed) for seed in range(4)]
        assert {d.family for d in drawn} == {"share_doc_exact"}
        assert reason in sampler.skipped[(family.name, "acme")]
        with pytest.raises(OfficesimError, match=reason):  # acme ids are fixtures: a skip there is an error
            generate_all(tmp_path, [family.name])
    finally:
        del FAMILIES[family.name]


class _OracleFailsOnOddIndices(Family):
    """A family bug: the reference answer is wrong on odd indices (the first probe, index 0, is fine)."""

    name = "odd_bug"
    category = "test"
    difficulty = "easy"
    apps = ("crm",)
    variants = ("only",)

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        stage.clock("2026-10-05T09:00:00Z")
        account = stage.one("SELECT id, name FROM crm_account ORDER BY id LIMIT 1")

        def solve(solver: Solver) -> None:
            solver.call("crm_get_account", account_id=account["id"])
            solver.submit("wrong" if index % 2 else account["name"])

        return Draft(f"What is the name of account {account['id']}?", ["crm_get_account"], [],
                     [{"id": "name", "check": "answer", "points": 1, "contains": [account["name"]]}], solve, "only")


def test_an_instance_that_fails_its_verification_is_drawn_again_and_reported() -> None:
    FAMILIES["odd_bug"] = _OracleFailsOnOddIndices()
    try:
        lenient = TaskSampler(["odd_bug"])
        with pytest.warns(RuntimeWarning, match="odd_bug: a drawn instance failed its verification"):
            drawn = [lenient.sample(seed) for seed in range(6)]
        assert all(d.ref.index % 2 == 0 for d in drawn)
        assert lenient.rejected and all(ref.index % 2 for ref, _ in lenient.rejected)
        assert all("does not pass" in reason for _, reason in lenient.rejected)
        odd_seed = next(s for s in range(50) if TaskSampler(["odd_bug"]).locate(s)[0].index % 2)
        with pytest.raises(GenerationError, match="does not pass"):
            TaskSampler(["odd_bug"], strict=True).sample(odd_seed)
    finally:
        del FAMILIES["odd_bug"]


# ---------------------------------------------------------------------------- held-out pairs
def test_held_out_pairs_are_never_drawn(beta_spec: Path) -> None:
    held = HeldOut.parse(["share_doc_exact/fresh@acme", "*@beta", ("headcount_answer", "*")])
    assert held.covers("share_doc_exact/fresh", "acme") and not held.covers("share_doc_exact/fresh", "tiny")
    assert held.covers("dm_answer_question/x", "beta") and held.covers("headcount_answer/y", "acme@2")
    sampler = TaskSampler(QUICK, ["acme", str(beta_spec)], exclude=held)
    drawn = sampler.take(12)
    assert drawn and not any(held.covers(d.group, d.world) for d in drawn)
    assert {d.world for d in drawn} == {"acme"} and "headcount_answer" not in {d.family for d in drawn}
    with pytest.raises(OfficesimError, match="GROUP@WORLD"):
        HeldOut.parse(["@acme"])


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, beta_spec: Path) -> tuple[Path, list[Path], list[str]]:
    """share_doc_exact generated on acme, tiny and beta: (folder, task folders, progress lines)."""
    out = tmp_path_factory.mktemp("lib")
    lines: list[str] = []
    written = generate_all(out, ["share_doc_exact"], progress=lines.append, worlds=["acme", "tiny", str(beta_spec)])
    return out, written, lines


def test_a_library_spans_worlds_and_splits_by_world(library: tuple[Path, list[Path], list[str]]) -> None:
    out, written, lines = library
    names = sorted(p.name for p in written)
    assert names[:14] == [f"share-doc-exact-{i:03d}" for i in range(1, 15)]
    per_world = FAMILIES["share_doc_exact"].count_per_world
    assert [n for n in names if "-beta-" in n] == [f"share-doc-exact-beta-{i:03d}" for i in range(1, per_world + 1)]
    assert [n for n in names if "-tiny-" in n] == [f"share-doc-exact-tiny-{i:03d}" for i in range(1, per_world + 1)]
    for name in ("task.yaml", "grader.yaml", "solution.yaml", "tools.pin"):  # acme ids unchanged, byte for byte
        assert (out / "share-doc-exact-007" / name).read_bytes() == \
            (ROOT / "tasks" / "share-doc-exact-007" / name).read_bytes()
    assert lines == ["share_doc_exact: 14 tasks on acme", f"share_doc_exact: {per_world} tasks on tiny",
                     f"share_doc_exact: {per_world} tasks on beta"]
    tasks = [load_task(p) for p in written]
    split, _ = split_tasks(tasks, 0.2, by="world")
    held_worlds = set(split.heldout_worlds)
    assert len(held_worlds) == 1 and held_worlds < {"acme", "tiny", "beta"}
    assert all(("-" + next(iter(held_worlds)) + "-" in t) or (held_worlds == {"acme"} and "-beta-" not in t
                                                                  and "-tiny-" not in t) for t in split.heldout)
    assert not set(split.heldout) & set(split.train)
    pairs = heldout_pairs(split, tasks)
    assert f"*@{next(iter(held_worlds))}" in pairs
    chosen, _ = split_tasks(tasks, 0.2, by="world", worlds=["tiny"])
    assert sorted(chosen.heldout) == [f"share-doc-exact-tiny-{i:03d}" for i in range(1, per_world + 1)]
    both, _ = split_tasks(tasks, 0.3, by="both", worlds=["tiny"])
    train_groups = {t.group for t in tasks if t.id in set(both.train)}
    held_groups_off_tiny = {t.group for t in tasks if t.id in set(both.heldout) and "-tiny-" not in t.id}
    assert not train_groups & held_groups_off_tiny
    with pytest.raises(ValueError, match="every world"):
        split_tasks(tasks, 0.2, by="world", worlds=["acme", "tiny", "beta"])


def test_split_make_writes_the_held_out_pairs_a_sampler_excludes(
        library: tuple[Path, list[Path], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _, _ = library
    pairs = tmp_path / "pairs.txt"
    assert main(["split", "make", str(out), "--by", "world", "--world", "acme", "--pairs", str(pairs)]) == 0
    printed = capsys.readouterr().out
    assert "by world" in printed and "held-out worlds: acme" in printed
    lines = pairs.read_text(encoding="utf-8").splitlines()
    assert "*@acme" in lines and all(line.endswith("@acme") for line in lines)
    sample_dir = tmp_path / "drawn"
    assert main(["tasks", "sample", "share_doc_exact", "--world", "acme", "--exclude-file", str(pairs),
                 "-o", str(sample_dir)]) == 2  # acme is held out: nothing left to draw there
    assert "nothing to draw" in capsys.readouterr().err
    assert main(["split", "make", str(out), "--world", "acme"]) == 2
    assert "--by world" in capsys.readouterr().err


def _with_instruction(folder: Path, text: str) -> None:
    """Give a copied task folder another instruction (the rest of the task unchanged)."""
    task_yaml = folder / "task.yaml"
    data = yaml.safe_load(task_yaml.read_text(encoding="utf-8"))
    data["instruction"] = text
    task_yaml.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_no_instruction_text_is_on_both_sides_of_a_split(
        library: tuple[Path, list[Path], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 15 item 6: a text the held-out side has, word for word, is never in training (by world and by
    group, even for an instruction too short for the near-twin shingles), and ``split audit`` says so."""
    out, _, _ = library
    copy = tmp_path / "lib"
    shutil.copytree(out, copy)
    _with_instruction(copy / "share-doc-exact-tiny-001", "Share my plan with the CEO, please.")
    _with_instruction(copy / "share-doc-exact-004", "share my plan with  the CEO, please.")  # another group, on acme
    _with_instruction(copy / "share-doc-exact-tiny-002", "Sharing?")
    _with_instruction(copy / "share-doc-exact-beta-001", "Sharing?")
    tasks = [load_task(p) for p in find_tasks([copy])]
    assert len(same_instruction_links(tasks)) == 2
    by_world, _ = split_tasks(tasks, 0.2, by="world", worlds=["tiny"])
    assert set(by_world.moved_for_text) == {"share-doc-exact-004", "share-doc-exact-beta-001"}
    assert {"share-doc-exact-tiny-001", *by_world.moved_for_text} <= set(by_world.heldout)
    assert shared_instructions(by_world, tasks) == {}
    both, _ = split_tasks(tasks, 0.3, by="both", worlds=["tiny"])
    assert shared_instructions(both, tasks) == {}
    for seed in range(6):
        by_group, _ = split_tasks(tasks, 0.4, seed)
        assert shared_instructions(by_group, tasks) == {}, seed
        sides = {by_group.side(t) for t in ("share-doc-exact-tiny-002", "share-doc-exact-beta-001")}
        assert len(sides) == 1
    assert main(["split", "make", str(copy), "--by", "world", "--world", "tiny"]) == 0
    printed = capsys.readouterr().out
    assert "moved to held out: 2 training task(s)" in printed and "instruction texts on both sides: 0" in printed
    # a delivery whose sides share a text fails its audit, with the tasks named
    delivery = tmp_path / "delivery"
    (delivery / "tasks").mkdir(parents=True)
    (delivery / "heldout").mkdir()
    shutil.copytree(copy / "share-doc-exact-tiny-002", delivery / "tasks" / "share-doc-exact-tiny-002")
    shutil.copytree(copy / "share-doc-exact-beta-001", delivery / "heldout" / "share-doc-exact-beta-001")
    assert main(["split", "audit", str(delivery)]) == 1
    printed = capsys.readouterr().out
    assert ("the same instruction on both sides: share-doc-exact-tiny-002 (tasks) / share-doc-exact-beta-001 "
            "(heldout)") in printed and "1 instruction text(s) straddle" in printed


# ---------------------------------------------------------------------------- self-tests on sampled tasks
def _unexplained_failures(drawn) -> list[str]:
    report = selftest(drawn.task)
    gaps = known_gaps()
    failures = list(report.problems)
    failures += [run.reason for run in report.runs if not run.ok and not is_known(run, drawn.family, gaps)]
    oracle = [run for run in report.runs if run.kind == "oracle"]
    assert oracle and all(run.ok and run.score == 1.0 for run in oracle), oracle
    assert any(run.agent == "null" and run.ok for run in report.runs)
    return failures


def test_sampled_instances_pass_their_self_tests() -> None:
    for drawn in TaskSampler(QUICK, seed=1, strict=True).take(3):
        assert _unexplained_failures(drawn) == [], drawn.task.id


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_samples_instances_that_pass_their_self_tests(family: str) -> None:
    drawn = TaskSampler([family], seed=7, strict=True).sample(7)
    assert _unexplained_failures(drawn) == [], drawn.task.id


# ---------------------------------------------------------------------------- env and adapters
def test_office_env_over_a_sampler_draws_the_instance_of_the_seed() -> None:
    sampler = TaskSampler(QUICK)
    env = OfficeEnv(sampler)
    assert env.task is None
    reward, info = play_oracle(env, 21)
    assert reward == 1.0 and info["sample"]["seed"] == 21
    first = env.task.id
    assert info["task_id"] == first == sampler.sample(21).task.id
    env.reset(seed=22)
    assert env.task.id == sampler.sample(22).task.id
    env.reset(seed=21)
    assert env.task.id == first
    env.reset()
    env.reset()
    assert env.sampled.seed == sampler.seed_of(1)


@pytest.mark.slow
def test_two_hundred_sampled_episodes_with_the_reference_agent_score_one() -> None:
    sampler = TaskSampler(worlds=["acme", "tiny"], seed=200, strict=True)
    env = OfficeEnv(sampler)
    families, worlds = set(), set()
    for seed in range(200):
        reward, info = play_oracle(env, seed)
        assert reward == 1.0, (seed, env.task.id, env.grade.summary() if env.grade else None)
        families.add(info["sample"]["family"])
        worlds.add(info["sample"]["world"])
    assert len(families) >= 20 and worlds == {"acme", "tiny"}
    assert {family for family, world in sampler.skipped if world == "acme"} == set()  # every family runs on acme


def test_gymnasium_env_over_a_sampler() -> None:
    import json

    from officesim.integrations.gymnasium import OfficeGymEnv

    gym_env = OfficeGymEnv(TaskSampler(QUICK))
    obs, info = gym_env.reset(seed=4)
    assert json.loads(obs)["instruction"] == TaskSampler(QUICK).sample(4).task.instruction
    assert info["sample"]["seed"] == 4
    agent = OracleAgent(gym_env.task)
    agent.reset(json.loads(obs), seed=4)
    while True:
        obs, reward, terminated, truncated, _ = gym_env.step(json.dumps(agent.act(json.loads(obs))))
        if terminated or truncated:
            break
    assert reward == 1.0
    gym_env.reset(seed=None)  # after the seeded reset: drawn with np_random, so the same next task
    other = OfficeGymEnv(TaskSampler(QUICK))
    other.reset(seed=4)
    other.reset()
    assert other.task.id == gym_env.task.id != TaskSampler(QUICK).sample(4).task.id
    clone = pickle.loads(pickle.dumps(gym_env))
    assert clone.reset(seed=4)[0] == gym_env.reset(seed=4)[0]
    with pytest.raises(OfficesimError, match="over a sampler"):
        gym_env.reset(options={"task": "x"})
    from gymnasium.utils.env_checker import check_env

    check_env(OfficeGymEnv(TaskSampler(QUICK)), skip_render_check=True)  # seeding: same seed, same observation


def test_dataset_records_of_a_sampler_are_scored_from_their_reference() -> None:
    from officesim.integrations.dataset import TranscriptScorer, task_records

    sampler = TaskSampler(QUICK, seed=2)
    records = task_records(sampler, draws=2)
    assert [r["task_id"] for r in records] == [d.task.id for d in sampler.take(2)]
    assert all(r["task_dir"].startswith("officesim-sample:") for r in records)
    env = OfficeEnv(sampler.take(1)[0].task)
    play_oracle(env, 0)
    scorer = TranscriptScorer()
    assert scorer.score(records[0]["task_dir"], env.transcript) == 1.0
    assert scorer.score(records[0]["task_dir"], env.transcript[:1]) < 1.0
    with pytest.raises(OfficesimError, match="draws"):
        task_records(sampler)
    with pytest.raises(OfficesimError, match="not split"):
        task_records(sampler, draws=1, split="train")


# ---------------------------------------------------------------------------- CLI
def test_tasks_sample_writes_one_valid_instance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "sample", "share_doc_exact", "--seed", "3", "-o", str(tmp_path / "a")]) == 0
    assert main(["tasks", "sample", "share-doc-exact", "--seed", "3", "-o", str(tmp_path / "b")]) == 0
    (folder,) = (tmp_path / "a").iterdir()
    assert folder.name == TaskSampler(["share_doc_exact"]).sample(3).task.id
    for name in ("task.yaml", "grader.yaml", "solution.yaml", "tools.pin"):
        assert (folder / name).read_bytes() == (tmp_path / "b" / folder.name / name).read_bytes()
    assert load_task(folder).id == folder.name
    assert main(["tasks", "validate", str(folder)]) == 0
    capsys.readouterr()
    assert main(["tasks", "sample", "nope"]) == 2
    assert "no task family 'nope'" in capsys.readouterr().err
    assert main(["tasks", "sample"]) == 2
    assert "name a family" in capsys.readouterr().err


def test_instance_stats_count_distinct_instances(capsys: pytest.CaptureFixture[str]) -> None:
    (row,) = instance_stats(["headcount_answer"], draws=4)
    assert row["family"] == "headcount_answer" and row["draws"] == 4
    assert 1 <= row["distinct"] <= 4 and row["distinct_solutions"] <= row["distinct"]
    expected = ">= ~6" if row["repeats"] == 0 else f"~{6 / row['repeats']:,.0f}"  # 4 draws: 6 pairs
    assert row["estimate"] == expected and row["solution_estimate"].startswith((">= ~", "~"))
    assert row["cpu_seconds_per_draw"] > 0 and 0 < row["seconds_per_draw"] < 5  # the cost of one draw is measured
    assert main(["tasks", "sample", "headcount_answer", "--stats", "--draws", "3"]) == 0
    out = capsys.readouterr().out
    assert "distinct instances" in out and "headcount_answer" in out and "s/draw" in out


def test_family_totals_add_up_the_worlds() -> None:
    rows = [{"family": "f", "world": "acme", "draws": 4, "distinct": 4, "estimate": ">= ~6", "seconds_per_draw": 0.5},
            {"family": "f", "world": "tiny", "draws": 4, "distinct": 3, "estimate": "~1,200", "seconds_per_draw": 0.1},
            {"family": "g", "world": "tiny", "draws": 0, "distinct": 0, "estimate": "skipped", "skipped": "no cfo"}]
    (total,) = family_totals(rows)
    assert total == {"family": "f", "worlds": 2, "draws": 8, "distinct": 7, "estimate": ">= ~1,206",
                     "seconds_per_draw": 0.3}
