"""Tasks as plain records and transcripts as rewards: the two things any trainer needs, no new dependency.

``task_records`` gives one dict per task: the prompt messages (the system prompt the ``openai``
agent uses, naming the employee the model acts as, then the instruction), the tool list as JSON
text, and metadata for sampling and reporting (id, group, category, difficulty, family).  Nothing
from the grader or the solution is in them.  ``datasets.Dataset.from_list(records)`` (or a
verifiers / TRL dataset) takes them as they are; ``tools`` is JSON text because tool schemas
differ from task to task, which column stores such as Arrow cannot hold as one nested type.

Over a ``TaskSampler`` (``task_records(sampler, draws=N)``) the records are the sampler's first
``N`` instances, and their ``task_dir`` is the instance's sample reference
(``officesim-sample:...``), which ``TranscriptScorer`` rebuilds byte for byte: no folders anywhere.

``score_transcript`` is the reward of a finished rollout: it replays the transcript's assistant
tool calls on the task's start state (``officesim.replay``) and grades the world they reach, so the
reward comes from the world, never from what the transcript claims the tools returned.
``TranscriptScorer`` does the same for many tasks, keeping recently used ones loaded, and can be
called with lists in the shape of TRL's custom reward functions (prompts, completions, and the
dataset's ``task_dir`` column).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from officesim.agents.openai_agent import DEFAULT_SYSTEM_PROMPT, describe_user
from officesim.env import OfficeEnv, RewardMode
from officesim.errors import OfficesimError
from officesim.grading.judge import Judge, JudgeConfig, make_judge
from officesim.grading.scoring import Grade
from officesim.pipeline.split import split_tasks
from officesim.replay import replay, tool_calls
from officesim.sampler import REF_PREFIX, TaskSampler, rebuild
from officesim.task import Task, find_tasks, load_task

SplitName = Literal["all", "train", "heldout"]
Messages = Sequence[Mapping[str, Any]]


def task_record(task: Task, *, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
                task_dir: str | None = None) -> dict[str, Any]:
    """One task as a plain dict: prompt messages, tools JSON, and metadata the model is not shown.

    Args:
        task: a loaded task.
        system_prompt: a template whose ``{user}`` becomes the acting employee; ``None`` leaves
            the system message out (the prompt is then the instruction alone, as in ``OfficeEnv``).
        task_dir: what the ``task_dir`` column holds (default: the task's folder; a sampled
            instance's sample reference).
    """
    prompt: list[dict[str, str]] = []
    if system_prompt is not None:
        prompt.append({"role": "system", "content": system_prompt.replace("{user}", describe_user(task.user_info()))})
    prompt.append({"role": "user", "content": task.instruction})
    return {
        "task_id": task.id,
        "task_dir": task_dir if task_dir is not None else str(task.dir.resolve()),
        "prompt": prompt,
        "tools": json.dumps(task.tools_json(), ensure_ascii=False),
        "max_steps": task.max_steps,
        "group": task.group,
        "category": task.category,
        "difficulty": task.difficulty,
        "family": task.family,
    }


def task_records(tasks_dir: str | Path | TaskSampler, *, split: SplitName = "all", heldout: float = 0.2,
                 split_seed: int = 0, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
                 draws: int | None = None) -> list[dict[str, Any]]:
    """A record (``task_record``) for every task folder at or under ``tasks_dir``, sorted by folder.

    Args:
        tasks_dir: a task folder or a directory of them (the library, or a delivery's ``tasks/``);
            or a ``TaskSampler``: the records of its stream's first ``draws`` instances (held-out
            pairs are the sampler's ``exclude``, so ``split`` must be ``"all"``).
        split: ``"all"``, or one side of the split ``officesim deliver`` makes (``split_tasks``:
            by group and near twin found by content, sized to the request, covering families and
            categories first), so near twins never straddle it.
            A delivery's ``tasks/`` and ``heldout/`` folders are already split; use ``"all"`` there.
        heldout: the share of tasks held out (``officesim deliver --heldout``).
        split_seed: the split seed (``officesim deliver --split-seed``).
        system_prompt: see ``task_record``.
        draws: how many instances to take from a sampler (required with one, not allowed without).
    """
    if split not in ("all", "train", "heldout"):
        raise OfficesimError(f"split must be 'all', 'train' or 'heldout', not {split!r}")
    if isinstance(tasks_dir, TaskSampler):
        if draws is None or isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
            raise OfficesimError(f"task_records(sampler, draws=N) needs a positive whole number, not {draws!r}")
        if split != "all":
            raise OfficesimError("a sampler is not split: hold pairs out with TaskSampler(exclude=...) and use "
                                 "split='all'")
        return [task_record(drawn.task, system_prompt=system_prompt, task_dir=str(drawn.ref))
                for drawn in tasks_dir.take(draws)]
    if draws is not None:
        raise OfficesimError("draws= is for a TaskSampler; a folder's records are all its tasks")
    tasks = [load_task(path) for path in find_tasks([tasks_dir])]
    if split != "all":
        sides, _ = split_tasks(tasks, heldout, split_seed)
        keep = set(sides.train if split == "train" else sides.heldout)
        tasks = [task for task in tasks if task.id in keep]
    records = []
    for task in tasks:
        records.append(task_record(task, system_prompt=system_prompt))
        task.release()  # user_info built its start state; do not hold hundreds of them at once
    return records


def _reward(grade: Grade, mode: RewardMode) -> float:
    return (1.0 if grade.passed else 0.0) if mode == "binary" else float(grade.score)


class TranscriptScorer:
    """Rewards of finished transcripts, replayed on their tasks; the most recently used tasks stay loaded.

    Args:
        judge: a ``JudgeConfig`` or ``Judge`` for judge criteria; ``None`` leaves them unjudged.
        reward: ``"score"`` (the rubric score) or ``"binary"`` (1.0 when passed).
        cache_size: how many tasks stay loaded (each holds its start state, a few MB on acme).
    """

    def __init__(self, *, judge: Judge | JudgeConfig | None = None, reward: RewardMode = "score",
                 cache_size: int = 8) -> None:
        if reward not in ("score", "binary"):
            raise OfficesimError(f"reward must be 'score' or 'binary', not {reward!r}")
        self.judge = make_judge(judge)
        self.reward_mode: RewardMode = reward
        self.cache_size = max(1, cache_size)
        self.__name__ = "officesim"  # trainers log reward functions by name
        self._envs: OrderedDict[Path | str, tuple[OfficeEnv, bool]] = OrderedDict()

    def grade(self, task: Task | str | Path, messages: Messages) -> Grade:
        """The grade of replaying ``messages``' assistant tool calls on ``task`` (a ``Task``, its folder, or
        a sampled instance's reference, ``officesim-sample:...``).

        Tool results in ``messages`` are ignored; calls after the episode ended (a submit, the
        step budget) are too.  A transcript that never submits is graded as ended there, with no
        answer; one with no tool calls at all is the do-nothing episode.
        """
        grade, _ = replay(self._env(task), tool_calls(messages))
        return grade

    def score(self, task: Task | str | Path, messages: Messages) -> float:
        """The reward of ``messages`` on ``task``: the grade's score, or 1.0/0.0 for passed with ``reward="binary"``."""
        return _reward(self.grade(task, messages), self.reward_mode)

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], task_dir: Sequence[str | Path],
                 **kwargs: Any) -> list[float]:
        """Rewards of a batch: completion ``i`` (chat messages) on ``task_dir[i]``.

        Prompt messages are prepended when they are a list, so tool calls made in a prompt (a
        rollout resumed mid-way) count too.  A completion must be chat messages: plain text has no
        tool calls to replay.
        """
        if not len(prompts) == len(completions) == len(task_dir):
            raise OfficesimError(f"got {len(prompts)} prompts, {len(completions)} completions and "
                                 f"{len(task_dir)} task_dir values; they must match one to one")
        rewards = []
        for prompt, completion, folder in zip(prompts, completions, task_dir, strict=True):
            if not isinstance(completion, list):
                raise OfficesimError("a completion must be a list of chat messages with tool calls, not "
                                     f"{type(completion).__name__}; officesim scores tool calls, not text")
            history = list(prompt) if isinstance(prompt, list) else []
            rewards.append(self.score(folder, [*history, *completion]))
        return rewards

    def close(self) -> None:
        """Close every loaded task's episode world and drop the tasks."""
        for key in list(self._envs):
            self._drop(key)

    def _env(self, task: Task | str | Path) -> OfficeEnv:
        sampled = isinstance(task, str) and task.startswith(REF_PREFIX)
        key: Path | str = task if isinstance(task, str) and sampled else (
            task.dir if isinstance(task, Task) else Path(task)).resolve()
        cached = self._envs.get(key)
        if cached is not None and (not isinstance(task, Task) or cached[0].task is task):
            self._envs.move_to_end(key)
            return cached[0]
        if cached is not None:  # another Task object for the same folder: play the one given
            self._drop(key)
        # a sampled instance is rebuilt from its reference, byte for byte
        loaded = task if isinstance(task, Task) else rebuild(str(task)).task if sampled else load_task(key)
        env = OfficeEnv(loaded, judge=self.judge)
        self._envs[key] = (env, not isinstance(task, Task))
        while len(self._envs) > self.cache_size:
            self._drop(next(iter(self._envs)))
        return env

    def _drop(self, key: Path | str) -> None:
        env, owned = self._envs.pop(key)
        if env.world is not None:
            env.world.close()
        if owned:  # a Task the caller passed in is theirs to keep warm
            env.task.release()


def score_transcript(task: Task | str | Path, messages: Messages, *, judge: Judge | JudgeConfig | None = None,
                     reward: RewardMode = "score") -> float:
    """The reward of a finished transcript (OpenAI chat messages) on a task, by replaying its tool calls.

    Args:
        task: a task folder or a loaded ``Task`` (pass a ``Task``, or use a ``TranscriptScorer``,
            when scoring many transcripts: a folder is loaded again on every call).
        messages: the episode's messages; only assistant ``tool_calls`` are read.
        judge: for judge criteria; ``None`` leaves them unjudged.
        reward: ``"score"`` or ``"binary"``.

    Returns:
        The grade's score in [0, 1] (or 1.0/0.0 for passed with ``reward="binary"``): 1.0 for the
        reference solution, typically 0.0 for an empty transcript.
    """
    scorer = TranscriptScorer(judge=judge, reward=reward, cache_size=1)
    try:
        return scorer.score(task, messages)
    finally:
        scorer.close()
