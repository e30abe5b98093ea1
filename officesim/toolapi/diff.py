"""What changed between two tool surfaces, and whether it breaks callers.

Every change is classified from the point of view of an agent (or trajectory) written against
the old surface:

* **breaking**: some call that worked before is now rejected or means something else (a tool or
  parameter removed or renamed, a parameter made required, a type or enum narrowed, a default
  changed: calls that omit it now behave differently);
* **compatible**: every old call still works the same (a tool or optional parameter added, a
  type or enum widened, a parameter made optional);
* **docs**: only what the model reads changed (a description reworded).

Renames are detected, not guessed from names alone: a removed and an added tool (or parameter)
pair up when their schemas match and their descriptions or names are close; the evidence is
reported with the change.  Optional parameters are read both ways schemas write them: strict
schemas list every property as required and make optional ones nullable; relaxed schemas leave
optional ones out of ``required``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from officesim.toolapi.surface import BUILTIN, Surface, canonical_json

Severity = Literal["breaking", "compatible", "docs"]
SEVERITIES: tuple[Severity, ...] = ("breaking", "compatible", "docs")
_DEFAULT = re.compile(r"\s*Default: (.+?)\.?\s*$")
# Numeric bounds: a larger maximum (or smaller minimum) accepts more.
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems")
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems")
RENAME_THRESHOLD = 0.6


@dataclass(frozen=True)
class Change:
    """One difference between two surfaces.

    Attributes:
        tool: the tool it concerns (its new name when renamed).
        kind: ``tool_added``, ``tool_removed``, ``tool_renamed``, ``param_added``,
            ``param_removed``, ``param_renamed``, ``made_required``, ``made_optional``,
            ``type_narrowed``, ``type_widened``, ``type_changed``, ``enum_removed``,
            ``enum_added``, ``default_changed``, ``constraint_narrowed``, ``constraint_widened``,
            ``description_changed``.
        severity: breaking, compatible or docs.
        where: ``tool`` or ``tool.param`` (``tool.param[].field`` inside arrays and objects).
        detail: what changed, with the old and new values.
        reason: why that severity.
    """

    tool: str
    kind: str
    severity: Severity
    where: str
    detail: str
    reason: str


@dataclass(frozen=True)
class SurfaceDiff:
    """The changes from ``old`` to ``new``."""

    old: Surface
    new: Surface
    changes: list[Change]

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.severity == "breaking"]

    def counts(self) -> dict[str, int]:
        return {s: sum(c.severity == s for c in self.changes) for s in SEVERITIES}

    def changed_tools(self) -> list[str]:
        return sorted({c.tool for c in self.changes})

    def to_dict(self) -> dict[str, Any]:
        side = lambda s: {"source": s.source, "version": s.version, "hash": s.hash, "tools": len(s.tools)}  # noqa: E731
        return {"old": side(self.old), "new": side(self.new), "summary": self.counts(),
                "changed_tools": self.changed_tools(), "changes": [asdict(c) for c in self.changes]}


# ---------------------------------------------------------------- schema reading
def _split_default(description: str) -> tuple[str, str | None]:
    """(description without the ``Default: X.`` clause the registry appends, that default)."""
    match = _DEFAULT.search(description or "")
    if not match:
        return description or "", None
    return description[: match.start()].rstrip(), match.group(1)


def _variants(schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The schema as one sub-schema per JSON type it accepts (``null`` included)."""
    if "anyOf" in schema or "oneOf" in schema:
        out: dict[str, dict[str, Any]] = {}
        for member in schema.get("anyOf", schema.get("oneOf", [])):
            out.update(_variants(member))
        return out
    kinds = schema.get("type")
    if kinds is None:
        return {"any": dict(schema)}
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    out = {}
    for kind in kinds:
        member = {k: v for k, v in schema.items() if k not in ("type", "description", "default")}
        if "enum" in member:
            member["enum"] = [v for v in member["enum"] if v is not None]
        out[kind] = member
    return out


def _accepts(new: str, old: str) -> bool:
    return new == old or new == "any" or (new == "number" and old == "integer")


def _optional_params(schema: Mapping[str, Any]) -> set[str]:
    """Properties a caller may leave out (or null): not required, or nullable in a strict schema."""
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    strict = required == set(props) and bool(props)
    return {name for name, prop in props.items()
            if name not in required or (strict and "null" in _variants(prop))}


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def _shape(schema: Mapping[str, Any]) -> str:
    """A parameter's type with descriptions and defaults left out (what a rename must keep)."""
    return canonical_json({k: sorted(v.items()) for k, v in _variants(schema).items() if k != "null"})


def _fmt(values: Any) -> str:
    return ", ".join(repr(v) for v in values)


