"""Check kind ``seen``: the work rests on data the agent was shown, not on an answer it remembered.

A policy trained on a fixed library meets each task many times, and the right answer to "which
department overspent most?" is the same every time: a blind audit's "Operations, 27.6%" with no
tool call at all scored 1.0.  The end state and the answer cannot tell a remembered answer from a
read one; the transcript can.  This kind holds when some tool result of the episode showed the
figures of a source: at least ``least`` of the distinct figures the source holds (the sheet's cells,
the doc's amounts) appear in the tool results, read as numbers wherever they stand (a JSON number,
"12,450.00" inside a text).  Which tool showed them does not matter: the sheet read, a search
snippet, a mail that quotes it.

Figures are what identify a source across every way of showing it; a source without enough
figures of its own (at least ``least`` that are not years, not below 10 and not in the instruction)
is not required.  With ``every``, each source must have been seen; by default one is enough (a
task's sources also list what its figures may trace to, not only what must be read).
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from officesim.apps.drive.reading import file_text, find_files
from officesim.grading.evidence import collect
from officesim.grading.spec_base import CheckBase, Outcome

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext
    from officesim.grading.facts import FactsSpec

_RUN = re.compile(r"(?<![\w.])\d[\d,.]*")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def numbers(text: str) -> set[float]:
    """Every number written in ``text``, rounded to the cent: "12,450.00" is one number, "118000,119800"
    (a CSV row) two."""
    out: set[float] = set()
    for m in _RUN.finditer(text):
        run = m.group().rstrip(".,")
        parts = [run.replace(",", "")] if _THOUSANDS.fullmatch(run) else run.split(",")
        for part in parts:
            try:
                out.add(round(float(part), 2))
            except ValueError:
                continue
    return out


_numbers = numbers  # the older name


def _telling(found: set[float], instruction: str) -> set[float]:
    """The numbers that say a source was read: not years, not small counts, not given in the instruction."""
    given = numbers(instruction)
    return {n for n in found if n >= 10 and not (1900 <= n <= 2100 and n == int(n)) and n not in given}


class SeenCheck(CheckBase):
    """Holds when the episode's tool results showed the figures of (one, or ``every``) source."""

    check: Literal["seen"] = Field(description="The kind of check.")
    sources: list[str] | None = Field(
        None, description="Source forms (sheet:<name>, doc:<name>, mail:<query>, crm:<table>); none: the facts: "
        "section's sources.")
    figures: list[float] | None = Field(
        None, description="Instead of sources: the figures the tool results must have shown (at least `least` of "
        "them, or all when fewer), where no facts: source names the data (an account's invoice amounts).")
    words: list[str] | None = Field(
        None, description="Instead of sources: texts the tool results must have shown, case-insensitively (at "
        "least `least` of them, or all when fewer): the emails of the people a headcount counts.")
    every: bool = Field(False, description="Every source must have been shown, not just one.")
    least: int = Field(3, ge=1, description="How many of a source's distinct figures a tool result must have "
                       "shown for the source to count as read.")

    def facts_problem(self, facts: FactsSpec | None) -> str | None:
        if self.sources is None and self.figures is None and self.words is None and (
                facts is None or not facts.sources):
            return "a seen check without sources, figures or words needs a facts: section with sources"
        return None

    def evaluate(self, ctx: GradeContext) -> Outcome:
        forms = self.sources if self.sources is not None else list(ctx.facts.sources if ctx.facts else [])
        least = self.least
        if self.words is not None:
            return self._words_seen(ctx)
        if self.figures is not None:
            wanted = {"the figures of the data": {round(abs(f), 2) for f in self.figures}}
            least = min(least, len(wanted["the figures of the data"]))
        else:
            wanted = _wanted(ctx, tuple(forms), least)
        if not wanted or least == 0:
            return Outcome(True, "no source has figures enough to tell whether it was read", {"sources": forms})
        found = dict.fromkeys(wanted, 0)
        shown: set[float] = set()
        for text, asked in _tool_results(ctx.transcript):  # stops reading once the sources asked for are seen
            shown |= numbers(text) - numbers(asked)
            found = {label: len(figures & shown) for label, figures in wanted.items()}
            seen = [label for label, n in found.items() if n >= least]
            if seen and (not self.every or len(seen) == len(wanted)):
                return Outcome(True, f"the tool results showed {', '.join(seen)}", {"figures_shown": found})
        unseen = [label for label, n in found.items() if n < least]
        return Outcome(False, f"no tool result showed {(', ' if self.every else ' or ').join(unseen)} (at least "
                       f"{least} of its figures): the work does not rest on data read in this episode",
                       {"figures_shown": found})


    def _words_seen(self, ctx: GradeContext) -> Outcome:
        wanted = {w.casefold() for w in self.words or []}
        least = min(self.least, len(wanted))
        found: set[str] = set()
        for text, asked in _tool_results(ctx.transcript):
            folded, echoed = text.casefold(), asked.casefold()
            found |= {w for w in wanted - found if w in folded and w not in echoed}
            if len(found) >= least:
                return Outcome(True, f"the tool results showed {len(found)} of the {len(wanted)} records asked about",
                               {"shown": len(found)})
        return Outcome(False, f"the tool results showed {len(found)} of the {len(wanted)} records the answer rests on "
                       f"(at least {least} needed): the work does not rest on data read in this episode",
                       {"shown": len(found)})


