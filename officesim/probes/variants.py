"""Alternative correct solutions, in writing: the same facts, worded as another careful worker would.

Each variant changes how the work is written, never what it claims: other number and date
spellings, counts in words, supporting figures from the sources, greetings and sign-offs, markdown,
an FYI about what was left out, the rejected option recorded as rejected, first names, another
phone format.  Every one must pass: a grader that fails one teaches a policy to write like the
reference.  Variants that reach the same result by another route are in ``paths.py``.
"""

from __future__ import annotations

import re
from typing import Any

from officesim.grading.facts import DAY_FIRST_LOCALES
from officesim.grading.normalize import asks_exact_values, contains_phrase
from officesim.probes import wording
from officesim.probes.kinds import Context, variant
from officesim.probes.probing import leaves
from officesim.probes.trajectory import MAIL_WRITES, Trajectory, is_read, text_field


def _texts_where(ctx: Context, test: Any) -> bool:
    return any(test(t) for t in ctx.ref.trajectory.texts())


@variant("amounts_plain")
def amounts_plain(ctx: Context) -> Trajectory | None:
    """Amounts spelled without the currency sign, with the world's currency code ("26,300 USD")."""
    if not _texts_where(ctx, wording.has_amounts):
        return None
    currency = ctx.task.start_world().meta("currency") or "USD"
    return ctx.ref.trajectory.map_texts(lambda t: wording.reformat_amounts(t, "plain", currency))


@variant("amounts_compact")
def amounts_compact(ctx: Context) -> Trajectory | None:
    """Amounts in short form where exact ("$26.3k", "€4.82M"), else ungrouped ("USD 7614.19"), in the
    world's currency."""
    if not _texts_where(ctx, wording.has_amounts):
        return None
    currency = ctx.task.start_world().meta("currency") or "USD"
    return ctx.ref.trajectory.map_texts(lambda t: wording.reformat_amounts(t, "compact", currency))


@variant("counts_in_words")
def counts_in_words(ctx: Context) -> Trajectory | None:
    """Small counts as words ("seven deals", "Five.")."""
    if not _texts_where(ctx, wording.has_counts):
        return None
    return ctx.ref.trajectory.map_texts(wording.counts_in_words)


@variant("locale_dates")
def locale_dates(ctx: Context) -> Trajectory | None:
    """ISO dates in the numeric spelling of the world's locale: "10/03/2026" for 3 October in the US,
    "03/10/2026" in a day-first locale (en_GB, de_DE...), where the grader reads dates day first."""
    if not _texts_where(ctx, wording.has_dates):
        return None
    day_first = (ctx.task.start_world().meta("locale") or "en_US").startswith(DAY_FIRST_LOCALES)
    return ctx.ref.trajectory.map_texts(wording.day_first_dates if day_first else wording.us_dates)


@variant("long_dates")
def long_dates(ctx: Context) -> Trajectory | None:
    """ISO dates spelled out, day first ("3 October 2026")."""
    if not _texts_where(ctx, wording.has_dates):
        return None
    return ctx.ref.trajectory.map_texts(wording.long_dates)


@variant("courtesy")
def courtesy(ctx: Context) -> Trajectory | None:
    """Other wording around the same content: a greeting, a lead-in and a sign-off."""
    if not ctx.ref.trajectory.texts():
        return None

    def wrap(text: str) -> str:
        if "\n" not in text.strip() and len(text) < 120:
            return f"Here is what I found: {text.strip()} Let me know if you need anything else."
        return f"Hello,\n\nas requested:\n\n{text.strip()}\n\nHappy to walk you through it.\nThanks!"

    return ctx.ref.trajectory.map_texts(wrap)


NOT_FIGURES = re.compile(r"size|bytes|length|row|count|total_rows|limit|offset|page|version|_id$|^id$", re.IGNORECASE)


def supporting_line(ctx: Context, text: str) -> str | None:
    """A sentence citing source figures that sit next to a name ``text`` states, in what was read
    (sheet rows, and the amounts of records: no file sizes or row numbers)."""
    # as whole words: the name 'Ann' is not stated by a text or a row about "Annette"
    names = [n for n in ctx.facts.names if len(n) > 2 and contains_phrase(text, n)]
    for result in ctx.ref.read_results():
        for row in _rows(result):
            cells = [v for k, v in row if not (k and NOT_FIGURES.search(k))]
            shown = " ".join(str(c) for c in cells if isinstance(c, str))
            name = next((n for n in names if contains_phrase(shown, n)), None)
            figures = [c for c in cells if isinstance(c, int | float) and not isinstance(c, bool) and abs(c) >= 10][:2]
            if name and figures:
                listed = ", ".join(ctx.money(float(f)) if f >= 100 else f"{f:g}" for f in figures)
                return f"For reference, the source shows these figures for {name}: {listed}."
    return None


