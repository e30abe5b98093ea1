"""``OfficeEnv``: one task as a Gymnasium-style episode of tool calls.

``reset`` restores the task's cached start snapshot (one ``deserialize``; nothing else, since RL
runs millions of episodes); ``step`` runs one tool call through the registry, restricted to the
task's tools plus the built-in ``submit``.  The reward is 0 until the episode ends, then the
grade's score (or ``passed`` as 0/1 with ``options={"reward": "binary"}``).  The model only ever
sees the instruction, the tool list, its own identity and tool results: never metadata, the
grader or the solution.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import Any, Literal

from officesim.errors import InvalidArgument, OfficesimError
from officesim.grading.judge import Judge, JudgeConfig, make_judge
from officesim.grading.rubric import Grade, grade
from officesim.task import MAX_ANSWER, SUBMIT, Task
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

    def __init__(self, task: Task, *, judge: Judge | JudgeConfig | None = None,
                 reward_on_incomplete: float | None = None) -> None:
        """Args:
            task: the task to play.
            judge: the LLM judge for judge criteria (``None``: they are ``unjudged``).
            reward_on_incomplete: the final reward of an ``incomplete`` grade (a judge that failed;
                never passed).  ``None`` gives 0.0 and warns once, so an RL caller decides knowingly.
        """
        self.task = task
        self.judge = make_judge(judge)
        self.reward_on_incomplete = reward_on_incomplete
        self._warned_incomplete = False
        self._allowed = frozenset(task.tools)
        self.world: World | None = None
        self.transcript: list[dict[str, Any]] = []
        self.grade: Grade | None = None
        self.answer: str | None = None
        self.steps = 0
        self.reward_mode: RewardMode = "score"
        self._done = True

    # ------------------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode from the task's start state.

        ``seed`` is accepted for Gymnasium compatibility and recorded in ``info``; the world is
        fixed by the task (its solution's ids are literal), so it does not change the episode.
        ``options={"reward": "binary"}`` makes the final reward 1.0/0.0 for passed/not.
        """
        mode = (options or {}).get("reward", "score")
        if mode not in ("score", "binary"):
            raise OfficesimError(f"options['reward'] must be 'score' or 'binary', not {mode!r}")
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
        if name == SUBMIT:
            result, submitted = self._submit(raw_arguments)
        else:
            result, submitted = dispatch(self.world, name, raw_arguments, allowed=self._allowed), False
        self._record(call_id, name, raw_arguments, result)
        info: dict[str, Any] = {"step": self.steps, "tool": name, "error": "error" in result}
        terminated = submitted
        truncated = not submitted and self.steps >= self.task.max_steps
        reward = 0.0
        if terminated or truncated:
            self._done = True
            self.grade = self._grade()
            info["grade"] = self.grade
            reward = self._reward(self.grade)
        return self._obs(result), reward, terminated, truncated, info

    def _reward(self, result: Grade) -> float:
        if result.incomplete:
            if self.reward_on_incomplete is None and not self._warned_incomplete:
                self._warned_incomplete = True
                warnings.warn(f"{self.task.id}: the grade is incomplete (a judge or check failed: "
                              f"{'; '.join(r.reason for r in result.results() if r.status == 'error')[:300]}); "
                              "reward 0.0. Pass OfficeEnv(reward_on_incomplete=...) to choose.", stacklevel=3)
            return float(self.reward_on_incomplete or 0.0)
        return (1.0 if result.passed else 0.0) if self.reward_mode == "binary" else result.score

    def regrade(self) -> Grade:
        """Grade the ended episode again (after a judge failure: verdicts already given are cached)."""
        if not self._done or self.world is None:
            raise OfficesimError("regrade() needs an ended episode")
        self.grade = self._grade()
        return self.grade

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
        if value is not None and len(value) > MAX_ANSWER:
            return InvalidArgument(f"answer is {len(value):,} characters; an answer holds at most {MAX_ANSWER:,}. "
                                   "Give the result itself, and put long material in a doc").to_result(), False
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
