"""``OfficeEnv``: one task as a Gymnasium-style episode of tool calls.

``reset`` restores the task's cached start snapshot (one ``deserialize``; nothing else, since RL
runs millions of episodes); ``step`` runs one tool call through the registry, restricted to the
task's tools plus the built-in ``submit``.  The reward is 0 until the episode ends, then the
grade's score (or ``passed`` as 0/1 with ``options={"reward": "binary"}``).  The model only ever
sees the instruction, the tool list, its own identity and tool results: never metadata, the
grader or the solution.

Over a ``TaskSampler`` (``OfficeEnv(sampler)``) every ``reset(seed=s)`` draws the instance for
``s`` (the same task for the same seed: the Gymnasium meaning of the seed) and plays it;
``reset()`` without a seed takes the next instance of the sampler's own seeded stream.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from officesim.colleagues import Office
from officesim.errors import InvalidArgument, OfficesimError
from officesim.grading.judge import Judge, JudgeConfig, make_judge
from officesim.grading.scoring import Grade, grade
from officesim.revisions import feedback, revision_options
from officesim.task import SUBMIT, Task
from officesim.toolapi.drift import Drift, make_drift
from officesim.toolexport import MAX_WAIT_MINUTES, WAIT
from officesim.tools import dispatch, episode_registry, parse_arguments, validate_call
from officesim.world import World

if TYPE_CHECKING:
    from officesim.sampler import SampledTask, TaskSampler

RewardMode = Literal["score", "binary"]


# The transcript's JSON, by one encoder: ``json.dumps`` with options builds a new encoder on every
# call, which costs as much as encoding a short result.
_TO_JSON = json.JSONEncoder(ensure_ascii=False, default=str).encode


def tool_exchange(call_id: str, name: str, arguments: str, result: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """One tool call and its result as a transcript records them (OpenAI chat messages).

    The one shape for every transcript officesim writes (episodes, and the references the task writer
    grades), so the checks that read a transcript read the same thing in both.
    """
    call = {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]}
    return call, {"role": "tool", "tool_call_id": call_id, "content": result}


def transcript_json(value: Any) -> str:
    """``value`` as a transcript holds it: JSON, non-ASCII kept as written, anything else as its ``str``."""
    return _TO_JSON(value)


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


NO_ANSWER_TEXTS = frozenset({"", "null", "none"})


def _means_no_answer(text: str) -> bool:
    """Whether a submitted string is a spelled-out null: ``"null"``, ``"None"`` or blank.

    Models that serialise arguments badly send ``{"answer": "null"}`` for JSON null; graded as
    text it would fail a task that asks for no answer and could pass as an answer of "null".
    """
    return text.strip().lower() in NO_ANSWER_TEXTS


def is_harness(item: Any) -> bool:
    """Whether a transcript message or an action was made by officesim's harness, not the model.

    The openai agent submits for a model that keeps replying with text, and the env notes when it
    stops an episode; such messages (and actions) carry ``"officesim": {"actor": "harness"}``.
    """
    marker = item.get("officesim") if isinstance(item, Mapping) else None
    return isinstance(marker, Mapping) and marker.get("actor") == "harness"


def _canonical(arguments: Any) -> str:
    """One text per distinct argument value: JSON with sorted keys (strings parsed when they are JSON)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return arguments.strip()
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


