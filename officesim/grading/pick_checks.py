"""Check kind ``picked``: the text's superlative goes to the right one ("the biggest change was X").

Questions that pick one of several ("which department overspent by the largest percentage?",
"compare the department that changed most with Q2") invite an answer that lists every option
with its true figure and then crowns the wrong one: "Executive overspent by the largest
percentage: 9.1%. Operations was 27.6% over."  Every figure is right, the answer is named, and the
facts engine, which checks what is stated about each entity, sees nothing wrong.  What is wrong
is the pick, so this kind reads the picks: every place the text attaches the question's
superlative (``dimension`` says what is compared: "change", "overspend") to one of the options.

A superlative attaches to the option it is said of: the nearest option before it in the same
clause ("Operations overspent the most"), else the first option after it in the same clause ("The
largest overrun was Operations", "Biggest change: Marketing"), else the nearest option before it
at all ("..., Operations +27.6%, the largest"), else the first after it, else the last option the
sentences before named ("Sales. $26,300 over, the largest overrun").  An aside set off by commas
("the largest overrun, however, was Finance's") breaks no clause, and "more than any other" ("more
than anyone else", "more than the rest", "further over budget than any other department") crowns as a
superlative does; so do crown words that are none ("leads the overruns", "#1 for overspending", "first
place", "the overruns were led by Executive").  In a ``committed`` text (the answer to the "which"), every
crown is a pick, so one that says by itself what it is ("tops the list", "the worst offender", "in the
lead", "The answer is", "the highest at 9.1%") needs no word of the dimension.  A negated comparative
crowns the option right after its "than" ("No department overspent more than Executive", "no one came
close to Executive's overrun", "every other department overspent less than Executive", "Keine Abteilung
hat ihr Budget stärker überschritten als ..."), unless
another option is set apart from the "no" ("no department other than Operations ...").  ``unless`` is not
met by "relative to plan" in a sentence stating an amount and no percentage (it is the amount's measure),
nor by only a currency sign or "%" in a clause stating figures of both measures.  Options named only to be set
aside ("not Operations") or ranked below ("Finance is second") are passed over.  A superlative that
ends its clause needs no word of the dimension ("(the largest)").  It says nothing when it is negated
("not the largest"), ranked below ("second-largest", "next biggest", "after Operations, the biggest was ...") or quoted
(a "> " line).  The check fails when a superlative attaches to another option, or offers two
("the biggest was Operations or Executive"); with ``committed`` it also fails when options are
named and none is picked: no superlative attaches to the answer and the answer is not the first
option named (a list of every option with its figure answers no "which").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator

from officesim.grading.spec_base import CheckBase, Outcome
from officesim.grading.texts import TEXT_FORMS, texts

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext
    from officesim.grading.facts import FactsSpec, Reader

# The superlatives of "more" (English, German, French): what crowns one option.  "most" needs care:
# "most of the spend", "at most", "for the most part" crown nothing.  Crown words that are no grammatical
# superlative crown as one ("leads the overruns", "#1 for overspending", "first place", "the overruns were
# led by Executive").
_SUPERLATIVE = (r"(?:biggest|largest|greatest|highest|steepest|sharpest|strongest|heaviest|widest|furthest|"
                r"farthest|worst|(?:more|bigger|larger|greater|higher|further|farther|worse|heavier|steeper|sharper)\s+than\s+"
                r"(?:(?:(?:any|every)(?:one|body)(?:\s+else)?|(?:any|every)\s+other)\b"
                r"(?!\s+(?:expected|thought|predicted|forecast|anticipated|planned|imagined))|"
                r"(?:all\s+)?the\s+(?:others|rest)|all\s+(?:the\s+)?others?\b)|"
                r"(?<!\bat\s)(?<!\bthe\s)most(?!\s+of\b)(?!\s+part\b)|the\s+most(?!\s+of\b)(?!\s+part\b)|"
                r"top(?!\s+(?:\d|three|five|ten|two|few)\b)|tops|topped|topping|number\s+one|no\.\s?1|#\s?1|"
                r"first\s+place|(?:rank(?:s|ed)?|c[ao]mes?|finish(?:es|ed)?)\s+first|"
                r"(?:leads|leading|led)(?!\s+(?:by|to|into|from)\b)|led\s+by(?=\s+(?:the\s+)?(?-i:[A-Z]))|"
                r"the\s+stand-?out|"
                r"am\s+(?:st[äa]rksten|meisten|h[öo]chsten)|gr[öo](?:ß|ss)te[nrsm]?|h[öo]chste[nrsm]?|"
                r"st[äa]rkste[nrsm]?|(?:le|la|les)\s+plus(?:\s+(?:forte?s?|grande?s?|important\w*|élevée?s?))?)")
# Said of the option it is near, a superlative may still crown another: ranked below the top.
_RANKED_BELOW = re.compile(
    r"\b(?:second|third|2nd|3rd|next|runner[\s-]?up|zweit\w*|dritt\w*|deuxième|troisième)\b[\s-]*(?:\w+[\s-]+)?$",
    re.IGNORECASE)
_SET_APART = re.compile(r"\b(?:after|behind|besides|apart\s+from|other\s+than|aside\s+from|excluding|except|"
                        r"ignoring|nach|hinter|außer|après|derrière|hormis)\b", re.IGNORECASE)
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bnicht|\bkein\w*|\bpas|\bnon)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[,;(\[]|\s[-–—]\s|\b(?:but|while|whereas|although|though|aber|während|mais|alors)\b",
                           re.IGNORECASE)
# an aside set off by commas inside a clause ("the largest overrun, however, was Finance's"): no break
_INTERJECTION = re.compile(r",\s*(?:however|though|in\s+fact|actually|of\s+course|indeed|admittedly|"
                           r"incidentally|by\s+contrast|in\s+turn|jedoch|allerdings|cependant|pourtant|en\s+fait)\s*,",
                           re.IGNORECASE)
_ALTERNATIVE = re.compile(r"\bor\b|\boder\b|\bou\b|/|\beither\b|\bentweder\b", re.IGNORECASE)


# A crown that says what it is of by itself: in a text that answers the question (``committed``), where every
# crown is a pick, it needs no word of the dimension ("Executive tops the list (9.1%)", "the worst offender").
_CROWN = (r"(?:tops?|topped|topping|heads?|headed|heading|leads?|leading|led)\s+(?:the\s+|this\s+|our\s+)?"
          r"(?:list|table|ranking|rankings|chart|charts|league|pack|field|way)\b|"
          r"(?:at|on)\s+(?:the\s+)?top\s+of\s+the\s+(?:list|table|ranking|chart|league)\b|"
          r"(?:[Nn]umber\s+one|[Nn]o\.\s?1|#\s?1|first\s+place)(?!\w)|"
          r"(?:worst|biggest|main|chief|prime|top)\s+(?:offender|culprit|overspender|outlier)s?\b|"
          r"the\s+(?:clear\s+|big\s+)?(?:stand-?out|outlier|leader)\b|winner\b|in\s+(?:the\s+)?lead\b|(?:out\s+)?in\s+front\b|"
          r"the\s+(?:department|team|one)\s+(?:you(?:'re|’re|\s+are|\s+were)\s+(?:looking|asking)\s+(?:for|about)|"
          r"in\s+question)\b|"
          r"(?:ahead\s+of|beat|beats|beating|outpac\w+|outstrip\w+|outdo\w*|outdid|surpass\w*|eclips\w+|dwarf\w*)\s+"
          r"(?:all|every\w*|the\s+(?:rest|others|pack|field|other\s+\w+))\b|"
          r"(?:rank(?:s|ed)?|c[ao]mes?|came|finish(?:es|ed)?|placed?)\s+first\b|"
          r"(?:the\s+)?(?:short\s+|final\s+|direct\s+)?answer(?:\s+is\b|\s*[:—–])")


@lru_cache(maxsize=256)
def _markers(dimension: str, committed: bool = False) -> re.Pattern[str]:
    """The superlative said of ``dimension`` (a regex of its words), within four words either way; with
    ``committed``, a crown that says what it is of by itself (``_CROWN``) too."""
    sup = _SUPERLATIVE
    gap = r"(?:[\s-]+[\w'’]+){0,4}?[\s-]+"
    # a superlative that ends its clause needs no word of the dimension: "(the largest)", "is the biggest."
    bare = rf"(?<!\w){sup}(?!\w)(?=\s*(?:[).,;:!?—–]|\s-\s|$))"
    # a comparative over all the others with the dimension inside: "further over budget than any other"
    over_all = (rf"(?<!\w)(?:more|further|farther|bigger|larger|higher|greater|worse|heavier)[\s-]+(?:[\w'’]+[\s-]+)"
                rf"{{0,3}}?(?:{dimension})\w*(?:[\s-]+[\w'’]+){{0,3}}?[\s-]+than\s+(?:any|every|all)(?:one|body)?\b")
    crown = ""
    if committed:
        # in an answer, a superlative before its figure says what it is of: "Executive was the highest at 9.1%"
        figure = r"[-+−]?[$€£₹]?\s?\d"
        crown = (rf"|(?<!\w){sup}(?!\w)(?=\s+one\b|\s*\(\s*{figure}|\s+(?:at|with|on)\s+{figure})"
                 rf"|(?<!\w)(?:{_CROWN})")
    return re.compile(rf"(?<!\w){sup}(?!\w){gap}(?:{dimension})|(?:{dimension})\w*{gap}{sup}(?!\w)|{bare}|{over_all}"
                      rf"{crown}", re.IGNORECASE)


class PickedCheck(CheckBase):
    """Holds when every superlative the text says of ``dimension`` goes to ``name`` (and, with
    ``committed``, the text picks ``name`` at all when it names other options)."""

    check: Literal["picked"] = Field(description="The kind of check.")
    text: str = Field(description=f"Which text: {TEXT_FORMS}.")
    to: list[str] | None = Field(None, description="sent_mail/attachments/messages: only mail to all of these "
                                 "person refs.")
    channel: str | None = Field(None, description="chat_posts: a channel name or id, or a person ref for a DM.")
    name: str = Field(description="The entity (of facts.entities) the superlative belongs to: the answer.")
    options: list[str] = Field(min_length=1, description="The other entities it was chosen among.")
    dimension: str = Field(
        min_length=2, description="A regex of the words for what is compared (change|increase|grew|rose): a "
        "superlative within four words of one of them is a pick ('the biggest change', 'grew the most').")
    committed: bool = Field(False, description="The text must pick: when it names other options, a superlative "
                            "goes to the answer or the answer is the first option it names.")
    unless: str | None = Field(
        None, description="A regex of words that make a superlative's clause about another measure or time "
        "(percent|%, Q2|last quarter): a pick said there crowns nothing this question asks about.")

    @field_validator("dimension", "unless")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        try:
            if value is not None:
                _markers(value)
        except re.error as exc:
            raise ValueError(f"not a regex: {exc}") from None
        return value

    def facts_problem(self, facts: FactsSpec | None) -> str | None:
        if facts is None:
            return "a picked check needs a facts: section (its entities are the options)"
        for key in [self.name, *self.options]:
            if key not in facts.entities:
                return f"{key!r} is not an entity in facts.entities"
        return None

    def evaluate(self, ctx: GradeContext) -> Outcome:
        if ctx.facts is None:
            return Outcome(None, "the grader is broken: a picked check needs a facts: section", verdict="error")
        found = texts(ctx, self.text, to=self.to, channel=self.channel)
        if not found:
            return Outcome(False, f"there is no {self.text.replace('_', ' ')}", {"texts": []})
        reader = ctx.fact_reader
        problems = [f"{t.label} {p}" for t in found for p in picks_wrong(reader, self, t.content)]
        if problems:
            return Outcome(False, "; ".join(problems[:3]), {"texts": [t.label for t in found]})
        return Outcome(True, f"{', '.join(t.label for t in found[:3])}: every pick goes to "
                       f"{ctx.facts.entities[self.name].name}", {"texts": [t.label for t in found]})


def picks_wrong(reader: Reader, check: PickedCheck, text: str) -> list[str]:
    """What is wrong with the picks ``text`` makes: a superlative crowning another option, two offered,
    or (``committed``) options named and none picked."""
    entities = reader.spec.entities
    pool = {check.name, *check.options}
    answer = entities[check.name].name
    markers = _markers(check.dimension, check.committed)
    problems: list[str] = []
    crowned = False
    first: str | None = None
    prior: str | None = None  # the last option the sentences before named ("Sales. $26,300 over, the largest")
    for segment in reader.segments(text):
        line = segment.text
        if line.lstrip().startswith(">"):
            continue  # a quote of what someone else wrote
        spots = [(start, end, key) for start, end, key in reader.mentions(line) if key in pool]
        if first is None and spots:
            first = spots[0][2]
        picks = [(m.group(0), _attached(line, m.start(), m.end(), spots, prior), m.start(), m.end())
                 for m in markers.finditer(line) if not _crowns_nobody(line, m.start())]
        picks += _outdone_by_none(line, check.dimension, spots)
        for said, key, start, end in picks:
            if key is None or (check.unless and _of_another_measure(check.unless, _clause(line, start, end), line)):
                continue
            if key == check.name:
                crowned = True
                rivals = [k for _, _, k in spots if k != key]
                if rivals and _ALTERNATIVE.search(line):
                    problems.append(f"offers {entities[rivals[0]].name} beside {answer} for "
                                    f"{said!r}: {line[:80]!r}")
            elif not _ranked_after_one(line, start, spots, key):
                problems.append(f"says {said!r} of {entities[key].name}; it is {answer}: {line[:80]!r}")
        if spots:
            prior = spots[-1][2]
    if check.committed and not problems and not crowned and first is not None and first != check.name:
        problems.append(f"names the options without picking one: {answer} is neither said to be the one nor "
                        "named first")
    return list(dict.fromkeys(problems))


# "No department overspent more than Executive": a comparative no other option beat crowns the one after "than"
_NONE_MORE = re.compile(
    r"\b(?:no(?:\s+other)?|none|nobody|no[\s-]?one|nothing|not\s+(?:a\s+single|one|any)|kein\w*|niemand|"
    r"aucun\w*|personne|nul(?:le)?)\b(?:[\s,]+[\w'’$%.-]+){0,8}?[\s,]+"
    r"(?:(?:more|further|farther|bigger|larger|higher|greater|worse|heavier|mehr|st[äa]rker|h[öo]her|weiter|plus)\b"
    r"(?:\s+[\w'’]+){0,4}?\s+(?:than|als|que|qu['’])|as\s+(?:much|far|badly|heavily|high|big|large|many)\b"
    r"(?:\s+[\w'’]+){0,4}?\s+as|exceed(?:ed|s)?|topped|tops|beat|beats|surpass(?:ed|es)?|match(?:ed|es)|outdid|"
    r"outspent|rival(?:l?ed|s)?|c(?:a|o)me\s+(?:close|near)\s+to|approached)\s*(?:(?:the|der|die|das|le|la|les)\s+)?$|"
    # ... and its mirror: "every other department overspent less than Executive"
    r"\b(?:(?:every|each|all)(?:one|body)?\s+(?:else|other|(?:of\s+)?the\s+(?:others?|rest|other))|"
    r"the\s+(?:others|rest)|all\s+others)\b(?:[\s,]+[\w'’$%.-]+){0,8}?[\s,]+"
    r"(?:less|smaller|lower|fewer|weniger|moins)\b(?:\s+[\w'’]+){0,4}?\s+(?:than|als|que|qu['’])\s*"
    r"(?:(?:the|der|die|das|le|la|les)\s+)?$",
    re.IGNORECASE)
# ... unless an option is set apart from the "no": "no department other than Operations overspent more than
# Executive", "... than Executive, except Operations"
_BUT = re.compile(r"\b(?:other\s+than|besides|except|apart\s+from|aside\s+from|but|save|bar|behind|after|"
                  r"au(?:ß|ss)er|bis\s+auf|sauf|hormis|à\s+part)\b", re.IGNORECASE)


def _outdone_by_none(line: str, dimension: str, spots: list[tuple[int, int, str]]
                     ) -> list[tuple[str, str | None, int, int]]:
    """The negated comparatives of ``dimension`` in ``line`` ("No department overspent more than Executive",
    "Keine Abteilung hat ihr Budget stärker überschritten als Executive"), each as a pick of the option
    named right after "than": (what was said, the option, start, end)."""
    out: list[tuple[str, str | None, int, int]] = []
    for named in spots:
        m = _NONE_MORE.search(line, max(0, named[0] - 200), named[0])
        if m is None or _BUT.search(m.group(0)):
            continue
        follows = line[named[1]:named[1] + 60]
        if not re.search(dimension, m.group(0) + follows[:30], re.IGNORECASE):
            continue
        # "..., except Operations": another option set apart right after the "than"
        if any(_BUT.search(line, max(named[1], s[0] - 25), s[0]) for s in spots if s[0] >= named[1]
               and s[2] != named[2] and s[0] - named[1] <= 60):
            continue
        out.append((line[m.start():named[1]], named[2], m.start(), named[1]))
    return out


# an option named only to be set aside: "not Operations", "rather than Sales", "ahead of Legal"
_PUT_ASIDE = re.compile(r"\b(?:not|rather\s+than|instead\s+of|ahead\s+of|than|nicht|statt|pas|plutôt\s+que)\s+"
                        r"(?:\w+\s+)?$", re.IGNORECASE)


def _attached(line: str, start: int, end: int, spots: list[tuple[int, int, str]], prior: str | None) -> str | None:
    """The option the superlative at ``start:end`` is said of (see the module's docstring): options named
    only to be set aside ("not Operations") or ranked below ("Finance is second") are passed over; with no
    other option in its sentence, it is said of the last one the sentences before named."""
    before = [s for s in spots if s[1] <= start]
    after = [s for s in spots if s[0] >= end]
    inside = [s for s in spots if s[0] < end and start < s[1]]  # "Top: Marketing" read within the marker
    bare = _asides_blanked(line)
    near = [s for s in before[-1:] if not _CLAUSE_BREAK.search(bare, s[1], start)]
    next_ = [s for s in after[:1] if not _CLAUSE_BREAK.search(bare, end, s[0])]
    for s_start, s_end, key in [*near, *next_, *inside, *reversed(before), *after]:
        if not _put_aside(line, s_start, s_end):
            return key
    return prior


_RANKED_AFTER = re.compile(r"^\W{0,3}(?:\w+\W+){0,2}?(?:is\s+|was\s+|comes?\s+|came\s+)?(?:second|third|2nd|3rd|next|"
                           r"runner[\s-]?up|behind|trail\w*)\b", re.IGNORECASE)


def _put_aside(line: str, start: int, end: int) -> bool:
    """Whether the option named at ``start:end`` is named only to be set aside or ranked below the top."""
    return bool(_PUT_ASIDE.search(line, max(0, start - 30), start) or _RANKED_AFTER.match(line[end:end + 40]))


# "relative to plan" says what an overspend is measured against, not that it is a percentage: said with an
# amount of money and no percentage, it is the amount's measure ("Finance's $5,800 was the biggest overspend
# relative to plan")
_AGAINST_PLAN = re.compile(r"\brelative\s+to\s+(?:its\s+|the\s+|their\s+)?(?:plan|budget|forecast|target)\w*",
                           re.IGNORECASE)
_MONEY = re.compile(r"[$€£₹]\s?\d|\d(?:[\d,.]*\d)?\s?(?:[kKmM]\b|USD|EUR|GBP|INR|dollars?|euros?)")
_PERCENTAGE = re.compile(r"\d\s?%|\bper\s?cent|\bpercent|\bProzent|\bpour\s?cent", re.IGNORECASE)


def _of_another_measure(unless: str, clause: str, line: str) -> bool:
    """Whether a pick said in ``clause`` (of ``line``) is about another measure or time: ``unless`` is found
    in it, and not only in a "relative to plan" that ``line`` states as an amount of money, nor only in a
    figure's sign where the clause states figures of both measures ("the most: 9.1% vs $27,500" states one
    of the question's too)."""
    if _MONEY.search(line) and not _PERCENTAGE.search(line):
        clause = _AGAINST_PLAN.sub(lambda m: " " * len(m.group(0)), clause)
    found = [m.group(0) for m in re.finditer(unless, clause, re.IGNORECASE)]
    if found and _MONEY.search(clause) and _PERCENTAGE.search(clause):
        return any(len(word.strip()) > 1 for word in found)
    return bool(found)


def _clause(line: str, start: int, end: int) -> str:
    """The clause of ``line`` holding ``start:end``: from the clause break before it to the one after it."""
    bare = _asides_blanked(line)
    breaks = [m for m in _CLAUSE_BREAK.finditer(bare) if m.end() <= start]
    after = _CLAUSE_BREAK.search(bare, end)
    return line[breaks[-1].end() if breaks else 0:after.start() if after else len(line)]


def _asides_blanked(line: str) -> str:
    """``line`` with its comma-set asides ("the largest overrun, however, was ...") blanked, same length:
    they break no clause."""
    return _INTERJECTION.sub(lambda m: " " * len(m.group(0)), line)


def _crowns_nobody(line: str, start: int) -> bool:
    """Whether the superlative at ``start`` is negated ("not the biggest") or ranked below the top
    ("second-largest", "next biggest")."""
    head = line[max(0, start - 40):start]
    return bool(_RANKED_BELOW.search(head) or _NEGATED.search(head))


def _ranked_after_one(line: str, start: int, spots: list[tuple[int, int, str]], key: str) -> bool:
    """Whether ``key`` is crowned only after another option was set apart ("after Operations, the
    biggest overrun was Executive": Executive is second, which may be true)."""
    return any(other != key and s_end <= start and _SET_APART.search(line, max(0, s_start - 25), s_start)
               for s_start, s_end, other in spots)
