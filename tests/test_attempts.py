"""Attempt records: results.jsonl read as typed models in one place, with one rule for broken lines."""

from __future__ import annotations

import json
from pathlib import Path

from officesim.pipeline.attempts import Attempt, as_attempts, read_attempts
from officesim.pipeline.metrics import summarize
from officesim.pipeline.runner import read_results


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_broken_lines_are_skipped_and_a_rerun_attempt_wins(tmp_path: Path) -> None:
    first = {"task": "t", "attempt": 0, "status": "error", "error": "crash", "crash": "Traceback ...\nBoom"}
    rerun = {"task": "t", "attempt": 0, "status": "ok", "score": 1.0, "passed": True, "model": "m-1"}
    other = {"task": "a", "attempt": 1, "status": "truncated", "score": 0.25, "passed": False}
    path = _write(tmp_path / "results.jsonl", [
        json.dumps(first), '{"task": "t", "attem', json.dumps({"task": "x"}), "[1, 2]",
        json.dumps({"task": "x", "attempt": 0, "score": "high"}),  # a wrong type is not an attempt either
        json.dumps(other), json.dumps(rerun)])
    attempts = read_attempts(tmp_path)  # a run folder or the file itself
    assert attempts == read_attempts(path)
    assert [a.key for a in attempts] == [("a", 1), ("t", 0)]
    assert attempts[1].passed is True and attempts[1].crash is None and attempts[1].graded
    assert attempts[1].model_extra == {"model": "m-1"}  # fields officesim does not know survive
    assert read_results(path) == [other, rerun]  # the plain view for scripts: the same lines


def test_an_error_attempt_counts_for_nothing_in_the_metrics() -> None:
    records = [{"task": "t", "attempt": 0, "status": "ok", "score": 1.0, "passed": True},
               Attempt(task="t", attempt=1, status="error", error="agent failed"),
               {"task": "t", "attempt": 2, "status": "ok", "score": 0.5, "passed": False}]
    assert [a.graded for a in as_attempts(records)] == [True, False, True]
    stats = summarize(records, ks=(1,)).tasks["t"]
    assert (stats.n, stats.passed, stats.errors, stats.mean_score) == (2, 1, 1, 0.75)
