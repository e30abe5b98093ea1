"""The tool registry: every app operation an agent may call, with its schema and dispatch.

Apps declare tools with ``@tool(app=..., kind="read"|"write")`` on typed functions whose first
parameter is the ``World``.  The registry derives a strict JSON Schema and a pydantic argument
model from the signature and docstring.  ``dispatch`` is the agent's only door into a world:
nothing a model can send makes it raise; bad calls come back as ``{"error": {...}}``.
"""

from __future__ import annotations

import difflib
import inspect
import json
import re
import typing
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from officesim.errors import InvalidArgument, ToolError, UnknownTool
from officesim.toolschema import parameters_schema, parse_docstring

if TYPE_CHECKING:
    from officesim.world import World

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# One verb vocabulary for every tool name: <app>_<verb>[_<noun>].
VERBS = frozenset(
    {"list", "get", "search", "read", "create", "update", "delete", "send", "reply", "forward",
     "share", "move", "post", "react", "join", "append", "log", "mark", "label",
     # the calendar: call an event off, answer an invitation, find common free time
     "cancel", "respond", "find"}
)
ToolKind = Literal["read", "write"]


@dataclass(frozen=True)
class Tool:
    """One registered tool: its metadata, schema, argument model and implementation."""

    name: str
    app: str
    kind: ToolKind
    description: str
    parameters: dict[str, Any]
    func: Callable[..., dict[str, Any]]
    args_model: type[BaseModel]
    defaults: dict[str, Any]

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Check arguments against the signature; ``None`` for an optional one means its default."""
        cleaned = {k: v for k, v in arguments.items() if not (v is None and k in self.defaults)}
        try:
            parsed = self.args_model.model_validate(cleaned)
        except ValidationError as exc:
            raise InvalidArgument(_explain(self, exc)) from None
        return dict(parsed.__dict__)


_REGISTRY: dict[str, Tool] = {}


def tool(*, app: str, kind: ToolKind) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
    """Register a typed function ``f(world, ...) -> dict`` as a tool of ``app``."""

    def register(func: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        name = func.__name__
        if not NAME_PATTERN.match(name) or not name.startswith(f"{app}_"):
            raise TypeError(f"tool {name!r} must be named '{app}_<verb>[_<noun>]' and match {NAME_PATTERN.pattern}")
        if name in _REGISTRY:
            raise TypeError(f"tool {name!r} is registered twice")
        description, docs = parse_docstring(func.__doc__)
        if not description:
            raise TypeError(f"tool {name} needs a docstring written for the model")
        # The world parameter is typed only for readers (imported under TYPE_CHECKING).
        hints = typing.get_type_hints(func, localns={"World": object}, include_extras=True)
        params = list(inspect.signature(func).parameters.values())[1:]  # drop the world
        fields: dict[str, Any] = {}
        defaults: dict[str, Any] = {}
        for param in params:
            if param.default is inspect.Parameter.empty:
                fields[param.name] = (hints[param.name], ...)
            else:
                fields[param.name] = (hints[param.name], param.default)
                defaults[param.name] = param.default
        model = create_model(
            f"{name}_args", __config__=ConfigDict(extra="forbid", strict=True), **fields
        )
        _REGISTRY[name] = Tool(
            name=name,
            app=app,
            kind=kind,
            description=description,
            parameters=parameters_schema(params, hints, docs, name),
            func=func,
            args_model=model,
            defaults=defaults,
        )
        return func

    return register


def registry() -> dict[str, Tool]:
    """Every registered tool by name (apps register on import of ``officesim.apps``)."""
    return dict(sorted(_REGISTRY.items()))


def get_tool(name: str, allowed: Collection[str] | None = None) -> Tool:
    """The tool called ``name``, or ``UnknownTool`` suggesting the closest allowed name."""
    found = _REGISTRY.get(name)
    if found is not None and (allowed is None or name in allowed):
        return found
    choices = sorted(allowed if allowed is not None else _REGISTRY)
    close = difflib.get_close_matches(str(name), choices, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    where = "allowed in this task" if allowed is not None else "registered"
    raise UnknownTool(f"there is no tool {name!r} {where}.{hint} Call one of the tools you were given.")


def _explain(spec: Tool, exc: ValidationError) -> str:
    problems = []
    for item in exc.errors():
        loc = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        if item["type"] == "extra_forbidden":
            problems.append(f"{loc!r} is not a parameter (parameters: {', '.join(spec.parameters['properties'])})")
        elif item["type"] == "missing":
            problems.append(f"{loc!r} is required")
        else:
            got = json.dumps(item.get("input"), default=str)[:80]
            problems.append(f"{loc!r}: {item['msg']} (got {got})")
    return f"invalid arguments for {spec.name}: " + "; ".join(problems) + ". Fix them to match the tool's schema."


def parse_arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    """Arguments as sent by a model: a dict, a JSON object string, or nothing."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise InvalidArgument(
                f"arguments are not valid JSON ({exc.msg} at position {exc.pos}); send one JSON object"
            ) from None
        except (ValueError, RecursionError):  # a number over 4,300 digits, or nesting deeper than Python's stack
            raise InvalidArgument(
                "arguments are too large or too deeply nested to read; send one flat JSON object"
            ) from None
    if not isinstance(arguments, dict):
        raise InvalidArgument(f"arguments must be a JSON object, not {type(arguments).__name__}")
    return arguments


def _reject_unencodable(value: Any) -> None:
    """Lone surrogates (``"\\ud800"`` in JSON) cannot be stored; say so instead of crashing in SQLite."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidArgument(
                f"text {value[:40]!r} contains an unpaired surrogate; send valid UTF-8 text"
            ) from None
    elif isinstance(value, dict):
        for item in value.values():
            _reject_unencodable(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _reject_unencodable(item)
    elif isinstance(value, BaseModel):
        _reject_unencodable(value.__dict__)


def dispatch(
    world: World,
    name: str,
    arguments: dict[str, Any] | str | None = None,
    *,
    allowed: Collection[str] | None = None,
) -> dict[str, Any]:
    """Run one tool call on ``world`` as its acting user; errors come back as data.

    A write tool runs in one transaction: a ``ToolError`` half-way leaves no partial change.
    Anything that is not a ``ToolError`` is a bug and propagates.
    """
    try:
        spec = get_tool(name, allowed)
        kwargs = spec.validate(parse_arguments(arguments))
        _reject_unencodable(kwargs)
    except ToolError as err:
        return err.to_result()
    if spec.kind == "read":
        try:
            return spec.func(world, **kwargs)
        except ToolError as err:
            return err.to_result()
    world.db.execute("BEGIN")
    try:
        result = spec.func(world, **kwargs)
    except ToolError as err:
        world.db.execute("ROLLBACK")
        world.reload_meta()
        return err.to_result()
    except BaseException:
        world.db.execute("ROLLBACK")
        world.reload_meta()
        raise
    world.db.execute("COMMIT")
    return result
