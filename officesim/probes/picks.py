"""The self-test of the ``picked`` check: the question's superlative moved to the runner-up.

A question that picks one of several ("which department overspent the most?", "compare the
department that changed most with Q2") invites an answer that states every figure right and
crowns the wrong option.  Wherever a grader has a ``picked`` check, ``runner_up_crowned`` plays the
reference with the crown given to the runner-up (the option second on the measure the answer tops,
with its own true figure) and the answer's own line kept after it without its superlative: "The
largest overrun was Finance's ($5,800). Sales, over by $26,300.00".  Every figure is right and the
answer is named with its figure, so only the pick is wrong: it must fail.  The variant
``pick_reworded`` writes the same crown of the answer itself, the reference's line reworded
("Biggest change: Sales, up $1,603.23" -> "The biggest change was Sales's, up $1,603.23"): it must
pass.  Both apply only where a ``picked`` check is, and rewrite the line of each text that crowns the
answer (else the first line naming it outside a table); the texts not naming it stay as they are.
``runner_up_unbeaten`` gives the runner-up the crown in words that are no superlative ("No overrun was
larger than Finance's ($5,800). Sales, over by $26,300.00"): it must fail as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from officesim.grading.pick_checks import _SUPERLATIVE, PickedCheck, _markers
from officesim.probes.kinds import Context, probe, variant
from officesim.probes.trajectory import Trajectory

# words for what is compared, tried in order when the measure's own name is not one of the check's
_WORDS = ("overrun", "overspend", "change", "increase", "jump", "rise", "variance", "difference")
_SUPERLATIVE_WORDS = re.compile(rf"\b(?:the\s+)?{_SUPERLATIVE}\b[\s-]*", re.IGNORECASE)
_MARKUP = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|#+\s+|\*\*)?")


@dataclass(frozen=True)
class Pick:
    """What a ``picked`` check asks, worked out from the grader's facts."""

    check: PickedCheck
    answer: str  # the answer's name as the texts write it
    runner: str  # the runner-up's name
    figure: str  # the runner-up's own figure of the measure, as a text writes it
    measure: str  # the words for the measure ("overrun", "percentage overrun", "change")


def _check(ctx: Context) -> PickedCheck | None:
    return next((c for c in (*ctx.task.grader.gates, *ctx.task.grader.criteria) if isinstance(c, PickedCheck)),
                None)


def pick_of(ctx: Context) -> Pick | None:
    """The check's answer and runner-up on the measure the answer tops (the one the check's ``dimension``
    names first); ``None`` without a ``picked`` check or a measure of the answer and its options."""
    check = _check(ctx)
    spec = ctx.task.grader.facts
    if check is None or spec is None:
        return None
    by_attribute: dict[str, dict[str, float]] = {}
    for fact in spec.facts:
        if fact.entity in (check.name, *check.options) and isinstance(fact.value, int | float):
            by_attribute.setdefault(fact.attribute, {})[fact.entity] = float(fact.value)
    topped = [(attr, values) for attr, values in by_attribute.items() if check.name in values
              and len(values) > 1 and all(values[check.name] > v for k, v in values.items() if k != check.name)]
    if not topped:
        return None
    dimension = re.compile(check.dimension, re.IGNORECASE)
    attribute, values = min(topped, key=lambda t: not dimension.search(t[0].replace("_", " ")))
    runner = max((k for k in values if k != check.name), key=lambda k: values[k])
    percent = "percent" in attribute or "pct" in attribute
    own = [w for w in attribute.split("_") if dimension.fullmatch(w) and w not in ("percent", "pct")]
    word = next((w for w in [*own, *_WORDS] if dimension.search(w)), None)
    if word is None:
        return None
    value = values[runner]
    figure = f"{value:.1f}%" if percent else ctx.money(value)
    measure = f"percentage {word}" if percent else word
    pick = Pick(check, spec.entities[check.name].name, spec.entities[runner].name, figure, measure)
    if check.unless and re.search(check.unless, f"{_crown(pick, pick.runner, 'largest')} ({figure})",
                                 re.IGNORECASE):
        return None  # the crown would be read as of another measure: it would test nothing
    return pick


def _crown(pick: Pick, who: str, superlative: str, *, capital: bool = True) -> str:
    the = "The" if capital else "the"
    return f"{the} {superlative} {pick.measure} was {who}'s"


