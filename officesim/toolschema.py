"""JSON Schemas for tools, derived from typed signatures and Google docstrings.

Schemas are never written by hand: the signature says the types, the docstring says what each
parameter means.  Every schema obeys OpenAI strict mode: ``additionalProperties: false`` on every
object, every property listed in ``required``, optional parameters nullable.

No argument is unbounded: every string has a ``maxLength`` and every list a ``maxItems``, taken from
an ``Annotated[..., MaxLen(n)]`` in the signature or, where a tool declares none, from the defaults
below (``with_limits``).  The registry's pydantic model checks them before the tool does any work,
so a 20,000-item list or a megabyte of text is refused in microseconds.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

from annotated_types import MaxLen
from pydantic import BaseModel

_PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
DEFAULT_MAX_CHARS = 1000  # a string a tool declares no maximum for: an id, a name, a query
DEFAULT_MAX_ITEMS = 100  # a list a tool declares no maximum for
# Declared maxima at least this large are repeated in the description: a model may hit them (and
# OpenAI's strict mode does not take ``maxLength``, see ``strict_schema``).
DESCRIBED_CHARS = 5000


def _max_len(annotation: Any) -> int | None:
    """The ``MaxLen`` declared on an ``Annotated`` type, if any."""
    if get_origin(annotation) is typing.Annotated:
        for meta in annotation.__metadata__:
            if isinstance(meta, MaxLen):
                return meta.max_length
    return None


def with_limits(annotation: Any) -> Any:
    """``annotation`` with a default ``MaxLen`` on every string and list that declares none.

    Recurses into list items, unions and ``Annotated``; pydantic models declare their own
    limits (``model_schema`` refuses a string field without one).
    """
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        inner, *meta = get_args(annotation)
        bounded = with_limits(inner)
        if _max_len(annotation) is not None and get_origin(bounded) is typing.Annotated:
            bounded = get_args(bounded)[0]  # the declared maximum replaces the default one
        return typing.Annotated[(bounded, *meta)] if meta else bounded
    if annotation is str:
        return typing.Annotated[str, MaxLen(DEFAULT_MAX_CHARS)]
    if origin is list:
        (item,) = get_args(annotation) or (str,)
        return typing.Annotated[list[with_limits(item)], MaxLen(DEFAULT_MAX_ITEMS)]  # type: ignore[misc]
    if origin in (Union, types.UnionType):
        return Union[tuple(with_limits(a) for a in get_args(annotation))]  # noqa: UP007
    return annotation


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google docstring into (description, {parameter: description})."""
    if not doc:
        return "", {}
    text = inspect.cleandoc(doc)
    head, _, rest = text.partition("\nArgs:\n")
    params: dict[str, str] = {}
    current: str | None = None
    for line in rest.splitlines():
        if line and not line.startswith(" "):
            break  # the next section (Returns:, Raises:) ends Args
        match = re.match(r"^\s{2,8}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if match and (current is None or len(line) - len(line.lstrip()) <= 8):
            current = match.group(1)
            params[current] = match.group(2).strip()
        elif current and line.strip():
            params[current] = f"{params[current]} {line.strip()}"
    description = re.split(r"\n(?:Returns|Raises|Example|Examples):\n", head)[0].strip()
    return description, params


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        out = dict(schema, type=[kind, "null"])
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    if isinstance(kind, list):
        return schema if "null" in kind else dict(schema, type=[*kind, "null"])
    variants = schema.get("anyOf", [schema])
    if {"type": "null"} in variants:
        return schema
    return {"anyOf": [*variants, {"type": "null"}]}


def type_schema(annotation: Any) -> dict[str, Any]:
    """The strict JSON Schema of one Python type annotation."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        schema = type_schema(get_args(annotation)[0])
        limit = _max_len(annotation)
        if limit is not None:
            schema[_length_keyword(schema)] = limit
        return schema
    if annotation in _PRIMITIVES:
        return {"type": _PRIMITIVES[annotation]}
    if origin is Literal:
        values = list(get_args(annotation))
        return {"type": _PRIMITIVES[type(values[0])], "enum": values}
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        nullable = len(members) < len(get_args(annotation))
        bare = [get_args(m)[0] if get_origin(m) is typing.Annotated else m for m in members]
        if all(m in _PRIMITIVES for m in bare):
            kinds = [_PRIMITIVES[m] for m in bare]
            union: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
            for member in members:  # a string member's maximum applies to strings only (JSON Schema's rule)
                if _max_len(member) is not None:
                    union["maxLength"] = _max_len(member)
        else:
            union = {"anyOf": [type_schema(m) for m in members]}
        return _nullable(union) if nullable else union
    if origin is list:
        (item,) = get_args(annotation) or (str,)
        return {"type": "array", "items": type_schema(item)}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_schema(annotation)
    raise TypeError(f"tool parameters cannot be of type {annotation!r}; use str/int/float/bool/Literal/list/model")


def _length_keyword(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    return "maxItems" if kind == "array" or (isinstance(kind, list) and "array" in kind) else "maxLength"


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A strict object schema for a pydantic model used as a tool parameter (with its length limits)."""
    properties: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation: Any = info.annotation
        limits = [m for m in info.metadata if isinstance(m, MaxLen)]
        if limits:
            annotation = typing.Annotated[annotation, limits[0]]
        elif with_limits(annotation) != annotation:
            raise TypeError(f"{model.__name__}.{name} needs a Field(max_length=...): no argument is unbounded")
        prop = type_schema(annotation)
        if not info.is_required():
            prop = _nullable(prop)
        if not info.description:
            raise TypeError(f"{model.__name__}.{name} needs a Field(description=...) for the model")
        properties[name] = {**prop, "description": info.description}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def parameters_schema(
    params: list[inspect.Parameter], hints: dict[str, Any], docs: dict[str, str], tool_name: str
) -> dict[str, Any]:
    """The strict ``parameters`` object for a tool; every parameter must be documented."""
    properties: dict[str, Any] = {}
    for param in params:
        description = docs.get(param.name)
        if not description:
            raise TypeError(f"tool {tool_name}: parameter {param.name!r} has no description in Args:")
        annotation = with_limits(hints[param.name])
        prop = type_schema(annotation)
        declared = prop.get("maxLength", 0)
        if declared >= DESCRIBED_CHARS:  # a tool's own maximum for long text (the default is far lower)
            description = f"{description} At most {declared:,} characters."
        if param.default is not inspect.Parameter.empty:
            prop = _nullable(prop)
            if param.default is not None:
                description = f"{description} Default: {param.default!r}."
        properties[param.name] = {**prop, "description": description}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def strict_schema(schema: Any) -> Any:
    """``schema`` without the string-length keywords OpenAI strict function calling refuses.

    Strict mode accepts ``maxItems`` but not ``minLength``/``maxLength``; long-text maxima stay in
    the descriptions, and the registry checks every maximum whatever the client was told.
    """
    if isinstance(schema, dict):
        return {k: strict_schema(v) for k, v in schema.items() if k not in ("maxLength", "minLength")}
    if isinstance(schema, list):
        return [strict_schema(v) for v in schema]
    return schema
