"""API drift as a test condition: a seeded perturbation of the tool surface a model sees.

Real tool APIs drift under agents: a parameter is renamed, a tool is deprecated for another, a
page size moves, results grow a field, descriptions get rewritten.  A ``Drift`` applies such
changes to one task's tools, chosen by a seed, and translates every call back to the real tools,
so the world, the grader and the task's hashes are exactly those of the undrifted task:

* ``rename_param``: one parameter of one tool has another name; the old name is rejected;
* ``deprecate_tool``: one tool moved to a new name; the old one is still listed, marked
  deprecated, and calling it returns an error that says where it moved;
* ``page_size``: one tool's default page size (``limit``) is smaller;
* ``result_field``: one tool's results carry an extra field;
* ``reword``: every tool description is reworded (same meaning, other words).

Pass ``options={"drift": SEED}`` (or ``{"seed": SEED, "kinds": [...]}``) to ``OfficeEnv.reset``,
``OfficeEnv(task, drift=...)``, or ``--drift SEED`` to ``officesim run``.  The perturbation is a
function of the seed and the task id, so attempt 3 of a task sees the same drift everywhere.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from officesim.errors import InvalidArgument, OfficesimError, ToolError
from officesim.seeding import derive_seed
from officesim.tools import dispatch, parse_arguments, registry

if TYPE_CHECKING:
    from officesim.task import Task
    from officesim.world import World

KINDS = ("rename_param", "deprecate_tool", "page_size", "result_field", "reword")
# Plausible new names for common parameters; others get a suffix.
SYNONYMS = {
    "query": "search_text", "limit": "max_results", "cursor": "page_token", "file_id": "document_id",
    "person": "user", "message_id": "msg_id", "channel": "channel_name", "text": "message_text",
    "body": "content_text", "subject": "title_text", "to": "recipients", "deal_id": "opportunity_id",
    "account_id": "customer_id", "contact_id": "person_id", "folder": "mailbox", "role": "access_level",
    "department": "team", "stage": "pipeline_stage", "amount": "value", "name": "title", "owner": "owner_email",
    "content": "text_content", "sheet": "tab", "folder_id": "parent_id", "thread_id": "conversation_id",
}
EXTRA_FIELDS = ("request_id", "api_version", "served_by")
# Rewording: each phrase has alternatives with the same meaning.
REWORDINGS = (
    (r"\bSearch\b", ("Look up", "Find")), (r"\bList\b", ("Show", "Enumerate")), (r"\bGet\b", ("Fetch", "Retrieve")),
    (r"\bCreate\b", ("Make", "Add")), (r"\bUpdate\b", ("Modify", "Edit")), (r"\bDelete\b", ("Remove", "Erase")),
    (r"\bSend\b", ("Deliver", "Dispatch")), (r"\bShare\b", ("Grant access to", "Give access to")),
    (r"\byour\b", ("the user's", "the current user's")), (r"\bwith\b", ("along with", "including")),
)


class DriftError(OfficesimError):
    """A drift option that cannot be understood."""


class Deprecated(ToolError):
    """The tool was removed from the API; the message names its replacement."""

    type_name = "deprecated"


@dataclass(frozen=True)
class DriftSpec:
    """Which drift: a seed and the kinds of perturbation to apply (all by default)."""

    seed: int
    kinds: tuple[str, ...] = KINDS


def drift_spec(value: Any) -> DriftSpec | None:
    """A ``DriftSpec`` from an option value: None, a seed, ``{"seed", "kinds"}`` or a ``DriftSpec``."""
    if value is None or isinstance(value, DriftSpec):
        return value
    if isinstance(value, bool) or not isinstance(value, int | Mapping):
        raise DriftError(f"drift must be a seed (an integer) or {{'seed': N, 'kinds': [...]}}, not {value!r}")
    if isinstance(value, int):
        return DriftSpec(value)
    unknown = sorted(set(value) - {"seed", "kinds"})
    if unknown or not isinstance(value.get("seed"), int) or isinstance(value.get("seed"), bool):
        raise DriftError(f"drift options are 'seed' (an integer) and 'kinds'; got {dict(value)!r}")
    kinds = tuple(value.get("kinds") or KINDS)
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise DriftError(f"unknown drift kinds {bad}; choose from {', '.join(KINDS)}")
    return DriftSpec(value["seed"], kinds)


@dataclass
class Drift:
    """One task's drifted surface and the translation of calls back to the real tools."""

    spec: DriftSpec
    tools: list[dict[str, Any]]                                 # what the model sees (OpenAI chat format)
    renamed: dict[str, dict[str, str]] = field(default_factory=dict)   # real tool -> {real param: shown}
    moved: dict[str, str] = field(default_factory=dict)         # deprecated real tool -> its new name
    page_size: dict[str, int] = field(default_factory=dict)     # real tool -> default limit shown
    extra_field: dict[str, tuple[str, str]] = field(default_factory=dict)  # real tool -> (field, value)
    changes: list[str] = field(default_factory=list)            # one line per perturbation

    # ------------------------------------------------------------------ calls
    def call(self, world: World, name: str, arguments: Any, allowed: Collection[str] | None) -> dict[str, Any]:
        """Run a call made against the drifted surface on the real tools; the result as the model sees it."""
        real = {new: old for old, new in self.moved.items()}.get(name, name)
        if name in self.moved:
            return Deprecated(f"{name} is deprecated and no longer works; it moved to {self.moved[name]}, which "
                              "takes the same arguments. Call that instead.").to_result()
        try:
            args = parse_arguments(arguments)
            args = self._real_arguments(name, real, args)
        except ToolError as err:
            return err.to_result()
        result = dispatch(world, real, args, allowed=allowed)
        if "error" in result:
            return self._shown_error(name, real, result)
        if real in self.extra_field:
            key, value = self.extra_field[real]
            result = {**result, key: value}
        return result

    def _real_arguments(self, shown: str, real: str, args: dict[str, Any]) -> dict[str, Any]:
        names = self.renamed.get(real, {})
        back = {new: old for old, new in names.items()}
        hidden = [k for k in args if k in names]  # the real name, which the drifted schema does not have
        if hidden:
            params = [names.get(p, p) for p in registry()[real].parameters["properties"]] if real in registry() else []
            raise InvalidArgument(f"invalid arguments for {shown}: {hidden[0]!r} is not a parameter (parameters: "
                                  f"{', '.join(params)}). Fix them to match the tool's schema.")
        out = {back.get(k, k): v for k, v in args.items()}
        if real in self.page_size and out.get("limit") is None:
            out["limit"] = self.page_size[real]
        return out

    def _shown_error(self, shown: str, real: str, result: dict[str, Any]) -> dict[str, Any]:
        """The real tool's error in the drifted vocabulary (its name and parameter names)."""
        error = dict(result["error"])
        message = str(error.get("message", "")).replace(real, shown)
        for old, new in self.renamed.get(real, {}).items():
            message = message.replace(f"'{old}'", f"'{new}'").replace(f" {old},", f" {new},").replace(
                f" {old})", f" {new})")
        error["message"] = message
        return {**result, "error": error}


