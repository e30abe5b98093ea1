"""Timing helpers shared by the benchmark scripts (medians, not means: the machine is noisy).

Every benchmark reports CPU time next to wall time (on a shared machine the wall clock also
counts other processes) and the ratio to a bare baseline measured in the same run.  Figures are
collected in a ``Figures`` so that ``--json`` can write them: ``readme_table.py`` regenerates
the README's benchmark table from that file.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def median_seconds(func: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """Median wall time of ``number`` calls of ``func``, over ``repeat`` rounds, per call."""
    return median_times(func, repeat=repeat, number=number)[0]


def median_times(func: Callable[[], object], *, repeat: int = 7, number: int = 1) -> tuple[float, float]:
    """Median (wall, CPU) seconds per call of ``func``: ``number`` calls per round, ``repeat`` rounds."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(number):
            func()
        walls.append((time.perf_counter() - wall) / number)
        cpus.append((time.process_time() - cpu) / number)
    return statistics.median(walls), statistics.median(cpus)


class Clock:
    """Wall and CPU time of a block: ``with Clock() as c: ...`` then ``c.wall``, ``c.cpu``."""

    def __enter__(self) -> Clock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


def fmt_us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us"


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f} ms"


@dataclass
class Figures:
    """The figures of one benchmark run, by key, for ``--json`` and the README table."""

    benchmark: str
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, key: str, value: float, *, what: str, unit: str = "", target: str = "",
            ok: bool | None = None, shown: str | None = None) -> None:
        """Record one figure; ``shown`` is how the README prints it (default: the value and unit)."""
        self.figures[key] = {"value": value, "unit": unit, "what": what, "target": target, "ok": ok,
                             "shown": shown if shown is not None else f"{value:,.3g} {unit}".strip()}

    def write(self, path: str | Path | None) -> None:
        """Merge these figures into the JSON file at ``path`` (other benchmarks' figures are kept)."""
        if path is None:
            return
        target = Path(path)
        data = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
        data[self.benchmark] = {"figures": self.figures, "measured_at": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                     time.gmtime())}
        target.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
