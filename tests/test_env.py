"""OfficeEnv: the Gymnasium-style episode contract, action shapes, rewards, transcript, isolation."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import NullAgent, OracleAgent
from officesim.env import parse_action, play
from officesim.errors import OfficesimError

FIXTURES = Path(__file__).parent / "fixtures" / "tasks"


@pytest.fixture(scope="module")
def budget():
    return load_task(FIXTURES / "budget-summary-to-cfo")


@pytest.fixture(scope="module")
def lookup():
    return load_task(FIXTURES / "lookup-cfo-email")


def test_reset_returns_the_documented_observation(budget) -> None:
    env = OfficeEnv(budget)
    obs, info = env.reset(seed=3)
    assert set(obs) == {"instruction", "tools", "user", "max_steps", "steps_left", "result"}
    assert obs["instruction"] == budget.instruction and obs["result"] is None
    assert obs["max_steps"] == obs["steps_left"] == 12
    assert obs["user"]["email"] == "jeffrey.scott@tinyco.test" and set(obs["user"]) == {"id", "name", "email", "title"}
    assert [t["function"]["name"] for t in obs["tools"]] == [*sorted(budget.tools), "submit"]
    assert info == {"task_id": budget.id, "task_hash": budget.task_hash, "grader_hash": budget.grader_hash, "seed": 3}
    assert env.transcript == [{"role": "user", "content": budget.instruction}]


def test_observations_never_carry_metadata_grader_or_solution(budget) -> None:
    env = OfficeEnv(budget)
    obs, _ = env.reset()
    obs, *_ = env.step({"name": "mail_search_messages", "arguments": {"query": "budget"}})
    text = json.dumps(obs)
    for secret in ("finance-reporting", "budget_summary", "test-fixture", "mailed_cfo_with_total", "Best,\nJeffrey",
                   "pass_threshold", "grader"):
        assert secret not in text


def test_step_accepts_every_action_shape(lookup) -> None:
    env = OfficeEnv(lookup)
    env.reset()
    plain = env.step({"name": "directory_search_people", "arguments": {"query": "finance"}})[0]["result"]
    as_dict = env.step({"id": "call_x", "type": "function", "function": {
        "name": "directory_search_people", "arguments": json.dumps({"query": "finance"})}})[0]["result"]
    as_object = env.step(SimpleNamespace(id="call_y", type="function", function=SimpleNamespace(
        name="directory_search_people", arguments='{"query": "finance"}')))[0]["result"]
    assert plain == as_dict == as_object and plain["people"]
    assert [m["tool_calls"][0]["id"] for m in env.transcript if m["role"] == "assistant"] == ["call_1", "call_x",
                                                                                              "call_y"]
    with pytest.raises(TypeError, match="an action is"):
        parse_action("directory_search_people")


def test_model_mistakes_come_back_as_errors_and_cost_a_step(lookup) -> None:
    env = OfficeEnv(lookup)
    env.reset()
    obs, reward, terminated, truncated, info = env.step({"name": "mail_send_message", "arguments": {}})
    assert obs["result"]["error"]["type"] == "unknown_tool" and "allowed in this task" in obs["result"]["error"][
        "message"]
    assert (reward, terminated, truncated, info["error"], obs["steps_left"]) == (0.0, False, False, True, 5)
    bad_json = env.step({"function": {"name": "directory_get_person", "arguments": "{oops"}})[0]["result"]
    assert bad_json["error"]["type"] == "invalid_argument"
    bad_submit = env.step({"name": "submit", "arguments": {"answer": "x", "confidence": 1}})
    assert bad_submit[0]["result"]["error"]["type"] == "invalid_argument" and not bad_submit[2]
    assert env.step({"name": "submit", "arguments": {"answer": ["a"]}})[0]["result"]["error"]


def test_submit_ends_and_grades_the_episode(lookup) -> None:
    env = OfficeEnv(lookup)
    env.reset()
    obs, reward, terminated, truncated, info = env.step(
        {"name": "submit", "arguments": {"answer": "Jasmine.Jones@tinyco.test "}})
    assert (terminated, truncated, reward) == (True, False, 1.0)
    assert info["grade"].passed and env.grade is info["grade"] and env.answer == "Jasmine.Jones@tinyco.test "
    assert obs["result"] == {"status": "submitted"}
    assert env.transcript[-1] == {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "submitted"}'}
    with pytest.raises(OfficesimError, match="the episode is over"):
        env.step({"name": "submit", "arguments": {"answer": None}})


def test_a_number_is_a_fine_answer(lookup) -> None:
    env = OfficeEnv(lookup)
    env.reset()
    env.step({"name": "submit", "arguments": {"answer": 42}})
    assert env.answer == "42"


def test_running_out_of_steps_truncates_and_grades(lookup) -> None:
    env = OfficeEnv(lookup)
    env.reset()
    for _ in range(lookup.max_steps - 1):
        assert env.step({"name": "directory_list_departments", "arguments": {}})[3] is False
    obs, reward, terminated, truncated, info = env.step({"name": "directory_search_people", "arguments": {}})
    assert (terminated, truncated, obs["steps_left"]) == (False, True, 0)
    assert info["grade"].answer is None and reward == 0.0
    assert "no answer was submitted" in info["grade"].criteria[0].reason


def test_binary_reward_and_bad_options(budget) -> None:
    partial = {"name": "mail_send_message", "arguments": {
        "to": ["jasmine.jones@tinyco.test"], "cc": ["donna.dominguez@tinyco.test"], "subject": "Budget",
        "body": "The total is 24,000."}}
    submit = {"name": "submit", "arguments": {"answer": None}}
    rewards = {}
    for mode in ("score", "binary"):
        env = OfficeEnv(budget)
        env.reset(options={"reward": mode})
        assert env.step(partial)[1] == 0.0  # nothing until the end
        _, rewards[mode], *_ = env.step(submit)
    assert rewards == {"score": 0.25, "binary": 0.0}  # gates hold, 1 of 4 points, threshold 0.75
    env = OfficeEnv(budget)
    obs, _ = env.reset(options={"reward": "binary"})
    oracle = OracleAgent(budget)
    oracle.reset(obs, seed=0)
    terminated = False
    while not terminated:
        obs, reward, terminated, *_ = env.step(oracle.act(obs))
    assert reward == 1.0
    with pytest.raises(OfficesimError, match="options\\['reward'\\]"):
        env.reset(options={"reward": "dense"})


def test_reset_restores_the_start_state_exactly(budget) -> None:
    env = OfficeEnv(budget)
    env.reset()
    start_hash = env.world.state_hash()
    play(env, OracleAgent(budget))
    assert env.world.state_hash() != start_hash  # the oracle sent a mail
    env.reset()
    assert env.world.state_hash() == start_hash and env.steps == 0 and env.grade is None
    other = OfficeEnv(budget)
    other.reset()
    assert other.world is not env.world and other.world.state_hash() == start_hash


def test_transcript_is_openai_chat_format(budget) -> None:
    env = OfficeEnv(budget)
    play(env, OracleAgent(budget))
    roles = [m["role"] for m in env.transcript]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]
    call = env.transcript[3]["tool_calls"][0]
    assert call["type"] == "function" and call["function"]["name"] == "mail_send_message"
    assert json.loads(call["function"]["arguments"])["subject"] == "Q3 budget summary"
    assert json.loads(env.transcript[4]["content"])["status"] == "sent" or "id" in json.loads(
        env.transcript[4]["content"])
    assert env.transcript[4]["tool_call_id"] == call["id"]


def test_finish_grades_without_submit(budget) -> None:
    env = OfficeEnv(budget)
    env.reset()
    grade = env.finish()
    assert grade is env.finish() and not grade.passed and env.done
    with pytest.raises(OfficesimError):
        OfficeEnv(budget).finish()


def test_null_agent_and_oracle(budget) -> None:
    env = OfficeEnv(budget)
    assert play(env, OracleAgent(budget)).score == 1.0
    assert play(env, NullAgent()).score == 0.0


def test_reset_rolls_the_same_world_back_in_place(budget) -> None:
    env = OfficeEnv(budget)
    env.reset()
    world, start = env.world, budget.start_world().state_hash()
    env.step({"name": "directory_search_people", "arguments": {"query": "finance"}})
    play(env, OracleAgent(budget))
    assert env.world is world  # one connection for every episode: warm schema and statements
    env.reset()
    assert env.world is world and world.state_hash() == start


def test_a_tool_call_whose_function_is_not_an_object_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="'function' is"):
        parse_action({"id": "c1", "type": "function", "function": "directory_search_people"})


def test_lone_surrogates_never_reach_the_answer_or_make_the_transcript_unwritable(lookup) -> None:
    env = OfficeEnv(lookup)
    env.reset()
    env.step({"name": "directory_search_people", "arguments": {"query": "\ud800"}})
    env.step({"name": "directory_search_people", "arguments": '{"query": "\ud800"}'})
    env.step({"name": "\ud800", "arguments": {}})
    obs, _, terminated, *_ = env.step({"name": "submit", "arguments": '{"answer": "\\ud800"}'})
    assert obs["result"]["error"]["type"] == "invalid_argument" and not terminated and env.answer is None
    json.dumps(env.transcript, ensure_ascii=False).encode("utf-8")  # a runner writes it as UTF-8
    assert json.loads(env.transcript[3]["tool_calls"][0]["function"]["arguments"]) == {"query": "\ud800"}
