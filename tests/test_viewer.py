"""The viewer's pages without a browser: what PATH shows, bounded pages, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from officesim.cli import main
from officesim.errors import OfficesimError
from officesim.pipeline.runner import AgentSpec, run
from officesim.task import find_tasks
from officesim.view.app import build_app, detect
from officesim.view.html import PAGE_LIMIT, table
from officesim.world import World

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "runner_tasks"


def test_a_saved_world_shows_the_acting_users_mailbox_and_searches(tmp_path: Path, tiny: World) -> None:
    world = tiny
    world.save(tmp_path / "tiny.db")
    client = TestClient(build_app(tmp_path / "tiny.db"))
    home = client.get("/").text
    assert world.user["email"] in home
    mail = client.get("/w/main/mail").text
    owned = world.db.execute("SELECT COUNT(*) FROM mail_entry WHERE owner_id = ?", (world.user_id,)).fetchone()[0]
    assert mail.count("/mail/thread/") == min(owned, PAGE_LIMIT)
    subject = world.db.execute("SELECT m.subject FROM mail_entry e JOIN mail_message m ON m.id = e.message_id "
                               "WHERE e.owner_id = ? LIMIT 1", (world.user_id,)).fetchone()[0]
    found = client.get("/w/main/mail", params={"q": subject}).text
    assert subject in found and found.count("/mail/thread/") < mail.count("/mail/thread/")
    deal = world.db.execute("SELECT name FROM crm_deal LIMIT 1").fetchone()[0]
    assert deal in client.get("/w/main/crm", params={"q": deal}).text
    assert client.get("/w/other/mail").status_code == 404


def test_the_calendar_shows_the_users_week_through_the_calendar_tools(acme: World) -> None:
    world = acme
    client = TestClient(build_app(ROOT / "worlds" / "acme.yaml"))
    page = client.get("/w/main/calendar").text
    week = world.call("calendar_list_events", {"start": "2026-10-05", "end": "2026-10-12", "limit": 100})
    assert week["events"] and week["next_cursor"] is None
    assert "Week of Monday 05 October 2026 (America/Chicago)" in page
    table_html = page.split("id='calendar-week'")[1].split("</table>")[0]
    assert table_html.count("<tr>") - 1 == len(week["events"])  # one row per occurrence, series expanded
    standups = [e for e in week["events"] if e["recurrence"] == "weekdays"]
    assert len(standups) == 5 and page.count(standups[0]["title"]) >= 5
    detail = world.call("calendar_get_event", {"event_id": standups[0]["event_id"]})
    answer = detail["attendees"][0]
    assert f"{answer['email']}: <strong>{answer['response']}</strong>" in page
    for room in world.call("calendar_list_rooms", {})["rooms"][:3]:
        assert room["name"] in page
    later = client.get("/w/main/calendar", params={"week": "2026-10-14"}).text
    assert "Week of Monday 12 October 2026" in later
    assert client.get("/w/main/calendar", params={"week": "not-a-date"}).text.count("Week of Monday 05 October") == 1
    found = client.get("/w/main/calendar", params={"q": standups[0]["title"]}).text
    assert "Events matching" in found and standups[0]["title"] in found


def test_world_text_is_escaped(tmp_path: Path, tiny: World) -> None:
    world = tiny
    world.call("chat_post_message", {"channel": "general", "text": "<script>alert(1)</script>"})
    world.save(tmp_path / "w.db")
    text = TestClient(build_app(tmp_path / "w.db")).get("/w/main/chat", params={"q": "alert"}).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "<script>alert(1)" not in text


def test_a_transcript_replays_on_its_task_with_the_grade(tmp_path: Path) -> None:
    run(find_tasks([FIXTURES]), AgentSpec("oracle"), 1, tmp_path / "run", progress=False)
    transcript = tmp_path / "run" / "transcripts" / "who-is-ceo" / "0.json"
    client = TestClient(build_app(transcript))  # the task comes from the run's run.json
    first = client.get("/episode").text
    assert "Step 1 of" in first and "directory_" in first
    last = client.get("/episode", params={"step": 99}).text
    assert "PASSED" in last and "right_answer" in last
    loose = tmp_path / "loose.json"
    loose.write_text(transcript.read_text())
    with pytest.raises(OfficesimError, match="pass --task TASK_DIR"):
        build_app(loose)
    assert "PASSED" in TestClient(build_app(loose, task=str(FIXTURES / "who-is-ceo"))).get(
        "/episode", params={"step": 99}).text
    runs = TestClient(build_app(tmp_path / "run"))
    page = runs.get("/run", params={"category": "directory-lookup", "passed": "true"}).text
    records = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    wanted = [r for r in records if r["category"] == "directory-lookup" and r["passed"]]
    assert page.count("/run/episode/") == len(wanted)
    assert runs.get("/run/plot.png").content[:4] == b"\x89PNG"


def test_paths_it_cannot_show_get_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(OfficesimError, match="does not exist"):
        detect(tmp_path / "nothing")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(OfficesimError, match="not something officesim view shows"):
        detect(tmp_path / "notes.txt")
    assert main(["view", str(tmp_path / "nothing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["view", str(ROOT / "worlds" / "tiny.yaml"), "--port", "99999"]) == 2
    assert "--port must be between 1 and 65535" in capsys.readouterr().err


def test_tables_are_bounded() -> None:
    html = table(["n"], [[str(i)] for i in range(PAGE_LIMIT + 50)])
    assert html.count("<tr>") == PAGE_LIMIT + 1 and f"showing {PAGE_LIMIT} of {PAGE_LIMIT + 50} rows" in html
