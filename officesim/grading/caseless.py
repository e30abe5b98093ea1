"""Case-insensitive word patterns, run as case-sensitive ones over the lowercased text.

Python's ``re`` tries each branch of a long alternation with case folding at every position of the
text.  The grading's word lists (the negations of ``claims.EXCLUSION``: about a hundred branches) cost
60 µs on a 140-character sentence that way, and a grader reads every sentence of every text with
several of them; the same search over ``text.lower()`` with a case-sensitive pattern takes 12 µs.
Positions are those of the original text, so callers read spans as before.  ``str.lower()`` keeps the
length of all but a handful of characters ("İ"); a text with one of those is searched the slow way.

Only the match's positions are the original's: ``group()`` gives the lowercased words.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

_ESCAPE = re.compile(r"\\.")


class Caseless:
    """A pattern matched without regard to case, with ``re.Pattern``'s reading methods.

    The pattern must be written in lower case (escapes such as ``\\W`` or ``\\S`` aside): over the
    lowercased text an upper-case letter would never match, so one is refused when the pattern is built.
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        uppercase = sorted({c for c in _ESCAPE.sub("", pattern) if c.isupper()})
        if uppercase:
            raise ValueError(f"a Caseless pattern is written in lower case; it has {''.join(uppercase)!r}: "
                             f"{pattern[:60]!r}")
        self.pattern = pattern
        self._folded = re.compile(pattern, flags & ~re.IGNORECASE)
        self._slow = re.compile(pattern, flags | re.IGNORECASE)

    def _on(self, text: str) -> tuple[re.Pattern[str], str]:
        lowered = text.lower()
        return (self._folded, lowered) if len(lowered) == len(text) else (self._slow, text)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        pattern, text = self._on(text)
        return pattern.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        pattern, text = self._on(text)
        return pattern.match(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        pattern, text = self._on(text)
        return pattern.finditer(text, pos, endpos)

    def blank(self, text: str, fill: str = " ") -> str:
        """``text`` with every match replaced by as many ``fill`` characters (its length and the
        original's other characters kept)."""
        return self.replace(text, lambda m: fill * (m.end() - m.start()))

    def replace(self, text: str, to: Callable[[re.Match[str]], str]) -> str:
        """``text`` with each match replaced by ``to(match)``; the text between matches is the original's."""
        parts: list[str] = []
        at = 0
        for m in self.finditer(text):
            parts += [text[at:m.start()], to(m)]
            at = m.end()
        return "".join(parts) + text[at:] if parts else text
