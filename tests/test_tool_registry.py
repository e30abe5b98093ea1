"""The tool layer: naming, strict schemas, the checked-in tools.json, and dispatch errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officesim import World
from officesim.apps import app_names
from officesim.toolexport import FORMATS, dumps, export_tools
from officesim.tools import NAME_PATTERN, VERBS, registry

ROOT = Path(__file__).resolve().parent.parent
TOOLS = registry()


def _objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema nested anywhere in ``schema``."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object" or (isinstance(schema.get("type"), list) and "object" in schema["type"]):
            found.append(schema)
        for value in schema.values():
            found += _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            found += _objects(value)
    return found


def test_there_are_at_least_forty_tools_over_every_app() -> None:
    assert len(TOOLS) >= 40
    assert {t.app for t in TOOLS.values()} == set(app_names())


@pytest.mark.parametrize("name", list(TOOLS))
def test_tool_names_follow_one_verb_vocabulary(name: str) -> None:
    assert NAME_PATTERN.match(name)
    app, verb, *_ = name.split("_")
    assert app == TOOLS[name].app
    assert verb in VERBS, f"{name}: verb {verb!r} is not in the vocabulary {sorted(VERBS)}"


@pytest.mark.parametrize("name", list(TOOLS))
def test_schemas_are_valid_json_schema_and_openai_strict(name: str) -> None:
    schema = TOOLS[name].parameters
    jsonschema.Draft202012Validator.check_schema(schema)
    assert len(TOOLS[name].description) >= 20
    for obj in _objects(schema):
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    for pname, prop in schema["properties"].items():
        assert prop.get("description"), f"{name}.{pname} has no description"


@pytest.mark.parametrize("name", list(TOOLS))
def test_optional_parameters_are_nullable(name: str) -> None:
    tool = TOOLS[name]
    for pname in tool.defaults:
        prop = tool.parameters["properties"][pname]
        kinds = prop.get("type", [])
        assert "null" in kinds or {"type": "null"} in prop.get("anyOf", []), f"{name}.{pname} is not nullable"


def test_checked_in_tools_json_equals_a_fresh_export() -> None:
    checked_in = (ROOT / "tools.json").read_text()
    assert checked_in == dumps(export_tools()), "tools.json drifted: run 'officesim tools export -o tools.json'"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_exports_every_tool_with_its_schema(fmt: str) -> None:
    exported = export_tools(fmt=fmt)
    assert len(exported) == len(TOOLS)
    text = json.dumps(exported)
    assert all(name in text for name in TOOLS)


def test_unknown_tool_suggests_the_closest_name(tiny: World) -> None:
    result = tiny.call("directory_search_peple", {})
    assert result["error"]["type"] == "unknown_tool"
    assert "directory_search_people" in result["error"]["message"]


def test_allowed_subset_hides_other_tools(tiny: World) -> None:
    from officesim.tools import dispatch

    result = dispatch(tiny, "directory_get_person", {"person": "p_1"}, allowed={"directory_search_people"})
    assert result["error"]["type"] == "unknown_tool"
    assert "allowed in this task" in result["error"]["message"]


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "'person' is required"),
        ({"person": "p_1", "verbose": True}, "'verbose' is not a parameter"),
        ({"person": 12}, "'person': Input should be a valid string"),
        ('{"person": ', "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_bad_arguments_come_back_as_errors_that_say_what_to_fix(tiny: World, arguments: Any, fragment: str) -> None:
    result = tiny.call("directory_get_person", arguments)
    assert result["error"]["type"] == "invalid_argument"
    assert fragment in result["error"]["message"]


def test_null_for_an_optional_argument_means_its_default(tiny: World) -> None:
    explicit = tiny.call("directory_search_people", {"query": None, "department": None, "cursor": None, "limit": None})
    assert explicit == tiny.call("directory_search_people", {})
    assert len(explicit["people"]) == 20


def test_lists_are_paged_with_cursors(tiny: World) -> None:
    first = tiny.call("directory_search_people", {"limit": 7})
    second = tiny.call("directory_search_people", {"limit": 7, "cursor": first["next_cursor"]})
    assert len(first["people"]) == 7 and first["next_cursor"]
    assert not {p["id"] for p in first["people"]} & {p["id"] for p in second["people"]}
    bad = tiny.call("directory_search_people", {"cursor": "page-two"})
    assert "next_cursor" in bad["error"]["message"]


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(TOOLS)), data=st.data())
def test_nothing_a_model_sends_raises(tiny: World, name: str, data: st.DataObject) -> None:
    params = list(TOOLS[name].parameters["properties"])
    keys = st.sampled_from(params) | st.text(max_size=8) if params else st.text(max_size=8)
    arguments = data.draw(st.dictionaries(keys, _json, max_size=5))
    result = tiny.call(name, arguments)
    assert isinstance(result, dict)
    json.dumps(result)
    if "error" in result:
        assert set(result["error"]) == {"type", "message"} and result["error"]["message"]


def test_oversized_or_deeply_nested_json_arguments_come_back_as_errors(tiny: World) -> None:
    # json.loads raises RecursionError / ValueError (not JSONDecodeError) for these; dispatch must not.
    for text in ["[" * 100_000, '{"limit": ' + "9" * 5000 + "}"]:
        result = tiny.call("directory_search_people", text)
        assert result["error"]["type"] == "invalid_argument" and "too large or too deeply nested" in result[
            "error"]["message"]


def test_a_search_text_longer_than_sqlite_accepts_is_an_error_not_a_crash(tiny: World) -> None:
    result = tiny.call("directory_search_people", {"query": "a" * 60_000})
    assert result["error"]["type"] == "invalid_argument" and "too long" in result["error"]["message"]
    assert "people" in tiny.call("directory_search_people", {"query": "a" * 2_000})
