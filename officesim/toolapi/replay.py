"""Which tool results (and grades) a code change alters: recorded calls, executed again.

A *trajectory* is the tool calls of one episode: an attempt of a run (its transcript), or the
reference solution of a task (for a task library or a delivery: the reference corpus, regenerated
deterministically from ``solution.yaml``).  Each is replayed with ``officesim.replay`` on its
task's start state under two versions of the code, the *base* and the *head*, and every call's
result is compared field by field:

* ``ok->error`` / ``error->ok``: the call fails where it did not (or the reverse);
* ``field_added`` / ``field_removed``: a field (``files[].owner``) appears or disappears;
* ``changed_type`` / ``changed_value``: a field holds another type or another value.

The base is the results recorded in a run's transcripts, or any git revision (``--against``);
the head is this checkout or another revision.  Both run in subprocesses with their code first
on ``sys.path`` (``officesim.toolapi.worker``), so one command compares any two versions.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from officesim.errors import OfficesimError
from officesim.pipeline.attempts import read_attempts
from officesim.pipeline.runner import load_transcript, read_run_info
from officesim.replay import tool_calls
from officesim.task import SUBMIT, read_yaml
from officesim.toolapi.revision import code_at, run_worker
from officesim.toolapi.surface import canonical_json

KINDS = ("ok->error", "error->ok", "field_added", "field_removed", "changed_type", "changed_value")
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class Trajectory:
    """One episode's calls to replay; ``recorded`` holds the results its transcript saw, if any."""

    key: str
    task: str
    task_dir: Path
    calls: list[dict[str, Any]]
    drift: Any = None
    recorded: list[Any] | None = None
    recorded_grade: tuple[float | None, bool | None] | None = None


@dataclass
class CallDiff:
    """How one call's result differs: change kind -> the fields (list indices folded to ``[]``)."""

    index: int
    tool: str
    kinds: dict[str, list[str]]
    error: str | None = None  # the error a call now returns (for ok->error)


@dataclass
class TrajectoryDiff:
    """One trajectory under base and head."""

    key: str
    task: str
    calls: list[CallDiff] = field(default_factory=list)
    base_grade: tuple[float | None, bool | None] | None = None
    head_grade: tuple[float | None, bool | None] | None = None
    problem: str | None = None  # a side on which the task does not load

    @property
    def grade_changed(self) -> bool:
        return self.base_grade != self.head_grade

    @property
    def changed(self) -> bool:
        return bool(self.calls) or self.grade_changed or self.problem is not None


@dataclass
class ReplayReport:
    """Every trajectory's differences, and their totals."""

    base: str
    head: str
    trajectories: list[TrajectoryDiff]
    calls: int = 0

    def changed(self) -> list[TrajectoryDiff]:
        return [t for t in self.trajectories if t.changed]

    def tasks_changed(self) -> list[str]:
        """Tasks with at least one trajectory whose results or grade changed."""
        return sorted({t.task for t in self.changed()})

    def grade_changes(self) -> list[TrajectoryDiff]:
        return [t for t in self.trajectories if t.grade_changed]

    def by_tool(self) -> dict[str, Counter]:
        """Per tool, how many calls changed in each way."""
        table: dict[str, Counter] = defaultdict(Counter)
        for trajectory in self.trajectories:
            for call in trajectory.calls:
                table[call.tool].update(call.kinds.keys())
        return dict(sorted(table.items()))

    def to_dict(self) -> dict[str, Any]:
        grade = lambda g: None if g is None else {"score": g[0], "passed": g[1]}  # noqa: E731
        return {
            "base": self.base, "head": self.head, "trajectories": len(self.trajectories), "calls": self.calls,
            "tasks_changed": self.tasks_changed(),
            "grade_changes": len(self.grade_changes()),
            "by_tool": {tool: dict(counts) for tool, counts in self.by_tool().items()},
            "changed": [{"key": t.key, "task": t.task, "problem": t.problem, "base_grade": grade(t.base_grade),
                         "head_grade": grade(t.head_grade),
                         "calls": [{"index": c.index, "tool": c.tool, "changes": c.kinds, "error": c.error}
                                   for c in t.calls]} for t in self.changed()],
        }


# ---------------------------------------------------------------- sources of trajectories
def _solution_calls(task_dir: Path) -> list[dict[str, Any]]:
    """A task's reference trajectory: its solution steps, then submit with its answer."""
    data = read_yaml(task_dir / "solution.yaml") or {}
    steps = [{"name": s["name"], "arguments": dict(s.get("arguments") or {})} for s in data.get("steps", [])]
    return [*steps, {"name": SUBMIT, "arguments": {"answer": data.get("answer")}}]


def reference_trajectories(folder: Path) -> list[Trajectory]:
    """The reference corpus of a task library or delivery: every task's solution, in id order."""
    tasks = sorted((p.parent for p in folder.rglob("solution.yaml") if (p.parent / "task.yaml").is_file()),
                   key=lambda p: p.name)
    if (folder / "solution.yaml").is_file():
        tasks = [folder]
    if not tasks:
        raise OfficesimError(f"{folder} holds no task folders with a solution.yaml")
    return [Trajectory(t.name, t.name, t.resolve(), _solution_calls(t)) for t in tasks]


