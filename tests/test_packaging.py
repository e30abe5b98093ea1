"""A self-contained package: specs, rubrics and tasks found from any directory; deliveries that travel."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

import officesim
from officesim.cli import main
from officesim.errors import SpecError
from officesim.pipeline.delivery import _copy_support
from officesim.resources import PACKAGED_RUBRICS, PACKAGED_TASKS, PACKAGED_WORLDS, resolve_task
from officesim.task import load_task
from officesim.world_spec import load_spec

FIXTURES = Path(__file__).parent / "fixtures" / "tasks"


def test_packaged_data_is_inside_the_package() -> None:
    package = Path(officesim.__file__).resolve().parent
    for folder in (PACKAGED_WORLDS, PACKAGED_RUBRICS, PACKAGED_TASKS):
        assert folder.parent == package
    assert (PACKAGED_WORLDS / "acme.yaml").is_file()
    assert (PACKAGED_RUBRICS / "numbers_traceable.yaml").is_file()
    assert (PACKAGED_TASKS / "share-doc-exact-001" / "task.yaml").is_file()


def test_names_resolve_from_any_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OFFICESIM_TASKS", raising=False)
    assert load_spec("acme") == load_spec(PACKAGED_WORLDS / "acme.yaml")
    task = load_task("share-doc-exact-001")  # no ./tasks here: the packaged library
    assert task.dir == PACKAGED_TASKS / "share-doc-exact-001"
    assert main(["world", "build", "tiny", "-o", "tiny.db"]) == 0
    assert (tmp_path / "tiny.db").stat().st_size > 0


def test_task_ids_use_tasks_then_env_then_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = tmp_path / "lib"
    shutil.copytree(FIXTURES / "lookup-cfo-email", library / "lookup-cfo-email")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OFFICESIM_TASKS", str(library))
    assert resolve_task("lookup-cfo-email") == library / "lookup-cfo-email"
    assert resolve_task("lookup-cfo-email", tmp_path / "lib") == library / "lookup-cfo-email"
    with pytest.raises(SpecError, match=r"nor a task id in .*lib \(1 tasks\)\. Did you mean 'lookup-cfo-email'"):
        resolve_task("lookup-cfo-mail")
    monkeypatch.setenv("OFFICESIM_TASKS", str(tmp_path / "missing"))
    with pytest.raises(SpecError, match=r"\$OFFICESIM_TASKS is .*missing.*not a folder"):
        resolve_task("lookup-cfo-email")


def test_a_delivery_carries_its_specs_and_rubrics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library with its own world spec and rubric: the delivery keeps both and loads without the library."""
    library = tmp_path / "lib"
    shutil.copytree(FIXTURES / "budget-sheet-judged", library / "tasks" / "budget-sheet-judged")
    (library / "worlds").mkdir()
    spec = (PACKAGED_WORLDS / "tiny.yaml").read_text().replace("seed: ", "seed: 1", 1)
    (library / "worlds" / "tiny.yaml").write_text(spec)
    (library / "rubrics").mkdir()
    rubric = (PACKAGED_RUBRICS / "numbers_traceable.yaml").read_text()
    (library / "rubrics" / "numbers_traceable.yaml").write_text(rubric.replace("title: ", "title: Local ", 1))
    source = load_task(library / "tasks" / "budget-sheet-judged")
    assert source.spec_path == (library / "worlds" / "tiny.yaml").resolve()
    assert source.rubrics["numbers_traceable"].title.startswith("Local ")

    delivery = tmp_path / "delivery"
    shutil.copytree(source.dir, delivery / "tasks" / source.id)
    _copy_support([source], delivery)
    shutil.rmtree(library)
    monkeypatch.chdir(tmp_path)
    moved = load_task(delivery / "tasks" / "budget-sheet-judged")
    assert moved.spec_path == (delivery / "worlds" / "tiny.yaml").resolve()
    assert moved.rubrics["numbers_traceable"].title.startswith("Local ")
    assert moved.grader_hash == source.grader_hash and moved.task_hash == source.task_hash
    surface = json.loads((delivery / "tools.json").read_text())
    assert len(surface) == len(officesim.tools.registry())


