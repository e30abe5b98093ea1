"""Calendar tables: one calendar per person, rooms, events (one-off or recurring) and attendees.

A recurring event is stored once, as a series: its first occurrence (``start_at``/``end_at``, UTC)
and a rule (``recurrence``) expanded in the event's own time zone, so a weekly 09:00 meeting in
New York stays at 09:00 there across daylight-saving changes.  Cancelled occurrences of a series
are listed in ``exdates``.
"""

from __future__ import annotations

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class Calendar(SQLModel, table=True):
    """A person's calendar: the time zone their times are shown in and their working hours."""

    __tablename__ = "calendar_calendar"

    id: str = Field(primary_key=True)  # cal_3
    owner_id: str = Field(index=True, unique=True)
    time_zone: str  # IANA name, e.g. 'Europe/London'
    work_start: str = "09:00"  # local wall-clock time
    work_end: str = "17:30"


class Room(SQLModel, table=True):
    """A bookable meeting room in one office."""

    __tablename__ = "calendar_room"

    id: str = Field(primary_key=True)  # room_2
    name: str = Field(index=True)
    office: str  # a directory location, e.g. 'London'
    capacity: int


class Event(SQLModel, table=True):
    """An event on the organizer's and attendees' calendars (a series when ``recurrence`` is set)."""

    __tablename__ = "calendar_event"
    __table_args__ = (Index("ix_calendar_event_window", "start_at", "recurrence_until"),)

    id: str = Field(primary_key=True)  # ev_12
    organizer_id: str = Field(index=True)
    title: str
    description: str = ""
    kind: str = "meeting"  # meeting | one_on_one | standup | customer_call | travel | out_of_office | focus
    start_at: str  # first occurrence, ISO UTC
    end_at: str
    time_zone: str  # the organizer's zone when created; recurrences expand in it
    all_day: bool = False
    room_id: str | None = Field(default=None, index=True)
    location: str = ""  # free text ('Zoom', a customer's office)
    recurrence: str = ""  # '' | daily | weekdays | weekly | biweekly | monthly
    recurrence_until: str = ""  # ISO UTC of the last possible occurrence start; '' = no end
    exdates: str = "[]"  # JSON list of cancelled occurrence starts (ISO UTC)
    status: str = "confirmed"  # confirmed | cancelled
    created_at: str
    updated_at: str


class Attendee(SQLModel, table=True):
    """One invitee of an event and their answer (employees by id, outsiders by email)."""

    __tablename__ = "calendar_attendee"
    __table_args__ = (Index("ix_calendar_attendee_person", "person_id", "event_id"),)

    id: str = Field(primary_key=True)  # att_40
    event_id: str = Field(index=True)
    person_id: str | None = None  # None for an outside guest
    email: str
    response: str = "needs_action"  # needs_action | accepted | declined | tentative
    optional: bool = False
    comment: str = ""
    responded_at: str | None = None