def _recorded_results(transcript: Iterable[Mapping[str, Any]]) -> list[Any]:
    results = []
    for message in transcript:
        if message.get("role") == "tool":
            try:
                results.append(json.loads(message.get("content") or "null"))
            except json.JSONDecodeError:
                results.append(message.get("content"))
    return results


def run_trajectories(run: Path) -> list[Trajectory]:
    """Every attempt of a run folder, with the results its transcript recorded."""
    info = read_run_info(run) or {}
    folders = {k: Path(v) for k, v in (info.get("tasks") or {}).items()}
    trajectories = []
    for record in read_attempts(run):
        if not record.graded or record.task not in folders:
            continue  # no episode to replay (an agent error, a crash) or no known task folder
        transcript = load_transcript(run, record.task, record.attempt)
        trajectories.append(Trajectory(
            f"{record.task}#{record.attempt}", record.task, folders[record.task].resolve(),
            tool_calls(transcript), record.drift, _recorded_results(transcript), (record.score, record.passed)))
    if not trajectories:
        raise OfficesimError(f"{run} holds no replayable attempts (results.jsonl with transcripts and run.json)")
    return trajectories


def trajectories_of(source: Path) -> list[Trajectory]:
    """A run folder's attempts, or the reference trajectories of a delivery, task library or task."""
    if not source.exists():
        raise OfficesimError(f"{source} does not exist; pass a run folder, a delivery or a task folder")
    if (source / "results.jsonl").is_file():
        return run_trajectories(source)
    return reference_trajectories(source)


# ---------------------------------------------------------------- executing and comparing
def execute(trajectories: list[Trajectory], rev: str | None, *, repo: Path | None = None,
            workers: int = 1) -> dict[str, dict[str, Any]]:
    """Each trajectory's results and grade under ``rev`` (None: this checkout), by key."""
    items = [{"key": t.key, "task_dir": str(t.task_dir), "calls": t.calls, "drift": t.drift} for t in trajectories]
    with code_at(rev, repo) as root:
        outputs = run_worker(root, {"mode": "replay", "items": items, "workers": workers})
    return {o["key"]: o for o in outputs}


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaves of a JSON value by path (``files[0].id``); empty containers are leaves."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{index}]"))
        return out
    return {prefix: value}


