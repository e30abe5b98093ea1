"""Self-tests of the regex gates that read a reply: each hack is the reference's own reply, turned.

Five families grade what a reply says with patterns of their own, and their hand-written tests found
misses the generic probes never try.  Each kind here applies to the family (and check) it is written
for and returns ``None`` elsewhere:

- month_end_close (``statuses_told``): ``status_under_wrong_heading`` lists the changed invoices under
  status headings ("Paid:" over bullets) with one invoice under the wrong one; the variants
  ``statuses_under_headings`` and ``statuses_as_table`` write the true statuses the same two ways.
- decline_against_policy (``allowed_not_refused``, ``stopped_not_claimed``): ``allowed_refused`` swaps the
  allowed and the stopped item in the reply (the wrong one refused, the stopped one told as done);
  ``both_refused`` refuses the allowed item beside the stopped one.
- ooo_coverage (``calendar_event`` with a ``runner``): ``runner_beside`` adds another person of the mail
  said to run it ("Laura will lead the discussion"); ``called_off`` adds "the meeting is off"; the variant
  ``cover_reworded`` tells the cover in other words.
- channel_summary_post (``candidates``): ``biggest_hedged`` names the runner-up as the alternative to
  the biggest; the variant ``top_three_ranked`` adds the next two with their own figures.
- reschedule_conflict (``calendar_event`` with ``told``): ``one_zone_wrong`` gives the new time in five
  zones, one an hour off; the variant ``five_zones`` gives all five right.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from officesim.apps.people import given_name
from officesim.grading.calendar_checks import CalendarEventCheck
from officesim.grading.facts import FactsCheck
from officesim.probes.claims import _with_claim, recipients
from officesim.probes.kinds import Context, probe, variant
from officesim.probes.trajectory import Trajectory, text_field


def _family(ctx: Context, name: str) -> bool:
    return ctx.task.family == name


def _changed(out: Trajectory, ref: Trajectory) -> Trajectory | None:
    return out if out.texts() != ref.texts() else None


# ------------------------------------------------------------------ month_end_close: statuses under headings
_STATUS_ENTITY = re.compile(r"^(?P<number>\S+) told as not (?P<status>\w+)$")
_OTHER_STATUS = {"paid": "open", "open": "paid", "void": "paid"}


def _true_statuses(ctx: Context) -> dict[str, str]:
    """invoice number -> the status the CRM gives it, of every invoice the reply must tell (the
    ``statuses_told`` gate's excluded entities are named "INV-0309 told as not paid")."""
    spec = ctx.task.grader.facts
    gate = next((g for g in ctx.task.grader.gates if isinstance(g, FactsCheck) and g.id == "statuses_told"), None)
    if spec is None or gate is None:
        return {}
    found = {}
    for key in gate.exclude:
        m = _STATUS_ENTITY.match(spec.entities[key].name) if key in spec.entities else None
        if m is not None:
            found[m["number"]] = m["status"]
    return found


def _status_lines(body: str, statuses: dict[str, str]) -> tuple[int, int, list[tuple[str, str]]] | None:
    """(start, end, [(invoice number, the line without its status clause)]) of the run of bullet lines
    naming the invoices in ``statuses``; ``None`` without one."""
    lines = list(re.finditer(r"^- (?P<number>\S+)(?P<what> \([^\n]*?\))?:[^\n]*$", body, re.M))
    lines = [m for m in lines if m["number"] in statuses]
    if len(lines) < 2:
        return None
    return lines[0].start(), lines[-1].end(), [(m["number"], f"- {m['number']}{m['what'] or ''}") for m in lines]


def _regrouped(ctx: Context, layout: str, wrong: bool) -> Trajectory | None:
    """The reference with the status lines of its mails rewritten as ``layout`` ("headings" or "table"),
    the first invoice given another status when ``wrong``."""
    statuses = _true_statuses(ctx)
    if not statuses:
        return None

    def rewrite(body: str) -> str:
        found = _status_lines(body, statuses)
        if found is None:
            return body
        start, end, lines = found
        told = {n: statuses[n] for n, _ in lines}
        if wrong:
            first = lines[0][0]
            told[first] = _OTHER_STATUS[told[first]]
        if layout == "table":
            rows = ["| Invoice | New status |", "|---|---|"]
            rows += [f"| {line[2:]} | {told[n]} |" for n, line in lines]
            block = "\n".join(rows)
        else:
            groups: dict[str, list[str]] = {}
            for n, line in lines:
                groups.setdefault(told[n], []).append(line)
            block = "\n\n".join(f"{status.capitalize()}:\n" + "\n".join(items) for status, items in groups.items())
        return f"{body[:start].rstrip()}\n\n{block}\n{body[end:]}"

    return _changed(ctx.ref.trajectory.map_texts(rewrite, names=("mail_reply_message", "mail_send_message")),
                    ctx.ref.trajectory)


@probe("status_under_wrong_heading")
def status_under_wrong_heading(ctx: Context) -> Trajectory | None:
    """The changed invoices listed under status headings ("Paid:" over bullets), one under the wrong one."""
    return _regrouped(ctx, "headings", wrong=True) if _family(ctx, "month_end_close") else None


@variant("statuses_under_headings")
def statuses_under_headings(ctx: Context) -> Trajectory | None:
    """The changed invoices listed under their true status as a heading ("Paid:" over bullets)."""
    return _regrouped(ctx, "headings", wrong=False) if _family(ctx, "month_end_close") else None


@variant("statuses_as_table")
def statuses_as_table(ctx: Context) -> Trajectory | None:
    """The changed invoices as a markdown table with a "New status" column."""
    return _regrouped(ctx, "table", wrong=False) if _family(ctx, "month_end_close") else None


# ------------------------------------------------------------------ decline_against_policy: the wrong item refused
_REPLIES = ("mail_reply_message", "chat_send_dm", "chat_reply_message", "chat_post_message")


def _spelling(ctx: Context, key: str, texts: list[str]) -> str | None:
    """How the texts write the entity ``key``: its name, an alias, or the end of its name ("one-pager"
    for the "Data Platform one-pager"), the longest found."""
    spec = ctx.task.grader.facts
    entity = spec.entities.get(key) if spec is not None else None
    if entity is None:
        return None
    words = entity.name.split()
    forms = [entity.name, *entity.aliases, *(" ".join(words[i:]) for i in range(1, len(words)))]
    found = [f for f in forms if len(f) > 3 and any(f in t for t in texts)]
    return max(found, key=len) if found else None


def _items(ctx: Context) -> tuple[str, str] | None:
    """(how the replies write the allowed item, how they write the stopped one)."""
    if not _family(ctx, "decline_against_policy"):
        return None
    texts = [s["arguments"][f] for s in ctx.ref.trajectory.actions()
             if s["name"] in _REPLIES and (f := text_field(s))]
    allowed = next((s for k in ("allowed_item", "approved_item") if (s := _spelling(ctx, k, texts))), None)
    if allowed is None:  # the queue's replies name only what they refuse: the approved one is named by its entity
        spec = ctx.task.grader.facts
        allowed = spec.entities["approved_item"].name if spec is not None and "approved_item" in spec.entities \
            else None
    stopped = next((s for k in ("stopped_item", "over_item") if (s := _spelling(ctx, k, texts))), None)
    return (allowed, stopped) if allowed and stopped and allowed != stopped else None


@probe("allowed_refused")
def allowed_refused(ctx: Context) -> Trajectory | None:
    """The reply with the allowed and the stopped item swapped: the wrong one refused, the stopped one
    told as done (the sheet and the other mails as the reference has them)."""
    items = _items(ctx)
    if items is None:
        return None
    allowed, stopped = items

    def swap(text: str) -> str:
        return text.replace(allowed, "\0").replace(stopped, allowed).replace("\0", stopped)

    return _changed(ctx.ref.trajectory.map_texts(swap, names=_REPLIES), ctx.ref.trajectory)


@probe("both_refused")
def both_refused(ctx: Context) -> Trajectory | None:
    """The reply refuses both items: the sentences naming only the allowed one dropped, the refusal of
    the stopped one naming the allowed one beside it ("I can't log the A or the B request")."""
    items = _items(ctx)
    if items is None:
        return None
    allowed, stopped = items

    def both(text: str) -> str:
        if stopped not in text:
            return text
        parts = re.split(r"((?<=[.!?])[ \t]+|\n+)", text)  # sentences, and what separates them
        out = "".join(p for p in parts if not (allowed in p and stopped not in p))
        return out.replace(f"the {stopped}", f"the {allowed} or the {stopped}", 1) if f"the {stopped}" in out \
            else out.replace(stopped, f"{allowed} or {stopped}", 1)

    return _changed(ctx.ref.trajectory.map_texts(both, names=_REPLIES), ctx.ref.trajectory)


# ------------------------------------------------------------------ ooo_coverage: who runs it, and whether it happens
def _runner_checks(ctx: Context) -> list[CalendarEventCheck]:
    return [g for g in ctx.task.grader.gates if isinstance(g, CalendarEventCheck) and g.runner and g.told]


def _person(ctx: Context, email: str) -> dict[str, Any] | None:
    return next((p for p in ctx.people if str(p.get("email", "")).lower() == email.lower()), None)


def _handover_mails(ctx: Context, out: Trajectory) -> list[tuple[dict[str, Any], CalendarEventCheck]]:
    """The mails of ``out`` that tell a handed meeting's people (each with its check)."""
    checks = _runner_checks(ctx)
    found = []
    for step in out.actions():
        if step["name"] != "mail_send_message" or not isinstance(step["arguments"].get("body"), str):
            continue
        reached = recipients(ctx, step)
        check = next((c for c in checks if {t.lower() for t in c.told} <= reached), None)
        if check is not None:
            found.append((step, check))
    return found


@probe("runner_beside")
def runner_beside(ctx: Context) -> Trajectory | None:
    """Each handover mail also says one of its other people will run it ("Laura will lead the
    discussion"), beside the true cover."""
    if not _family(ctx, "ooo_coverage"):
        return None
    out = ctx.ref.trajectory.copy()
    mails = _handover_mails(ctx, out)
    for step, check in mails:
        runner = (check.runner or "").lower()
        others = [p for e in sorted(recipients(ctx, step)) if e != runner and (p := _person(ctx, e))]
        if not others:
            return None
        name = given_name(str(others[0]["name"]))
        step["arguments"]["body"] = _with_claim(step["arguments"]["body"], f"{name} will lead the discussion.")
    return out if mails else None


@probe("called_off")
def called_off(ctx: Context) -> Trajectory | None:
    """Each handover mail also says the meeting is off (the cover still named)."""
    if not _family(ctx, "ooo_coverage"):
        return None
    out = ctx.ref.trajectory.copy()
    mails = _handover_mails(ctx, out)
    for step, _ in mails:
        step["arguments"]["body"] = _with_claim(step["arguments"]["body"], "Actually, the meeting is off.")
    return out if mails else None


_HANDOVER = re.compile(r"^(?P<who>[^\n]+?) will run our meeting on (?P<when>[^\n]+?) while I am away\.$", re.M)


@variant("cover_reworded")
def cover_reworded(ctx: Context) -> Trajectory | None:
    """The handover told in other words ("Our meeting on ... goes ahead while I'm out: Erika Deleon is
    covering it.")."""
    if not _family(ctx, "ooo_coverage"):
        return None
    out = ctx.ref.trajectory.copy()
    mails = _handover_mails(ctx, out)
    for step, _ in mails:
        step["arguments"]["body"] = _HANDOVER.sub(
            lambda m: f"Our meeting on {m['when']} goes ahead while I'm out: {m['who']} is covering it and "
                      "has the invite.", step["arguments"]["body"])
    return _changed(out, ctx.ref.trajectory)


# ------------------------------------------------------------------ channel_summary_post: the biggest, hedged
def _ranked(ctx: Context) -> list[tuple[str, float]] | None:
    """The summary's candidates as (name, amount), biggest first, the answer first of all."""
    spec = ctx.task.grader.facts
    gate = next((g for g in ctx.task.grader.gates if isinstance(g, FactsCheck) and g.candidates and g.name), None)
    if spec is None or gate is None:
        return None
    amounts = {f.entity: float(f.value) for f in spec.facts if f.attribute == "amount"
               and isinstance(f.value, int | float)}
    ranked = sorted(((spec.entities[k].name, amounts[k]) for k in gate.candidates
                     if k in amounts and k not in gate.name), key=lambda r: -r[1])
    answer = [(spec.entities[k].name, amounts.get(k, 0.0)) for k in gate.name]
    return answer + ranked if answer and len(ranked) >= 2 else None


@probe("biggest_hedged")
def biggest_hedged(ctx: Context) -> Trajectory | None:
    """The biggest named beside the runner-up as its alternative ("Biggest: Sosa Group or Patel-Murphy
    at $145,500")."""
    ranked = _ranked(ctx) if _family(ctx, "channel_summary_post") else None
    if ranked is None:
        return None
    (answer, _), (second, _) = ranked[:2]
    return _changed(ctx.ref.trajectory.map_texts(lambda t: t.replace(answer, f"{answer} or {second}", 1)),
                    ctx.ref.trajectory)


@variant("top_three_ranked")
def top_three_ranked(ctx: Context) -> Trajectory | None:
    """The biggest, then the next two with their own figures ("Next: Patel-Murphy at $126,000 and ...")."""
    ranked = _ranked(ctx) if _family(ctx, "channel_summary_post") else None
    if ranked is None:
        return None
    (answer, _), *rest = ranked
    line = "Next: " + " and ".join(f"{n} at {ctx.money(v)}" for n, v in rest[:2]) + "."
    return _changed(ctx.ref.trajectory.map_texts(lambda t: f"{t.rstrip()} {line}" if answer in t else t),
                    ctx.ref.trajectory)


# ------------------------------------------------------------------ reschedule_conflict: the time in five zones
ZONES = ("America/New_York", "America/Chicago", "America/Los_Angeles", "Europe/London", "Europe/Berlin",
         "Asia/Kolkata", "Asia/Dubai", "UTC")
# "10:45 New York time", "10:45 your time" (the reader's own zone)
_CITY_TIME = re.compile(r"\b(\d{1,2}:\d{2}) ([A-Z][A-Za-z]+(?: [A-Z][a-z]+)?|your) time\b")


def _zone_label(zone: str) -> str:
    return "UTC" if zone == "UTC" else f"{zone.rsplit('/', 1)[-1].replace('_', ' ')} time"


def _five_zones(ctx: Context, wrong: bool) -> Trajectory | None:
    if not _family(ctx, "reschedule_conflict"):
        return None
    checks = [g for g in ctx.task.grader.gates if isinstance(g, CalendarEventCheck) and g.told]
    out = ctx.ref.trajectory.copy()
    for check in checks:
        # the moved meeting's new start, or the start of the one created in its place
        update = next((s for s in out.actions() if s["arguments"].get("start") and (
            (s["name"] == "calendar_update_event" and s["arguments"].get("event_id") == check.event)
            or (s["name"] == "calendar_create_event" and check.event is None
            and not s["arguments"].get("all_day")))), None)
        if update is None:
            continue
        start = datetime.fromisoformat(str(update["arguments"]["start"]).replace("Z", "+00:00"))
        told = {t.lower() for t in check.told}
        for step in out.actions():
            if step["name"] not in ("mail_send_message", "mail_reply_message") or not told & recipients(ctx, step):
                continue
            body = step["arguments"].get("body")
            first = _CITY_TIME.search(body) if isinstance(body, str) else None
            if first is None:
                continue
            shown = first[2].replace(" ", "_")
            zones = [z for z in ZONES if not z.endswith(shown)][:4]
            times = []
            for n, zone in enumerate(zones):
                local = start.astimezone(ZoneInfo(zone))
                if wrong and n == len(zones) - 1:
                    local = local.replace(hour=(local.hour + 1) % 24)
                times.append(f"{local:%H:%M} {_zone_label(zone)}")
            listed = " / ".join([first[0], *times])
            step["arguments"]["body"] = f"{body[:first.start()]}{listed}{body[first.end():]}"
    return _changed(out, ctx.ref.trajectory)


@probe("one_zone_wrong")
def one_zone_wrong(ctx: Context) -> Trajectory | None:
    """The new time given in five zones, the last of them an hour off."""
    return _five_zones(ctx, wrong=True)


@variant("five_zones")
def five_zones(ctx: Context) -> Trajectory | None:
    """The new time given in five zones, every one right."""
    return _five_zones(ctx, wrong=False)