# ---------------------------------------------------------------- building a drift
def _function(entry: dict[str, Any]) -> dict[str, Any]:
    return entry["function"]


def _reword(text: str, rng: random.Random) -> str:
    for pattern, choices in REWORDINGS:
        text = re.sub(pattern, rng.choice(choices), text, count=1)
    return text


def _moved_name(name: str, taken: Collection[str]) -> str:
    """``drive_share_file`` -> ``drive_file_share``; ``mail_list_folders`` -> ``mail_folders_list``."""
    parts = name.split("_")
    candidate = "_".join([parts[0], *parts[2:], parts[1]]) if len(parts) > 2 else f"{name}_v2"
    return candidate if candidate not in taken else f"{name}_v2"


def make_drift(value: Any, task: Task) -> Drift | None:
    """The drift a task is served with for the option ``value`` (None: no drift)."""
    spec = drift_spec(value)
    if spec is None:
        return None
    rng = random.Random(derive_seed(spec.seed, "drift", task.id))
    tools = copy.deepcopy(task.tools_json())
    drift = Drift(spec, tools)
    real = {_function(t)["name"]: t for t in tools if _function(t)["name"] in registry()}
    # Perturb the tools the task is solved with when it has a reference solution: drift in a tool
    # nobody needs tests nothing.  (The harness knows the solution; the model never sees it.)
    needed = {step.name for step in task.solution.steps} if task.solution is not None else set()
    names = sorted(needed & set(real)) or sorted(real)
    with_params = [n for n in names if _function(real[n])["parameters"]["properties"]]
    used: set[str] = set()
    if "rename_param" in spec.kinds and with_params:
        tool = rng.choice(with_params)
        params = _function(real[tool])["parameters"]
        old = rng.choice(sorted(params["properties"]))
        new = SYNONYMS.get(old, f"{old}_value")
        if new in params["properties"]:
            new = f"{old}_value"
        params["properties"] = {new if k == old else k: v for k, v in params["properties"].items()}
        params["required"] = [new if k == old else k for k in params["required"]]
        drift.renamed[tool] = {old: new}
        drift.changes.append(f"rename_param: {tool}.{old} is now {new!r}")
        used.add(tool)
    if "deprecate_tool" in spec.kinds and names:
        tool = rng.choice([n for n in names if n not in used] or names)
        moved = _moved_name(tool, {_function(t)["name"] for t in tools})
        replacement = copy.deepcopy(real[tool])
        _function(replacement)["name"] = moved
        function = _function(real[tool])
        function["description"] = f"Deprecated: moved to {moved}, which takes the same arguments. " \
                                  f"{function['description']}"
        tools.insert(tools.index(real[tool]) + 1, replacement)
        drift.moved[tool] = moved
        drift.changes.append(f"deprecate_tool: {tool} moved to {moved!r}")
    paged = [n for n in names if isinstance(registry()[n].defaults.get("limit"), int)] or \
        [n for n in sorted(real) if isinstance(registry()[n].defaults.get("limit"), int)]
    if "page_size" in spec.kinds and paged:
        tool = rng.choice(paged)
        old_size = registry()[tool].defaults["limit"]
        size = max(1, old_size // rng.choice((2, 4, 5)))
        for entry in (real[tool], *(t for t in tools if _function(t)["name"] == drift.moved.get(tool))):
            limit = _function(entry)["parameters"]["properties"].get(drift.renamed.get(tool, {}).get("limit", "limit"))
            if limit is not None:
                limit["description"] = limit["description"].replace(f"Default: {old_size}.", f"Default: {size}.")
        drift.page_size[tool] = size
        drift.changes.append(f"page_size: {tool} returns {size} per page by default (was {old_size})")
    if "result_field" in spec.kinds and names:
        tool = rng.choice(names)
        key = rng.choice(EXTRA_FIELDS)
        drift.extra_field[tool] = (key, f"{key[:3]}-{rng.randrange(16 ** 8):08x}")
        drift.changes.append(f"result_field: {tool} results carry {key!r}")
    if "reword" in spec.kinds:
        for entry in tools:
            if _function(entry)["name"] in registry() or _function(entry)["name"] in drift.moved.values():
                _function(entry)["description"] = _reword(_function(entry)["description"], rng)
        drift.changes.append("reword: every tool description reworded")
    return drift
