"""The HTTP and MCP adapters: episodes over HTTP, tools over MCP, the same results as in process."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from mcp import Client, ClientSession  # the mcp extra is part of dev: missing it should fail loudly
from mcp.client.stdio import StdioServerParameters, stdio_client

from officesim import World, load_task
from officesim.cli import main as cli_main
from officesim.env import OfficeEnv
from officesim.server import create_app
from officesim.server.http import router
from officesim.server.mcp_server import TaskHost, WorldHost, build_server
from officesim.toolexport import export_tools

ROOT = Path(__file__).resolve().parent.parent
TASKS = Path(__file__).parent / "fixtures" / "tasks"
CFO = "jasmine.jones@tinyco.test"


@pytest.fixture(scope="module")
def app():
    return create_app(TASKS)


@pytest.fixture
def client(app) -> TestClient:
    with TestClient(app) as test_client:
        yield test_client


def start(client: TestClient, task: str, **extra: Any) -> dict[str, Any]:
    response = client.post("/sessions", json={"task": task, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def step(client: TestClient, session_id: str, name: str, arguments: Any = None) -> dict[str, Any]:
    response = client.post(f"/sessions/{session_id}/step", json={"name": name, "arguments": arguments})
    assert response.status_code == 200, response.text
    return response.json()


# --------------------------------------------------------------------------- HTTP: episodes
def test_a_full_episode_over_http(client: TestClient) -> None:
    created = start(client, "lookup-cfo-email", seed=3)
    sid, obs = created["session_id"], created["observation"]
    task = load_task(TASKS / "lookup-cfo-email")
    assert obs["instruction"] == task.instruction and obs["result"] is None and obs["steps_left"] == 6
    names = [t["function"]["name"] for t in obs["tools"]]
    assert names == ["directory_get_person", "directory_search_people", "submit"]
    assert obs["user"]["email"] == "jeffrey.scott@tinyco.test"
    assert created["info"] == {"task_id": task.id, "task_hash": task.task_hash, "grader_hash": task.grader_hash,
                               "seed": 3}

    found = step(client, sid, "directory_search_people", {"query": "Chief Financial Officer"})
    assert [p["email"] for p in found["observation"]["result"]["people"]] == [CFO]
    assert found["info"] == {"step": 1, "tool": "directory_search_people", "error": False}
    assert (found["reward"], found["terminated"], found["truncated"]) == (0.0, False, False)

    bad = step(client, sid, "directory_search_people", {"qury": "cfo"})  # a model's mistake: data, and a step
    assert bad["observation"]["result"]["error"]["type"] == "invalid_argument"
    assert "'qury' is not a parameter" in bad["observation"]["result"]["error"]["message"]
    assert bad["info"]["error"] is True and bad["observation"]["steps_left"] == 4

    done = step(client, sid, "submit", json.dumps({"answer": CFO}))  # arguments as JSON text, as models send them
    assert done["terminated"] is True and done["truncated"] is False and done["reward"] == 1.0
    grade = done["info"]["grade"]
    assert grade["passed"] is True and grade["score"] == 1.0 and grade["answer"] == CFO
    assert grade["task_hash"] == task.task_hash and grade["complete"] is True

    messages = client.get(f"/sessions/{sid}/transcript").json()
    assert messages["done"] is True and messages["steps"] == 3 and messages["task_id"] == task.id
    assert messages["messages"][0] == {"role": "user", "content": task.instruction}
    calls = [m["tool_calls"][0]["function"]["name"] for m in messages["messages"] if m["role"] == "assistant"]
    assert calls == ["directory_search_people", "directory_search_people", "submit"]
    assert json.loads(messages["messages"][-1]["content"]) == {"status": "submitted"}


def test_http_results_equal_the_in_process_env(client: TestClient) -> None:
    """The adapter adds nothing: the same calls give the same results as OfficeEnv."""
    env = OfficeEnv(load_task(TASKS / "move-deal-negotiation"))
    env.reset(seed=0)
    sid = start(client, "move-deal-negotiation")["session_id"]
    for name, arguments in [("crm_search_deals", {"query": "Baker renewal"}),
                            ("crm_move_deal", {"deal_id": "deal_900", "stage": "negotiation"}),
                            ("crm_get_deal", {"deal_id": "deal_404"})]:
        local, *_ = env.step({"name": name, "arguments": arguments})
        assert step(client, sid, name, arguments)["observation"]["result"] == json.loads(json.dumps(local["result"]))


def test_sessions_are_isolated(client: TestClient) -> None:
    first = start(client, "move-deal-negotiation")["session_id"]
    second = start(client, "move-deal-negotiation")["session_id"]
    step(client, first, "crm_move_deal", {"deal_id": "deal_900", "stage": "negotiation"})
    assert step(client, first, "crm_get_deal", {"deal_id": "deal_900"})["observation"]["result"]["stage"] == \
        "negotiation"
    assert step(client, second, "crm_get_deal", {"deal_id": "deal_900"})["observation"]["result"]["stage"] == "proposal"


def test_the_step_budget_truncates_and_grades(client: TestClient) -> None:
    sid = start(client, "lookup-cfo-email", reward="binary")["session_id"]
    for _ in range(5):
        assert step(client, sid, "directory_get_person", {"person": "p_2"})["truncated"] is False
    last = step(client, sid, "directory_get_person", {"person": "p_2"})
    assert last["truncated"] is True and last["terminated"] is False and last["reward"] == 0.0
    assert last["info"]["grade"]["answer"] is None and last["info"]["grade"]["passed"] is False


def test_the_grade_never_quotes_the_grader_unless_asked(client: TestClient) -> None:
    """A check's reason quotes the expected value; the default summary must not leak it."""
    sid = start(client, "lookup-cfo-email")["session_id"]
    response = client.post(f"/sessions/{sid}/step", json={"name": "submit", "arguments": {"answer": "nobody@x.test"}})
    assert response.json()["info"]["grade"]["score"] == 0.0
    assert CFO not in response.text and "criteria" not in response.json()["info"]["grade"]

    with TestClient(create_app(TASKS, grade_detail="full")) as trusted:
        sid = start(trusted, "lookup-cfo-email")["session_id"]
        grade = step(trusted, sid, "submit", {"answer": "nobody@x.test"})["info"]["grade"]
        assert [c["id"] for c in grade["criteria"]] == ["right_address"] and CFO in grade["criteria"][0]["reason"]


