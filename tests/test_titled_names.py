"""People whose directory name carries an honorific ('Mr Edward Read', 'Dr Damien Elliott', en_GB worlds).

Colleagues write such a person as 'Edward Read', 'Edward' or 'Dr Elliott'.  The tools must find
them by that name, the graders must read it as naming them, and generated instructions and
replies must call them by their given name, never 'Mr' or 'Ms'.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from officesim import OfficeEnv, load_task
from officesim.agents.scripted import OracleAgent
from officesim.apps.people import given_name
from officesim.env import play
from officesim.grading.context import GradeContext
from officesim.grading.facts import _formal, _plain
from officesim.taskgen.common import core_name

ROOT = Path(__file__).resolve().parent.parent
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
TASK = ROOT / "tasks" / "dm-answer-question-counsel-002"  # its facts name Mr Edward Read and Dr Damien Elliott


def test_the_given_plain_and_formal_names_leave_honorifics_off() -> None:
    assert [given_name(n) for n in ("Mr Edward Read", "Ms Georgia Murray", "Mrs. Stacie Padilla",
                                    "Prof. Dr. Karl Weiß", "Miss Rhonda James")] == [
        "Edward", "Georgia", "Stacie", "Karl", "Rhonda"]
    assert _plain("Dr Damien Elliott") == "Damien Elliott" and _plain("Megan Lawrence MD") == "Megan Lawrence"
    assert _formal("Dr Damien Elliott") == "Dr Elliott" and _formal("J. Robert Oppenheimer") == ""
    assert core_name("Mr Edward Read") == "Edward Read"


def test_a_tool_finds_a_titled_colleague_by_the_plain_name() -> None:
    world = load_task(TASK).start_world()
    assert world.call("directory_get_person", {"person": "Edward Read"})["name"] == "Mr Edward Read"
    assert world.call("chat_send_dm", {"person": "damien elliott", "text": "Hi"})["channel"] == "@Dr Damien Elliott"
    assert world.call("directory_get_person", {"person": "Read"})["error"]["type"] == "not_found"


def test_the_grader_reads_the_plain_given_and_formal_names_as_naming_the_person() -> None:
    task = load_task(TASK)
    env = OfficeEnv(task)
    play(env, OracleAgent(task))
    world = env.world
    assert world is not None
    ctx = GradeContext(instruction=task.instruction, start=task.start_world(), final=world,
                       diff=world.diff(task.start_world(), use_change_log=True), answer=env.answer,
                       transcript=env.transcript, facts=task.grader.facts)
    reader = ctx.fact_reader
    assert reader.named("Edward Read handles it") == ("p_3",)
    assert reader.named("ask Dr Elliott") == ("p_21",) and reader.named("Damien Elliott knows") == ("p_21",)
    assert reader.named("Ask Mr Smith") == ()


def test_no_generated_instruction_calls_someone_by_an_honorific_alone() -> None:
    bad = []
    for path in sorted((ROOT / "tasks").glob("*/task.yaml")):
        instruction = yaml.load(path.read_text(), Loader=_LOADER)["instruction"]
        words = instruction.replace(",", " ").replace("'s ", " ").split()
        if any(word in ("Mr", "Mrs", "Ms", "Miss", "Dr") and (i + 1 == len(words) or not words[i + 1][:1].isupper())
               for i, word in enumerate(words)):
            bad.append((path.parent.name, instruction[:80]))
    assert not bad, bad[:5]
