"""The calendar app: recurrence across time zones and DST, free/busy, scheduling rules, invitations."""

from __future__ import annotations

from typing import Any

import pytest

from officesim import World


@pytest.fixture
def w(acme: World) -> World:
    """A fresh acme world for each test (conftest's session snapshot, restored)."""
    return acme


def person(w: World, where: str) -> dict[str, Any]:
    row = w.db.execute("SELECT p.* FROM directory_person p JOIN calendar_calendar c ON c.owner_id = p.id "
                       "WHERE p.location = ? ORDER BY length(p.id), p.id", (where,)).fetchone()
    return dict(row)


def test_every_person_has_a_calendar_in_their_office_zone(w: World) -> None:
    zones = dict(w.db.execute("SELECT p.location, c.time_zone FROM directory_person p JOIN calendar_calendar c "
                              "ON c.owner_id = p.id GROUP BY p.location").fetchall())
    assert zones["London"] == "Europe/London" and zones["Singapore"] == "Asia/Singapore"
    assert zones["New York"] == "America/New_York"
    assert w.counts()["calendar_calendar"] == w.counts()["directory_person"]
    kinds = {r[0] for r in w.db.execute("SELECT DISTINCT kind FROM calendar_event")}
    assert {"one_on_one", "standup", "customer_call", "meeting", "out_of_office"} <= kinds
    # Customer calls invite the account's contacts from the CRM, by email.
    guest = w.db.execute("SELECT a.email FROM calendar_attendee a JOIN calendar_event e ON e.id = a.event_id "
                         "WHERE e.kind = 'customer_call' AND a.person_id IS NULL").fetchone()[0]
    assert w.db.execute("SELECT count(*) FROM crm_contact WHERE email = ?", (guest,)).fetchone()[0] == 1


def test_a_weekly_meeting_keeps_its_local_hour_across_the_dst_change(w: World) -> None:
    organizer = person(w, "New York")
    w.set_user(organizer["id"])
    made = w.call("calendar_create_event", {"title": "DST check", "start": "2026-10-22T09:00",
                                            "end": "2026-10-22T09:30", "recurrence": "weekly", "until": "2026-11-12"})
    assert made["start"] == "2026-10-22T13:00:00Z"  # 09:00 EDT
    listed = w.call("calendar_list_events", {"start": "2026-10-20", "end": "2026-11-20", "limit": 100})["events"]
    mine = [e for e in listed if e["event_id"] == made["id"]]
    assert [e["start_local"][11:16] for e in mine] == ["09:00"] * 4  # Oct 22, 29, Nov 5, 12 (until is inclusive)
    assert [e["start"][11:16] for e in mine] == ["13:00", "13:00", "14:00", "14:00"]  # US clocks go back Nov 1


def test_free_time_is_the_intersection_of_working_hours_across_zones(w: World) -> None:
    london, singapore = person(w, "London"), person(w, "Singapore")
    w.set_user(london["id"])
    found = w.call("calendar_find_free_time", {"people": [singapore["email"]], "duration_minutes": 30,
                                               "start": "2026-10-19T00:00:00Z", "end": "2026-10-20T00:00:00Z"})
    # London works 09:00-17:30 BST (08:00-16:30 UTC), Singapore 09:00-18:00 SGT (01:00-10:00 UTC).
    for slot in found["free"]:
        assert "2026-10-19T08:00:00Z" <= slot["start"] < slot["end"] <= "2026-10-19T10:00:00Z"
    busy = w.call("calendar_get_free_busy", {"people": [singapore["email"]], "start": "2026-10-19T00:00:00Z",
                                             "end": "2026-10-20T00:00:00Z"})["people"][0]
    assert busy["time_zone"] == "Asia/Singapore" and set(busy) >= {"busy", "working_hours"}
    assert all(set(span) == {"start", "end"} for span in busy["busy"])  # no titles of other people's events