# --------------------------------------------------------------------------- HTTP: failures
def test_unknown_session_is_404_and_a_finished_one_409(client: TestClient) -> None:
    for method, path in [("post", "/sessions/nope/step"), ("get", "/sessions/nope/transcript"),
                         ("delete", "/sessions/nope")]:
        response = client.request(method.upper(), path, json={"name": "submit"} if method == "post" else None)
        assert response.status_code == 404 and "no session 'nope'" in response.json()["detail"]

    sid = start(client, "lookup-cfo-email")["session_id"]
    step(client, sid, "submit", {"answer": None})
    again = client.post(f"/sessions/{sid}/step", json={"name": "directory_search_people", "arguments": {}})
    assert again.status_code == 409 and "is over" in again.json()["detail"]
    assert client.get(f"/sessions/{sid}/transcript").status_code == 200  # still readable until deleted
    assert client.delete(f"/sessions/{sid}").status_code == 204
    assert client.get(f"/sessions/{sid}/transcript").status_code == 404


def test_tasks_are_found_by_id_or_path_but_never_outside_the_tasks_dir(client: TestClient) -> None:
    assert client.get("/tasks").json()["tasks"] == sorted(p.name for p in TASKS.iterdir() if p.is_dir())
    assert start(client, "./lookup-cfo-email")["info"]["task_id"] == "lookup-cfo-email"
    typo = client.post("/sessions", json={"task": "lookup-cfo-emial"})
    assert typo.status_code == 404 and "Did you mean 'lookup-cfo-email'" in typo.json()["detail"]
    assert client.post("/sessions", json={"task": "lookup-cfo-email", "sead": 1}).status_code == 422


def test_a_task_outside_the_tasks_dir_is_not_found(tmp_path: Path) -> None:
    library = tmp_path / "library"
    shutil.copytree(TASKS / "lookup-cfo-email", library / "lookup-cfo-email")
    with TestClient(create_app(library)) as client:
        assert start(client, str(library / "lookup-cfo-email"))["info"]["task_id"] == "lookup-cfo-email"
        outside = TASKS / "move-deal-negotiation"  # a real task, reachable only by escaping the library
        for escape in [str(outside), os.path.relpath(outside, library), "../library/../../etc", "a\x00b"]:
            response = client.post("/sessions", json={"task": escape})
            assert response.status_code == 404, escape


