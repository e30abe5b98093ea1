"""A tool surface: the tools a model is offered, as name -> description and parameter schema.

Every export format (OpenAI chat, Responses, Anthropic, MCP) is a shape of the same surface, so
diffs, hashes and locks work on this canonical form, never on one format.  The content hash is
taken over the canonical registry surface (names, descriptions, parameter schemas), so the same
code gives the same hash whichever format, schema mode or file it is exported to.

A surface can be read from the registry of this process, from a ``tools.json`` in any exported
format, from a delivery (the union of its tasks' tool lists), or from a project folder or git
revision (its registry, exported in a subprocess that imports that code).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import officesim.apps  # noqa: F401  (registers every app's tools)
from officesim.errors import OfficesimError
from officesim.toolapi.revision import code_env, materialise, resolve_revision
from officesim.tools import registry
from officesim.toolschema import strict_schema

# The source of the registry dump a subprocess runs: only APIs every revision has.
_DUMP = (
    "import json, officesim.apps\n"
    "from officesim.tools import registry\n"
    "print(json.dumps({n: {'description': t.description, 'parameters': t.parameters}"
    " for n, t in registry().items()}))\n"
)
BUILTIN = frozenset({"submit"})  # added by the env to every task, not part of the registry


class SurfaceError(OfficesimError):
    """A tool surface cannot be read (a file in no known format, an unknown revision...)."""


@dataclass(frozen=True)
class Surface:
    """A tool surface and where it came from.

    Attributes:
        tools: name -> {"description": str, "parameters": JSON Schema}, sorted by name.
        source: a readable label (file path, ``git:REV``, folder).
        version: the surface version the source declares (from its lock or manifest), if any.
    """

    tools: dict[str, dict[str, Any]]
    source: str
    version: str | None = None

    @property
    def hash(self) -> str:
        """``sha256:<hex>`` over the canonical surface."""
        return surface_hash(self.tools)


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the text every hash is taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def surface_hash(tools: Mapping[str, Mapping[str, Any]]) -> str:
    """The content hash of a surface (builtins like ``submit`` left out, so task lists compare)."""
    body = {name: {"description": spec.get("description", ""), "parameters": spec.get("parameters", {})}
            for name, spec in sorted(tools.items()) if name not in BUILTIN}
    return "sha256:" + hashlib.sha256(canonical_json(body).encode()).hexdigest()


def canonical_parameters(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A parameter schema as every export format shows it: string-length keywords left out.

    OpenAI's strict mode refuses ``maxLength``/``minLength``, so its exports omit them (long
    texts' limits are in the descriptions); comparing without them lets a ``tools.json`` in any
    format, a lock and the registry hash alike.  The registry still checks every maximum.
    """
    cleaned: dict[str, Any] = strict_schema(dict(parameters))
    return cleaned


def registry_surface() -> dict[str, dict[str, Any]]:
    """The canonical surface of the tools registered in this process."""
    return {name: {"description": t.description, "parameters": canonical_parameters(t.parameters)}
            for name, t in registry().items()}


# ---------------------------------------------------------------- exported formats
def _entry(item: Any, where: str) -> tuple[str, dict[str, Any]]:
    """(name, canonical spec) of one tool in any export shape."""
    if not isinstance(item, Mapping):
        raise SurfaceError(f"{where}: a tool entry must be an object, not {type(item).__name__}")
    body: Mapping[str, Any] = item
    if isinstance(item.get("function"), Mapping):  # OpenAI chat
        body = item["function"]
    for key in ("parameters", "input_schema", "inputSchema"):  # OpenAI/Responses, Anthropic, MCP
        if key in body:
            params = body[key]
            break
    else:
        params = {"type": "object", "properties": {}}
    name = body.get("name")
    if not isinstance(name, str) or not isinstance(params, Mapping):
        raise SurfaceError(f"{where}: {canonical_json(item)[:80]} is not a tool in the openai, responses, "
                           "anthropic or mcp format (it needs a name and a parameter schema)")
    return name, {"description": str(body.get("description") or ""), "parameters": canonical_parameters(params)}


def parse_tools(data: Any, where: str) -> dict[str, dict[str, Any]]:
    """The canonical surface of a parsed tool file: an export list, ``{"tools": [...]}``, or a lock."""
    if isinstance(data, Mapping) and isinstance(data.get("tools"), Mapping):  # a tools.lock
        return {name: {"description": s.get("description", ""),
                       "parameters": canonical_parameters(s.get("parameters", {}))}
                for name, s in sorted(data["tools"].items())}
    if isinstance(data, Mapping) and isinstance(data.get("tools"), list):  # MCP tools/list result
        data = data["tools"]
    if not isinstance(data, list):
        raise SurfaceError(f"{where}: expected a list of tools (or an object with 'tools'), "
                           f"not {type(data).__name__}")
    tools: dict[str, dict[str, Any]] = {}
    for index, item in enumerate(data):
        name, spec = _entry(item, f"{where}[{index}]")
        if name in tools and tools[name] != spec:
            raise SurfaceError(f"{where}: tool {name!r} is listed twice with different schemas")
        tools[name] = spec
    return dict(sorted(tools.items()))