def _rows(result: Any) -> list[list[tuple[str, Any]]]:
    """Rows of a tool result as (key, value) pairs: records (dicts) and sheet rows (lists)."""
    found: list[list[tuple[str, Any]]] = []
    stack = [result]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            scalars = [(k, v) for k, v in node.items() if not isinstance(v, dict | list)]
            if scalars:
                found.append(scalars)
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            if node and all(not isinstance(v, dict | list) for v in node):
                found.append([("", v) for v in node])
            else:
                stack.extend(node)
    return found


@variant("supporting_figures")
def supporting_figures(ctx: Context) -> Trajectory | None:
    """The same answer plus source figures that support it and a sentence of explanation."""
    def support(text: str) -> str:
        line = supporting_line(ctx, text)
        return f"{text.rstrip()}\n\n{line}" if line else text

    out = ctx.ref.trajectory.map_texts(support)
    return out if out.texts() != ctx.ref.trajectory.texts() else None


def _roles(ctx: Context) -> dict[str, str]:
    return {f"role:{p['role']}": p["email"] for p in ctx.people if p.get("role")}


def _recipients(ctx: Context, step: dict[str, Any]) -> set[str] | None:
    """The emails a mail write names (empty for a reply, whose recipients the arguments do not
    say); ``None`` for a write that is not mail."""
    if step["name"] not in MAIL_WRITES:
        return None
    roles = _roles(ctx)
    refs = [r for k in ("to", "cc", "bcc") for r in step["arguments"].get(k) or [] if isinstance(r, str)]
    return {roles.get(r, r).casefold() for r in refs}


def _visible(ctx: Context, name: str, recipients: set[str] | None) -> bool:
    """Whether a text to ``recipients`` (``None``: not mail) may name ``name``: it belongs to no
    party, or to one of them (telling one customer about another's invoice, even as left out, is
    a leak, not an FYI)."""
    party = ctx.facts.parties.get(name)
    if not party or recipients is None:
        return True
    roles = _roles(ctx)
    return bool({roles.get(p, p).casefold() for p in party} & recipients)


@variant("near_miss_fyi")
def near_miss_fyi(ctx: Context) -> Trajectory | None:
    """An FYI naming what was checked and left out ("not included: X, it does not qualify"); a mail
    names only what belongs to its own recipients."""
    left_out = [n for n in ctx.facts.wrong_names if len(n) > 2]
    if not left_out or not ctx.ref.trajectory.texts():
        return None

    def fyi(text: str, recipients: set[str] | None) -> str:
        mine = [n for n in left_out if _visible(ctx, n, recipients)][:2]
        if not mine:
            return text
        return f"{text.rstrip()}\n\nFYI, I also checked {' and '.join(mine)}: not included, as they do not qualify."

    out = ctx.ref.trajectory.copy()
    for step in out.actions():
        fld = text_field(step)
        if fld:
            step["arguments"][fld] = fyi(step["arguments"][fld], _recipients(ctx, step))
    if out.answer:
        out.answer = fyi(out.answer, None)
    return out if out.texts() != ctx.ref.trajectory.texts() else None


def _unambiguous_people(ctx: Context) -> list[str]:
    """Full names of colleagues in the texts whose first name no other colleague the solution
    came across shares."""
    texts = " ".join(ctx.ref.trajectory.texts())
    seen = " ".join(str(v) for _, v in leaves(ctx.ref.results) if isinstance(v, str))
    met = [p["name"] for p in ctx.people if p["name"] in seen or p["name"] in texts]
    named = [n for n in met if n in texts and " " in n]
    return [n for n in named if sum(wording.given_name(m) == wording.given_name(n) for m in met) == 1]


@variant("first_names")
def first_names(ctx: Context) -> Trajectory | None:
    """Colleagues named by their first name after the first mention, where that is unambiguous."""
    people = _unambiguous_people(ctx)
    if not people:
        return None
    out = ctx.ref.trajectory.map_texts(lambda t: wording.first_names(t, people))
    return out if out.texts() != ctx.ref.trajectory.texts() else None


@variant("first_name_only")
def first_name_only(ctx: Context) -> Trajectory | None:
    """Colleagues named only by first name where that is unambiguous (owners, attendees)."""
    people = _unambiguous_people(ctx)
    if not people:
        return None
    return ctx.ref.trajectory.map_texts(lambda t: wording.first_name_only(t, people))


@variant("rejected_recorded")
def rejected_recorded(ctx: Context) -> Trajectory | None:
    """The option that was turned down recorded as rejected, next to the decision."""
    names = [n for n in ctx.facts.wrong_names if len(n) > 2][:1]
    values = ctx.facts.wrong_values[:1]
    if not (names or values) or not ctx.ref.trajectory.texts():
        return None
    what = " / ".join([*names, *(ctx.money(v) for v in values)])
    return ctx.ref.trajectory.map_texts(lambda t: f"{t.rstrip()}\n\nConsidered and rejected: {what}.")


