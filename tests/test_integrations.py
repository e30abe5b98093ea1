"""Training-framework adapters: the Gymnasium env, task records, and transcript rewards."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.env import play
from officesim.errors import OfficesimError, SpecError
from officesim.integrations.dataset import TranscriptScorer, score_transcript, task_records
from officesim.task import Task

FIXTURES = Path(__file__).parent / "fixtures" / "tasks"
RUNNER_TASKS = Path(__file__).parent / "fixtures" / "runner_tasks"
RECORD_KEYS = {"task_id", "task_dir", "prompt", "tools", "max_steps", "group", "category", "difficulty", "family"}


@pytest.fixture(scope="module")
def gym() -> Any:
    """The adapter module (skipped where Gymnasium is not installed; CI installs it with the dev extra)."""
    return pytest.importorskip("officesim.integrations.gymnasium")


@pytest.fixture(scope="module")
def budget() -> Task:
    return load_task(FIXTURES / "budget-summary-to-cfo")


@pytest.fixture(scope="module")
def lookup() -> Task:
    return load_task(FIXTURES / "lookup-cfo-email")


def oracle_actions(task: Task) -> list[dict[str, Any]]:
    """The oracle agent's actions for ``task``, in order (it reads no observation)."""
    agent = OracleAgent(task)
    agent.reset({}, seed=0)
    actions = []
    while not actions or actions[-1]["name"] != "submit":
        actions.append(agent.act({}))
    return actions


def oracle_transcript(task: Task) -> list[dict[str, Any]]:
    env = OfficeEnv(task)
    assert play(env, OracleAgent(task)).score == 1.0
    return env.transcript