def test_broken_task_is_422_naming_the_problem(tmp_path: Path) -> None:
    broken = tmp_path / "broken-task"
    broken.mkdir()
    (broken / "task.yaml").write_text("id: broken-task\ninstruction: x\n")
    (broken / "grader.yaml").write_text("gates: []\n")
    with TestClient(create_app(tmp_path)) as client:
        response = client.post("/sessions", json={"task": "broken-task"})
    assert response.status_code == 422 and "task.yaml" in response.json()["detail"]


def test_apps_share_nothing_and_cap_their_sessions() -> None:
    with TestClient(create_app(TASKS, max_sessions=1)) as one, TestClient(create_app(TASKS)) as other:
        sid = start(one, "lookup-cfo-email")["session_id"]
        assert other.get(f"/sessions/{sid}/transcript").status_code == 404
        full = one.post("/sessions", json={"task": "lookup-cfo-email"})
        assert full.status_code == 429 and "DELETE finished ones" in full.json()["detail"]


def test_idle_sessions_expire_so_abandoned_episodes_free_their_slot() -> None:
    now = [0.0]
    app = create_app(TASKS, max_sessions=2, session_ttl=60.0, clock=lambda: now[0])
    with TestClient(app) as client:
        abandoned = start(client, "lookup-cfo-email")["session_id"]
        now[0] = 30.0
        active = start(client, "lookup-cfo-email")["session_id"]
        now[0] = 80.0  # the first is 80 s idle, the second 50 s
        assert client.get(f"/sessions/{active}/transcript").status_code == 200  # touching it keeps it alive
        third = client.post("/sessions", json={"task": "lookup-cfo-email"})
        assert third.status_code == 201
        gone = client.get(f"/sessions/{abandoned}/transcript")
        assert gone.status_code == 404 and "expired after 60s idle" in gone.json()["detail"]
        assert client.get(f"/sessions/{active}/transcript").status_code == 200


# --------------------------------------------------------------------------- HTTP: tools and worlds
def test_tool_lists(client: TestClient) -> None:
    assert client.get("/tools").json() == export_tools()
    task_tools = client.get("/tools", params={"task": "lookup-cfo-email"}).json()
    assert task_tools == load_task(TASKS / "lookup-cfo-email").tools_json()


def test_plain_world_calls_persist_until_reset(client: TestClient) -> None:
    made = client.post("/worlds/tiny/call", json={"name": "drive_create_doc",
                                                  "arguments": {"name": "Server notes", "content": "hello"}})
    assert made.status_code == 200 and made.json()["error"] is False

    def found() -> list[str]:
        result = client.post("/worlds/tiny/call", json={"name": "drive_search_files",
                                                        "arguments": {"query": "Server notes"}}).json()["result"]
        return [f["name"] for f in result["files"]]

    assert found() == ["Server notes"]
    assert client.delete("/worlds/tiny").status_code == 204
    assert found() == []
    unknown = client.post("/worlds/tiny/call", json={"name": "drive_serch_files", "arguments": {}}).json()
    assert unknown["error"] is True and unknown["result"]["error"]["type"] == "unknown_tool"
    missing = client.post("/worlds/nowhere/call", json={"name": "drive_search_files"})
    assert missing.status_code == 404 and "tiny" in missing.json()["detail"]


def test_routes_are_async_and_documented(app) -> None:
    routes = [r for r in router.routes if isinstance(r, APIRoute)]
    assert routes and all(inspect.iscoroutinefunction(r.endpoint) for r in routes)
    paths = TestClient(app).get("/openapi.json").json()["paths"]
    assert {"/sessions", "/sessions/{session_id}/step", "/sessions/{session_id}/transcript", "/tools",
            "/worlds/{name}/call"} <= set(paths)


