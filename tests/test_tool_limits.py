"""No call is unbounded: argument maxima, the per-call time budget, bounded errors (issue 7, item 2)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from officesim import OfficeEnv, World, budget, load_task
from officesim.errors import OfficesimError
from officesim.toolexport import export_tools
from officesim.tools import registry

TOOLS = registry()


def _unbounded(schema: Any, path: str) -> list[str]:
    """Paths of strings without maxLength and arrays without maxItems anywhere in ``schema``."""
    found: list[str] = []
    if isinstance(schema, dict):
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "string" in kinds and "enum" not in schema and "maxLength" not in schema:
            found.append(path)
        if "array" in kinds and "maxItems" not in schema:
            found.append(path)
        for key, value in schema.items():
            found += _unbounded(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found += _unbounded(value, f"{path}[{index}]")
    return found


@pytest.mark.parametrize("name", list(TOOLS))
def test_every_string_and_list_argument_has_a_maximum_in_the_schema(name: str) -> None:
    assert _unbounded(TOOLS[name].parameters, name) == []


def test_strict_openai_export_keeps_list_maxima_and_says_text_maxima_in_words() -> None:
    send = next(t for t in export_tools() if t["function"]["name"] == "mail_send_message")["function"]
    assert "maxLength" not in json.dumps(send)  # strict function calling refuses the keyword
    assert send["parameters"]["properties"]["to"]["maxItems"] == 200
    assert "At most 100,000 characters." in send["parameters"]["properties"]["body"]["description"]
    mcp = next(t for t in export_tools(fmt="mcp") if t["name"] == "mail_send_message")
    assert mcp["inputSchema"]["properties"]["body"]["maxLength"] == 100_000


def test_twenty_thousand_labels_are_refused_before_any_work(tiny: World) -> None:
    # De-duplicating them (O(n^2)) took 224 s before the list had a maximum.
    before = tiny.state_hash()
    start = time.perf_counter()
    result = tiny.call("mail_label_message", {"message_id": "msg_1", "add": [f"label {i}" for i in range(20_000)]})
    assert time.perf_counter() - start < 1.0
    assert result["error"]["type"] == "invalid_argument"
    assert "'add' is too long: 20,000 items, at most 20 allowed" in result["error"]["message"]
    assert tiny.state_hash() == before


def test_a_search_word_longer_than_any_word_is_refused_and_long_docs_are_searched_in_linear_time(
    tiny: World,
) -> None:
    # A 49,000-character query over a 200,000-character doc the agent wrote took 21 s.
    for index in range(5):
        created = tiny.call("drive_create_doc", {"name": f"pad {index}", "content": "a" * 200_000})
        assert "error" not in created
    whole = tiny.call("drive_search_files", {"query": "a" * 49_000 + "b"})
    assert "'query' is too long: 49,001 characters, at most 1,000 allowed" in whole["error"]["message"]
    word = tiny.call("drive_search_files", {"query": "a" * 101})
    assert "one word or phrase has at most 100" in word["error"]["message"]
    start = time.perf_counter()
    found = tiny.call("drive_search_files", {"query": "a" * 99 + "b"})  # worst case for LIKE '%...%'
    assert found == {"files": [], "next_cursor": None}
    assert time.perf_counter() - start < 1.0  # was 0.15 s per document with LIKE, unbounded in count
    hit = tiny.call("drive_search_files", {"query": "A" * 100, "kind": "doc"})  # still case-insensitive
    assert {f["name"] for f in hit["files"]} == {f"pad {i}" for i in range(5)}


def test_one_call_cannot_store_megabytes(tiny: World) -> None:
    sheet = tiny.call("drive_create_sheet", {"name": "Pad", "columns": [f"c{i}" for i in range(50)]})
    before = tiny.state_hash()
    rows = [["x" * 4000] * 50] * 1000  # 200 MB of cells, each within the cell limit
    result = tiny.call("drive_append_rows", {"file_id": sheet["id"], "rows": rows})
    assert result["error"]["type"] == "invalid_argument"
    assert "characters of text in all; one call takes at most 250,000" in result["error"]["message"]
    huge = tiny.call("drive_append_rows", json.dumps({"file_id": sheet["id"], "rows": rows}))
    assert "at most 2,000,000 are read" in huge["error"]["message"]
    assert tiny.state_hash() == before


def test_size_limits_say_what_they_are(tiny: World) -> None:
    sheet = tiny.call("drive_create_sheet", {"name": "Notes", "columns": ["Note"]})
    cell = tiny.call("drive_append_rows", {"file_id": sheet["id"], "rows": [["x" * 5001]]})
    assert "'rows.0.0' is too long: 5,001 characters, at most 5,000 allowed" in cell["error"]["message"]
    doc = tiny.call("drive_create_doc", {"name": "Long", "content": "x" * 200_001})
    assert "'content' is too long: 200,001 characters, at most 200,000 allowed" in doc["error"]["message"]
    grown = tiny.call("drive_create_doc", {"name": "Grows", "content": "x" * 150_000})
    appended = tiny.call("drive_update_doc", {"file_id": grown["id"], "content": "y" * 60_000, "mode": "append"})
    assert "the document would be 210001 characters; at most 200000 fit" in appended["error"]["message"]


def test_an_error_never_echoes_a_huge_input(tiny: World) -> None:
    for name, arguments in [
        ("mail_send_message", {"to": ["x" * 999], "subject": "s", "body": "b" * 1_000_000}),
        ("directory_get_person", {"person": "p" * 1_000_000}),
        ("drive_read_sheet", {"file_id": "f_1", "filters": [{"column": "c" * 900_000, "op": "eq", "value": 1}]}),
        ("mail_label_message", {"message_id": "msg_1", "add": ["z" * 999] * 5000}),
    ]:
        result = tiny.call(name, arguments)
        assert result["error"]["type"] == "invalid_argument"
        assert len(result["error"]["message"]) < 600, result["error"]["message"][:200]


def test_a_call_past_its_time_budget_is_a_timeout_and_changes_nothing(
    tiny: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "CHECK_EVERY", 10)  # look at the clock every few instructions
    tiny.time_budget = 1e-9  # every statement is already late
    before, clock = tiny.state_hash(), tiny.now()
    write = tiny.call("mail_send_message", {"to": ["priya@example.test"], "subject": "Hi", "body": "Hello"})
    assert write["error"]["type"] == "timeout"
    assert "time budget" in write["error"]["message"] and "nothing was changed" in write["error"]["message"]
    read = tiny.call("drive_search_files", {"query": "budget"})
    assert read["error"]["type"] == "timeout"
    assert tiny.state_hash() == before and tiny.now() == clock
    tiny.time_budget = 2.0
    assert "error" not in tiny.call("mail_send_message", {"to": ["priya@example.test"], "subject": "Hi",
                                                          "body": "Hello"})


def test_the_time_budget_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(budget.ENV_VAR, raising=False)
    assert budget.default_budget() == budget.DEFAULT_SECONDS == 2.0
    monkeypatch.setenv(budget.ENV_VAR, "0.5")
    assert budget.default_budget() == 0.5
    monkeypatch.setenv(budget.ENV_VAR, "none")
    assert budget.default_budget() is None
    monkeypatch.setenv(budget.ENV_VAR, "soon")
    with pytest.raises(OfficesimError, match="OFFICESIM_TOOL_TIMEOUT='soon' is not a number of seconds"):
        budget.default_budget()


def test_the_submitted_answer_has_a_size_limit() -> None:
    env = OfficeEnv(load_task("tasks/budget-variance-answer-001"))
    env.reset(seed=0)
    obs, _, terminated, _, _ = env.step({"name": "submit", "arguments": {"answer": "x" * 20_001}})
    assert not terminated
    assert "'answer' is too long: 20,001 characters, at most 20,000 allowed" in obs["result"]["error"]["message"]
    assert "At most 20,000 characters." in json.dumps(obs["tools"])
