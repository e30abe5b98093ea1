"""Calendar time: parsing what a model sends, time zones, and expanding recurring events.

Times a model sends may carry an offset (``2026-10-06T10:00:00+01:00``, ``...Z``); a time without
one is read in the acting user's own time zone, as a person typing into their calendar means it.
Stored times are ISO UTC text, like every other timestamp of the world.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from officesim.clock import format_ts, parse_ts
from officesim.errors import InvalidArgument

RULES = ("daily", "weekdays", "weekly", "biweekly", "monthly")
MAX_WINDOW = timedelta(days=92)
FIRST_YEAR, LAST_YEAR = 1970, 2200  # far from datetime's limits, so event arithmetic never overflows
MAX_DURATION = timedelta(days=31)
# Offices of the directory's locations; 'Remote' people keep the company's home zone.
OFFICE_ZONES = {
    "New York": "America/New_York", "Austin": "America/Chicago", "Toronto": "America/Toronto",
    "London": "Europe/London", "Singapore": "Asia/Singapore", "Berlin": "Europe/Berlin", "Paris": "Europe/Paris",
    "Mumbai": "Asia/Kolkata", "Bangalore": "Asia/Kolkata", "Sydney": "Australia/Sydney",
    "San Francisco": "America/Los_Angeles",
}
HOME_ZONE = "America/New_York"


def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``; ``InvalidArgument`` naming examples when it is not one."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise InvalidArgument(f"time_zone {name[:60]!r} is not an IANA time zone; use e.g. 'Europe/London' "
                              "or 'America/New_York'") from None


def read_time(value: str, param: str, default_zone: str) -> datetime:
    """A moment a model sent, aware UTC; without an offset it is wall-clock time in ``default_zone``."""
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            if not FIRST_YEAR <= day.year <= LAST_YEAR:
                raise InvalidArgument(f"{param}={value[:60]!r} is out of range; calendar times run from "
                                      f"{FIRST_YEAR} to {LAST_YEAR}")
            return datetime.combine(day, time(0), zone(default_zone)).astimezone(UTC)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=zone(default_zone))
        if not FIRST_YEAR <= moment.year <= LAST_YEAR:
            raise InvalidArgument(f"{param}={value[:60]!r} is out of range; calendar times run from {FIRST_YEAR} "
                                  f"to {LAST_YEAR}")
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidArgument(f"{param}={value[:60]!r} is not a time; use ISO format like '2026-10-06T10:00' "
                              f"(your own time zone, {default_zone}) or '2026-10-06T09:00:00Z'") from None


def read_window(start: str, end: str, default_zone: str) -> tuple[datetime, datetime]:
    """A [start, end) window a model sent, at most ``MAX_WINDOW`` long."""
    first, last = read_time(start, "start", default_zone), read_time(end, "end", default_zone)
    if last <= first:
        raise InvalidArgument(f"end ({format_ts(last)}) must be after start ({format_ts(first)})")
    if last - first > MAX_WINDOW:
        raise InvalidArgument(f"the window is {(last - first).days} days; ask for at most {MAX_WINDOW.days} days at "
                              "a time")
    return first, last


def local_text(moment: datetime, zone_name: str) -> str:
    """``moment`` as wall-clock ISO text with its offset in ``zone_name`` (what people read)."""
    return moment.astimezone(ZoneInfo(zone_name)).isoformat(timespec="minutes")


def _step(day: date, rule: str, first: date) -> date:
    if rule == "daily":
        return day + timedelta(days=1)
    if rule == "weekdays":
        day += timedelta(days=1)
        while day.weekday() >= 5:
            day += timedelta(days=1)
        return day
    if rule == "weekly":
        return day + timedelta(days=7)
    if rule == "biweekly":
        return day + timedelta(days=14)
    # monthly: the same day of the month; months without that day are skipped
    year, month = day.year, day.month
    while True:
        month += 1
        if month > 12:
            year, month = year + 1, 1
        try:
            return date(year, month, first.day)
        except ValueError:
            continue


def _skip_to(first: date, rule: str, target: date) -> tuple[date, int]:
    """A start day at or before ``target`` on the rule's grid, to avoid walking a long series.

    A weekday series that starts on a weekday has an occurrence on each later weekday, so whole
    weeks are skipped too (one that starts on a weekend is walked: its first day is off the grid).
    """
    period = {"daily": 1, "weekly": 7, "biweekly": 14}.get(rule)
    if rule == "weekdays" and first.weekday() < 5:
        period = 7
    if period is None or target <= first:
        return first, 0
    steps = (target - first).days // period
    return first + timedelta(days=steps * period), steps


def occurrences(event: Any, start: datetime, end: datetime) -> Iterator[tuple[datetime, datetime]]:
    """The (start, end) of each occurrence of ``event`` (a row) overlapping [start, end), in UTC."""
    rule = event["recurrence"]
    if not rule:
        first_start, first_end = parse_ts(event["start_at"]), parse_ts(event["end_at"])
        if first_start < end and first_end > start:
            yield first_start, first_end
        return
    first_start, duration, tz, first_day, wall, until, skipped = _series(
        event["start_at"], event["end_at"], event["time_zone"], event["recurrence_until"], event["exdates"])
    day, _ = _skip_to(first_day, rule, (start - duration).astimezone(tz).date() - timedelta(days=1))
    for _ in range(400):  # a window is at most 92 days: 400 steps always reach its end
        moment = datetime.combine(day, wall, tz).astimezone(UTC)
        if moment >= end or (until is not None and moment > until):
            return
        if moment + duration > start and moment >= first_start and not (skipped and format_ts(moment) in skipped):
            yield moment, moment + duration
        day = _step(day, rule, first_day)


@lru_cache(maxsize=16384)
def _series(start_at: str, end_at: str, zone_name: str, until_text: str,
            exdates: str | None) -> tuple[datetime, timedelta, ZoneInfo, date, time, datetime | None, frozenset[str]]:
    """A series' columns read once (a busy lookup expands every series a person attends, each
    call): its first start, duration, zone, first local day and wall-clock time, end, cancelled starts."""
    first_start = parse_ts(start_at)
    duration = parse_ts(end_at) - first_start
    tz = ZoneInfo(zone_name)
    local_first = first_start.astimezone(tz)
    until = parse_ts(until_text) if until_text else None
    skipped = frozenset(json.loads(exdates or "[]"))
    return first_start, duration, tz, local_first.date(), local_first.timetz().replace(tzinfo=None), until, skipped


def occurrence_id(event_id: str, moment: datetime, recurring: bool) -> str:
    """The id of one occurrence: the event id, plus ``@<start>`` for an occurrence of a series."""
    return f"{event_id}@{moment.strftime('%Y%m%dT%H%MZ')}" if recurring else event_id


def split_occurrence_id(value: str) -> tuple[str, datetime | None]:
    """``ev_4@20261006T1400Z`` -> ('ev_4', that moment); a plain event id -> (id, None)."""
    event_id, _, stamp = value.strip().partition("@")
    if not stamp:
        return event_id, None
    try:
        return event_id, datetime.strptime(stamp, "%Y%m%dT%H%MZ").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidArgument(f"{value[:60]!r} is not an event id; pass an id a calendar tool returned, like "
                              "'ev_12' or 'ev_12@20261006T1400Z'") from None
