"""HTTP server fit: lean steps, OpenAI tool-call bodies, declared status codes, tools in every
format, reused worlds, a bounded task cache, and no session held up by another's slow call."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from officesim import load_task
from officesim.cli import main as cli_main
from officesim.server import create_app
from officesim.toolexport import FORMATS, SCHEMA_MODES
from officesim.tools import _REGISTRY

TASKS = Path(__file__).parent / "fixtures" / "tasks"
CFO = "jasmine.jones@tinyco.test"


@pytest.fixture
def client() -> TestClient:
    with TestClient(create_app(TASKS)) as test_client:
        yield test_client


def session(client: TestClient, task: str = "lookup-cfo-email") -> tuple[str, dict[str, Any]]:
    created = client.post("/sessions", json={"task": task})
    assert created.status_code == 201, created.text
    return created.json()["session_id"], created.json()["observation"]


def test_steps_are_lean_and_the_tool_list_comes_with_the_session_or_on_request(client: TestClient) -> None:
    sid, first = session(client)
    assert [t["function"]["name"] for t in first["tools"]][-1] == "submit" and first["instruction"]
    lean = client.post(f"/sessions/{sid}/step", json={"name": "directory_search_people",
                                                      "arguments": {"query": "CFO"}})
    assert set(lean.json()["observation"]) == {"max_steps", "steps_left", "result"}
    assert lean.json()["observation"]["result"]["people"][0]["email"] == CFO
    full = client.post(f"/sessions/{sid}/step", params={"observation": "full"},
                       json={"name": "directory_get_person", "arguments": {"person": CFO}}).json()
    assert full["observation"]["tools"] == first["tools"] and full["observation"]["user"] == first["user"]
    assert len(lean.content) * 5 < len(client.post("/sessions", json={"task": "lookup-cfo-email"}).content)


def test_a_step_body_may_be_an_openai_tool_call(client: TestClient) -> None:
    sid, _ = session(client)
    call = {"id": "call_abc", "type": "function",
            "function": {"name": "directory_search_people", "arguments": '{"query": "CFO"}'}}
    found = client.post(f"/sessions/{sid}/step", json=call).json()
    assert found["observation"]["result"]["people"][0]["email"] == CFO
    end = client.post(f"/sessions/{sid}/step", json={"id": "call_end", "type": "function", "function": {
        "name": "submit", "arguments": f'{{"answer": "{CFO}"}}'}}).json()
    assert end["terminated"] and end["info"]["grade"]["passed"] is True
    messages = client.get(f"/sessions/{sid}/transcript").json()["messages"]
    assert [m["tool_calls"][0]["id"] for m in messages if m["role"] == "assistant"] == ["call_abc", "call_end"]
    mixed = client.post(f"/sessions/{session(client)[0]}/step",
                        json={"name": "submit", "function": {"name": "submit"}})
    assert mixed.status_code == 422  # neither shape: said so, not guessed


def test_every_status_code_a_route_returns_is_declared(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    declared = {(path, method): set(op["responses"]) for path, ops in paths.items() for method, op in ops.items()}
    assert {"201", "404", "422", "429"} <= declared[("/sessions", "post")]
    assert {"200", "404", "409", "422"} <= declared[("/sessions/{session_id}/step", "post")]
    assert {"204", "404"} <= declared[("/sessions/{session_id}", "delete")]
    assert {"200", "404", "422"} <= declared[("/tools", "get")]
    assert {"200", "404", "422"} <= declared[("/worlds/{name}/call", "post")]
    body = paths["/sessions/{session_id}/step"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert len(body["anyOf"]) == 2  # {name, arguments, id} or an OpenAI tool call
    sid, _ = session(client)
    client.post(f"/sessions/{sid}/step", json={"name": "submit", "arguments": {"answer": None}})
    assert client.post(f"/sessions/{sid}/step", json={"name": "submit"}).status_code == 409
    assert client.post("/sessions/nope/step", json={"name": "submit"}).status_code == 404


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("schema", [*SCHEMA_MODES, None])
def test_tools_are_served_in_every_format_and_schema_mode(client: TestClient, fmt: str, schema: str | None) -> None:
    params = {"task": "lookup-cfo-email", "format": fmt, **({"schema": schema} if schema else {})}
    served = client.get("/tools", params=params)
    assert served.status_code == 200, served.text
    assert served.json() == load_task(TASKS / "lookup-cfo-email").tools_json(fmt, schema)


def test_unknown_formats_and_schema_modes_are_422_naming_the_choices(client: TestClient) -> None:
    bad = client.get("/tools", params={"format": "yaml"})
    assert bad.status_code == 422 and "openai" in bad.text
    assert client.get("/tools", params={"schema": "loose"}).status_code == 422


def test_a_deleted_sessions_world_is_reset_for_the_next_session_of_its_task() -> None:
    app = create_app(TASKS)
    with TestClient(app) as client:
        sid, _ = session(client, "move-deal-negotiation")
        moved = client.post(f"/sessions/{sid}/step", json={"name": "crm_move_deal",
                                                           "arguments": {"deal_id": "deal_900", "stage": "closed_won"}})
        assert "error" not in moved.json()["observation"]["result"], moved.text
        world = app.state.officesim.sessions[sid].env.world
        assert client.delete(f"/sessions/{sid}").status_code == 204
        again, _ = session(client, "move-deal-negotiation")
        env = app.state.officesim.sessions[again].env
        assert env.world is world and env.steps == 0  # the same connection, rolled back in place
        deal = client.post(f"/sessions/{again}/step", json={"name": "crm_get_deal",
                                                             "arguments": {"deal_id": "deal_900"}})
        assert deal.json()["observation"]["result"]["stage"] == "proposal"


def test_loaded_tasks_stay_in_a_bounded_cache() -> None:
    app = create_app(TASKS, task_cache=2)
    with TestClient(app) as client:
        for task in ("lookup-cfo-email", "move-deal-negotiation", "budget-summary-to-cfo", "lookup-cfo-email"):
            session(client, task)
        cached = [p.name for p in app.state.officesim._tasks]
        assert cached == ["budget-summary-to-cfo", "lookup-cfo-email"]  # least recently used dropped


def _hold_search(monkeypatch: pytest.MonkeyPatch, *,
                 slow_first: float = 0.0) -> tuple[threading.Event, threading.Event]:
    """``directory_search_people`` held inside the tool (as a huge search would be) until released;
    with ``slow_first``, its first call instead just takes that long (a slow call the server sees)."""
    entered, release = threading.Event(), threading.Event()
    search = _REGISTRY["directory_search_people"]
    calls = [0]

    def held(world: Any, **kwargs: Any) -> dict[str, Any]:
        calls[0] += 1
        if slow_first and calls[0] == 1:
            time.sleep(slow_first)
        else:
            entered.set()
            release.wait(30)
        return search.func(world, **kwargs)

    monkeypatch.setitem(_REGISTRY, "directory_search_people", dataclasses.replace(search, func=held))
    return entered, release


async def _other_session_goes_on_while_held(api: httpx.AsyncClient, entered: threading.Event,
                                            release: threading.Event) -> None:
    slow_sid = (await api.post("/sessions", json={"task": "lookup-cfo-email"})).json()["session_id"]
    slow = asyncio.create_task(api.post(f"/sessions/{slow_sid}/step", json={
        "name": "directory_search_people", "arguments": {"query": "CFO"}}))
    assert await asyncio.to_thread(entered.wait, 30)  # the slow call is running now
    other = (await asyncio.wait_for(api.post("/sessions", json={"task": "lookup-cfo-email"}), 30)).json()
    person = await asyncio.wait_for(api.post(f"/sessions/{other['session_id']}/step", json={
        "name": "directory_get_person", "arguments": {"person": CFO}}), 30)
    assert person.json()["observation"]["result"]["email"] == CFO
    assert not slow.done()  # the other session finished while the slow call was still held
    release.set()
    result = (await asyncio.wait_for(slow, 30)).json()
    assert result["observation"]["result"]["people"][0]["email"] == CFO


def test_with_threaded_steps_a_slow_call_in_one_session_never_delays_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """``threaded_steps=True``: even a tool's first call runs in a thread, so a second session is
    created, steps and reads its answer while the first session's call is held."""
    entered, release = _hold_search(monkeypatch)
    app = create_app(TASKS, threaded_steps=True)

    async def scenario() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://officesim") as api:
            await _other_session_goes_on_while_held(api, entered, release)

    try:
        asyncio.run(scenario())
    finally:
        release.set()