# ---------------------------------------------------------------- comparing
def _compare_value(tool: str, where: str, old: Mapping[str, Any], new: Mapping[str, Any],
                   *, nullable_is_optional: bool) -> Iterator[Change]:
    """Changes of one value's schema: types, enums, bounds, items and nested properties."""
    before, after = _variants(old), _variants(new)
    if nullable_is_optional:  # nullability is reported as required-ness, not as a type
        before.pop("null", None)
        after.pop("null", None)
    lost = [k for k in before if not any(_accepts(n, k) for n in after)]
    gained = [k for k in after if not any(_accepts(o, k) for o in before)]
    if lost and gained:
        yield Change(tool, "type_changed", "breaking", where, f"type {_fmt(before)} -> {_fmt(after)}",
                     "values of the old type are rejected")
    elif lost:
        yield Change(tool, "type_narrowed", "breaking", where, f"type {_fmt(before)} -> {_fmt(after)}",
                     f"{_fmt(lost)} no longer accepted")
    elif gained or set(before) != set(after):
        yield Change(tool, "type_widened", "compatible", where, f"type {_fmt(before)} -> {_fmt(after)}",
                     "every old value is still accepted")
    for kind in before.keys() & after.keys():
        yield from _compare_member(tool, where, before[kind], after[kind])


