"""pass@k, pass^k, intervals and the per-slice summary, against hand-computed values."""

from __future__ import annotations

import pytest

from officesim.pipeline.metrics import (
    bootstrap_interval,
    group_stats,
    pass_at_k,
    pass_hat_k,
    summarize,
    task_stats,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (10, 3, 1, 0.3),            # pass@1 is the plain rate
        (5, 2, 2, 1 - 3 / 10),      # 1 - C(3,2)/C(5,2)
        (5, 1, 3, 1 - 4 / 10),      # 1 - C(4,3)/C(5,3)
        (3, 1, 3, 1.0),             # fewer failures than k: some draw always passes
        (4, 0, 2, 0.0),
        (16, 8, 4, 1 - 70 / 1820),  # 1 - C(8,4)/C(16,4)
    ],
)
def test_pass_at_k_matches_hand_computed_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (10, 3, 1, 0.3),
        (5, 2, 2, 1 / 10),          # C(2,2)/C(5,2)
        (5, 4, 3, 4 / 10),          # C(4,3)/C(5,3)
        (4, 4, 3, 1.0),
        (3, 1, 3, 0.0),
        (16, 8, 4, 70 / 1820),
    ],
)
def test_pass_hat_k_is_the_chance_that_all_k_pass(n: int, c: int, k: int, expected: float) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(expected)


def test_k_larger_than_n_is_rejected() -> None:
    with pytest.raises(ValueError, match="k=5"):
        pass_at_k(4, 1, 5)
    with pytest.raises(ValueError, match="passes"):
        pass_hat_k(4, 5, 1)


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 0.25, 0.5, 1.0, 1.0, 0.0, 0.75]
    first = bootstrap_interval(values)
    assert first == bootstrap_interval(values)
    assert first[0] <= sum(values) / len(values) <= first[1]
    assert bootstrap_interval([0.4]) == (0.4, 0.4)


def _records(task: str, outcomes: str, category: str, difficulty: str) -> list[dict]:
    """P = passed, F = failed, E = error (excluded), T = truncated and failed."""
    status = {"P": "ok", "F": "ok", "E": "error", "T": "truncated"}
    return [
        {"task": task, "attempt": i, "status": status[o], "passed": o == "P" if o != "E" else None,
         "score": (1.0 if o == "P" else 0.5 if o == "F" else 0.0) if o != "E" else None,
         "category": category, "difficulty": difficulty}
        for i, o in enumerate(outcomes)
    ]


def test_summary_per_task_category_difficulty_and_overall() -> None:
    records = (_records("a", "PPPP", "finance", "easy") + _records("b", "PFFE", "finance", "hard")
               + _records("c", "FFTF", "sales", "hard"))
    summary = summarize(records, ks=(1, 2, 4))
    a, b, c = summary.tasks["a"], summary.tasks["b"], summary.tasks["c"]
    assert (a.n, a.passed, a.errors) == (4, 4, 0)
    assert (b.n, b.passed, b.errors) == (3, 1, 1)      # the error attempt is not a failure
    assert b.pass1 == pytest.approx(1 / 3)
    assert b.pass_at[2] == pytest.approx(1 - 1 / 3)    # 1 - C(2,2)/C(3,2)
    assert b.pass_hat[2] == 0.0
    assert 4 not in b.pass_at                          # only 3 graded attempts
    assert c.truncated == 1 and c.pass1 == 0.0
    assert c.mean_score == pytest.approx((0.5 + 0.5 + 0.0 + 0.5) / 4)
    finance = summary.categories["finance"]
    assert finance.pass1 == pytest.approx((1 + 1 / 3) / 2)
    assert finance.errors == 1 and finance.attempts == 7
    assert summary.difficulties["hard"].pass1 == pytest.approx((1 / 3 + 0) / 2)
    assert summary.overall.pass1 == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert summary.overall.pass_at[4] == pytest.approx((1.0 + 0.0) / 2)  # only a and c have n >= 4
    low, high = summary.overall.pass1_ci
    assert low <= summary.overall.pass1 <= high
    assert summary.to_dict()["tasks"]["b"]["pass@k"]["2"] == pytest.approx(2 / 3)


def test_task_meta_overrides_record_labels() -> None:
    summary = summarize(_records("a", "PF", "x", "easy"), ks=(1,), task_meta={"a": {"category": "y"}})
    assert list(summary.categories) == ["y"]
    assert summary.tasks["a"].difficulty == "easy"


def test_a_group_of_one_task_reports_its_attempts_interval_not_a_point() -> None:
    records = [{"task": "t", "attempt": a, "passed": a % 2 == 0, "score": float(a % 2 == 0), "status": "ok"}
               for a in range(4)]
    only = task_stats("t", records)
    group = group_stats("solo", [only])
    assert group.pass1 == 0.5
    assert group.pass1_ci == only.pass1_ci == wilson_interval(2, 4)
    assert group.pass1_ci[0] < 0.5 < group.pass1_ci[1]
