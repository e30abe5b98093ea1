"""Generation with colleagues and timed events: the reference asks, waits and acts on the answer.

The writer runs the same ``Office`` simulation an episode runs, so a reference that mails a
colleague, waits and reads the reply is verified on the state the episode will reach.
"""

from __future__ import annotations

import json
import random

import pytest
import yaml

from officesim.agents.scripted import OracleAgent
from officesim.colleagues import Colleague, Reply, TimedEvent
from officesim.env import OfficeEnv, play
from officesim.grading.answer_checks import AnswerCheck
from officesim.taskgen.base import Draft, Family, GenerationError, Solver, Stage
from officesim.taskgen.common import READS, day, stamp
from officesim.taskgen.writer import render_verified


class _AskCode(Family):
    """A budget code only the CFO knows; a timed mail at +40 minutes changes it."""

    name = "ask_code_probe"
    category = "colleague-facts"
    difficulty = "easy"
    apps = ("chat", "mail")
    variants = ("one",)
    late_change = False

    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        stage.act_as("role:ops_manager")
        stage.clock(stamp(day(0), 9, 0))
        cfo = stage.person("role:cfo")["email"]
        code = f"OFS-{rng.randrange(1000, 9999)}"
        final = f"OFS-{rng.randrange(1000, 9999)}" if self.late_change else code
        events = [TimedEvent(after_minutes=40, steps=[{
            "call": "mail_send_message", "as": "role:cfo",
            "arguments": {"to": ["user"], "subject": "Offsite code change", "body": f"Correction: use {final}."}}])] \
            if self.late_change else []

        def solve(s: Solver) -> None:
            s.call("chat_send_dm", person=cfo, text="Which budget code should the offsite go on?")
            s.wait(30)
            s.call("chat_list_messages", channel=f"@{cfo}")
            if self.late_change:
                s.wait(15)
                s.call("mail_search_messages", query="offsite code")
            s.submit(final)

        return Draft(instruction="Ask our CFO which budget code the offsite goes on and tell me.",
                     tools=sorted({*READS["chat"], *READS["mail"], "chat_send_dm"}),
                     gates=[AnswerCheck(id="code", check="answer", contains=[final])], criteria=[],
                     solve=solve, variant="one",
                     colleagues=[Colleague(person="role:cfo", about=["code"],
                                           replies=[Reply(text=f"Use {code}, please.", after_minutes=20)])],
                     events=events)


class _AskCodeLate(_AskCode):
    name = "ask_code_late_probe"
    late_change = True


def test_the_writer_records_colleagues_and_waits_and_the_oracle_passes_in_an_episode() -> None:
    rendered, task = render_verified(_AskCode(), 0)
    spec = yaml.safe_load(rendered.files["task.yaml"])
    assert spec["colleagues"][0]["person"] == "role:cfo"
    assert spec["colleagues"][0]["replies"][0]["after_minutes"] == 20
    steps = yaml.safe_load(rendered.files["solution.yaml"])["steps"]
    assert [s["name"] for s in steps] == ["chat_send_dm", "wait", "chat_list_messages"]
    env = OfficeEnv(task)
    result = play(env, OracleAgent(task))
    assert result.passed and result.score == 1.0
    assert any("Use OFS-" in note for note in result.notes)  # the grade says what the CFO said
    names = [t["function"]["name"] for t in task.tools_json()]
    assert names[-2:] == ["wait", "submit"]
    assert "wait" in json.loads(rendered.files["tools.pin"])["tools"]  # the folder pins wait too


def test_a_timed_event_is_rendered_and_the_reference_follows_the_latest_word() -> None:
    rendered, task = render_verified(_AskCodeLate(), 0)
    spec = yaml.safe_load(rendered.files["task.yaml"])
    assert spec["events"][0]["after_minutes"] == 40 and spec["events"][0]["steps"][0]["as"] == "role:cfo"
    result = play(OfficeEnv(task), OracleAgent(task))
    assert result.passed and any("timed event 0" in note for note in result.notes)


def test_a_reference_that_reads_before_the_reply_arrives_is_refused() -> None:
    class TooEager(_AskCode):
        name = "ask_code_eager_probe"

        def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
            draft = super().build(stage, index, rng)

            def solve(s: Solver) -> None:
                cfo = stage.person("role:cfo")["email"]
                s.call("chat_send_dm", person=cfo, text="Which budget code should the offsite go on?")
                s.call("chat_list_messages", channel=f"@{cfo}")  # the answer is 20 minutes away
                s.submit("OFS-0000")

            draft.solve = solve
            return draft

    with pytest.raises(GenerationError, match="does not pass"):
        render_verified(TooEager(), 0)


def test_waiting_without_colleagues_is_a_generation_error() -> None:
    class NoOffice(_AskCode):
        name = "ask_code_nooffice_probe"

        def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
            draft = super().build(stage, index, rng)
            draft.colleagues = ()
            return draft

    with pytest.raises(GenerationError, match="no colleagues or timed events"):
        render_verified(NoOffice(), 0)


def test_what_the_user_sent_before_the_episode_is_not_answered() -> None:
    class WithHistory(_AskCode):
        name = "ask_code_history_probe"

        def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
            draft = super().build(stage, index, rng)
            stage.act("user", "chat_send_dm", person="role:cfo", text="Thanks for the budget code last month!")
            return draft

    _, task = render_verified(WithHistory(), 0)
    env = OfficeEnv(task)
    env.reset()
    env.step({"name": "wait", "arguments": {"minutes": 60}})
    assert env.office is not None and not [e for e in env.office.log if "from" in e]  # history gets no reply