def _compare_member(tool: str, where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    if "enum" in old or "enum" in new:
        if "enum" not in new:
            yield Change(tool, "enum_removed", "compatible", where, f"enum {_fmt(old['enum'])} lifted",
                         "any value is accepted now")
        elif "enum" not in old:
            yield Change(tool, "type_narrowed", "breaking", where, f"restricted to {_fmt(new['enum'])}",
                         "values outside the enum are rejected")
        else:
            removed = [v for v in old["enum"] if v not in new["enum"]]
            added = [v for v in new["enum"] if v not in old["enum"]]
            if removed:
                yield Change(tool, "enum_removed", "breaking", where, f"value {_fmt(removed)} removed",
                             "calls passing it are rejected")
            if added:
                yield Change(tool, "enum_added", "compatible", where, f"value {_fmt(added)} added",
                             "old values are still accepted")
    for key in (*_UPPER, *_LOWER):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        tighter = (b is not None and (a is None or (b < a if key in _UPPER else b > a)))
        yield Change(tool, "constraint_narrowed" if tighter else "constraint_widened",
                     "breaking" if tighter else "compatible", where, f"{key} {a} -> {b}",
                     "values the old bound allowed are rejected" if tighter else "the bound allows more")
    if old.get("pattern") != new.get("pattern"):
        yield Change(tool, "constraint_narrowed", "breaking", where,
                     f"pattern {old.get('pattern')!r} -> {new.get('pattern')!r}", "values may no longer match")
    if isinstance(old.get("items"), Mapping) and isinstance(new.get("items"), Mapping):
        yield from _compare_value(tool, f"{where}[]", old["items"], new["items"], nullable_is_optional=False)
    if "properties" in old or "properties" in new:
        yield from _compare_params(tool, where, old, new)


def _pair_renames(old: Mapping[str, Any], new: Mapping[str, Any], removed: list[str], added: list[str], *,
                  describe: Callable[[Any], str], shape: Callable[[Any], str],
                  same: Callable[[Any], str]) -> list[tuple[str, str, float, str]]:
    """Best (old, new, score, evidence) pairs whose shapes match and whose descriptions or names are close.

    ``shape`` is what a rename must keep (a parameter's type, a tool's parameters), ``same`` says
    it in the evidence.
    """
    scored: list[tuple[float, str, str, str]] = []
    for r in removed:
        for a in added:
            if shape(old[r]) != shape(new[a]):
                continue
            text = _similar(describe(old[r]), describe(new[a]))
            name = _similar(r, a)
            # The description is the evidence; a close name only helps a description that is close too.
            score = max(text, (text + name) / 2 if text >= 0.4 else 0.0)
            if score >= RENAME_THRESHOLD:
                evidence = f"{same(new[a])}, description {text:.0%} similar, name {name:.0%} similar"
                scored.append((score, r, a, evidence))
    pairs: list[tuple[str, str, float, str]] = []
    used: set[str] = set()
    for score, r, a, evidence in sorted(scored, key=lambda s: -s[0]):
        if r not in used and a not in used:
            used.update((r, a))
            pairs.append((r, a, score, evidence))
    return pairs


def _param_text(schema: Mapping[str, Any]) -> str:
    return _split_default(str(schema.get("description", "")))[0]


def _compare_params(tool: str, prefix: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    """Changes to the properties of an object schema (a tool's parameters or a nested object)."""
    before, after = old.get("properties") or {}, new.get("properties") or {}
    opt_before, opt_after = _optional_params(old), _optional_params(new)
    join = lambda p: f"{prefix}.{p}"  # noqa: E731  (prefix: the tool, or the path of a nested object)
    removed = [p for p in before if p not in after]
    added = [p for p in after if p not in before]
    pairs = _pair_renames(before, after, removed, added, describe=_param_text, shape=_shape,
                          same=lambda p: f"same type {_fmt(k for k in _variants(p) if k != 'null')}")
    for r, a, _, evidence in pairs:
        removed.remove(r)
        added.remove(a)
        yield Change(tool, "param_renamed", "breaking", join(a), f"{r!r} -> {a!r} ({evidence})",
                     f"calls passing {r!r} are rejected")
    for p in removed:
        yield Change(tool, "param_removed", "breaking", join(p), f"{p!r} removed",
                     f"calls passing {p!r} are rejected")
    for p in added:
        if p in opt_after:
            yield Change(tool, "param_added", "compatible", join(p), f"optional {p!r} added",
                         "old calls need not pass it")
        else:
            yield Change(tool, "param_added", "breaking", join(p), f"required {p!r} added",
                         "old calls do not pass it and are rejected")
    common = [(p, p) for p in before if p in after] + [(r, a) for r, a, _, _ in pairs]
    strict = bool(after) and set(new.get("required") or []) == set(after)
    for p, q in common:
        where = join(q)
        if p in opt_before and q not in opt_after:
            yield Change(tool, "made_required", "breaking", where, f"{q!r} optional -> required",
                         "old calls that leave it out are rejected")
        elif p not in opt_before and q in opt_after:
            yield Change(tool, "made_optional", "compatible", where, f"{q!r} required -> optional",
                         "old calls still pass it")
        yield from _compare_value(tool, where, before[p], after[q], nullable_is_optional=strict)
        yield from _compare_text(tool, where, before[p], after[q])


def _compare_text(tool: str, where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    """Default and description changes of one parameter."""
    text_a, default_a = _split_default(str(old.get("description", "")))
    text_b, default_b = _split_default(str(new.get("description", "")))
    default_a = repr(old["default"]) if "default" in old else default_a
    default_b = repr(new["default"]) if "default" in new else default_b
    if default_a != default_b:
        yield Change(tool, "default_changed", "breaking", where, f"default {default_a} -> {default_b}",
                     "calls that leave it out now behave differently")
    if text_a != text_b:
        yield Change(tool, "description_changed", "docs", where, _reworded(text_a, text_b),
                     "only what the model reads changed")


def _reworded(a: str, b: str) -> str:
    short = lambda s: s if len(s) <= 60 else s[:57] + "..."  # noqa: E731
    return f"{short(a)!r} -> {short(b)!r}"


def _compare_tool(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    yield from _compare_params(name, name, old.get("parameters") or {}, new.get("parameters") or {})
    if old.get("description", "") != new.get("description", ""):
        yield Change(name, "description_changed", "docs", name, _reworded(old["description"], new["description"]),
                     "only what the model reads changed")


def _tool_text(spec: Mapping[str, Any]) -> str:
    return str(spec.get("description", ""))


def _properties(spec: Mapping[str, Any]) -> dict[str, Any]:
    return dict((spec.get("parameters") or {}).get("properties") or {})


def _tool_shape(spec: Mapping[str, Any]) -> str:
    """A tool's parameter names and types: what a renamed tool keeps."""
    return canonical_json({p: _shape(v) for p, v in _properties(spec).items()})


def diff_surfaces(old: Surface, new: Surface) -> SurfaceDiff:
    """Every change from ``old`` to ``new`` (the built-in ``submit`` is left out)."""
    before = {k: v for k, v in old.tools.items() if k not in BUILTIN}
    after = {k: v for k, v in new.tools.items() if k not in BUILTIN}
    removed = [t for t in before if t not in after]
    added = [t for t in after if t not in before]
    changes: list[Change] = []
    renames = _pair_renames(before, after, removed, added, describe=_tool_text, shape=_tool_shape,
                            same=lambda t: f"same parameters ({', '.join(_properties(t)) or 'none'})")
    for r, a, _, evidence in renames:
        removed.remove(r)
        added.remove(a)
        changes.append(Change(a, "tool_renamed", "breaking", a, f"{r!r} -> {a!r} ({evidence})",
                              f"calls to {r!r} fail as unknown tools"))
        changes.extend(_compare_tool(a, before[r], after[a]))
    changes.extend(Change(t, "tool_removed", "breaking", t, f"{t!r} removed", "calls to it fail as unknown tools")
                   for t in removed)
    changes.extend(Change(t, "tool_added", "compatible", t, f"{t!r} added", "nothing called it before")
                   for t in added)
    for name in before.keys() & after.keys():
        changes.extend(_compare_tool(name, before[name], after[name]))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    changes.sort(key=lambda c: (order[c.severity], c.tool, c.where, c.kind))
    return SurfaceDiff(old, new, changes)


def render(result: SurfaceDiff) -> str:
    """A readable table of the changes, with both sides' versions and a one-line summary."""
    lines = []
    for label, side in (("old", result.old), ("new", result.new)):
        version = f" version {side.version}" if side.version else ""
        lines.append(f"{label}: {side.source}{version} ({len(side.tools)} tools, {side.hash[:19]})")
    if not result.changes:
        lines.append("no changes: the two surfaces are identical")
        return "\n".join(lines)
    rows = [("severity", "change", "where", "detail", "reason")]
    rows += [(c.severity, c.kind, c.where, c.detail, c.reason) for c in result.changes]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        lines.append("  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)).rstrip())
    counts = result.counts()
    lines.append(f"{len(result.changes)} change(s) in {len(result.changed_tools())} tool(s): "
                 + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES))
    return "\n".join(lines)