def _names(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def _answer_line(lines: list[str], pick: Pick) -> int | None:
    """The line that crowns the answer, else the first naming it that is no table row nor quote."""
    named = _names(pick.answer)
    markers = _markers(pick.check.dimension)
    candidates = [i for i, line in enumerate(lines) if named.search(line)
                  and not line.lstrip().startswith(("|", ">"))]
    crowned = [i for i in candidates if markers.search(lines[i])]
    found = crowned or candidates
    return found[0] if found else None


def _plain(text: str, pick: Pick) -> str:
    """``text`` with the superlative of each pick it makes dropped ("overspent the most" -> "overspent")."""
    markers = _markers(pick.check.dimension)
    return markers.sub(lambda m: _SUPERLATIVE_WORDS.sub("", m.group(0)).strip() or m.group(0), text)


def _unbeaten(pick: Pick, who: str, superlative: str, *, capital: bool = True) -> str:
    """The crown as a negated comparative: "No overrun was bigger than Finance's"."""
    bigger = "larger" if superlative == "largest" else "bigger"
    return f"{'No' if capital else 'no'} {pick.measure} was {bigger} than {who}'s"


def _moved(text: str, pick: Pick, who: str, crown_of: Callable[..., str] = _crown) -> str:
    """``text`` with the answer's line crowning ``who`` (in the words ``crown_of`` writes): the runner-up,
    with its figure, before the answer's line without its crown; or the answer itself, its line reworded
    ("The biggest change was Sales's, ...")."""
    lines = text.split("\n")
    index = _answer_line(lines, pick)
    if index is None:
        return text
    line = lines[index]
    name = _names(pick.answer).search(line)
    assert name is not None
    head, rest = line[:name.start()], _plain(line[name.end():], pick)
    superlative = "biggest" if re.search(r"\bbiggest\b", line, re.IGNORECASE) else "largest"
    markup = _MARKUP.match(head)
    lead = markup.group(0) if markup else ""
    if _markers(pick.check.dimension).search(head) or not head[len(lead):].strip():
        head = lead  # "Biggest change: " is the crown this rewrites; a list bullet stays
    capital = not head[len(lead):].strip()
    if who == pick.answer:
        lines[index] = f"{head}{crown_of(pick, pick.answer, superlative, capital=capital)}{rest}"
    else:
        crown = crown_of(pick, who, superlative, capital=capital)
        lines[index] = f"{head}{crown} ({pick.figure}). {pick.answer}{rest}"
    return "\n".join(lines)


def _rewritten(ctx: Context, crown_runner: bool, crown_of: Callable[..., str] = _crown) -> Trajectory | None:
    pick = pick_of(ctx)
    if pick is None or (pick.check.unless and re.search(pick.check.unless, crown_of(pick, pick.runner, "largest"),
                                                        re.IGNORECASE)):
        return None
    who = pick.runner if crown_runner else pick.answer
    out = ctx.ref.trajectory.map_texts(lambda t: _moved(t, pick, who, crown_of))
    return out if out.texts() != ctx.ref.trajectory.texts() else None


@probe("runner_up_crowned")
def runner_up_crowned(ctx: Context) -> Trajectory | None:
    """Where a ``picked`` check is: the question's superlative given to the runner-up with its own figure,
    the answer's line kept after it without its crown ("The largest overrun was Finance's ($5,800). Sales,
    over by $26,300.00")."""
    return _rewritten(ctx, crown_runner=True)


@probe("runner_up_unbeaten")
def runner_up_unbeaten(ctx: Context) -> Trajectory | None:
    """Where a ``picked`` check is: the runner-up crowned by a negated comparative, with its own figure, the
    answer's line kept after it without its crown ("No overrun was larger than Finance's ($5,800). Sales, over
    by $26,300.00"): a crown without a superlative is a pick too."""
    return _rewritten(ctx, crown_runner=True, crown_of=_unbeaten)


@variant("pick_reworded")
def pick_reworded(ctx: Context) -> Trajectory | None:
    """Where a ``picked`` check is: the answer's line reworded as a crown of the answer ("Sales had the largest
    overrun" -> "The largest overrun was Sales's, over by $26,300.00")."""
    return _rewritten(ctx, crown_runner=False)