def test_cli_serve_http_builds_the_app(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("officesim.cli.serve.uvicorn.run", lambda app, **kw: seen.update(app=app, **kw))
    assert cli_main(["serve", "http", "--tasks", str(TASKS), "--port", "8123", "--full-grades"]) == 0
    assert (seen["host"], seen["port"]) == ("127.0.0.1", 8123)
    assert seen["app"].state.officesim.grade_detail == "full"
    assert cli_main(["serve", "http", "--tasks", "no/such/dir"]) == 2
    assert "tasks directory no/such/dir does not exist" in capsys.readouterr().err


def test_cli_serve_mcp_rejects_options_of_the_other_mode(capsys: pytest.CaptureFixture) -> None:
    assert cli_main(["serve", "mcp", "--task", str(TASKS / "lookup-cfo-email"), "--seed", "3"]) == 2
    assert "--seed applies to --world" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["serve", "mcp"])  # --task or --world is required


# --------------------------------------------------------------------------- MCP
def run_async(function: Any, *args: Any) -> Any:
    return anyio.run(function, *args)


def text_of(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)


def test_mcp_task_episode_in_process() -> None:
    ended: list[OfficeEnv] = []
    host = TaskHost(load_task(TASKS / "lookup-cfo-email"), on_end=ended.append)

    async def scenario() -> None:
        async with Client(build_server(host)) as mcp_client:
            assert "Chief Financial Officer" in (mcp_client.instructions or "")
            tools = (await mcp_client.list_tools()).tools
            assert [t.name for t in tools] == ["directory_get_person", "directory_search_people", "submit"]
            assert tools[0].annotations.read_only_hint is True and tools[2].input_schema["required"] == []
            found = await mcp_client.call_tool("directory_search_people", {"query": "Chief Financial Officer"})
            assert not found.is_error and text_of(found)["people"][0]["email"] == CFO
            bad = await mcp_client.call_tool("directory_get_person", {"person": 12})
            assert bad.is_error and text_of(bad)["error"]["type"] == "invalid_argument"
            outside = await mcp_client.call_tool("mail_send_message", {"to": [CFO]})
            assert outside.is_error and "allowed in this task" in text_of(outside)["error"]["message"]
            done = await mcp_client.call_tool("submit", {"answer": CFO})
            assert not done.is_error and text_of(done)["status"] == "submitted" and text_of(done)["grade"]["passed"]
            after = await mcp_client.call_tool("directory_search_people", {"query": "x"})
            assert after.is_error and "episode is over" in text_of(after)["error"]["message"]

    run_async(scenario)
    assert len(ended) == 1 and ended[0].grade is not None and ended[0].grade.passed
    assert ended[0].steps == 4  # the call after the end cost nothing


def test_mcp_world_mode_serves_every_tool(tiny: World) -> None:
    host = WorldHost(tiny, "tiny")

    async def scenario() -> None:
        async with Client(build_server(host)) as mcp_client:
            tools = (await mcp_client.list_tools()).tools
            assert [t.name for t in tools] == [t["name"] for t in export_tools(fmt="mcp")]
            made = await mcp_client.call_tool("drive_create_doc", {"name": "From MCP", "content": "hi"})
            assert not made.is_error

    run_async(scenario)
    found = tiny.call("drive_search_files", {"query": "From MCP"})
    assert [f["name"] for f in found["files"]] == ["From MCP"]


@pytest.mark.slow
def test_mcp_over_stdio_subprocess(tmp_path: Path) -> None:
    """The real entry point: ``officesim serve mcp --task`` spoken to by the SDK's stdio client."""
    record = tmp_path / "episode.json"
    params = StdioServerParameters(
        command=sys.executable, cwd=str(ROOT),
        args=["-m", "officesim", "serve", "mcp", "--task", str(TASKS / "lookup-cfo-email"), "--record", str(record)],
    )

    async def scenario() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                names = [t.name for t in (await session.list_tools()).tools]
                assert names == ["directory_get_person", "directory_search_people", "submit"]
                found = await session.call_tool("directory_search_people", {"query": "Chief Financial Officer"})
                assert not found.is_error and text_of(found)["people"][0]["email"] == CFO
                bad = await session.call_tool("directory_search_people", {"query": "cfo", "limit": "ten"})
                assert bad.is_error and "'limit'" in text_of(bad)["error"]["message"]
                assert not (await session.call_tool("submit", {"answer": CFO})).is_error

    run_async(scenario)
    written = json.loads(record.read_text())
    assert written["grade"]["passed"] is True and written["grade"]["answer"] == CFO
    assert [m["role"] for m in written["transcript"]] == ["user", *["assistant", "tool"] * 3]
