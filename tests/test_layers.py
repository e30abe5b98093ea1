"""The import layers docs/architecture.md describes, checked on every module's runtime imports.

Imports under ``if TYPE_CHECKING:`` are for readers and type checkers only and are skipped.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "officesim"

APPS = {"apps"}
GRADING = {"grading"}
# The simulated office and one episode of it: what a user of OfficeEnv runs.
CORE = {"apps", "grading", "tools", "toolschema", "toolexport", "episode_tools", "world", "worldgen",
        "world_spec", "task_setup", "person_refs", "schema_sql", "errors", "clock", "seeding", "budget", "paging",
        "connection", "task", "env", "colleagues", "revisions", "resources", "industries"}
# The offline pipeline and the adapters: built on the core, never under it.
PIPELINE = {"pipeline", "evidence", "replay", "episode"}
ADAPTERS = {"cli", "server", "integrations", "view"}
TOOLING = {"agents", "taskgen", "probes", "testing", "sampler"}


def _runtime_imports(path: Path) -> set[str]:
    """The officesim modules ``path`` imports when it runs (``TYPE_CHECKING`` blocks skipped)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("officesim."):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("officesim."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _first_part(module: str) -> str:
    return module.split(".")[1]


MODULES = sorted(p for p in ROOT.rglob("*.py"))


@pytest.mark.parametrize(("layer", "forbidden"), [
    (APPS, {"grading", "task", "env", *PIPELINE, *ADAPTERS, *TOOLING}),
    (GRADING, {"task", "env", *PIPELINE, *ADAPTERS, *TOOLING}),
    (CORE, {*PIPELINE, *ADAPTERS, *TOOLING}),
], ids=["apps", "grading", "core"])
def test_a_layer_never_imports_the_layers_above_it(layer: set[str], forbidden: set[str]) -> None:
    wrong = []
    for path in MODULES:
        part = path.relative_to(ROOT).parts[0].removesuffix(".py")
        if part not in layer:
            continue
        for module in sorted(_runtime_imports(path)):
            if _first_part(module) in forbidden - layer:
                wrong.append(f"{path.relative_to(ROOT.parent)} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_the_layers_name_every_package() -> None:
    named = CORE | PIPELINE | ADAPTERS | TOOLING | {"toolapi", "__init__", "__main__", "schemas",
                                                     "rubrics", "tasks", "worlds"}
    parts = {p.relative_to(ROOT).parts[0].removesuffix(".py") for p in MODULES}
    assert parts <= named, f"place these in a layer (docs/architecture.md): {sorted(parts - named)}"
