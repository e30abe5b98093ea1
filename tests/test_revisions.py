"""Revision mode and forks: feedback after a failed submit, a passing second try, branching episodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import officesim
from officesim import OfficeEnv
from officesim.errors import OfficesimError

TASK = Path(__file__).resolve().parent.parent / "tasks" / "share-doc-exact-001"
SHARES = [("jamie.clayton@acme.test", "editor"), ("spencer.bradshaw@acme.test", "viewer"),
          ("scott.spencer@acme.test", "editor")]


def share(env: OfficeEnv, person: str, role: str) -> None:
    env.step({"name": "drive_share_file", "arguments": {"file_id": "f_100", "person": person, "role": role}})


def submit(env: OfficeEnv) -> tuple[dict, float, bool, bool, dict]:
    return env.step({"name": "submit", "arguments": {"answer": None}})


def test_a_failed_submit_says_what_is_wrong_without_the_answer_and_a_second_try_passes() -> None:
    env = OfficeEnv(officesim.load_task(TASK))
    env.reset(seed=0, options={"revisions": 2})
    for person, role in SHARES[:2]:
        share(env, person, role)
    obs, reward, terminated, truncated, info = submit(env)
    assert not terminated and not truncated and reward == 0.0
    result = obs["result"]
    assert result["status"] == "not accepted" and result["revisions_left"] == 1
    assert result["still_wrong"] == ["A record is not in the state the task asks for."]
    said = json.dumps(result)
    for forbidden in ("scott", "spencer", "editor", "Head of People", "hr_lead", "access_", "f_100", "count"):
        assert forbidden not in said, forbidden  # no expected value, check id or internal leaks
    assert info["revision"]["attempt"] == 1 and not info["revision"]["grade"].passed
    assert env.transcript[-1]["content"] == said  # the model's transcript holds exactly what it was told
    share(env, *SHARES[2])
    obs, reward, terminated, truncated, info = submit(env)
    assert terminated and reward == 1.0 and info["grade"].passed
    assert [g.passed for g in info["attempts"]] == [False, True]


def test_the_discount_applies_per_revision_used_and_revisions_run_out() -> None:
    env = OfficeEnv(officesim.load_task(TASK))
    env.reset(options={"revisions": 1, "revision_discount": 0.5})
    submit(env)  # nothing done: not accepted, 0 revisions left
    for person, role in SHARES:
        share(env, person, role)
    _, reward, terminated, _, info = submit(env)
    assert terminated and info["grade"].passed and reward == 0.5
    env.reset(options={"revisions": 1})
    submit(env)
    _, reward, terminated, _, info = submit(env)  # out of revisions: this submit ends the episode
    assert terminated and reward == 0.0 and len(info["attempts"]) == 2


@pytest.mark.parametrize("options", [{"revisions": -1}, {"revisions": 11}, {"revisions": "2"},
                                     {"revisions": 1, "revision_discount": 0}])
def test_bad_revision_options_are_refused(options: dict) -> None:
    env = OfficeEnv(officesim.load_task(TASK))
    with pytest.raises(OfficesimError, match="revision"):
        env.reset(options=options)


def test_a_fork_is_an_independent_episode_at_the_same_step() -> None:
    env = OfficeEnv(officesim.load_task(TASK))
    env.reset(seed=0)
    for person, role in SHARES[:2]:
        share(env, person, role)
    branch = env.fork()
    assert branch.steps == env.steps == 2 and branch.transcript == env.transcript
    share(branch, *SHARES[2])
    _, good, *_ = submit(branch)
    assert good == 1.0 and branch.grade is not None and branch.grade.passed
    assert env.world is not None and not env.done
    assert env.world.db.execute("SELECT count(*) FROM drive_permission WHERE file_id = 'f_100'").fetchone()[0] == 2
    share(env, SHARES[2][0], "viewer")  # the other branch takes another way
    _, bad, *_ = submit(env)
    assert bad < 1.0 and env.grade is not None and not env.grade.passed
    assert len(branch.transcript) == len(env.transcript)
    assert branch.transcript[-3] != env.transcript[-3]  # each branch recorded its own call