@variant("declined_with_help")
def declined_with_help(ctx: Context) -> Trajectory | None:
    """A refusal with a "but" that offers help and no document ("I can't send it, but your account
    manager can walk you through what applies to your own contract")."""
    if not ctx.forbids_promise or not ctx.ref.trajectory.texts():
        return None
    line = "I can't send it, but your account manager can walk you through what applies to your own contract."
    return ctx.ref.trajectory.map_texts(lambda t: f"{t.rstrip()}\n\n{line}", names=("mail_reply_message",))


@variant("bare_answer")
def bare_answer(ctx: Context) -> Trajectory | None:
    """The answer as nothing but its facts ("Sales, $26,300"): terse is correct where no judge grades style."""
    if not ctx.ref.trajectory.answer or ctx.facts.judged or not (ctx.facts.names or ctx.facts.values):
        return None
    out = ctx.ref.trajectory.copy()
    out.answer = ", ".join([*ctx.facts.names, *(ctx.money(v) for v in ctx.facts.values)])
    return out


@variant("markdown")
def markdown(ctx: Context) -> Trajectory | None:
    """The same text with markdown emphasis on its figures and a bulleted layout."""
    if not _texts_where(ctx, lambda t: wording.has_amounts(t) or wording.has_counts(t) or t.strip().isdigit()):
        return None

    def emphasise(text: str) -> str:
        if text.strip().isdigit():
            return f"**{text.strip()}**"
        return wording.AMOUNT.sub(lambda m: f"**{m.group(0)}**" if wording.is_amount(m) else m.group(0), text)

    return ctx.ref.trajectory.map_texts(emphasise)


PHONE = re.compile(r"\+?1?[\s.-]?\(?(\d{3})\)?[\s.-]?(\d{3})[\s.-]?(\d{4})\b")


@variant("phone_format")
def phone_format(ctx: Context) -> Trajectory | None:
    """Phone numbers written another way ("+1 555 952 6601" -> "(555) 952-6601"); not where the instruction asks
    for the values exactly as written (then another format is not what was asked)."""
    if asks_exact_values(ctx.task.instruction):
        return None
    out = ctx.ref.trajectory.copy()
    changed = False
    for step in out.actions():
        if is_read(step["name"]):
            continue
        for key, value in step["arguments"].items():
            if isinstance(value, str) and (key == "phone" or key == text_field(step)) and PHONE.search(value):
                step["arguments"][key] = PHONE.sub(lambda m: f"({m.group(1)}) {m.group(2)}-{m.group(3)}", value)
                changed = True
    return out if changed else None


def _label_word(label: str) -> str | None:
    """The first plain word of a fact's ``label`` regex (``\\b(?:launch|launches)\\b`` -> "launch"),
    if it reads as its own label; ``None`` for a regex with no plain first alternative."""
    first = re.sub(r"\\b|\(\?:|[()]", "", label).split("|")[0].replace(r"[\s-]?", " ").replace(r"\s", " ")
    if not re.fullmatch(r"[A-Za-z][A-Za-z -]*", first) or not re.search(label, first, re.IGNORECASE):
        return None
    return first.strip()


@variant("trap_labelled")
def trap_labelled(ctx: Context) -> Trajectory | None:
    """The trap told as what it is, with its own label: where a wrong reading of a fact is another of
    the entity's labelled facts ("the beta ends Oct 8" beside the launch of Oct 21), each text naming
    the entity (every text, when none does) adds "Project Lantern's beta: 2026-10-08." after the
    answer; a careful worker says which date is which."""
    spec = ctx.task.grader.facts
    if spec is None or not ctx.ref.trajectory.texts():
        return None
    lines: list[tuple[list[str], str]] = []  # (the entity's spellings, the sentence)
    for fact in spec.facts:
        for other in spec.facts:
            if other is fact or other.entity != fact.entity or not other.label or other.value not in fact.wrong:
                continue
            word = _label_word(other.label)
            if word is None:
                continue
            entity = spec.entities[fact.entity]
            value = ctx.money(other.value) if isinstance(other.value, int | float) else str(other.value)
            lines.append(([entity.name, *entity.aliases], f"{entity.name}'s {word}: {value}."))
    if not lines:
        return None

    texts = ctx.ref.trajectory.texts()
    # the texts naming the entity; a reply about the task's one subject may never name it ("Hi Alexis,
    # the launch is Oct 21."): then every text
    naming = {line: [t for t in texts if any(contains_phrase(t, n) for n in names)] or texts for names, line in lines}

    def told(text: str) -> str:
        mine = [line for line, where in naming.items() if text in where]
        return f"{text.rstrip()}\n\n{' '.join(mine)}" if mine else text

    out = ctx.ref.trajectory.map_texts(told)
    return out if out.texts() != ctx.ref.trajectory.texts() else None