def test_a_tool_that_was_slow_runs_in_a_thread_and_delays_no_other_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """By default a cheap call runs on the event loop; once a call of a tool was slow, the tool's
    next calls go to the thread pool, so holding one of them holds up no other session."""
    entered, release = _hold_search(monkeypatch, slow_first=0.02)
    app = create_app(TASKS)
    scheduler = app.state.officesim.scheduler

    async def scenario() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://officesim") as api:
            sid = (await api.post("/sessions", json={"task": "lookup-cfo-email"})).json()["session_id"]
            first = await api.post(f"/sessions/{sid}/step", json={"name": "directory_search_people",
                                                                    "arguments": {"query": "CFO"}})
            assert first.json()["observation"]["result"]["people"][0]["email"] == CFO
            assert scheduler.slow_tools() == {"directory_search_people": scheduler.cooldown}
            await _other_session_goes_on_while_held(api, entered, release)

    try:
        asyncio.run(scenario())
    finally:
        release.set()


def test_cheap_steps_run_on_the_event_loop_and_steps_that_may_ask_the_judge_in_a_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where each step ran: tool calls and a code-only submit on the event loop's thread; on a task
    with judged checks and a judge configured, submit and the budget's last step (which both grade,
    and may wait on the judge) in a worker thread."""
    from officesim.env import OfficeEnv
    from officesim.grading.judge import JudgeConfig

    where: list[tuple[str, bool]] = []  # (tool, ran in one of the server's worker threads)
    real_step = OfficeEnv.step

    def step(self: OfficeEnv, action: Any) -> Any:
        where.append((str(action["name"]), threading.current_thread().name.startswith("officesim-http")))
        return real_step(self, action)

    monkeypatch.setattr(OfficeEnv, "step", step)
    lookup = {"name": "directory_get_person", "arguments": {"person": CFO}}
    nowhere = JudgeConfig(model="judge", base_url="http://127.0.0.1:9/v1", api_key="x", cache_dir=None, timeout=2,
                          max_retries=0)  # refused at once: the grade is incomplete, which is beside the point here
    with TestClient(create_app(TASKS, judge=nowhere)) as client:
        sid, _ = session(client)
        assert client.post(f"/sessions/{sid}/step", json=lookup).status_code == 200
        done = client.post(f"/sessions/{sid}/step", json={"name": "submit", "arguments": {"answer": CFO}}).json()
        assert done["terminated"] and done["reward"] == 1.0  # lookup-cfo-email has no judged check
        assert where == [("directory_get_person", False), ("submit", False)]

        where.clear()
        sid, _ = session(client, "budget-sheet-judged")
        assert client.post(f"/sessions/{sid}/step", json=lookup).status_code == 200
        client.post(f"/sessions/{sid}/step", json={"name": "submit", "arguments": {"answer": "done"}})
        assert where == [("directory_get_person", False), ("submit", True)]

        where.clear()
        sid, obs = session(client, "budget-sheet-judged")
        for _ in range(obs["max_steps"]):
            last = client.post(f"/sessions/{sid}/step", json=lookup).json()
        assert last["truncated"] and "grade" in last["info"]
        assert where == [("directory_get_person", False)] * (obs["max_steps"] - 1) + [("directory_get_person", True)]


def test_serve_http_defaults_to_no_access_log_and_passes_the_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("officesim.cli.serve.uvicorn.run", lambda app, **kw: seen.update(app=app, **kw))
    assert cli_main(["serve", "http", "--tasks", str(TASKS), "--task-cache", "5"]) == 0
    assert (seen["access_log"], seen["http"], seen["loop"]) == (False, "auto", "auto")
    assert seen["app"].state.officesim.task_cache == 5
    assert cli_main(["serve", "http", "--tasks", str(TASKS), "--access-log", "--http", "h11", "--loop",
                     "asyncio"]) == 0
    assert (seen["access_log"], seen["http"], seen["loop"]) == (True, "h11", "asyncio")


def test_the_fast_path_answers_exactly_as_the_fastapi_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """Session creation, steps and deletes skip FastAPI's stack (officesim.server.fastpath); a
    query string sends the same request through FastAPI's route: both must give the same answers."""
    app = create_app(TASKS)
    routed: list[str] = []  # the requests that reached FastAPI's router
    inner = app.router.middleware_stack

    async def spy(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            routed.append(f"{scope['method']} {scope['path']}")
        await inner(scope, receive, send)

    monkeypatch.setattr(app.router, "middleware_stack", spy)
    client = TestClient(app)
    call = {"name": "directory_search_people", "arguments": {"query": "CFO"}}
    fast_sid, fast_obs = session(client)
    slow = client.post("/sessions", params={"seed": ""}, json={"task": "lookup-cfo-email"})
    assert slow.status_code == 201 and slow.json()["observation"] == fast_obs
    slow_sid = slow.json()["session_id"]
    assert routed == ["POST /sessions"]  # the first creation took the fast path, the second FastAPI's route
    fast = client.post(f"/sessions/{fast_sid}/step", json=call)
    slow = client.post(f"/sessions/{slow_sid}/step", params={"observation": "lean"}, json=call)
    assert routed[1:] == [f"POST /sessions/{slow_sid}/step"]
    assert fast.status_code == slow.status_code == 200
    assert fast.content == slow.content and fast.headers["content-type"] == slow.headers["content-type"]
    # Errors: an unknown session (404) and an invalid body (422, FastAPI's own detail) alike.
    for params in ({}, {"observation": "lean"}):
        missing = client.post("/sessions/nope/step", params=params, json=call)
        assert missing.status_code == 404 and "no session 'nope'" in missing.json()["detail"]
        bad = client.post(f"/sessions/{fast_sid}/step", params=params, json={"name": 3, "extra": True})
        assert bad.status_code == 422 and {e["loc"][-1] for e in bad.json()["detail"]} >= {"extra"}
    text = client.post(f"/sessions/{fast_sid}/step", content=b"name=submit",
                       headers={"content-type": "application/x-www-form-urlencoded"})
    assert text.status_code == 422  # not JSON: FastAPI says so
    # A finished session is 409 on both paths; a deleted one 404.
    client.post(f"/sessions/{fast_sid}/step", json={"name": "submit", "arguments": {"answer": CFO}})
    for params in ({}, {"observation": "lean"}):
        assert client.post(f"/sessions/{fast_sid}/step", params=params, json=call).status_code == 409
    assert client.delete(f"/sessions/{fast_sid}").status_code == 204
    assert client.delete(f"/sessions/{fast_sid}").status_code == 404
    assert client.post(f"/sessions/{fast_sid}/step", json=call).status_code == 404


def test_a_task_added_after_a_miss_is_found_and_a_found_ref_is_remembered(tmp_path: Path) -> None:
    import shutil

    library = tmp_path / "library"
    library.mkdir()
    with TestClient(create_app(library)) as client:
        assert client.post("/sessions", json={"task": "lookup-cfo-email"}).status_code == 404
        shutil.copytree(TASKS / "lookup-cfo-email", library / "nested" / "lookup-cfo-email")
        assert client.post("/sessions", json={"task": "lookup-cfo-email"}).status_code == 201  # a miss is not kept
        state = client.app.state.officesim
        assert state._dirs == {"lookup-cfo-email": (library / "nested" / "lookup-cfo-email").resolve()}


def test_a_crash_in_a_fast_handler_is_a_500_and_the_server_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path runs before FastAPI's error middleware: a bug in a step still answers 500 (the
    server's own answer to an exception) and the next session works."""
    from officesim.env import OfficeEnv

    real_step = OfficeEnv.step

    def broken(self: OfficeEnv, action: Any) -> Any:
        if action["name"] == "directory_get_person":
            raise RuntimeError("a bug")
        return real_step(self, action)

    monkeypatch.setattr(OfficeEnv, "step", broken)
    with TestClient(create_app(TASKS), raise_server_exceptions=False) as client:
        sid, _ = session(client)
        crashed = client.post(f"/sessions/{sid}/step", json={"name": "directory_get_person",
                                                              "arguments": {"person": CFO}})
        assert crashed.status_code == 500
        other, _ = session(client)
        done = client.post(f"/sessions/{other}/step", json={"name": "submit", "arguments": {"answer": CFO}})
        assert done.status_code == 200 and done.json()["reward"] == 1.0