def read_tools_file(path: Path) -> dict[str, dict[str, Any]]:
    """The canonical surface of a ``tools.json`` (any format) or ``tools.lock`` file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SurfaceError(f"{path} is not JSON ({exc}); pass a tools.json written by 'officesim tools export'") \
            from None
    return parse_tools(data, str(path))


def _task_folders(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("task.yaml")
                  if (p.parent / "tools.json").is_file() or (p.parent / "tools.pin").is_file())


def _pinned_tools(task: Path) -> dict[str, dict[str, Any]]:
    """A pinned folder's tools (the names its ``task.yaml`` allows), as this code describes them:
    a library in the repository pins shapes, not prose, so its surface is the registry's."""
    try:
        names = yaml.safe_load((task / "task.yaml").read_text(encoding="utf-8")).get("tools") or []
    except (yaml.YAMLError, AttributeError) as exc:
        raise SurfaceError(f"{task / 'task.yaml'} does not list its tools ({exc})") from None
    known = registry_surface()
    missing = [n for n in names if n not in known and n not in BUILTIN]
    if missing:
        raise SurfaceError(f"{task / 'task.yaml'}: tools {missing} are not registered in this code")
    return {n: known[n] for n in names if n in known}


def delivery_surface(folder: Path) -> dict[str, dict[str, Any]]:
    """The union of a delivery's (or task library's) per-task tools; each tool must agree.

    A folder's ``tools.json`` is read as written (a delivery's); a folder that only pins its tools
    (``tools.pin``, the repository's library) contributes the tools it lists, from the registry.
    """
    tools: dict[str, dict[str, Any]] = {}
    for task in _task_folders(folder):
        published = task / "tools.json"
        listed = read_tools_file(published) if published.is_file() else _pinned_tools(task)
        for name, spec in listed.items():
            if name in BUILTIN:
                continue
            if name in tools and tools[name] != spec:
                raise SurfaceError(f"{published}: tool {name!r} differs from the same tool in "
                                   "another task of this folder; a delivery has one tool surface")
            tools[name] = spec
    if not tools:
        raise SurfaceError(f"{folder} holds no task folders with a tools.json or tools.pin")
    return dict(sorted(tools.items()))


def project_surface(root: Path) -> dict[str, dict[str, Any]]:
    """The registry of the officesim code in ``root``, exported by a subprocess importing it first."""
    done = subprocess.run([sys.executable, "-c", _DUMP], cwd=root, capture_output=True, text=True,
                          env=code_env(root))
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise SurfaceError(f"the code in {root} did not export its tools: {tail[0]}")
    return {name: {"description": spec["description"], "parameters": canonical_parameters(spec["parameters"])}
            for name, spec in sorted(json.loads(done.stdout).items())}


def _file_version(path: Path) -> str | None:
    """The version a tool file declares: a lock's own, or the stamp an export wrote beside it."""
    for candidate in (path, path.with_name(f"{path.stem}.surface.json")):
        try:
            data = json.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(data, Mapping) and isinstance(data.get("version"), str):
            return data["version"]
    return None


def _declared_version(folder: Path) -> str | None:
    """The surface version a folder declares: a delivery manifest's or a project's lock."""
    manifest = folder / "manifest.json"
    if manifest.is_file():
        try:
            versions = json.loads(manifest.read_text(encoding="utf-8")).get("versions", {})
        except (json.JSONDecodeError, AttributeError):
            return None
        surface = versions.get("tool_surface") if isinstance(versions, Mapping) else None
        return surface.get("version") if isinstance(surface, Mapping) else None
    lock = folder / "tools.lock"
    if lock.is_file():
        try:
            return json.loads(lock.read_text(encoding="utf-8")).get("version")
        except (json.JSONDecodeError, AttributeError):
            return None
    return None


def load_surface(ref: str, *, repo: Path | None = None) -> Surface:
    """Read a surface from a file, a folder (project, delivery, task library) or a git revision.

    Args:
        ref: a ``tools.json``/``tools.lock`` path, a folder, or a revision of ``repo`` (``main``,
            ``HEAD~1``, a commit).  A path wins over a revision of the same name.
        repo: the git repository revisions are looked up in (default: the current folder's).
    """
    path = Path(ref)
    if path.is_file():
        return Surface(read_tools_file(path), str(path), _file_version(path))
    if path.is_dir():
        if (path / "officesim" / "__init__.py").is_file():
            return Surface(project_surface(path), str(path), _declared_version(path))
        if (path / "tools.json").is_file() and not (path / "task.yaml").is_file():
            return Surface(read_tools_file(path / "tools.json"), str(path / "tools.json"), _declared_version(path))
        return Surface(delivery_surface(path), str(path), _declared_version(path))
    commit = resolve_revision(ref, repo)
    if commit is None:
        raise SurfaceError(f"{ref!r} is neither a file, a folder nor a git revision of "
                           f"{(repo or Path.cwd()).resolve()}; pass a tools.json, a delivery, a project "
                           "folder or a revision such as main or HEAD~1")
    with materialise(commit, repo, paths=("officesim", "tools.lock")) as root:
        return Surface(project_surface(root), f"git:{ref}", _declared_version(root))
