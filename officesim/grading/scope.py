"""Which of a sentence's values a negation or a change marker sets aside.

``claims.excluded`` says that a sentence presents something as left out.  That is enough for a
sentence that gives one value, but not for one that gives the right value *and* a wrong one:
"closes Oct 30, not Oct 16" and "closes Oct 16, not Oct 30" have the same words, and "Oct 21 or
Oct 8, I don't know which" has a negation that sets nothing aside.  Read as a whole, all three
were left out, so neither value counted against them, and a hedge with any "not" in it passed.

Here each value of such a sentence is governed or not:

* a marker governs the nearest value after it in its clause, and the values run on from that one
  ("not Oct 16 or Oct 23"); "instead of", "no longer", "rather than", "old", "previous" are markers;
* a marker with no value after it in its clause governs the nearest value before it ("Oct 8 is
  only the beta end, not the launch"), as does one followed by "by" ("Oct 16 was replaced by ...");
* the value after "from" in "from X to Y" is the old one ("moved the close from Oct 16 to Oct 30");
* a value inside parentheses after "was", "previously", "before" is the old one ("(it was Oct 16)"),
  and one after "previously", "formerly", "originally" anywhere ("previously Oct 16, now Oct 30");
* a value followed by "before" and the change it predates is the old one ("it was 6 before the
  transfer", "6 before Maya moved", "it was 6 before."); "before the discount" is no change, so a
  total "before tax" keeps its value.
"""

from __future__ import annotations

import functools
import re

from officesim.grading.caseless import Caseless
from officesim.grading.claims import EXCLUSION, KEPT_LENGTH, without_possible

# where a marker's reach ends: a clause break ("not sure, but it is Oct 30")
_CLAUSE_BREAK = re.compile(r"[;:!?()|]|[,.](?=\s|$)|\s[-–—]\s|\b(?:but|and|while|whereas|aber|und|mais|et)\b",
                           re.IGNORECASE)
# what stops a backward reach: a sentence or a cell ends there
_HARD_BREAK = re.compile(r"[;:!?()|]|\.(?=\s|$)")
# between values one marker governs together: "not Oct 16 or Oct 23", "neither 5 nor 6"
_RUN_ON = re.compile(r"\s*(?:,|/|\bor\b|\bnor\b|\band\b|\boder\b|\bou\b|\bni\b)?\s*(?:(?:not|nor|no)\s+)?",
                     re.IGNORECASE)
# "replaced by", "superseded by": the value before the marker is the old one
_BY = re.compile(r"\s+(?:by|durch|par)\b", re.IGNORECASE)
_FROM = re.compile(r"\b(?:from|von|vom|de|du)\s+$", re.IGNORECASE)
_TO = re.compile(r"\s*(?:to|auf|à|au|->|→)(?=\s|$)", re.IGNORECASE)
# words that mark the old value of a change, beside the negations of ``EXCLUSION``
# ("it was 6 last month", "last week it was 6": an old value beside the asked one; not "last quarter" or
# "last year", which reports compare with on purpose)
_FORMERLY = Caseless(r"\b(?:previously|formerly|originally|earlier|(?:down|up)\s+from|bisher|vorher|zuvor|"
                       r"ursprünglich|auparavant|précédemment|initialement|last\s+(?:week|month)|"
                       r"(?:a|one|two|three|four|a\s+few|\d+)\s+(?:weeks?|months?)\s+ago|until\s+recently|"
                       r"used\s+to\s+be|letzte[nm]?\s+(?:woche|monat)|le\s+mois\s+dernier|la\s+semaine\s+dernière)\b")
_FROM_TO = re.compile(r"\b(?:from|von|vom|de|du)\s.*?\s(?:to|auf|à|au)\s|->|→", re.IGNORECASE)
_WAS = r"\((?:[^()]*?\s)?(?:was|previously|formerly|originally|before|earlier|vorher|bisher|zuvor|avant|auparavant)\s"
_EARLIER = re.compile(_WAS + r"[^()]*$", re.IGNORECASE)  # read up to a value: it stands inside the parentheses
_EARLIER_ANYWHERE = re.compile(_WAS, re.IGNORECASE)
# right after a value: "6 before the transfer", "6 before Maya moved", "was 6 before." (the value the
# change replaced); only changes of who or what is counted, so "before tax", "before the discount"
# and "before the deadline" say nothing old
_CHANGES = (r"move|transfer|switch|change|update|reorg\w*|re-?organi[sz]ation|restructur\w*|correction|revision|"
            r"reassignment|departure|merger|re-?count|handover|hand-off|handoff|swap")
_BEFORE_CHANGE = re.compile(
    r"\s+before\b(?:\s*(?=[.;!)]|,\s+(?:now|after|but|and|today)\b|$)|\s+(?:the|a|an|this|that|his|her|their|our|"
    r"its|last\s+week's|last\s+month's)\s+(?:\w+\s+)?(?:" + _CHANGES + r")\b|\s+(?:[A-Z][\w'-]*\s+){1,3}(?:was\s+)?"
    r"(?:moved|left|joined|transferred|switched|changed|went|was\s+moved|was\s+transferred)\b)",
    re.IGNORECASE)
