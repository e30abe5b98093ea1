"""What a task's answer must state and what it must not: the material variants and probes use.

Read from the task's ``grader.yaml``: its ``facts:`` section (the grading package's model, see
docs/formats.md "Facts") as its ``facts`` checks use it — required facts give names, values and
their ``wrong`` readings, the other ``candidates`` and ``exclude``d entities the wrong names —
and, for graders (or parts of graders) still written with keyword checks, the names and figures
their positive checks require (``contains``, ``number``, ``equals``, ``body_contains``,
``body_numbers``, doc ``numbers``) and the wrong readings they name (``none_of``,
``wrong_numbers``, alternations in penalty ``body_matches``, penalty doc numbers).  Nothing here
is shown to an agent: variants and probes are built from what a grader knows, on purpose, so
the self-tests are as strong as an adversary who guessed the grader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from officesim.resources import tasks_dir
from officesim.task import read_yaml

if TYPE_CHECKING:
    from officesim.task import Task

_ALTERNATION = re.compile(r"^\(\?i\)\((.*)\)$")
_PLAIN = re.compile(r"^[\w .,'&@-]+$")


@dataclass
class Facts:
    """Names and figures a correct text states, and the wrong readings it must not offer."""

    names: list[str] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    wrong_names: list[str] = field(default_factory=list)
    wrong_values: list[float] = field(default_factory=list)
    judged: bool = False  # some criterion is left to an LLM judge
    # name -> who may see it in mail (the entity's ``party``: person refs or outside emails)
    parties: dict[str, list[str]] = field(default_factory=dict)

    def add(self, other: Facts) -> None:
        for names, more_names in ((self.names, other.names), (self.wrong_names, other.wrong_names)):
            names.extend(x for x in more_names if x not in names)
        for values, more_values in ((self.values, other.values), (self.wrong_values, other.wrong_values)):
            values.extend(x for x in more_values if x not in values)
        self.judged = self.judged or other.judged
        for name, party in other.parties.items():
            self.parties.setdefault(name, list(party))


def _alternatives(pattern: str) -> list[str]:
    """The literal names of a penalty regex ``(?i)(A|B|C)``; ``[]`` when it is anything else."""
    found = _ALTERNATION.match(pattern or "")
    if not found:
        return []
    names = []
    for part in found.group(1).split("|"):
        text = part.replace(r"\s*(?:and|&)\s*", " & ").replace("\\", "")
        if _PLAIN.match(text):
            names.append(text)
    return names


def _numbers(specs: list[Any] | None) -> list[float]:
    return [float(s["value"] if isinstance(s, dict) else s) for s in specs or []]


def _from_check(check: dict[str, Any], facts: Facts) -> None:
    positive = check.get("points") is None or check["points"] > 0
    kind = check.get("check")
    facts.judged = facts.judged or kind == "judge"
    if kind == "answer":
        if positive:
            facts.names += list(check.get("contains") or [])
            equals = check.get("equals")
            if isinstance(equals, str):
                facts.names.append(equals)
            elif isinstance(equals, int | float):
                facts.values.append(float(equals))
            facts.values += [float(check["number"])] if check.get("number") is not None else []
        facts.wrong_names += list(check.get("none_of") or [])
        facts.wrong_values += _numbers(check.get("wrong_numbers"))
    elif kind in ("mail_sent", "doc_contains"):
        names = list(check.get("body_contains") or check.get("contains") or [])
        values = _numbers(check.get("body_numbers") or check.get("numbers"))
        if positive and (check.get("min", 1) or 0) > 0:
            facts.names += names
            facts.values += values
        elif not positive:
            facts.wrong_names += names + _alternatives(check.get("body_matches") or "")
            facts.wrong_values += values
    elif kind == "record" and positive:
        text = (check.get("match") or {}).get("text")
        if isinstance(text, dict) and "contains" in text:
            facts.names.append(str(text["contains"]))


def _entity_name(entities: dict[str, Any], key: Any) -> str | None:
    entity = entities.get(key) if isinstance(key, str) else None
    return str(entity["name"]) if isinstance(entity, dict) and entity.get("name") else None


def _is_statement(entity: Any) -> bool:
    """Whether an entity of a facts block is a statement (an outcome, or a claim written as patterns), not an item."""
    if not isinstance(entity, dict):
        return False
    return entity.get("kind") == "outcome" or (entity.get("kind") == "claim" and bool(entity.get("patterns")))


def _from_facts_block(block: Any, checks: list[dict[str, Any]]) -> Facts:
    """The grading package's facts (``facts:`` in grader.yaml) as the ``facts`` checks use them:
    required facts give names and values (and their ``wrong`` readings), ``name`` the entities the
    answer names, the other ``candidates`` and the ``exclude``d entities the wrong names."""
    facts = Facts()
    if not isinstance(block, dict):
        return facts
    entities = block.get("entities") or {}
    for entity in entities.values():
        if isinstance(entity, dict) and entity.get("name") and entity.get("party"):
            facts.parties[str(entity["name"])] = [str(p) for p in entity["party"]]
    known = {(f.get("entity"), f.get("attribute")): f for f in block.get("facts") or [] if isinstance(f, dict)}
    for check in checks:
        if check.get("check") != "facts" or (check.get("points") is not None and check["points"] <= 0):
            continue
        for ref in check.get("require") or []:
            entity, _, attribute = str(ref).partition(".")
            fact = known.get((entity, attribute)) or {}
            facts.names += [n for n in [_entity_name(entities, entity)] if n]
            value = fact.get("value")
            if isinstance(value, int | float) and not isinstance(value, bool):
                facts.values.append(float(value))
            elif isinstance(value, str):
                facts.names.append(_entity_name(entities, value) or value)
            facts.wrong_values += [float(w) for w in fact.get("wrong") or [] if isinstance(w, int | float)]
            facts.wrong_names += [_entity_name(entities, w) or w for w in fact.get("wrong") or [] if isinstance(w, str)]
        named = list(dict.fromkeys(check.get("name") or []))  # in the grader's order: a set's would vary by process
        facts.names += [n for n in (_entity_name(entities, k) for k in named) if n]
        # an excluded outcome ("all done", "I've updated the bank details") or a claim written as patterns
        # (decline_against_policy's "an allowed request told as refused") is a claim the text must not make, not
        # an item a near miss or a hedge could name: "FYI, I also checked all done" is no text to try.  An
        # expense claim (kind "claim" too, named by its receipt) is an item: a near miss names it
        excluded = [k for k in check.get("exclude") or [] if not _is_statement(entities.get(k))]
        others = [k for k in check.get("candidates") or [] if k not in named] + excluded
        facts.wrong_names += [n for n in (_entity_name(entities, k) for k in others) if n]
    return facts


@lru_cache(maxsize=1024)
def _facts_of_file(path: Path, mtime: float) -> Facts:
    return _facts_of_text(path, path.read_bytes())


@lru_cache(maxsize=256)
def _facts_of_text(path: Path, text: bytes) -> Facts:
    grader = read_yaml(path, text) or {}
    facts = Facts()
    checks = [*(grader.get("gates") or []), *(grader.get("criteria") or [])]
    for check in checks:
        _from_check(check, facts)
    if "facts" in grader:
        facts.add(_from_facts_block(grader["facts"], checks))
    out = Facts()
    out.add(facts)  # deduplicated
    out.wrong_names = [n for n in out.wrong_names if n not in out.names]
    return out


def facts_for(task: Task) -> Facts:
    """The facts of ``task`` (cached per grader file; an in-memory task's from its text)."""
    path = task.dir / "grader.yaml"
    if task.files is not None:
        return _facts_of_text(path, task.files["grader.yaml"].encode("utf-8"))
    return _facts_of_file(path, path.stat().st_mtime)


def family_facts(task: Task) -> list[Facts]:
    """The facts of every task of ``task``'s family found next to it (for blind-answer probes);
    for an in-memory (sampled) task, those of the task library's instances of its family."""
    siblings = []
    for folder in sorted((task.dir.parent if task.dir.parent.is_dir() else tasks_dir()).iterdir()):
        spec = folder / "task.yaml"
        if folder == task.dir or not spec.is_file():
            continue
        if _family_of(spec, spec.stat().st_mtime) == task.family:
            siblings.append(_facts_of_file(folder / "grader.yaml", (folder / "grader.yaml").stat().st_mtime))
    return siblings


@lru_cache(maxsize=4096)
def _family_of(path: Path, mtime: float) -> str | None:
    for line in path.read_text().splitlines():
        if line.startswith("family:"):
            return line.split(":", 1)[1].strip()
    return None
