"""A small progress bar with rate and ETA for long runs, written to stderr.

On a terminal it redraws one line at most a few times a second; when stderr is a file or a
pipe (CI logs) it prints a plain line every ``log_every`` seconds instead, so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def format_duration(seconds: float) -> str:
    """``1h02m``, ``3m07s`` or ``12s``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


class Progress:
    """Counts finished items of a known total and reports rate and time left.

    Args:
        total: items to do in this session (already-done items are not counted).
        label: a word in front of the bar (e.g. ``run``).
        stream: where to write; default stderr.
        enabled: False silences it entirely (tests, ``--quiet``).
        log_every: seconds between plain lines when the stream is not a terminal.
    """

    def __init__(self, total: int, *, label: str = "", stream: TextIO | None = None, enabled: bool = True,
                 log_every: float = 15.0) -> None:
        self.total = total
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0
        self.log_every = log_every
        self.done = 0
        self.extra = ""
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def advance(self, count: int = 1, extra: str = "") -> None:
        """Mark ``count`` items done; ``extra`` is a short status shown after the ETA."""
        self.done += count
        self.extra = extra or self.extra
        now = time.monotonic()
        interval = 0.2 if self._tty else self.log_every
        if self.done >= self.total or now - self._last_draw >= interval:
            self._draw(now)

    def line(self, now: float | None = None) -> str:
        """The current status line (without carriage return)."""
        now = time.monotonic() if now is None else now
        elapsed = now - self._started
        fraction = self.done / self.total if self.total else 1.0
        width = 24
        filled = int(width * fraction)
        bar = "#" * filled + "." * (width - filled)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        # The first items include start-up costs; an ETA from them would be wildly off.
        settled = elapsed >= 3 or self.done >= max(1, self.total // 20)
        eta_text = format_duration((self.total - self.done) / rate) if rate > 0 and settled else "?"
        text = (f"{self.label} [{bar}] {self.done}/{self.total} {100 * fraction:3.0f}% "
                f"{rate:.1f}/s elapsed {format_duration(elapsed)} ETA {eta_text}")
        return f"{text} {self.extra}".rstrip()

    def _draw(self, now: float) -> None:
        if not self.enabled:
            return
        self._last_draw = now
        if self._tty:
            self.stream.write("\r\033[K" + self.line(now))
        else:
            self.stream.write(self.line(now) + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Finish the line on a terminal."""
        if self.enabled and self._tty:
            self.stream.write("\n")
            self.stream.flush()