class OfficeEnv:
    """A task as an episode: ``reset`` then ``step`` until ``terminated`` (submit) or ``truncated``.

    Args:
        task: a loaded task (``officesim.load_task``), or a ``TaskSampler``: each reset then draws
            the instance of its seed (``self.task`` is ``None`` until the first reset).
        judge: a ``JudgeConfig`` or ``Judge`` for judge criteria; ``None`` leaves them unjudged.
        stop_after_repeats: end the episode after this many identical failing calls in a row
            (same tool, same arguments, an error each time); ``None`` plays the whole step budget.
            A stopped episode is ``truncated``, graded as it stands, and says so in ``info["stopped"]``
            and in a harness message of the transcript.
        drift: serve a seeded perturbation of the tool surface (``officesim.toolapi.drift``): a
            seed or ``{"seed", "kinds"}``; ``reset(options={"drift": ...})`` overrides it.

    Attributes:
        world: the episode's world (inspect it after the end; ``reset`` rolls it back in place).
        transcript: the episode as OpenAI chat messages (user instruction, assistant tool calls,
            tool results).
        grade: the final ``Grade`` once the episode ended, else ``None``.
        sampled: the ``SampledTask`` of the current episode over a sampler, else ``None``.
    """

    def __init__(self, task: Task | TaskSampler, *, judge: Judge | JudgeConfig | None = None,
                 stop_after_repeats: int | None = None, drift: Any = None,
                 reward_on_incomplete: float | None = None) -> None:
        """See the class docstring; ``reward_on_incomplete`` is the final reward of an ``incomplete``
        grade (a judge that failed; never passed).  ``None`` gives 0.0 and warns once, so an RL caller
        decides knowingly.
        """
        if stop_after_repeats is not None and (isinstance(stop_after_repeats, bool) or
                                               not isinstance(stop_after_repeats, int) or stop_after_repeats < 2):
            raise OfficesimError(f"stop_after_repeats must be a whole number of at least 2 (or None), "
                                 f"not {stop_after_repeats!r}")
        self.sampler: TaskSampler | None = None if isinstance(task, Task) else task
        self.sampled: SampledTask | None = None
        self._draws = 0  # instances taken from the sampler's stream by resets without a seed
        self.task: Task = task if isinstance(task, Task) else None  # type: ignore[assignment]
        self.stop_after_repeats = stop_after_repeats
        self.stopped: dict[str, Any] | None = None
        self._failing: tuple[str, str] | None = None  # the last failing call, and how often in a row
        self._failing_count = 0
        self.judge = make_judge(judge)
        self.drift_option = drift
        self.drift: Drift | None = None
        self.reward_on_incomplete = reward_on_incomplete
        self._warned_incomplete = False
        self._allowed = frozenset(self.task.tools) if self.task is not None else frozenset()
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
        self.office: Office | None = None  # the task's colleagues and timed events, when it has any
        # per task version: the messages its start state already holds (what colleagues ignore)
        self._office_history: dict[str, frozenset[str]] = {}

    # ------------------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode from the task's start state.

        For one task ``seed`` is accepted for Gymnasium compatibility and recorded in ``info``; the
        world is fixed by the task (its solution's ids are literal), so it does not change the
        episode.  Over a sampler, ``seed`` picks the instance (``TaskSampler.sample(seed)``) and
        ``info`` names it (``sample``: family, world, group, reference); ``None`` takes the next
        instance of the sampler's stream.
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
        if self.sampler is not None:
            self._draw(seed)
        self.drift = make_drift((options or {}).get("drift", self.drift_option), self.task)
        # The world is rolled back in place: SQLite keeps its parsed schema and the prepared
        # statements stay warm, which makes a reset ~10x cheaper than a fresh connection; on the
        # same task only the rows the last episode touched are put back from the start world that
        # grading reads anyway (``World.rewind``).  Inspect (or ``World.restore(env.world.snapshot())``)
        # the previous episode's world before this.
        if self.world is None:
            self.world = World.restore(self.task.start_snapshot())
        else:
            self.world.reset(self.task.start_snapshot(), origin=self.task.start_world())
        self.transcript = [{"role": "user", "content": self.task.instruction}]
        spec = self.task.spec
        self.office = None
        if spec.colleagues or spec.events:
            self.office = Office(list(spec.colleagues), list(spec.events), self.world,
                                 history=self._office_history.get(self.task.task_hash))
            self._office_history.setdefault(self.task.task_hash, frozenset(self.office.seen))
        self.grade = None
        self.answer = None
        self.steps = 0
        self.stopped = None
        self._failing, self._failing_count = None, 0
        self._done = False
        info: dict[str, Any]
        info = {"task_id": self.task.id, "task_hash": self.task.task_hash, "grader_hash": self.task.grader_hash,
                "seed": seed}
        if self.drift is not None:
            info["drift"] = self.drift.changes
        if self.sampled is not None:
            info["sample"] = {"seed": self.sampled.seed, "family": self.sampled.family, "world": self.sampled.world,
                              "group": self.sampled.group, "ref": str(self.sampled.ref)}
        return self._obs(None), info

    def _draw(self, seed: int | None) -> None:
        """Take this episode's instance from the sampler: the one of ``seed``, else the stream's next."""
        if self.sampler is None:
            raise OfficesimError("only an OfficeEnv over a TaskSampler draws instances")
        if seed is None:
            seed = self.sampler.seed_of(self._draws)
            self._draws += 1
        self.sampled = self.sampler.sample(seed)
        self.task = self.sampled.task
        self._allowed = frozenset(self.task.tools)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        """Run one tool call (or ``submit``); returns ``(obs, reward, terminated, truncated, info)``."""
        if self._done or self.world is None:
            raise OfficesimError("the episode is over (or was never started); call reset() first")
        name, raw_arguments, call_id = parse_action(action)
        self.steps += 1
        call_id = call_id or f"call_{self.steps}"
        revised: Grade | None = None  # this submit's grade, in revision mode
        if name == WAIT and self.office is not None:
            result = self._wait(raw_arguments)
            submitted = False
        elif name == SUBMIT:
            result, submitted = self._submit(raw_arguments)
            if submitted and self.revisions_left > 0 and self.steps < self.task.max_steps:
                revised = self._grade()
                self.attempts.append(revised)
                if not revised.passed:
                    self.revisions_left -= 1
                    result, submitted = self._still_wrong(revised), False
        elif self.drift is not None:  # the drifted surface, translated back to the real tools
            result, submitted = self.drift.call(self.world, name, raw_arguments, self._allowed), False
        else:
            result, submitted = dispatch(self.world, name, raw_arguments, allowed=self._allowed), False
        if self.office is not None and name not in (WAIT, SUBMIT):
            self.office.after_step(self.world)
        self._record(call_id, name, raw_arguments, result, harness=is_harness(action))
        info: dict[str, Any] = {"step": self.steps, "tool": name, "error": "error" in result}
        if self.office is not None:
            info["colleagues"] = list(self.office.log)
        terminated = submitted
        truncated = not submitted and self.steps >= self.task.max_steps
        if not submitted and self._repeated_failure(name, raw_arguments, result):
            truncated = True
            info["stopped"] = self.stopped
        reward = 0.0
        if terminated or truncated:
            self._done = True
            if revised is None:
                self.attempts.append(self._grade())
            self.grade = self.attempts[-1]
            info["grade"] = self.grade
            info["attempts"] = list(self.attempts)
            reward = self._reward(self.grade) * self.revision_discount ** (len(self.attempts) - 1)
        elif revised is not None:
            info["revision"] = {"attempt": len(self.attempts), "grade": revised}
        return self._obs(result), reward, terminated, truncated, info

    def may_end(self, name: str) -> bool:
        """Whether a step calling ``name`` may end the episode, and so grade it (a judge may be asked).

        Conservative: ``submit``, the last step of the budget, or any call while a streak of
        identical failing calls is one short of ``stop_after_repeats``.  Servers run the steps that
        cannot end the episode apart from those that may (see ``may_ask_judge``).
        """
        if name == SUBMIT or self.steps + 1 >= self.task.max_steps:
            return True
        return self.stop_after_repeats is not None and self._failing_count + 1 >= self.stop_after_repeats

    def may_ask_judge(self, name: str) -> bool:
        """Whether a step calling ``name`` may wait on the LLM judge: it may end the episode (and so
        grade it), a judge is configured, and the task's grader has judged checks."""
        if self.judge is None or not self.may_end(name):
            return False
        grader = self.task.grader
        return any(check.check == "judge" for check in (*grader.gates, *grader.criteria))

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
        twin.office = copy.deepcopy(self.office)
        return twin

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
    def _wait(self, raw_arguments: Any) -> dict[str, Any]:
        """The built-in ``wait``: let simulated time pass (colleagues answer, timed events happen)."""
        if self.office is None or self.world is None:
            raise OfficesimError("wait needs a started episode of a task with colleagues or timed events")
        try:
            arguments = parse_arguments(raw_arguments)
        except InvalidArgument as err:
            return err.to_result()
        minutes = arguments.get("minutes")
        if set(arguments) != {"minutes"} or isinstance(minutes, bool) or not isinstance(minutes, int) or not (
                1 <= minutes <= MAX_WAIT_MINUTES):
            return InvalidArgument(f"wait takes only 'minutes', a whole number from 1 to {MAX_WAIT_MINUTES}, e.g. "
                                   "wait(minutes=30)").to_result()
        before = len(self.office.log)
        self.office.after_step(self.world, minutes=minutes)
        arrived = sum("from" in entry for entry in self.office.log[before:])
        return {"waited_minutes": minutes, "now": self.world.now_ts(), "new_messages": arrived}

    def _still_wrong(self, attempt: Grade) -> dict[str, Any]:
        """What a submit that did not pass tells the agent in revision mode (no expected values)."""
        return {"status": "not accepted", "still_wrong": feedback(attempt), "revisions_left": self.revisions_left,
                "steps_left": self.task.max_steps - self.steps}

    def _submit(self, raw_arguments: Any) -> tuple[dict[str, Any], bool]:
        """``submit``, checked by the registry like any tool call (a bare number is a fine answer)."""
        spec = episode_registry()[SUBMIT]
        try:
            arguments = parse_arguments(raw_arguments)
            value = arguments.get("answer")
            if isinstance(value, int | float) and not isinstance(value, bool):
                arguments = {**arguments, "answer": str(value)}
            kwargs = validate_call(spec, arguments)
        except InvalidArgument as err:
            return err.to_result(), False
        result = spec.func(self.world, **kwargs)
        answer = kwargs.get("answer")
        self.answer = None if answer is None or _means_no_answer(answer) else answer
        return result, True

    def _repeated_failure(self, name: str, raw_arguments: Any, result: dict[str, Any]) -> bool:
        """Count identical failing calls in a row; True (and ``self.stopped`` set) when the limit is hit."""
        if self.stop_after_repeats is None:
            return False
        if "error" not in result:
            self._failing, self._failing_count = None, 0
            return False
        key = (name, _canonical(raw_arguments))
        self._failing_count = self._failing_count + 1 if key == self._failing else 1
        self._failing = key
        if self._failing_count < self.stop_after_repeats:
            return False
        self.stopped = {"reason": "repeated_failing_call", "repeats": self._failing_count, "tool": name,
                        "error": result["error"].get("type") if isinstance(result["error"], Mapping) else None}
        self.transcript.append({
            "role": "user",
            "content": f"[officesim] The episode was stopped after {self._failing_count} identical failing "
                       f"calls of {name} in a row (stop_after_repeats={self.stop_after_repeats}); it is graded "
                       "as it stands.",
            "officesim": {"actor": "harness", "event": "stopped", **self.stopped},
        })
        return True

    def _record(self, call_id: str, name: str, arguments: Any, result: dict[str, Any], *,
                harness: bool = False) -> None:
        text = arguments if isinstance(arguments, str) else _TO_JSON(arguments or {})
        if not _encodable(text):  # lone surrogates (rejected by the tool) must not make the transcript unwritable
            text = (arguments.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(arguments, str)
                    else json.dumps(arguments, default=str))
        if not _encodable(name):
            name = name.encode("utf-8", "backslashreplace").decode("utf-8")
        call, answer = tool_exchange(call_id, name, text, _TO_JSON(result))
        if harness:  # the agent's harness made this call, not the model: say so (training data drops it)
            call["officesim"], answer["officesim"] = {"actor": "harness"}, {"actor": "harness"}
        self.transcript += [call, answer]

    def _grade(self) -> Grade:
        if self.world is None:
            raise OfficesimError("no episode to grade")
        verdict = grade(self.task, self.task.start_world(), self.world, self.answer, self.transcript, self.judge)
        if self.office is None or not self.office.log:
            return verdict
        said = [f"{e['at']} {e['from']} ({e['via']}{', auto-reply' if e['auto_reply'] else ''}): {e['text'][:200]}"
                if "from" in e else f"{e['at']} timed event {e['event']} happened" for e in self.office.log]
        return verdict.model_copy(update={"notes": [*verdict.notes, *said]})

    def _obs(self, result: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "instruction": self.task.instruction,
            "tools": self.drift.tools if self.drift is not None else self.task.tools_json(),
            "user": self.task.user_info(),
            "max_steps": self.task.max_steps,
            "steps_left": self.task.max_steps - self.steps,
            "result": result,
        }


class AgentRun:
    """The one agent loop: reset, let the agent act until the episode ends, show it the last result.

    Every way officesim plays an agent goes through it (``play`` here, ``episode.run_episode`` for
    runs and calibration), so the rules (when an episode ends, what the agent is shown) are one
    piece of code.  Its fields stay readable when the agent raises half-way (``steps`` so far).
    """

    def __init__(self, env: Any, agent: Any, *, seed: int = 0, options: dict[str, Any] | None = None,
                 max_actions: int | None = None) -> None:
        self.env, self.agent, self.seed, self.options = env, agent, seed, options
        self.max_actions = max_actions
        self.steps = 0
        self.obs: dict[str, Any] = {}
        self.info: dict[str, Any] = {}
        self.truncated = False

    def run(self) -> AgentRun:
        """Play the episode; ``truncated`` when the budget (or ``max_actions``) ended it, not ``submit``.

        ``max_actions`` bounds envs without a step budget (default: the env's ``max_steps`` + 1,
        so the env's own truncation always comes first).
        """
        self.obs, self.info = self.env.reset(seed=self.seed, options=self.options)
        limit = self.max_actions if self.max_actions is not None else int(self.obs.get("max_steps") or 1000) + 1
        self.agent.reset(self.obs, seed=self.seed)
        while True:
            self.obs, _, terminated, truncated, self.info = self.env.step(self.agent.act(self.obs))
            self.steps += 1
            if terminated:
                break
            if truncated or self.steps >= limit:
                self.truncated = True
                break
        end = getattr(self.agent, "end", None)
        if callable(end):
            end(self.obs)  # agents that keep their own history record the last result
        return self


def play(env: OfficeEnv, agent: Any, *, seed: int = 0, options: dict[str, Any] | None = None) -> Grade:
    """Run ``agent`` (see ``officesim.agents.base.Agent``) for one episode; returns the grade."""
    grade_: Grade = AgentRun(env, agent, seed=seed, options=options).run().info["grade"]
    return grade_
