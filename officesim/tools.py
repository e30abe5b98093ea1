"""The tool registry: every app operation an agent may call, with its schema and dispatch.

Apps declare tools with ``@tool(app=..., kind="read"|"write")`` on typed functions whose first
parameter is the ``World``.  The registry derives a strict JSON Schema and a pydantic argument
model from the signature and docstring.  ``dispatch`` is the agent's only door into a world:
nothing a model can send makes it raise; bad calls come back as ``{"error": {...}}``.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import re
import typing
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from officesim.budget import run_within
from officesim.errors import InvalidArgument, ToolError, UnknownTool
from officesim.toolschema import parameters_schema, parse_docstring, with_limits

if TYPE_CHECKING:
    from officesim.world import World

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# One verb vocabulary for every tool name: <app>_<verb>[_<noun>].
VERBS = frozenset(
    {"list", "get", "search", "read", "create", "update", "delete", "send", "reply", "forward",
     "share", "move", "post", "react", "join", "append", "log", "mark", "label",
     # the calendar: call an event off, answer an invitation, find common free time
     "cancel", "respond", "find",
     "restore"}  # restore: out of the trash, the word every Drive and mail user knows
)
ToolKind = Literal["read", "write"]
MAX_PROBLEMS = 5  # validation problems listed in one error (a 20,000-item list has 20,000)
MAX_CALL_TEXT = 250_000  # characters of text in all of one call's arguments (a whole document fits)
MAX_ARGUMENTS_JSON = 2_000_000  # characters of a JSON arguments string, refused before parsing


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
# Built-in tools of an episode (``submit``): described and validated like app tools, but the env
# runs them (they end or pace the episode), so they are never dispatched to a world.
_EPISODE_TOOLS: dict[str, Tool] = {}
EPISODE_APP = "episode"


def _build(func: Callable[..., dict[str, Any]], app: str, kind: ToolKind) -> Tool:
    """A ``Tool`` from a typed function ``f(world, ...) -> dict``: its schema and argument model."""
    name = func.__name__
    description, docs = parse_docstring(func.__doc__)
    if not description:
        raise TypeError(f"tool {name} needs a docstring written for the model")
    # The world parameter is typed only for readers (imported under TYPE_CHECKING).
    hints = typing.get_type_hints(func, localns={"World": object}, include_extras=True)
    params = list(inspect.signature(func).parameters.values())[1:]  # drop the world
    fields: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for param in params:
        bounded = with_limits(hints[param.name])  # the same maxima the schema documents
        if param.default is inspect.Parameter.empty:
            fields[param.name] = (bounded, ...)
        else:
            fields[param.name] = (bounded, param.default)
            defaults[param.name] = param.default
    model = create_model(f"{name}_args", __config__=ConfigDict(extra="forbid", strict=True), **fields)
    return Tool(name=name, app=app, kind=kind, description=description,
                parameters=parameters_schema(params, hints, docs, name), func=func, args_model=model,
                defaults=defaults)


def tool(*, app: str, kind: ToolKind) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
    """Register a typed function ``f(world, ...) -> dict`` as a tool of ``app``."""

    def register(func: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        name = func.__name__
        if not NAME_PATTERN.match(name) or not name.startswith(f"{app}_"):
            raise TypeError(f"tool {name!r} must be named '{app}_<verb>[_<noun>]' and match {NAME_PATTERN.pattern}")
        if name in _REGISTRY or name in _EPISODE_TOOLS:
            raise TypeError(f"tool {name!r} is registered twice")
        _REGISTRY[name] = _build(func, app, kind)
        return func

    return register


def episode_tool(func: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Register a built-in episode tool (a bare verb such as ``submit``); the env intercepts its calls."""
    name = func.__name__
    if not NAME_PATTERN.match(name) or "_" in name:
        raise TypeError(f"episode tool {name!r} must be one bare word matching {NAME_PATTERN.pattern}")
    if name in _REGISTRY or name in _EPISODE_TOOLS:
        raise TypeError(f"tool {name!r} is registered twice")
    _EPISODE_TOOLS[name] = _build(func, EPISODE_APP, "write")
    return func


def registry() -> dict[str, Tool]:
    """Every registered app tool by name (apps register on import of ``officesim.apps``)."""
    return dict(sorted(_REGISTRY.items()))


def episode_registry() -> dict[str, Tool]:
    """The built-in episode tools by name (``submit``), registered by ``officesim.episode_tools``."""
    return dict(sorted(_EPISODE_TOOLS.items()))


