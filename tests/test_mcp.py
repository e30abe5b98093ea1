"""MCP: the grade over the protocol, disconnects graded, structuredContent, streamable HTTP, ids, coercion."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from officesim import load_task
from officesim.env import OfficeEnv
from officesim.server.mcp_server import TaskHost, build_server, coerce_arguments

ROOT = Path(__file__).resolve().parent.parent
TASKS = Path(__file__).parent / "fixtures" / "tasks"
CFO = "jasmine.jones@tinyco.test"


def _text(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)


def test_submit_returns_the_grade_and_results_carry_structured_content() -> None:
    host = TaskHost(load_task(TASKS / "lookup-cfo-email"))

    async def scenario() -> None:
        async with Client(build_server(host)) as client:
            found = await client.call_tool("directory_search_people", {"query": "Chief Financial Officer",
                                                                       "limit": "2"})
            assert found.structured_content == _text(found) and len(found.structured_content["people"]) <= 2
            done = await client.call_tool("submit", {"answer": CFO})
            grade = done.structured_content["grade"]
            assert done.structured_content["status"] == "submitted"
            assert grade["passed"] is True and grade["score"] == 1.0 and grade["task_id"] == "lookup-cfo-email"
            assert "checks" not in grade and "gates" not in grade  # the summary: no expected values leak

    anyio.run(scenario)


def test_full_grades_carry_every_check_and_the_step_limit_grades_too() -> None:
    task = load_task(TASKS / "lookup-cfo-email")
    host = TaskHost(task, full_grades=True)

    async def scenario() -> None:
        async with Client(build_server(host)) as client:
            for _ in range(task.max_steps - 1):
                await client.call_tool("directory_search_people", {"query": "nobody"})
            last = await client.call_tool("directory_search_people", {"query": "Chief Financial Officer"})
            body = last.structured_content
            assert body["status"] == "step_limit" and body["people"]  # the call's own result is kept
            assert body["grade"]["passed"] is False and set(body["grade"]) > {"score", "passed", "task_id"}
            after = await client.call_tool("submit", {"answer": CFO})
            assert after.is_error and "episode is over" in _text(after)["error"]["message"]

    anyio.run(scenario)


def test_a_disconnect_without_submit_still_grades() -> None:
    ended: list[OfficeEnv] = []
    host = TaskHost(load_task(TASKS / "lookup-cfo-email"), on_end=ended.append)

    async def scenario() -> None:
        async with Client(build_server(host)) as client:
            await client.call_tool("directory_search_people", {"query": "Chief Financial Officer"})

    anyio.run(scenario)
    assert not ended  # the in-process client closing is not the server's end of the transport
    host.close()
    assert len(ended) == 1 and ended[0].grade is not None and ended[0].grade.passed is False
    host.close()
    assert len(ended) == 1  # graded once


def test_text_spelling_a_number_is_coerced_only_where_the_schema_wants_one() -> None:
    schema = {"properties": {"limit": {"type": "integer"}, "query": {"type": "string"},
                             "ids": {"type": "array", "items": {"type": "integer"}},
                             "x": {"type": ["number", "null"]}, "flag": {"type": "boolean"}}}
    got = coerce_arguments({"limit": "2", "query": "2", "ids": ["3", 4], "x": "1.5", "flag": "true", "other": "7"},
                           schema)
    assert got == {"limit": 2, "query": "2", "ids": [3, 4], "x": 1.5, "flag": True, "other": "7"}
    assert coerce_arguments({"limit": "ten", "x": "nan"}, schema) == {"limit": "ten", "x": "nan"}


def _params(*extra: str, record: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, cwd=str(ROOT), args=[
        "-m", "officesim", "serve", "mcp", "--task", "lookup-cfo-email", "--tasks", str(TASKS),
        "--record", str(record), *extra])


@pytest.mark.slow
def test_stdio_disconnect_grades_and_task_ids_resolve(tmp_path: Path) -> None:
    record = tmp_path / "episode.json"

    async def scenario() -> None:
        with anyio.fail_after(60):
            async with stdio_client(_params(record=record)) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("directory_search_people", {"query": "Chief Financial Officer"})

    anyio.run(scenario)
    for _ in range(50):  # the server grades after its stdin closes
        if record.exists():
            break
        time.sleep(0.1)
    written = json.loads(record.read_text())
    assert written["grade"]["passed"] is False and written["grade"]["answer"] is None
    assert [m["role"] for m in written["transcript"]] == ["user", "assistant", "tool"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_streamable_http_plays_and_grades_an_episode(tmp_path: Path) -> None:
    port = _free_port()
    record = tmp_path / "episode.json"
    server = subprocess.Popen([sys.executable, "-m", "officesim", "serve", "mcp", "--task", "lookup-cfo-email",
                               "--tasks", str(TASKS), "--transport", "http", "--port", str(port),
                               "--record", str(record)], cwd=ROOT, stderr=subprocess.PIPE)

    async def scenario() -> dict[str, Any]:
        with anyio.fail_after(60):
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                        break
                except OSError:
                    await anyio.sleep(0.2)
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                names = [t.name for t in (await session.list_tools()).tools]
                assert names == ["directory_get_person", "directory_search_people", "submit"]
                await session.call_tool("directory_search_people", {"query": "Chief Financial Officer"})
                done = await session.call_tool("submit", {"answer": CFO})
                return done.structured_content

    try:
        body = anyio.run(scenario)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert body["status"] == "submitted" and body["grade"]["passed"] is True
    assert json.loads(record.read_text())["grade"]["score"] == 1.0


def test_revision_mode_over_mcp_feedback_then_a_passing_resubmit() -> None:
    host = TaskHost(load_task(TASKS / "lookup-cfo-email"), revisions=2, revision_discount=0.5)
    assert "submit again (up to 2 times)" in host.instructions

    async def scenario() -> None:
        async with Client(build_server(host)) as client:
            first = (await client.call_tool("submit", {"answer": "ceo@tinyco.test"})).structured_content
            assert first["status"] == "not accepted" and first["revisions_left"] == 1 and first["still_wrong"]
            assert CFO not in json.dumps(first)  # what is wrong, never the expected value
            await client.call_tool("directory_search_people", {"query": "Chief Financial Officer"})
            final = (await client.call_tool("submit", {"answer": CFO})).structured_content
            assert final["status"] == "submitted" and final["grade"]["passed"] is True
            assert final["attempts"] == 2 and final["reward"] == 0.5  # one revision used, discounted once

    anyio.run(scenario)


def test_revisions_over_mcp_cli_are_checked(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "officesim", "serve", "mcp", "--world", "tiny", "--revisions", "2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode != 0 and "--revisions applies to --task" in done.stderr
