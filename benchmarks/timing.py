"""Tiny timing helpers shared by the benchmark scripts (medians, not means: the machine is noisy)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(func: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """Median wall time of ``number`` calls of ``func``, over ``repeat`` rounds, per call."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def fmt_us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us"


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f} ms"