# ----------------------------------------------------------------------------- schema modes
def _optional(schema: dict) -> set[str]:
    return set(schema["properties"]) - set(schema["required"])


def test_relaxed_schemas_require_only_required_parameters() -> None:
    from officesim.toolexport import export_tools
    from officesim.tools import registry

    strict = {t["function"]["name"]: t["function"] for t in export_tools(fmt="openai", schema="strict")}
    relaxed = {t["function"]["name"]: t["function"] for t in export_tools(fmt="openai", schema="relaxed")}
    for name, tool in registry().items():
        assert strict[name]["strict"] is True and relaxed[name]["strict"] is False
        assert strict[name]["parameters"]["required"] == list(strict[name]["parameters"]["properties"])
        assert _optional(relaxed[name]["parameters"]) == set(tool.defaults), name
        jsonschema.Draft202012Validator.check_schema(relaxed[name]["parameters"])
    search = relaxed["mail_search_messages"]["parameters"]
    assert search["properties"]["limit"]["type"] == "integer"  # no null for an optional parameter
    rows = relaxed["drive_update_rows"]["parameters"]["properties"]["values"]["items"]
    assert rows["required"] == ["column", "value"] and "null" in rows["properties"]["value"]["type"]


def test_formats_default_to_their_clients_schema_mode() -> None:
    from officesim.toolexport import export_tools

    mcp = {t["name"]: t for t in export_tools(["mail_search_messages"], "mcp", submit=True)}
    assert "limit" not in mcp["mail_search_messages"]["inputSchema"]["required"]
    assert mcp["submit"]["inputSchema"]["required"] == []
    anthropic = export_tools(["mail_search_messages"], "anthropic")[0]
    assert "limit" not in anthropic["input_schema"]["required"]
    with pytest.raises(ValueError, match="unknown schema mode 'loose'; choose one of strict, relaxed"):
        export_tools(fmt="openai", schema="loose")  # type: ignore[arg-type]


def test_reference_calls_omitting_optional_arguments_validate_against_relaxed_schemas() -> None:
    """A client that drops every null optional argument sends calls the relaxed schema accepts."""
    task = load_task(PACKAGED_TASKS / "share-doc-exact-001")
    schemas = {t["name"]: t["inputSchema"] for t in task.tools_json("mcp")}
    for step in task.solution.steps:
        call = {k: v for k, v in step.arguments.items() if v is not None}
        jsonschema.validate(call, schemas[step.name])
    jsonschema.validate({}, schemas["submit"])


def test_per_task_tool_lists_in_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    task = load_task(PACKAGED_TASKS / "share-doc-exact-001")
    for fmt in ("openai", "responses", "anthropic", "mcp"):
        assert main(["tools", "export", "--task", str(task.dir), "--format", fmt, "-o", "-"]) == 0
        listed = json.loads(capsys.readouterr().out)
        names = [t.get("name") or t["function"]["name"] for t in listed]
        assert names == [*task.tools, "submit"], fmt


def test_a_spec_name_is_not_looked_up_beside_an_arbitrary_folder(tmp_path: Path) -> None:
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / "acme.yaml").write_text("not: a spec\n")
    from officesim.resources import world_spec_path

    assert world_spec_path("acme", tmp_path / "sub") == (PACKAGED_WORLDS / "acme.yaml").resolve()


def test_a_delivery_refuses_two_different_specs_of_one_name(tmp_path: Path) -> None:
    from officesim.errors import OfficesimError

    first = load_task(FIXTURES / "lookup-cfo-email")
    other = tmp_path / "lib" / "tasks" / "lookup-cfo-email"
    shutil.copytree(first.dir, other)
    (tmp_path / "lib" / "worlds").mkdir()
    (tmp_path / "lib" / "worlds" / "tiny.yaml").write_text((PACKAGED_WORLDS / "tiny.yaml").read_text() + "\n# other\n")
    second = load_task(other)
    with pytest.raises(OfficesimError, match="two different world specs are named 'tiny'"):
        _copy_support([first, second], tmp_path / "delivery")