# ----------------------------------------------------------------------------- Gymnasium
def test_check_env_passes_without_a_warning(gym: Any, lookup: Task) -> None:
    from gymnasium.utils.env_checker import check_env

    for env in (gym.OfficeGymEnv(lookup), gym.OfficeGymEnv(FIXTURES)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # Gymnasium reports soft failures as warnings
            check_env(env, skip_render_check=True)
        env.close()


def test_oracle_actions_as_json_text_end_with_reward_one(gym: Any, budget: Task) -> None:
    env = gym.OfficeGymEnv(budget)
    obs, info = env.reset(seed=7)
    assert obs in env.observation_space and json.loads(obs)["instruction"] == budget.instruction
    assert info["task_id"] == budget.id and info["seed"] == 7
    actions = oracle_actions(budget)
    for index, action in enumerate(actions):
        obs, reward, terminated, truncated, info = env.step(json.dumps(action))
        assert obs in env.observation_space and not truncated
        result = json.loads(obs)["result"]
        assert "error" not in result, result
        if index < len(actions) - 1:
            assert (reward, terminated) == (0.0, False)
    assert terminated and reward == 1.0 and isinstance(reward, float)
    assert info["grade"].passed and env.env.world is not None
    assert env.env.world.db.execute("SELECT COUNT(*) FROM mail_message WHERE subject = 'Q3 budget summary'"
                                    ).fetchone()[0] == 1
    # A binary reward for one episode, through reset options.
    env.reset(seed=7, options={"reward": "binary"})
    for action in actions:
        *_, info = step = env.step(json.dumps(action))
    assert step[1] == 1.0 and info["grade"].score == 1.0
    env.close()


def test_reset_seed_picks_the_same_task_from_a_list(gym: Any) -> None:
    first, second = gym.OfficeGymEnv(FIXTURES), gym.OfficeGymEnv(FIXTURES)
    picks = [first.reset(seed=seed)[1]["task_id"] for seed in range(12)]
    assert picks == [second.reset(seed=seed)[1]["task_id"] for seed in range(12)]
    assert picks == [first.reset(seed=seed)[1]["task_id"] for seed in range(12)]
    assert len(set(picks)) > 1 and set(picks) <= {t.id for t in first.tasks}
    # Unseeded resets continue the seeded generator: the same sequence after the same seed.
    first.reset(seed=3)
    second.reset(seed=3)
    assert [first.reset()[1]["task_id"] for _ in range(6)] == [second.reset()[1]["task_id"] for _ in range(6)]
    _, info = first.reset(seed=0, options={"task": "lookup-cfo-email"})
    assert info["task_id"] == "lookup-cfo-email" and first.task is not None and first.task.id == "lookup-cfo-email"
    with pytest.raises(OfficesimError, match="not one of"):
        first.reset(options={"task": "no-such-task"})
    first.close()
    second.close()


def test_text_that_is_not_a_tool_call_costs_a_step_and_says_what_to_send(gym: Any, lookup: Task) -> None:
    env = gym.OfficeGymEnv(lookup)
    env.reset(seed=0)
    for index, text in enumerate(['{"query": "CFO"}', "[1, 2]", "call directory_search_people"], start=1):
        obs, reward, terminated, truncated, info = env.step(text)
        data = json.loads(obs)
        assert data["result"]["error"]["type"] == "invalid_argument"
        assert '{"name": "<tool>", "arguments": {...}}' in data["result"]["error"]["message"]
        assert data["steps_left"] == lookup.max_steps - index and info["error"] is True
    # What the model saw is what the transcript holds, and the raw text is kept as the call.
    assert json.loads(env.env.transcript[-1]["content"]) == data["result"]
    assert env.env.transcript[-2]["tool_calls"][0]["function"]["arguments"] == "call directory_search_people"
    # A policy that never emits a tool call is truncated by the step budget, and graded.
    for _ in range(lookup.max_steps - 3):
        obs, reward, terminated, truncated, info = env.step("not json")
    assert truncated and not terminated and reward == 0.0 and not info["grade"].passed
    env.close()


def test_register_tasks_makes_every_task_with_gymnasium_make(gym: Any) -> None:
    import gymnasium

    ids = gym.register_tasks(FIXTURES)
    assert ids == [f"officesim/{path.name}" for path in sorted(FIXTURES.iterdir()) if (path / "task.yaml").is_file()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gym.register_tasks(FIXTURES) == ids  # the same registration again: no override warning
        env = gymnasium.make("officesim/lookup-cfo-email", reward="binary")
    _, info = env.reset(seed=1)
    assert info["task_id"] == "lookup-cfo-email" and env.unwrapped.reward_mode == "binary"
    answer = {"name": "submit", "arguments": {"answer": "jasmine.jones@tinyco.test"}}
    *_, terminated, _, info = env.step(json.dumps(answer))
    assert terminated and info["grade"].passed
    env.close()


def test_the_core_and_the_dataset_helpers_never_import_gymnasium() -> None:
    code = ("import sys, officesim, officesim.cli, officesim.integrations, officesim.integrations.dataset; "
            "print('gymnasium' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- records and rewards
def test_task_records_carry_prompt_tools_and_metadata_but_nothing_sealed(budget: Task) -> None:
    records = task_records(FIXTURES)
    assert [r["task_id"] for r in records] == sorted(p.name for p in FIXTURES.iterdir() if (p / "task.yaml").is_file())
    for record in records:
        assert set(record) == RECORD_KEYS
        task = load_task(record["task_dir"])
        system, user = record["prompt"]
        assert system["role"] == "system" and task.user_info()["email"] in system["content"]
        assert user == {"role": "user", "content": task.instruction}
        assert json.loads(record["tools"]) == task.tools_json()
        assert (record["group"], record["category"], record["difficulty"]) == (task.group, task.category,
                                                                                task.difficulty)
        # Nothing of the grader or the solution, anywhere in the record.
        text = json.dumps(record, ensure_ascii=False)
        sealed = [check.id for check in [*task.grader.gates, *task.grader.criteria]]
        sealed += [check.description for check in [*task.grader.gates, *task.grader.criteria] if check.description]
        if task.solution is not None:
            sealed += [task.solution.answer] if task.solution.answer else []
            sealed += [v for step in task.solution.steps for v in step.arguments.values()
                       if isinstance(v, str) and len(v) > 40]  # mail bodies and such, not search words
        assert sealed and not [s for s in sealed if s in text]
        # Metadata is for the trainer: the model-facing part (prompt, tools) does not carry it.
        # (Family names may equal tool names, e.g. move_deal; category labels cannot.)
        assert task.category not in json.dumps([record["prompt"], record["tools"]])
    bare = task_records(FIXTURES / budget.id, system_prompt=None)
    assert [m["role"] for m in bare[0]["prompt"]] == ["user"]


def test_task_records_split_by_group_like_the_delivery() -> None:
    everything = {r["task_id"]: r["group"] for r in task_records(RUNNER_TASKS, system_prompt=None)}
    train = {r["task_id"] for r in task_records(RUNNER_TASKS, split="train", system_prompt=None)}
    heldout = {r["task_id"] for r in task_records(RUNNER_TASKS, split="heldout", system_prompt=None)}
    assert train and heldout and not train & heldout and train | heldout == set(everything)
    assert not {everything[t] for t in train} & {everything[t] for t in heldout}  # no group straddles
    with pytest.raises(OfficesimError, match="split must be"):
        task_records(RUNNER_TASKS, split="test")  # type: ignore[arg-type]


def test_score_transcript_of_the_oracle_is_one_and_of_nothing_is_zero(budget: Task) -> None:
    transcript = oracle_transcript(budget)
    assert score_transcript(budget.dir, transcript) == 1.0
    assert score_transcript(budget, transcript, reward="binary") == 1.0
    assert score_transcript(budget.dir, []) == 0.0
    assert score_transcript(budget.dir, transcript[:1]) == 0.0  # the instruction alone
    # Tool results in the file are ignored: the world the calls reach is graded.
    forged = [{**m, "content": '{"status": "sent"}'} if m["role"] == "tool" else m for m in transcript]
    assert score_transcript(budget, forged) == 1.0
    without_send = [m for m in transcript if not (m["role"] == "assistant" and
                                                  m["tool_calls"][0]["function"]["name"] == "mail_send_message")]
    assert score_transcript(budget, without_send) == 0.0


def test_transcript_scorer_scores_a_batch_and_keeps_few_tasks_loaded(budget: Task, lookup: Task) -> None:
    scorer = TranscriptScorer(cache_size=1)
    prompts = [task_records(t.dir)[0]["prompt"] for t in (budget, lookup, budget)]
    completions = [oracle_transcript(budget)[1:], [], oracle_transcript(budget)[1:]]
    folders = [str(budget.dir), str(lookup.dir), str(budget.dir)]
    assert scorer(prompts, completions, task_dir=folders, trainer_state=None) == [1.0, 0.0, 1.0]
    assert len(scorer._envs) == 1 and scorer.__name__ == "officesim"
    with pytest.raises(OfficesimError, match="list of chat messages"):
        scorer(["prompt"], ["plain text"], task_dir=[str(budget.dir)])
    with pytest.raises(OfficesimError, match="one to one"):
        scorer(prompts, completions[:1], task_dir=folders)
    scorer.close()
    assert not scorer._envs


# ----------------------------------------------------------------------------- time limits and pickling
def test_registration_passes_the_tasks_own_step_budget(gym: Any, lookup: Task) -> None:
    import gymnasium

    gym.register_tasks(FIXTURES)
    assert gymnasium.spec("officesim/lookup-cfo-email").max_episode_steps == lookup.max_steps
    env = gymnasium.make("officesim/lookup-cfo-email")
    env.reset(seed=0)
    for _ in range(lookup.max_steps):
        _, _reward, terminated, truncated, info = env.step('{"name": "directory_search_people", "arguments": {}}')
    assert truncated and not terminated and info["grade"].passed is False  # graded, not cut


def test_a_shorter_step_budget_still_grades_the_episode(gym: Any, lookup: Task) -> None:
    import gymnasium

    gym.register_tasks(FIXTURES)
    env = gymnasium.make("officesim/lookup-cfo-email", max_steps=2)
    env.reset(seed=0)
    call = {"name": "directory_search_people", "arguments": {"query": "Chief Financial Officer"}}
    _, reward, terminated, truncated, info = env.step(json.dumps(call))
    assert not (terminated or truncated) and "grade" not in info
    _, reward, terminated, truncated, info = env.step(json.dumps(call))
    assert truncated and info["grade"].passed is False and reward == info["grade"].score
    assert env.unwrapped.env.done


def test_envs_and_tasks_pickle_and_vector_envs_play_the_oracle(gym: Any, lookup: Task, tmp_path: Path) -> None:
    import pickle

    import gymnasium

    copy = pickle.loads(pickle.dumps(lookup))
    assert copy.id == lookup.id and copy.grader_hash == lookup.grader_hash and copy is not lookup
    env = gym.OfficeGymEnv(lookup, reward="binary")
    env.reset(seed=0)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.env is None and clone.reward_mode == "binary"
    gym.register_tasks(FIXTURES)
    vec = gymnasium.make_vec("officesim/lookup-cfo-email", num_envs=2, vectorization_mode="async")
    try:
        vec.reset(seed=0)
        steps = [*lookup.solution.steps]
        for step in steps:
            vec.step([json.dumps({"name": step.name, "arguments": step.arguments})] * 2)
        submit = json.dumps({"name": "submit", "arguments": {"answer": lookup.solution.answer}})
        _, rewards, terminated, _, _ = vec.step([submit, submit])
        assert list(terminated) == [True, True] and list(rewards) == [1.0, 1.0]
    finally:
        vec.close()

    moved = tmp_path / "lookup-cfo-email"
    shutil.copytree(lookup.dir, moved)
    task = load_task(moved)
    data = pickle.dumps(task)
    (moved / "grader.yaml").write_text((moved / "grader.yaml").read_text() + "\n# edited\n")
    with pytest.raises(SpecError, match="changed since this task was pickled"):
        pickle.loads(data)
