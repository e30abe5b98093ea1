"""The grading caches keyed by texts, in one list: what a never-seen answer has to compute afresh.

Grading keeps some readings of short texts (a sentence's figures, dates, negation markers, sums)
in bounded ``lru_cache``s, because a grader's checks ask them of the same sentences over and over
within one grading.  Across episodes they also hit whenever a text repeats: an oracle replaying its
reference writes the same mail every time, an RL policy rarely does.  ``forget_texts`` empties
them, so that a benchmark can measure grading as a fresh answer costs it, and a long-running
process can let go of the texts it has seen.  The caches keyed by a task's own values (alias
patterns, phone numbers, expected numbers, short cell values) are left alone: they stay warm in any
loop over tasks.
"""

from __future__ import annotations

from collections.abc import Callable

from officesim.grading import claims, facts, normalize, scope

TEXT_CACHES: tuple[Callable[..., object], ...] = (
    claims._kept_dates, claims._kept_figures, claims._excludes, scope._kept_marker, scope._kept_markers,
    facts._kept_plus_runs, normalize._normalized,
)


def forget_texts() -> None:
    """Empty every cache of ``TEXT_CACHES`` (the next grading reads its texts as if never seen)."""
    for cached in TEXT_CACHES:
        cached.cache_clear()  # type: ignore[attr-defined]
