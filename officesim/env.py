"""``OfficeEnv``: one task as a Gymnasium-style episode of tool calls.

``reset`` restores the task's cached start snapshot (one ``deserialize``; nothing else, since RL
runs millions of episodes); ``step`` runs one tool call through the registry, restricted to the
task's tools plus the built-in ``submit``.  The reward is 0 until the episode ends, then the
grade's score (or ``passed`` as 0/1 with ``options={"reward": "binary"}``).  The model only ever
sees the instruction, the tool list, its own identity and tool results: never metadata, the
grader or the solution.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Literal

from officesim.errors import InvalidArgument, OfficesimError
from officesim.grading.judge import Judge, JudgeConfig, make_judge
from officesim.grading.rubric import Grade, grade
from officesim.revisions import feedback, revision_options
from officesim.task import SUBMIT, Task
from officesim.tools import dispatch, parse_arguments
from officesim.world import World

RewardMode = Literal["score", "binary"]


def parse_action(action: Any) -> tuple[str, Any, str | None]:
    """(name, arguments, call id) from ``{"name", "arguments"}`` or an OpenAI tool call (dict or object).

    Raises ``TypeError`` for something that is not an action at all: that is a bug in the harness,
    not a mistake of the model.
    """
    if isinstance(action, Mapping):
        if "function" in action:
            function = action["function"]
            if not isinstance(function, Mapping):
                raise TypeError(f"an OpenAI tool call's 'function' is {{'name', 'arguments'}}, not {function!r}")
            return str(function.get("name", "")), function.get("arguments"), action.get("id")
        if "name" in action:
            return str(action["name"]), action.get("arguments"), action.get("id")
    function = getattr(action, "function", None)
    if function is not None and hasattr(function, "name"):
        return str(function.name), getattr(function, "arguments", None), getattr(action, "id", None)
    raise TypeError(f"an action is {{'name', 'arguments'}} or an OpenAI tool call, not {action!r}")


def _encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (JSON's ``\\ud800`` decodes to a lone surrogate that cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class OfficeEnv:
    """A task as an episode: ``reset`` then ``step`` until ``terminated`` (submit) or ``truncated``.

    Args:
        task: a loaded task (``officesim.load_task``).
        judge: a ``JudgeConfig`` or ``Judge`` for judge criteria; ``None`` leaves them unjudged.

    Attributes:
        world: the episode's world (inspect it after the end; ``reset`` rolls it back in place).
        transcript: the episode as OpenAI chat messages (user instruction, assistant tool calls,
            tool results).
        grade: the final ``Grade`` once the episode ended, else ``None``.
    """

    def __init__(self, task: Task, *, judge: Judge | JudgeConfig | None = None) -> None:
        self.task = task
        self.judge = make_judge(judge)
        self._allowed = frozenset(task.tools)
        self.world: World | None = None
        self.transcript: list[dict[str, Any]] = []
        self.grade: Grade | None = None
        self.answer: str | None = None
        self.steps = 0
        self.reward_mode: RewardMode = "score"
        self._done = True
        self.revisions_left = 0
        self.revision_discount = 1.0
        self.attempts: list[Grade] = []  # the grade of every submit in revision mode, the last one included

    # ------------------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode from the task's start state.

        ``seed`` is accepted for Gymnasium compatibility and recorded in ``info``; the world is
        fixed by the task (its solution's ids are literal), so it does not change the episode.
        ``options={"reward": "binary"}`` makes the final reward 1.0/0.0 for passed/not.
        ``options={"revisions": k}`` is revision mode: a submit that does not pass answers with what
        is still wrong (``officesim.revisions``, never expected values) and the episode goes on, up
        to ``k`` times; the reward is the last grade's, times ``revision_discount`` (default 1) per
        revision used.
        """
        mode = (options or {}).get("reward", "score")
        if mode not in ("score", "binary"):
            raise OfficesimError(f"options['reward'] must be 'score' or 'binary', not {mode!r}")
        try:
            self.revisions_left, self.revision_discount = revision_options(options or {})
        except ValueError as exc:
            raise OfficesimError(str(exc)) from None
        self.attempts = []
        self.reward_mode = mode
        # The world is rolled back in place: SQLite keeps its parsed schema and the prepared
        # statements stay warm, which makes a reset ~10x cheaper than a fresh connection.  Inspect
        # (or ``World.restore(env.world.snapshot())``) the previous episode's world before this.
        if self.world is None:
            self.world = World.restore(self.task.start_snapshot())
        else:
            self.world.reset(self.task.start_snapshot())
        self.transcript = [{"role": "user", "content": self.task.instruction}]
        self.grade = None
        self.answer = None
        self.steps = 0
        self._done = False
        info = {"task_id": self.task.id, "task_hash": self.task.task_hash, "grader_hash": self.task.grader_hash,
                "seed": seed}
        return self._obs(None), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Run one tool call (or ``submit``); returns ``(obs, reward, terminated, truncated, info)``."""
        if self._done or self.world is None:
            raise OfficesimError("the episode is over (or was never started); call reset() first")
        name, raw_arguments, call_id = parse_action(action)
        self.steps += 1
        call_id = call_id or f"call_{self.steps}"
        revised: Grade | None = None  # this submit's grade, in revision mode
        if name == SUBMIT:
            result, submitted = self._submit(raw_arguments)
            if submitted and self.revisions_left > 0 and self.steps < self.task.max_steps:
                revised = self._grade()
                self.attempts.append(revised)
                if not revised.passed:
                    self.revisions_left -= 1
                    result, submitted = self._still_wrong(revised), False
        else:
            result, submitted = dispatch(self.world, name, raw_arguments, allowed=self._allowed), False
        self._record(call_id, name, raw_arguments, result)
        info: dict[str, Any] = {"step": self.steps, "tool": name, "error": "error" in result}
        terminated = submitted
        truncated = not submitted and self.steps >= self.task.max_steps
        reward = 0.0
        if terminated or truncated:
            self._done = True
            if revised is None:
                self.attempts.append(self._grade())
            self.grade = self.attempts[-1]
            info["grade"] = self.grade
            info["attempts"] = list(self.attempts)
            reward = (1.0 if self.grade.passed else 0.0) if self.reward_mode == "binary" else self.grade.score
            reward *= self.revision_discount ** (len(self.attempts) - 1)
        elif revised is not None:
            info["revision"] = {"attempt": len(self.attempts), "grade": revised}
        return self._obs(result), reward, terminated, truncated, info

    def fork(self) -> OfficeEnv:
        """An independent copy of this episode at the current step, for branching rollouts and search.

        The copy has its own world (one snapshot and restore), transcript, answer, steps left and
        revision state; stepping either leaves the other as it was.
        """
        if self.world is None:
            raise OfficesimError("the episode was never started; call reset() first")
        twin = copy.copy(self)
        twin.world = World.restore(self.world.snapshot())
        twin.transcript = copy.deepcopy(self.transcript)
        twin.attempts = list(self.attempts)
        return twin

    def finish(self) -> Grade:
        """End the episode without a ``submit`` (the model stopped calling tools) and grade it.

        The answer is ``None``; ``step`` cannot be called afterwards.  Returns the existing grade
        when the episode already ended.
        """
        if self.world is None:
            raise OfficesimError("the episode was never started; call reset() first")
        if self.grade is None:
            self._done = True
            self.grade = self._grade()
        return self.grade

    @property
    def done(self) -> bool:
        return self._done

    # ------------------------------------------------------------------------ internals
    def _still_wrong(self, attempt: Grade) -> dict[str, Any]:
        """What a submit that did not pass tells the agent in revision mode (no expected values)."""
        return {"status": "not accepted", "still_wrong": feedback(attempt), "revisions_left": self.revisions_left,
                "steps_left": self.task.max_steps - self.steps}

    def _submit(self, raw_arguments: Any) -> tuple[dict[str, Any], bool]:
        try:
            arguments = parse_arguments(raw_arguments)
        except InvalidArgument as err:
            return err.to_result(), False
        extra = sorted(set(arguments) - {"answer"})
        if extra:
            return InvalidArgument(
                f"submit takes only 'answer' (got {', '.join(map(repr, extra))}); call submit(answer=...)"
            ).to_result(), False
        value = arguments.get("answer")
        if value is not None and not isinstance(value, str):
            if isinstance(value, bool | dict | list):
                return InvalidArgument("answer must be a string or null; put lists and tables in text").to_result(), \
                    False
            value = str(value)  # a bare number is a fine answer
        if value is not None and not _encodable(value):
            return InvalidArgument("answer contains an unpaired surrogate; send valid UTF-8 text").to_result(), False
        self.answer = value
        return {"status": "submitted"}, True

    def _record(self, call_id: str, name: str, arguments: Any, result: dict[str, Any]) -> None:
        text = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, ensure_ascii=False,
                                                                         default=str)
        if not _encodable(text):  # lone surrogates (rejected by the tool) must not make the transcript unwritable
            text = (arguments.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(arguments, str)
                    else json.dumps(arguments, default=str))
        if not _encodable(name):
            name = name.encode("utf-8", "backslashreplace").decode("utf-8")
        self.transcript.append({
            "role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}],
        })
        self.transcript.append({"role": "tool", "tool_call_id": call_id,
                                "content": json.dumps(result, ensure_ascii=False, default=str)})

    def _grade(self) -> Grade:
        if self.world is None:
            raise OfficesimError("no episode to grade")
        return grade(self.task, self.task.start_world(), self.world, self.answer, self.transcript, self.judge)

    def _obs(self, result: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "instruction": self.task.instruction,
            "tools": self.task.tools_json(),
            "user": self.task.user_info(),
            "max_steps": self.task.max_steps,
            "steps_left": self.task.max_steps - self.steps,
            "result": result,
        }


def play(env: OfficeEnv, agent: Any, *, seed: int = 0, options: dict[str, Any] | None = None) -> Grade:
    """Run ``agent`` (see ``officesim.agents.base.Agent``) for one episode; returns the grade."""
    obs, _ = env.reset(seed=seed, options=options)
    agent.reset(obs, seed=seed)
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs))
        if terminated or truncated:
            return info["grade"]