def test_booking_a_taken_room_is_a_conflict_and_changes_nothing(w: World) -> None:
    w.set_user(person(w, "New York")["id"])
    room = w.call("calendar_list_rooms", {"office": "New York"})["rooms"][0]
    first = w.call("calendar_create_event", {"title": "Room A", "start": "2026-10-21T10:00", "end": "2026-10-21T11:00",
                                             "room": room["name"]})
    assert first["room"] == room["name"]
    before = w.state_hash()
    clash = w.call("calendar_create_event", {"title": "Room B", "start": "2026-10-21T10:30",
                                             "end": "2026-10-21T11:30", "room": room["id"]})
    assert clash["error"]["type"] == "conflict" and room["name"] in clash["error"]["message"]
    assert w.state_hash() == before


def test_invitations_are_answered_and_moving_an_event_asks_again(w: World) -> None:
    organizer, guest = person(w, "London"), person(w, "Toronto")
    w.set_user(organizer["id"])
    made = w.call("calendar_create_event", {"title": "Vendor review", "start": "2026-10-21T15:00",
                                            "end": "2026-10-21T16:00", "attendees": [guest["email"],
                                                                                      "buyer@customer.test"]})
    answers = {a["email"]: a["response"] for a in made["attendees"]}
    assert answers == {organizer["email"]: "accepted", guest["email"]: "needs_action",
                       "buyer@customer.test": "needs_action"}
    w.set_user(guest["id"])
    seen = w.call("calendar_get_event", {"event_id": made["id"]})
    assert seen["my_response"] == "needs_action" and seen["start_local"].endswith("-04:00")  # Toronto's own time
    assert w.call("calendar_respond_event", {"event_id": made["id"], "response": "accepted"})["response"] == "accepted"
    denied = w.call("calendar_update_event", {"event_id": made["id"], "title": "Mine now"})
    assert denied["error"]["type"] == "permission_denied"
    w.set_user(organizer["id"])
    moved = w.call("calendar_update_event", {"event_id": made["id"], "start": "2026-10-22T15:00"})
    assert moved["end"] == "2026-10-22T15:00:00Z"  # one hour kept; London is UTC+1 then
    assert {a["email"]: a["response"] for a in moved["attendees"]}[guest["email"]] == "needs_action"


def test_cancelling_one_occurrence_keeps_the_series(w: World) -> None:
    w.set_user(person(w, "Austin")["id"])
    made = w.call("calendar_create_event", {"title": "Daily check", "start": "2026-10-19T09:00",
                                            "end": "2026-10-19T09:15", "recurrence": "weekdays"})
    week = {"start": "2026-10-19", "end": "2026-10-24", "limit": 100}
    ids = [e["id"] for e in w.call("calendar_list_events", week)["events"] if e["event_id"] == made["id"]]
    assert len(ids) == 5
    assert w.call("calendar_cancel_event", {"event_id": ids[2]})["occurrence_only"] is True
    left = [e["id"] for e in w.call("calendar_list_events", week)["events"] if e["event_id"] == made["id"]]
    assert left == [ids[0], ids[1], ids[3], ids[4]]


def test_other_peoples_events_stay_private(w: World) -> None:
    w.set_user(person(w, "London")["id"])
    foreign = w.db.execute("SELECT e.id FROM calendar_event e WHERE NOT EXISTS (SELECT 1 FROM calendar_attendee a "
                           "WHERE a.event_id = e.id AND a.person_id = ?)", (w.user_id,)).fetchone()[0]
    for name, args in (("calendar_get_event", {"event_id": foreign}),
                       ("calendar_cancel_event", {"event_id": foreign}),
                       ("calendar_respond_event", {"event_id": foreign, "response": "accepted"})):
        assert w.call(name, args)["error"]["type"] == "not_found", name


@pytest.mark.parametrize(("args", "says"), [
    ({"title": "x", "start": "next tuesday", "end": "2026-10-21T10:00"}, "is not a time"),
    ({"title": "x", "start": "2026-10-21T10:00", "end": "2026-12-21T10:00"}, "at most 31 days"),
    ({"title": " ", "start": "2026-10-21T10:00", "end": "2026-10-21T11:00"}, "title is empty"),
    ({"title": "x", "start": "2026-10-21T10:00", "end": "2026-10-21T11:00", "until": "2026-11-01"}, "recurring"),
])
def test_bad_scheduling_input_says_what_to_fix(w: World, args: dict[str, Any], says: str) -> None:
    result = w.call("calendar_create_event", args)
    assert result["error"]["type"] == "invalid_argument" and says in result["error"]["message"]