_VALUE_BEFORE_CHANGE = re.compile(r"\d\s+before\b", re.IGNORECASE)
# (for ``has_marker``: a change's "from" with a value after it, and a value said and then overtaken)
_CHANGE_FROM = re.compile(r"\bfrom\s+\S{0,12}\d", re.IGNORECASE)
_SAID_BUT_CHANGED = re.compile(r"\d[^.;!?()]{0,40}?\b(?:but|however|though|although|then|later|since|until|now|yet|"
                               r"aber|doch|jedoch|mais|puis)\b", re.IGNORECASE)
# a value that a later clause says was overtaken: "the form said Net 45, but we agreed Net 60", "they quoted
# 45 days at first; we then settled on 60", "Net 45 originally, since changed to 60" (the value before the
# "but" is the superseded one, told beside the right one)
_OVERTAKEN = re.compile(
    r"[^.;!?()]{0,30}?(?:[,;]|\s[-–—])?\s*(?:[^\W\d_]+\s+){0,2}?\b(?:but|however|though|although|then|later|"
    r"since|until|now|yet|aber|doch|jedoch|mais|puis)\b[^.;!?()]{0,40}?\b(?:agreed|settled|changed|moved|switched|revised|updated|"
    r"corrected|renegotiated|replaced|superseded|amended|lowered|raised|reduced|extended|shortened|went\s+with|"
    r"came\s+back\s+with|is\s+now|are\s+now|now\s+(?:is|are|says?|stands?)|vereinbart|geändert|geeinigt|"
    r"convenu|changé|modifié|passé)\b", re.IGNORECASE)
# what says a value was said before a change: "said", "quoted", "first quote", "originally" (before it, in its
# clause), or "originally", "at first" right after it ("Net 45 originally, since changed to Net 60")
_AT_FIRST = re.compile(r"\s*(?:days?\s+)?(?:originally|initially|at\s+first)\b", re.IGNORECASE)
_SAID = re.compile(r"\b(?:said|says|quoted|stated|listed|offered|proposed|asked\s+for|started\s+(?:at|with|on)|"
                   r"opened\s+with|mentioned|at\s+first|first\s+(?:quote[ds]?|offer(?:ed)?|mail|e-?mail|message|draft|"
                   r"version|form|figure|number|estimate|proposal)|originally|initially|original|initial|standard|"
                   r"sagte|hieß|angeboten|ursprünglich|disait|indiquait|proposait|initialement)\b[^,;:.!?()]{0,30}$",
                   re.IGNORECASE)


def has_marker(text: str) -> bool:
    """Whether ``text`` has a negation or a change marker that may set one of its values aside (kept
    per short text: every facts check of a grader asks it of the same segments)."""
    return _kept_marker(text) if len(text) <= KEPT_LENGTH else _read_marker(text)


@functools.lru_cache(maxsize=4096)
def _kept_marker(text: str) -> bool:
    return _read_marker(text)


def _read_marker(text: str) -> bool:
    return any(p.search(text) is not None for p in (EXCLUSION, _FORMERLY, _FROM_TO, _EARLIER_ANYWHERE,
                                                     _VALUE_BEFORE_CHANGE, _CHANGE_FROM, _SAID_BUT_CHANGED))


def _markers(text: str, negations: bool = True) -> list[tuple[int, int]]:
    """The spans of the negation (unless not ``negations``) and change markers of ``text``, in order; a
    negated exclusion ("isn't ruled out") keeps its value open, so its words are none.  Kept per short
    text: a grader's facts checks ask it of the same sentences, each with its values' spans."""
    return _kept_markers(text, negations) if len(text) <= KEPT_LENGTH else _read_markers(text, negations)


@functools.lru_cache(maxsize=4096)
def _kept_markers(text: str, negations: bool) -> list[tuple[int, int]]:
    return _read_markers(text, negations)


def _read_markers(text: str, negations: bool) -> list[tuple[int, int]]:
    if not negations:
        return [m.span() for m in _FORMERLY.finditer(text)]
    text = without_possible(text)
    return sorted(m.span() for m in [*EXCLUSION.finditer(text), *_FORMERLY.finditer(text)])


