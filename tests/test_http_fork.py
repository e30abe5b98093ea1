"""Forks and revisions over real HTTP: a uvicorn server on a free port, spoken to with httpx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from officesim.server import create_app
from officesim.testing import serve_app

TASKS = Path(__file__).resolve().parent.parent / "tasks"
TASK = "share-doc-exact-001"  # share f_100 with three people, each with the right role
SHARES = [("jamie.clayton@acme.test", "editor"), ("spencer.bradshaw@acme.test", "viewer"),
          ("scott.spencer@acme.test", "editor")]


@pytest.fixture(scope="module")
def api() -> Iterator[httpx.Client]:
    with serve_app(create_app(TASKS, max_sessions=4), name="http-api") as url, \
            httpx.Client(base_url=url, timeout=60) as client:
        yield client


def share(api: httpx.Client, sid: str, person: str, role: str) -> dict[str, Any]:
    response = api.post(f"/sessions/{sid}/step", json={"name": "drive_share_file",
                                                       "arguments": {"file_id": "f_100", "person": person,
                                                                     "role": role}})
    assert response.status_code == 200, response.text
    assert "error" not in response.json()["observation"]["result"]
    return response.json()


def submit(api: httpx.Client, sid: str) -> dict[str, Any]:
    response = api.post(f"/sessions/{sid}/step", json={"name": "submit", "arguments": {"answer": None}})
    assert response.status_code == 200, response.text
    return response.json()


def messages(api: httpx.Client, sid: str) -> list[dict[str, Any]]:
    return api.get(f"/sessions/{sid}/transcript").json()["messages"]


def test_a_fork_is_an_independent_session_at_the_current_step(api: httpx.Client) -> None:
    created = api.post("/sessions", json={"task": TASK, "revisions": 1})
    assert created.status_code == 201, created.text
    sid = created.json()["session_id"]
    for person, role in SHARES[:2]:
        share(api, sid, person, role)
    forked = api.post(f"/sessions/{sid}/fork")
    assert forked.status_code == 201, forked.text
    fork = forked.json()
    max_steps = created.json()["observation"]["max_steps"]
    assert fork["forked_from"] == sid and fork["session_id"] != sid
    assert (fork["steps"], fork["steps_left"], fork["max_steps"], fork["revisions_left"]) == (2, max_steps - 2,
                                                                                            max_steps, 1)
    twin = fork["session_id"]
    assert messages(api, twin) == messages(api, sid)  # the transcript so far, copied

    # The fork finishes the job and passes at once; the original never sees its third share.
    share(api, twin, *SHARES[2])
    done = submit(api, twin)
    assert done["terminated"] and done["reward"] == 1.0 and done["info"]["grade"]["passed"]
    assert done["observation"]["steps_left"] == max_steps - 4

    # Revision mode over HTTP on the original: a failed submit, what is still wrong (no expected
    # values), then the missing share and a passing second submit.
    first = submit(api, sid)
    assert first["terminated"] is False and first["reward"] == 0.0
    result = first["observation"]["result"]
    assert result["status"] == "not accepted" and result["revisions_left"] == 0
    assert result["still_wrong"] == ["A record is not in the state the task asks for."]
    said = json.dumps(result)
    for forbidden in ("scott", "spencer", "editor", "f_100", "access_"):
        assert forbidden not in said, forbidden
    assert first["info"]["revision"]["attempt"] == 1 and first["info"]["revision"]["grade"]["passed"] is False
    assert "criteria" not in first["info"]["revision"]["grade"]  # summarised: no check reasons leak
    share(api, sid, *SHARES[2])
    end = submit(api, sid)
    assert end["terminated"] and end["reward"] == 1.0
    assert [a["passed"] for a in end["info"]["attempts"]] == [False, True]
    assert len(messages(api, sid)) == 1 + 2 * 5 and len(messages(api, twin)) == 1 + 2 * 4

    # An ended session has nothing to branch from; an unknown one is not found.
    assert api.post(f"/sessions/{twin}/fork").status_code == 409
    assert api.post("/sessions/nope/fork").status_code == 404
    for each in (sid, twin):
        assert api.delete(f"/sessions/{each}").status_code == 204


def test_a_fork_counts_against_the_session_limit(api: httpx.Client) -> None:
    sids = [api.post("/sessions", json={"task": TASK}).json()["session_id"] for _ in range(3)]
    forked = api.post(f"/sessions/{sids[0]}/fork")
    assert forked.status_code == 201  # the fourth session: the server's limit
    refused = api.post(f"/sessions/{sids[0]}/fork")
    assert refused.status_code == 429 and "DELETE finished ones" in refused.json()["detail"]
    for sid in [*sids, forked.json()["session_id"]]:
        assert api.delete(f"/sessions/{sid}").status_code == 204


def test_the_fork_route_is_declared_with_its_status_codes(api: httpx.Client) -> None:
    operation = api.get("/openapi.json").json()["paths"]["/sessions/{session_id}/fork"]["post"]
    assert {"201", "404", "409", "429"} <= set(operation["responses"])
    schema = operation["responses"]["201"]["content"]["application/json"]["schema"]["$ref"]
    assert schema.endswith("/SessionForked")