def _type(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def compare_results(old: Any, new: Any) -> dict[str, list[str]]:
    """How ``new`` differs from ``old``: kind -> fields (indices folded); empty when equal."""
    if old == new:
        return {}
    failed = lambda r: isinstance(r, dict) and "error" in r  # noqa: E731
    if failed(old) != failed(new):
        return {"error->ok" if failed(old) else "ok->error": [""]}
    a, b = flatten(old), flatten(new)
    kinds: dict[str, set[str]] = defaultdict(set)
    for path in a.keys() | b.keys():
        folded = _INDEX.sub("[]", path)
        if path not in a:
            kinds["field_added"].add(folded)
        elif path not in b:
            kinds["field_removed"].add(folded)
        elif _type(a[path]) != _type(b[path]):
            kinds["changed_type"].add(folded)
        elif a[path] != b[path]:
            kinds["changed_value"].add(folded)
    return {kind: sorted(kinds[kind]) for kind in KINDS if kinds.get(kind)}


def _error_text(result: Any) -> str | None:
    if isinstance(result, dict) and isinstance(result.get("error"), dict):
        error = result["error"]
        return f"{error.get('type')}: {error.get('message')}"
    return None


def compare(trajectories: list[Trajectory], base: Mapping[str, dict[str, Any]] | None,
            head: Mapping[str, dict[str, Any]], *, base_label: str, head_label: str) -> ReplayReport:
    """Compare each trajectory's head results with the base (recorded results when ``base`` is None)."""
    report = ReplayReport(base_label, head_label, [])
    for trajectory in trajectories:
        after = head[trajectory.key]
        if base is None:
            before: dict[str, Any]
            before = {"results": trajectory.recorded or [], "score": (trajectory.recorded_grade or (None,))[0],
                      "passed": (trajectory.recorded_grade or (None, None))[1]}
        else:
            before = base.get(trajectory.key) or {"error": "no recorded result (a new trajectory: record it)"}
        diff = TrajectoryDiff(trajectory.key, trajectory.task)
        report.trajectories.append(diff)
        problems = [f"{label}: {side['error']}" for label, side in (("base", before), ("head", after))
                    if "error" in side]
        if problems:
            diff.problem = "; ".join(problems)
            continue
        diff.base_grade = (before.get("score"), before.get("passed"))
        diff.head_grade = (after.get("score"), after.get("passed"))
        old_results, new_results = before["results"], after["results"]
        for index, call in enumerate(trajectory.calls[: max(len(old_results), len(new_results))]):
            report.calls += 1
            old = old_results[index] if index < len(old_results) else {"error": {"type": "not_run"}}
            new = new_results[index] if index < len(new_results) else {"error": {"type": "not_run"}}
            kinds = compare_results(old, new)
            if kinds:
                name = str((call.get("function") or call).get("name"))
                diff.calls.append(CallDiff(index, name, kinds, _error_text(new) if "ok->error" in kinds else None))
    return report


# ---------------------------------------------------------------- rendering
def _grade(grade: tuple[float | None, bool | None] | None) -> str:
    if grade is None or grade[0] is None:
        return "ungraded"
    return f"{'passed' if grade[1] else 'failed'} {grade[0]:.2f}"


def render(report: ReplayReport, *, limit: int = 50) -> str:
    """The readable report: totals, each changed trajectory, and the table by tool and change."""
    changed = report.changed()
    lines = [f"replayed {len(report.trajectories)} trajectories ({report.calls} calls): base {report.base}, "
             f"head {report.head}",
             f"{len(changed)} trajectories in {len(report.tasks_changed())} tasks changed; "
             f"{sum(len(t.calls) for t in changed)} call results differ; {len(report.grade_changes())} grades changed"]
    for trajectory in changed[:limit]:
        head = f"  {trajectory.key}"
        if trajectory.problem:
            lines.append(f"{head}: {trajectory.problem}")
            continue
        grade = (f"grade {_grade(trajectory.base_grade)} -> {_grade(trajectory.head_grade)}"
                 if trajectory.grade_changed else f"grade unchanged ({_grade(trajectory.head_grade)})")
        lines.append(f"{head}: {grade}")
        for call in trajectory.calls:
            parts = []
            for kind, fields in call.kinds.items():
                shown = ", ".join(f for f in fields[:4] if f) + (" ..." if len(fields) > 4 else "")
                parts.append(f"{kind} {shown}".rstrip())
            error = f" ({call.error[:200]})" if call.error else ""
            lines.append(f"    call {call.index} {call.tool}: {'; '.join(parts)}{error}")
    if len(changed) > limit:
        lines.append(f"  ... and {len(changed) - limit} more (--json lists all)")
    table = report.by_tool()
    if table:
        rows = [("tool", *KINDS)] + [(tool, *(str(c.get(k, 0)) for k in KINDS)) for tool, c in table.items()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(KINDS) + 1)]
        lines.append("changed calls by tool and kind:")
        lines += ["  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    if report.tasks_changed():
        lines.append("tasks whose results changed: " + ", ".join(report.tasks_changed()))
    return "\n".join(lines)


# ---------------------------------------------------------------- the recorded reference corpus
def digest(result: Any) -> dict[str, Any]:
    """What the corpus keeps of one tool result: a short content hash, and the error type of a failure."""
    out: dict[str, Any] = {"digest": hashlib.sha256(canonical_json(result).encode()).hexdigest()[:16]}
    if isinstance(result, dict) and isinstance(result.get("error"), dict):
        out["error"] = {"type": result["error"].get("type")}
    return out


def corpus_of(head: Mapping[str, dict[str, Any]], trajectories: list[Trajectory]) -> dict[str, Any]:
    """The corpus entry of every trajectory: per call its tool and result digest, and the grade."""
    entries = {}
    for trajectory in trajectories:
        side = head[trajectory.key]
        if "error" in side:
            entries[trajectory.key] = {"error": side["error"]}
            continue
        names = [str((c.get("function") or c).get("name")) for c in trajectory.calls]
        calls = [[name, digest(r)] for name, r in zip(names, side["results"], strict=False)]
        entries[trajectory.key] = {"score": side["score"], "passed": side["passed"], "calls": calls}
    return {"format": 1, "trajectories": dict(sorted(entries.items()))}


def corpus_text(corpus: Mapping[str, Any]) -> str:
    """A corpus as text with one trajectory per line, so a review diff shows which ones moved."""
    lines = [f"  {json.dumps(key)}: {canonical_json(entry)}" for key, entry in corpus["trajectories"].items()]
    return f'{{"format": {corpus["format"]}, "trajectories": {{\n' + ",\n".join(lines) + "\n}}\n"


def read_corpus(path: Path) -> dict[str, dict[str, Any]]:
    """A recorded corpus as base results: each call's result stands in as its digest."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise OfficesimError(f"{path} is not a reference corpus ({exc}); record one with --record") from None
    base = {}
    for key, entry in (data.get("trajectories") or {}).items():
        if "error" in entry:
            base[key] = {"key": key, "error": entry["error"]}
        else:
            base[key] = {"key": key, "score": entry["score"], "passed": entry["passed"],
                         "results": [d for _, d in entry["calls"]]}
    return base


def as_digests(head: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Head results reduced to digests, to compare with a recorded corpus."""
    return {key: side if "error" in side else {**side, "results": [digest(r) for r in side["results"]]}
            for key, side in head.items()}
