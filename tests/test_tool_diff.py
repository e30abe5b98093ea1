"""``tools diff`` and ``tools.lock``: every kind of change classified, every format read, the lock enforced."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from officesim.cli import main
from officesim.toolapi.diff import diff_surfaces, render
from officesim.toolapi.lock import LOCK_FILE, bump, check_lock, read_lock, surface_stamp, write_lock
from officesim.toolapi.surface import Surface, SurfaceError, load_surface, parse_tools, registry_surface
from officesim.toolexport import FORMATS, dumps, export_tools

ROOT = Path(__file__).resolve().parent.parent


def _changes(edit: Any) -> set[tuple[str, str, str]]:
    old = registry_surface()
    new = copy.deepcopy(old)
    edit(new)
    return {(c.kind, c.where, c.severity) for c in diff_surfaces(Surface(old, "old"), Surface(new, "new")).changes}


def _props(surface: dict, tool: str) -> dict:
    return surface[tool]["parameters"]["properties"]


def test_identical_surfaces_have_no_changes_in_any_format(tmp_path: Path) -> None:
    reference = Surface(registry_surface(), "registry")
    for fmt in FORMATS:
        path = tmp_path / f"{fmt}.json"
        # In one schema mode (relaxed exports drop nullability by design) the hash is the surface's.
        path.write_text(dumps(export_tools(fmt=fmt, schema="strict")))
        loaded = load_surface(str(path))
        assert loaded.hash == reference.hash, fmt
        assert diff_surfaces(reference, loaded).changes == []
    mcp_result = {"tools": export_tools(fmt="mcp", schema="strict")}  # an MCP tools/list result object
    assert parse_tools(mcp_result, "x") == reference.tools


def test_parameter_changes_are_classified() -> None:
    def edit(s: dict) -> None:
        search = _props(s, "mail_search_messages")
        search["sender"]["type"] = "string"                        # optional -> required (strict schema)
        search["query"]["description"] = "Free text to look for."  # docs
        del search["label"]                                        # removed
        s["mail_search_messages"]["parameters"]["required"] = [p for p in search]
        _props(s, "drive_share_file")["role"]["enum"].append("owner")      # enum widened
        _props(s, "crm_update_deal")["amount"]["type"] = ["integer", "null"]  # number -> integer: narrowed
        _props(s, "drive_get_doc")["offset"]["type"] = ["number", "null"]     # integer -> number: widened
        limit = _props(s, "drive_search_files")["limit"]
        limit["description"] = limit["description"].replace("Default: 20.", "Default: 5.")
        chat = s["chat_join_channel"]["parameters"]
        chat["properties"]["reason"] = {"type": "string", "description": "Why you join."}
        chat["required"].append("reason")                          # required parameter added
        post = s["chat_post_message"]["parameters"]
        post["properties"]["thread"] = {"type": ["string", "null"], "description": "A thread to post in."}
        post["required"].append("thread")                          # optional parameter added
    assert _changes(edit) == {
        ("made_required", "mail_search_messages.sender", "breaking"),
        ("description_changed", "mail_search_messages.query", "docs"),
        ("param_removed", "mail_search_messages.label", "breaking"),
        ("enum_added", "drive_share_file.role", "compatible"),
        ("type_narrowed", "crm_update_deal.amount", "breaking"),
        ("type_widened", "drive_get_doc.offset", "compatible"),
        ("default_changed", "drive_search_files.limit", "breaking"),
        ("param_added", "chat_join_channel.reason", "breaking"),
        ("param_added", "chat_post_message.thread", "compatible"),
    }


def test_relaxed_schemas_read_optional_from_required() -> None:
    """A schema that leaves optional parameters out of ``required`` (not strict) is read the same way."""
    old = {"t": {"description": "d", "parameters": {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string", "description": "A."}, "b": {"type": "integer", "description": "B."}}}}}
    new = copy.deepcopy(old)
    new["t"]["parameters"]["required"] = ["a", "b"]
    found = diff_surfaces(Surface(old, "o"), Surface(new, "n")).changes
    assert [(c.kind, c.severity) for c in found] == [("made_required", "breaking")]
    back = diff_surfaces(Surface(new, "n"), Surface(old, "o")).changes
    assert [(c.kind, c.severity) for c in back] == [("made_optional", "compatible")]


def test_tool_rename_is_detected_with_evidence_and_unrelated_tools_are_not_paired() -> None:
    old = registry_surface()
    new = copy.deepcopy(old)
    new["crm_fetch_deal"] = new.pop("crm_get_deal")
    new["mail_list_labels"] = {"description": "Every label.", "parameters": {
        "type": "object", "properties": {}, "required": [], "additionalProperties": False}}
    del new["mail_list_folders"]
    result = diff_surfaces(Surface(old, "o"), Surface(new, "n"))
    kinds = {(c.kind, c.where) for c in result.changes}
    assert ("tool_renamed", "crm_fetch_deal") in kinds
    assert ("tool_removed", "mail_list_folders") in kinds and ("tool_added", "mail_list_labels") in kinds
    rename = next(c for c in result.changes if c.kind == "tool_renamed")
    assert "'crm_get_deal' -> 'crm_fetch_deal'" in rename.detail and "same parameters (deal_id)" in rename.detail


def test_nested_items_and_bounds() -> None:
    old = {"t": {"description": "d", "parameters": {"type": "object", "required": ["rows"], "properties": {
        "rows": {"type": "array", "maxItems": 100, "description": "R.", "items": {
            "type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "description": "N."}}}}}}}}
    new = copy.deepcopy(old)
    new["t"]["parameters"]["properties"]["rows"]["maxItems"] = 10
    new["t"]["parameters"]["properties"]["rows"]["items"]["properties"]["n"]["type"] = "string"
    found = {(c.kind, c.where) for c in diff_surfaces(Surface(old, "o"), Surface(new, "n")).changes}
    assert found == {("constraint_narrowed", "t.rows"), ("type_changed", "t.rows[].n")}


def test_cli_diff_exit_codes_table_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old.json"
    old.write_text(dumps(export_tools()))
    data = json.loads(old.read_text())
    for entry in data:
        if entry["function"]["name"] == "mail_list_folders":
            entry["function"]["description"] = "Your folders."
    new = tmp_path / "new.anthropic.json"
    new.write_text(json.dumps([{"name": e["function"]["name"], "description": e["function"]["description"],
                                "input_schema": e["function"]["parameters"]} for e in data]))
    assert main(["tools", "diff", str(old), str(new)]) == 0  # docs only: not breaking
    out = capsys.readouterr().out
    assert "docs      description_changed  mail_list_folders" in out and "0 breaking, 0 compatible, 1 docs" in out
    del data[0]
    new.write_text(json.dumps(data))
    assert main(["tools", "diff", str(old), str(new), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["summary"]["breaking"] == 1
    assert main(["tools", "diff", str(old), str(tmp_path / "nope-rev")]) == 2
    assert "is neither a file, a folder nor a git revision" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text('{"x": 1}')
    assert main(["tools", "diff", str(old), str(tmp_path / "bad.json")]) == 2
    assert "expected a list of tools" in capsys.readouterr().err


def test_checked_in_lock_matches_the_code() -> None:
    """Fails on an unreviewed tool change, saying which tools changed and how to accept them."""
    problem = check_lock()
    assert problem is None, problem
    stamp = json.loads((ROOT / "tools.surface.json").read_text())
    assert stamp["hash"] == surface_stamp()["hash"], "tools.surface.json is stale: python3 -m officesim tools export"


def test_lock_bumps_versions_by_the_worst_change(tmp_path: Path) -> None:
    lock = tmp_path / "tools.lock"
    assert write_lock(lock)[1] == "1.0.0"
    data = json.loads(lock.read_text())
    data["tools"]["mail_list_folders"]["description"] = "older words"
    lock.write_text(json.dumps(data))
    message = check_lock(lock)
    assert message is not None and "mail_list_folders changed" in message and "1.0.0 -> 1.0.1" in message
    assert write_lock(lock)[:2] == ("1.0.0", "1.0.1")
    data = json.loads(lock.read_text())
    del data["tools"]["mail_list_folders"]          # the code added a tool: compatible
    lock.write_text(json.dumps(data))
    assert write_lock(lock)[:2] == ("1.0.1", "1.1.0")
    assert read_lock(lock).version == "1.1.0" and check_lock(lock) is None
    removed = diff_surfaces(Surface(registry_surface(), "a"), Surface({}, "b"))
    assert bump("1.1.0", removed) == "2.0.0"


def test_stamps_in_exports_run_records_and_deliveries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stamp = surface_stamp()
    assert stamp["version"] == read_lock(LOCK_FILE).version and stamp["hash"].startswith("sha256:")
    assert main(["tools", "export", "-o", str(tmp_path / "t.json"), "--format", "anthropic"]) == 0
    written = json.loads((tmp_path / "t.surface.json").read_text())
    assert written["hash"] == stamp["hash"] and written["format"] == "anthropic"
    assert stamp["version"] in capsys.readouterr().out
    assert load_surface(str(tmp_path / "t.json")).version == stamp["version"]
    from officesim.pipeline.runner import task_versions
    from officesim.task import load_task

    versions = task_versions(load_task(ROOT / "tests" / "fixtures" / "tasks" / "move-deal-negotiation"))
    assert versions["tool_surface"] == {"version": stamp["version"], "hash": stamp["hash"]}


def test_render_of_no_changes() -> None:
    surface = Surface(registry_surface(), "a")
    assert render(diff_surfaces(surface, surface)).endswith("no changes: the two surfaces are identical")


def test_a_task_library_or_delivery_is_the_union_of_its_task_tool_lists(tmp_path: Path) -> None:
    library = load_surface(str(ROOT / "tasks"))
    result = diff_surfaces(library, Surface(registry_surface(), "registry"))
    assert result.changes and {c.kind for c in result.changes} == {"tool_added"}  # tools no task offers
    assert "submit" not in library.tools
    bad = tmp_path / "delivery" / "tasks"
    for name, tools in (("a", export_tools(["mail_list_folders"])), ("b", export_tools(["mail_list_folders"]))):
        (bad / name).mkdir(parents=True)
        (bad / name / "task.yaml").write_text("id: x\n")
        (bad / name / "tools.json").write_text(dumps(tools))
    expected = {"mail_list_folders": registry_surface()["mail_list_folders"]}
    assert load_surface(str(tmp_path / "delivery")).tools == expected
    tools = export_tools(["mail_list_folders"])
    tools[0]["function"]["description"] = "changed"
    (bad / "b" / "tools.json").write_text(dumps(tools))
    with pytest.raises(SurfaceError, match="differs from the same tool in another task"):
        load_surface(str(tmp_path / "delivery"))
