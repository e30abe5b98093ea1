"""Colleagues who answer on the simulated clock, timed events, and the built-in wait tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import officesim
from officesim import OfficeEnv
from officesim.replay import replay, tool_calls

TASK = Path(__file__).resolve().parent / "fixtures" / "colleagues" / "ask-cfo-budget-code"
CFO = "jasmine.jones@tinyco.test"


def call(env: OfficeEnv, name: str, **arguments: Any) -> dict[str, Any]:
    obs, *_ = env.step({"name": name, "arguments": arguments})
    return obs["result"]


def dm_texts(env: OfficeEnv) -> list[str]:
    result = call(env, "chat_list_messages", channel=f"@{CFO}")
    return [] if "error" in result else [m["text"] for m in result["messages"]]  # newest first


def test_the_reference_asks_waits_and_acts_on_the_answer() -> None:
    task = officesim.load_task(TASK)
    env = OfficeEnv(task)
    env.reset()
    assert [t["function"]["name"] for t in env.reset()[0]["tools"]][-2:] == ["wait", "submit"]
    for step in task.solution.steps:
        env.step({"name": step.name, "arguments": step.arguments})
    _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {"answer": "OFS-7731"}})
    assert terminated and reward == 1.0
    said = [e for e in info["colleagues"] if "from" in e]
    assert said[0]["from"] == CFO and said[0]["via"] == "dm" and "OFS-7731" in said[0]["text"]
    assert said[0]["at"] == "2026-10-05T09:22:00Z"  # 20 simulated minutes after the DM (+ the DM's own tick)
    assert any("OFS-7731" in note for note in info["grade"].notes)  # the grade says who said what, when


def test_acting_without_asking_fails_even_after_waiting() -> None:
    env = OfficeEnv(officesim.load_task(TASK))
    env.reset()
    waited = call(env, "wait", minutes=60)
    assert waited["new_messages"] == 0 and waited["now"].startswith("2026-10-05T10:00")
    inbox = call(env, "mail_search_messages", query="offsite")
    assert [m["subject"] for m in inbox["messages"]][:1] == ["Offsite"]  # the timed event happened at +45 min
    assert "OFS" not in str(inbox)
    _, reward, *_ = env.step({"name": "submit", "arguments": {"answer": "OFS-0000"}})
    assert reward == 0.0


def test_an_answer_takes_its_time_and_off_topic_messages_get_none() -> None:
    env = OfficeEnv(officesim.load_task(TASK))
    env.reset()
    call(env, "chat_send_dm", person=CFO, text="Hello! How are you?")  # not about the budget: no answer
    call(env, "chat_send_dm", person=CFO, text="Which budget code is the offsite on?")
    assert dm_texts(env) == ["Which budget code is the offsite on?", "Hello! How are you?"]  # no answer yet
    call(env, "wait", minutes=19)
    assert dm_texts(env)[0] == "Book the offsite against OFS-7731, please."
    bad = call(env, "wait", minutes=0)
    assert bad["error"]["type"] == "invalid_argument" and "1 to 1440" in bad["error"]["message"]


def test_episodes_with_colleagues_replay_and_fork_exactly() -> None:
    task = officesim.load_task(TASK)
    env = OfficeEnv(task)
    env.reset()
    call(env, "chat_send_dm", person=CFO, text="What's the offsite budget code?")
    branch = env.fork()
    call(branch, "wait", minutes=30)
    assert dm_texts(branch)[0].startswith("Book the offsite")
    assert env.world is not None and env.office is not None and not env.office.log  # the original waits still
    call(env, "wait", minutes=30)
    env.step({"name": "submit", "arguments": {"answer": "OFS-7731"}})
    again, _ = replay(OfficeEnv(task), tool_calls(env.transcript))
    assert env.grade is not None and again.score == env.grade.score == 1.0
    assert again.notes == env.grade.notes  # the colleague said the same thing at the same moment


def test_a_draft_sent_later_is_heard_and_every_episode_of_one_env_hears_anew() -> None:
    """Colleagues read only the messages changed in the episode: a draft written first and sent
    later counts when it is sent, and a second episode of the same env starts from the start
    state's history, not from what the first episode sent."""
    env = OfficeEnv(officesim.load_task(TASK))
    env.reset()
    env.world.call("mail_create_draft", {"to": [CFO], "subject": "Budget", "body": "Which code for the offsite?"})
    draft = env.world.db.execute("SELECT id FROM mail_message WHERE status = 'draft' AND subject = 'Budget'"
                                 ).fetchone()[0]
    assert call(env, "wait", minutes=30)["new_messages"] == 0  # a draft is not a message yet
    assert env.world.call("mail_send_draft", {"draft_id": draft})["status"] == "sent"
    assert call(env, "wait", minutes=30)["new_messages"] == 1
    for _ in range(2):
        env.reset()
        call(env, "chat_send_dm", person=CFO, text="Which budget code is the offsite on?")
        assert call(env, "wait", minutes=30)["new_messages"] == 1
        assert dm_texts(env)[0] == "Book the offsite against OFS-7731, please."  # the first answer, each episode