def validate_call(spec: Tool, arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    """The checked keyword arguments of a call to ``spec``, or ``InvalidArgument`` saying what is wrong."""
    kwargs = spec.validate(parse_arguments(arguments))
    _check_text(kwargs)
    return kwargs


def get_tool(name: str, allowed: Collection[str] | None = None) -> Tool:
    """The tool called ``name``, or ``UnknownTool`` suggesting the closest allowed name."""
    found = _REGISTRY.get(name)
    if found is not None and (allowed is None or name in allowed):
        return found
    shown = str(name)[:80]  # a tool name is at most 64 characters; never echo a long one back
    close = _closest(shown, frozenset(allowed) if allowed is not None else None)
    hint = f" Did you mean {close!r}?" if close else ""
    where = "allowed in this task" if allowed is not None else "registered"
    raise UnknownTool(f"there is no tool {shown!r} {where}.{hint} Call one of the tools you were given.")


@functools.lru_cache(maxsize=1024)
def _closest(name: str, allowed: frozenset[str] | None) -> str | None:
    """The allowed tool name most like ``name``, if any is close (cached: models repeat a wrong name).

    difflib costs ~10 us per candidate, so it sees a shortlist: the tools of the app the name
    starts with, narrowed to those sharing the start of a word ('mail_serch_messages' meets
    'mail_search_messages' and 'mail_get_message', not all ~60 tools).
    """
    choices = sorted(allowed if allowed is not None else _REGISTRY)
    words = name.lower().split("_")
    same_app = [c for c in choices if c.startswith(f"{words[0]}_")]
    if same_app:
        words = words[1:]  # the app matched; the rest tells its tools apart
    stems = {w[:4] for w in words if len(w) >= 3}
    pool = same_app or choices
    shortlist = [c for c in pool if stems & {w[:4] for w in c.split("_")}] or pool
    close = difflib.get_close_matches(name, shortlist, n=1, cutoff=0.5)
    return close[0] if close else None


_LENGTH_ERRORS = {"string_too_long": "characters", "too_long": "items"}


# How pydantic names the member of a union an error is about, at the end of its location.
_BRANCHES = frozenset({"str", "constrained-str", "int", "float", "bool"})


def _explain(spec: Tool, exc: ValidationError) -> str:
    """One line per wrong argument (the first ``MAX_PROBLEMS``), never echoing a long input back."""
    groups: dict[str, list[Any]] = {}
    for item in exc.errors():
        parts = list(item["loc"])
        if item["type"] not in ("extra_forbidden", "missing") and parts and parts[-1] in _BRANCHES:
            parts.pop()  # 'rows.0.1.int': the same cell as 'rows.0.1.constrained-str'
        loc = ".".join(str(p) for p in parts) or "(arguments)"
        groups.setdefault(loc, []).append(item)
    problems = []
    for loc, items in list(groups.items())[:MAX_PROBLEMS]:
        item = next((i for i in items if i["type"] in _LENGTH_ERRORS), items[0])
        given = item.get("input")
        if item["type"] == "extra_forbidden":
            problems.append(f"{loc!r} is not a parameter (parameters: {', '.join(spec.parameters['properties'])})")
        elif item["type"] == "missing":
            problems.append(f"{loc!r} is required")
        elif item["type"] in _LENGTH_ERRORS:
            unit = _LENGTH_ERRORS[item["type"]]
            size = f"{len(given):,} {unit}" if isinstance(given, str | list | tuple) else f"too many {unit}"
            problems.append(f"{loc!r} is too long: {size}, at most {item['ctx']['max_length']:,} allowed")
        else:
            got = json.dumps(given, default=str)[:80]
            if len(items) > 1:  # one error per member of a union: say which types fit
                kinds = ", ".join(str(i["loc"][-1]).replace("constrained-", "") for i in items)
                problems.append(f"{loc!r}: should be one of {kinds} or null (got {got})")
            else:
                problems.append(f"{loc!r}: {item['msg']} (got {got})")
    more = f" (and {len(groups) - MAX_PROBLEMS} more)" if len(groups) > MAX_PROBLEMS else ""
    return (f"invalid arguments for {spec.name}: " + "; ".join(problems) + more
            + ". Fix them to match the tool's schema.")


def parse_arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    """Arguments as sent by a model: a dict, a JSON object string, or nothing."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENTS_JSON:
            raise InvalidArgument(
                f"arguments are {len(arguments):,} characters of JSON; at most {MAX_ARGUMENTS_JSON:,} are read. "
                "Send less text per call"
            )
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


def _check_text(value: Any) -> None:
    """Refuse text SQLite cannot store (lone surrogates) and more text in one call than any tool needs.

    Each string and list is already within its own maximum; this bounds their sum (a thousand rows
    of long cells), so that no call stores or scans megabytes.
    """
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    raise InvalidArgument(
                        f"text {item[:40]!r} contains an unpaired surrogate; send valid UTF-8 text"
                    ) from None
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, BaseModel):
            stack.extend(item.__dict__.values())
    if total > MAX_CALL_TEXT:
        raise InvalidArgument(
            f"the arguments hold {total:,} characters of text in all; one call takes at most {MAX_CALL_TEXT:,}. "
            "Split the work over several calls"
        )


def dispatch(
    world: World,
    name: str,
    arguments: dict[str, Any] | str | None = None,
    *,
    allowed: Collection[str] | None = None,
) -> dict[str, Any]:
    """Run one tool call on ``world`` as its acting user; errors come back as data.

    A write tool runs in one transaction: a ``ToolError`` half-way leaves no partial change.  Every
    call runs within the world's ``time_budget`` (``officesim.budget``); one that runs past it is a
    ``timeout`` error and, like any failed call, changes nothing.  Anything that is not a
    ``ToolError`` is a bug and propagates.
    """
    try:
        spec = get_tool(name, allowed)
        kwargs = validate_call(spec, arguments)
    except ToolError as err:
        return err.to_result()
    budget = world.time_budget

    def work() -> dict[str, Any]:
        return spec.func(world, **kwargs)

    if spec.kind == "read":
        try:
            return run_within(world.db, budget, work)
        except ToolError as err:
            return err.to_result()
    world.db.execute("BEGIN")
    try:
        result = run_within(world.db, budget, work)
    except ToolError as err:
        _roll_back(world)
        return err.to_result()
    except BaseException:
        _roll_back(world)
        raise
    world.db.execute("COMMIT")
    return result


def _roll_back(world: World) -> None:
    """Undo a failed write call (SQLite may already have rolled back an interrupted statement)."""
    if world.db.in_transaction:
        world.db.execute("ROLLBACK")
    world.reload_meta()