# start world -> (sources, least, instruction) -> the telling figures of each source: a task's sources
# are read from its start world, which no episode changes
_WANTED: weakref.WeakKeyDictionary[Any, dict[tuple[tuple[str, ...], int, str], dict[str, set[float]]]] = (
    weakref.WeakKeyDictionary())


def _wanted(ctx: GradeContext, forms: tuple[str, ...], least: int) -> dict[str, set[float]]:
    """The figures that tell each source (with at least ``least`` of them) apart, by source label."""
    per_world = _WANTED.get(ctx.start)
    if per_world is None:
        per_world = _WANTED[ctx.start] = {}
    key = (forms, least, ctx.instruction)
    if key not in per_world:
        found: dict[str, set[float]] = {}
        elsewhere = _elsewhere(ctx.start, forms)
        for block in collect(ctx, list(forms), source=True):
            figures = _telling(numbers(block.text), ctx.instruction)
            # a figure another file holds too (the superseded policy's unchanged rates, its boilerplate) tells
            # nothing of this one: last year's doc read, this year's cap remembered, is no reading of it; where
            # too few figures would be left, the source keeps them all (it stays one that can be read)
            if len(figures - elsewhere) >= least:
                figures -= elsewhere
            if len(figures) >= least:
                found[block.label] = figures
        per_world[key] = found
    return per_world[key]


def _elsewhere(world: Any, forms: tuple[str, ...]) -> set[float]:
    """Every number the start world's other docs and sheets hold (not the files ``forms`` name)."""
    named: set[str] = set()
    for form in forms:
        kind, _, name = form.partition(":")
        if kind in ("doc", "sheet"):
            named |= {f["id"] for f in find_files(world, name, kind)}
    out: set[float] = set()
    for row in world.db.execute("SELECT id FROM drive_file WHERE trashed = 0 AND kind IN ('doc', 'sheet')"):
        if row["id"] not in named:
            out |= numbers(file_text(world, row["id"]) or "")
    return out


def _tool_results(transcript: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(text, arguments) of every tool result: its text, with the JSON escapes that would glue a number to a
    letter ("\\n360") taken out, and the arguments of the call it answers.  What a result shows of its own
    call's arguments is an echo, not data read ("no Drive file with id '475'", a search's query): the checks
    do not count it."""
    asked: dict[str, str] = {}
    for message in transcript:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                arguments = (call.get("function") or {}).get("arguments")
                asked[str(call.get("id"))] = arguments if isinstance(arguments, str) else json.dumps(arguments,
                                                                                                     default=str)
        if message.get("role") != "tool":
            continue
        content = message.get("content")
        if not isinstance(content, str):
            content = json.dumps(content, default=str)
        yield (_unescaped(content), _unescaped(asked.get(str(message.get("tool_call_id")), "")))


def _unescaped(text: str) -> str:
    return text.replace("\\n", " ").replace("\\t", " ").replace('\\"', '"')  # JSON escapes end no number
