"""Where the HTTP server runs a step (officesim.server.scheduling) and which steps may end an episode."""

from __future__ import annotations

from pathlib import Path

from officesim import load_task
from officesim.env import OfficeEnv
from officesim.server.scheduling import MAX_REMEMBERED, StepScheduler

TASKS = Path(__file__).parent / "fixtures" / "tasks"


def test_a_slow_call_sends_its_tools_next_calls_to_threads_until_the_cooldown_runs_out() -> None:
    scheduler = StepScheduler(slow_seconds=0.002, cooldown=3)
    assert scheduler.inline("mail_search_messages", waits=False)
    scheduler.observe("mail_search_messages", 0.0005)  # fast: nothing changes
    assert scheduler.inline("mail_search_messages", waits=False)
    scheduler.observe("mail_search_messages", 0.05)  # slow
    assert [scheduler.inline("mail_search_messages", waits=False) for _ in range(4)] == [False, False, False, True]
    assert scheduler.inline("drive_get_file", waits=False)  # other tools are not affected


def test_a_tool_that_stays_slow_stays_in_threads() -> None:
    scheduler = StepScheduler(slow_seconds=0.002, cooldown=2)
    scheduler.observe("crm_search_deals", 0.01)
    for _ in range(10):  # each threaded call is slow again: the count starts anew every time
        assert not scheduler.inline("crm_search_deals", waits=False)
        scheduler.observe("crm_search_deals", 0.01)
    assert scheduler.slow_tools() == {"crm_search_deals": 2}


def test_steps_that_may_wait_on_the_judge_and_threaded_mode_never_run_inline() -> None:
    assert not StepScheduler().inline("submit", waits=True)
    assert not StepScheduler(threaded=True).inline("drive_get_file", waits=False)


def test_invented_tool_names_cannot_grow_the_memory_without_bound() -> None:
    scheduler = StepScheduler()
    for i in range(MAX_REMEMBERED * 3):
        scheduler.observe(f"tool_{i}", 1.0)
    assert len(scheduler.slow_tools()) <= MAX_REMEMBERED


def test_may_end_is_true_for_submit_the_last_step_and_a_failing_streak_at_its_limit() -> None:
    env = OfficeEnv(load_task(TASKS / "lookup-cfo-email"), stop_after_repeats=2)
    obs, _ = env.reset()
    assert env.may_end("submit") and not env.may_end("directory_get_person")
    env.step({"name": "directory_get_person", "arguments": {"person": "nobody@nowhere.test"}})  # fails once
    assert env.may_end("directory_get_person")  # the same failing call again would stop the episode
    env.step({"name": "directory_get_person", "arguments": {"person": "jasmine.jones@tinyco.test"}})
    assert not env.may_end("directory_get_person")  # the streak is broken
    while env.steps < obs["max_steps"] - 1:
        env.step({"name": "directory_get_person", "arguments": {"person": "jasmine.jones@tinyco.test"}})
    assert env.may_end("directory_get_person")  # the budget's last step ends the episode


def test_a_session_body_built_from_encoded_parts_is_the_plain_encoding() -> None:
    """Session creation splices the task's tool list, encoded once, into the body: byte for byte
    what encoding the whole body at once gives."""
    from officesim.server.http import _encode, _encode_object

    env = OfficeEnv(load_task(TASKS / "lookup-cfo-email"))
    obs, info = env.reset(seed=7)
    whole = _encode({"session_id": "ab" * 16, "observation": obs, "info": info})
    parts = _encode_object({"session_id": _encode("ab" * 16),
                            "observation": _encode_object({k: _encode(v) for k, v in obs.items()}),
                            "info": _encode(info)})
    assert parts == whole


def test_only_a_step_that_may_grade_with_a_judge_on_judged_checks_may_ask_the_judge() -> None:
    from officesim.grading.judge import JudgeConfig

    judge = JudgeConfig(model="judge", base_url="http://127.0.0.1:9/v1", api_key="x", cache_dir=None)
    judged = OfficeEnv(load_task(TASKS / "budget-sheet-judged"), judge=judge)
    judged.reset()
    assert judged.may_ask_judge("submit") and not judged.may_ask_judge("drive_search_files")
    unjudged = OfficeEnv(load_task(TASKS / "budget-sheet-judged"))  # no judge configured
    unjudged.reset()
    assert not unjudged.may_ask_judge("submit")
    code_only = OfficeEnv(load_task(TASKS / "lookup-cfo-email"), judge=judge)
    code_only.reset()
    assert not code_only.may_ask_judge("submit")