def governed(text: str, spans: list[tuple[int, int]], *, backward: str = "sentence",
             negations: bool = True) -> set[int]:
    """Indices of ``spans`` (where ``text`` gives its values, in order) that ``text`` sets aside.

    ``text`` should have the entities' own names blanked ("No Frills Ltd" is no negation).  A marker
    with nothing after it reaches back to the value before it within the sentence (``backward``
    "sentence", for figures and dates: "Oct 8 is only the beta end, not the launch") or only within
    its clause ("clause", for names: "while IT came in under budget" sets IT aside, but "Sales is
    over, not under" says nothing against Sales).  Without ``negations`` only the marks of a change
    count ("previously", "last month", "from ... to", "(it was ...)")."""
    out: set[int] = set()
    for marker_start, marker_end in _markers(text, negations):
        if _BY.match(text, marker_end) is None:
            after = next((i for i, (start, _) in enumerate(spans) if start >= marker_end), None)
            if after is not None and _CLAUSE_BREAK.search(text, marker_end, spans[after][0]) is None:
                out.add(after)
                while after + 1 < len(spans) and _RUN_ON.fullmatch(text, spans[after][1], spans[after + 1][0]):
                    after += 1
                    out.add(after)
                continue
        if _FORWARD_ONLY.fullmatch(text, marker_start, marker_end):
            continue  # "$15,000 excluding August" gives $15,000 (for a reading without August)
        before = [i for i, (_, end) in enumerate(spans) if end <= marker_start]
        reach = _HARD_BREAK if backward == "sentence" else _CLAUSE_BREAK
        if before and reach.search(text, spans[before[-1]][1], marker_start) is None:
            out.add(before[-1])
    for i, (start, end) in enumerate(spans):
        if (_FROM.search(text, 0, start) and _TO.match(text, end)) or _EARLIER.search(text, 0, start) or (
                _BEFORE_CHANGE.match(text, end)) or _CHANGED_FROM_UNIT.search(text, 0, start) or (
                (_SAID.search(text, 0, start) or _AT_FIRST.match(text, end)) and _OVERTAKEN.match(text, end)):
            out.add(i)
    # a value offered under a condition is offered, whatever the condition sets aside: "$710 if the old
    # rates still apply", "without September it would be $15,000"
    # (or inside the condition: "$235, unless the old $215 cap still applies to you")
    return {i for i in out if not (_IF_AFTER.match(text, spans[i][1]) or _WOULD_BEFORE.search(text, 0, spans[i][0])
                                   or _IF_BEFORE.search(text, 0, spans[i][0]))}


# prepositions that set aside what follows them, never the value before: "$15,000 excluding August",
# "5 sans les nouveaux" (unlike "not" or "excluded": "Oct 8 is the beta, not the launch")
_FORWARD_ONLY = re.compile(r"excluding|without|except|sans|ohne|au(?:ß|ss)er|other\s+than|instead\s+of|"
                           r"rather\s+than", re.IGNORECASE)
# a value followed by the condition it holds under, or told as what would be
_IF_AFTER = re.compile(r"\s*[,)]?\s*(?:\b(?:if|assuming|provided|unless|si|wenn|falls)\b|\bas\s+long\s+as\b)",
                       re.IGNORECASE)
# a value inside a condition, its clause open before it: "unless the old $215 cap applies", "if it's 2"
_IF_BEFORE = re.compile(r"\b(?:if|unless|assuming|provided|in\s+case|si|wenn|falls)\b[^,;:.!?()]*$", re.IGNORECASE)
# a condition's clause: "If the new joiners don't count yet," "unless you don't count it" (to its comma)
CONDITION = re.compile(r"\b(?:if|unless|assuming|provided|in\s+case|wenn|falls|si)\b[^,;:.!?()]*", re.IGNORECASE)
_WOULD = (r"(?:\b(?:would|could|might)(?:\s+(?:then|still|only|instead))?\s+(?:be|come\s+to|total|reach|have\s+been)"
          r"|'d\s+be|\bserait|\bwäre|\bwären)\s+(?:about\s+|around\s+)?[^\w\s]{0,2}")
_WOULD_BEFORE = re.compile(_WOULD + "$", re.IGNORECASE)
# a sentence telling a value as what would be: "Without September it would be $15,000."
WOULD_VALUE = re.compile(_WOULD + r"\d", re.IGNORECASE)


# "went from 6 to 5", "moved the close from Oct 16 to Oct 30": a change, not a range offered
_CHANGED_FROM = re.compile(r"\b(?:went|gone|moved|changed|dropped|fell|rose|increased|decreased|grew|shrank|updated|"
                           r"corrected|revised|cut|raised|lowered|reduced|pushed|pulled|shifted|rescheduled|slipped|"
                           r"jumped|climbed|declined|brought|amended|adjusted)\b[^,;:.!?]*\bfrom\s+$", re.IGNORECASE)


# the same, with the value's unit between ("changed from Net 45", "moved from EUR 500"): the old value, "to" or not
_CHANGED_FROM_UNIT = re.compile(_CHANGED_FROM.pattern[:-1] + r"(?:[^\W\d_]{1,6}\s+)?$", re.IGNORECASE)


def changed_from(before: str) -> bool:
    """Whether the text up to a value ends with a change's "from" (the value is the old one)."""
    return _CHANGED_FROM.search(before) is not None

