"""Every tool's median latency on acme and on large, and how it grows with the world.

Run: ``python benchmarks/bench_tools.py [--json FILE]``.

Each of the registered tools is called with arguments drawn from the world itself (names where a
tool accepts a name, since by-name lookups are what used to scan: channel, account, deal,
invoice number, contact email, person, department, file).  Read tools are called repeatedly;
a write tool is timed on a world reset in place before each call (the reset is not timed).  The
bare baseline is SQLite's own cost for a primary-key lookup on the same world (``SELECT * FROM
crm_deal WHERE id = ?``), so the ratios say how much work a call does beyond the minimum.
Every time is the call's CPU time (wall time printed beside it): the ratios are CPU ratios, so
other processes on a shared machine do not move them.

large has ~10x acme's rows.  A lookup whose work grows more than 3x from acme to large is flagged:
it scans something that an index should serve.  Work is measured two ways, and either flags:
the warm CPU time of a read, and the SQLite virtual-machine steps of any call (counted with a
progress handler called at every step: exact and immune to the machine's caches).  A write's
time is printed but does not flag: it is timed on a world just reset in place, and the first
touches of a freshly deserialized 19 MB world are cold in the CPU caches (any call, a read too,
costs +150-250 us then on large, +20 us on acme: that is the reset's cost, which bench_world
compares with a bare deserialize); its VM steps say whether it scans.  Searches and lists that
are meant to read more rows as the world grows are flagged too, so that the reader judges them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

from timing import Figures, fmt_us

from officesim.tools import registry
from officesim.world import World

ROOT = Path(__file__).resolve().parent.parent
GROWTH_LIMIT = 3.0
TYPICAL_EVENTS = 12  # events (series) on a median calendar of acme (large: 10)


def _one(world: World, sql: str, *params: Any) -> Any:
    row = world.db.execute(sql, params).fetchone()
    if row is None:
        raise SystemExit(f"benchmark fixture query found nothing: {sql}")
    return row[0]


def prepare(world: World) -> None:
    """Give the acting user a draft, a sheet and a doc of their own (every world the same way)."""
    world.call("mail_create_draft", {"to": [], "subject": "Bench draft", "body": "Draft body."})
    world.call("drive_create_sheet", {"name": "Bench sheet", "columns": ["Date", "Vendor", "Amount"]})
    sheet = _one(world, "SELECT id FROM drive_file WHERE name = 'Bench sheet'")
    world.call("drive_append_rows", {"file_id": sheet, "rows": [["2026-09-01", "Acme", 10], ["2026-09-02", "B", 20]]})
    world.call("drive_create_doc", {"name": "Bench doc", "content": "Notes.\n"})
    world.call("drive_create_folder", {"name": "Bench folder"})
    world.call("drive_create_doc", {"name": "Bench trashed", "content": "Old notes.\n"})
    trashed = _one(world, "SELECT id FROM drive_file WHERE name = 'Bench trashed'")
    world.call("drive_delete_file", {"file_id": trashed})
    day = world.now().date() + timedelta(days=1)
    made = world.call("calendar_create_event", {"title": "Bench review", "start": f"{day}T10:00", "end": f"{day}T10:30",
                                                "attendees": [_one(world, "SELECT email FROM directory_person "
                                                                          "WHERE role = 'cfo'")]})
    if "error" in made:
        raise SystemExit(f"benchmark fixture: calendar_create_event failed: {made['error']}")
    world.clear_change_log()


def cases(world: World) -> dict[str, dict[str, Any]]:
    """One representative call per tool, with arguments that exist in ``world``."""
    me = world.user_id
    one = lambda sql, *p: _one(world, sql, *p)  # noqa: E731
    inbox = "SELECT m.id FROM mail_entry e JOIN mail_message m ON m.id = e.message_id WHERE e.owner_id = ? "
    message = one(inbox + "AND e.folder = 'inbox' ORDER BY m.sent_at DESC", me)
    attached = world.db.execute(inbox + "AND m.attachments != '[]' ORDER BY m.sent_at DESC", (me,)).fetchone()
    attachment_file = json.loads(one("SELECT attachments FROM mail_message WHERE id = ?", attached[0]))[0] \
        if attached else None
    thread = one("SELECT thread_id FROM mail_message WHERE id = ?", message)
    draft = one(inbox + "AND e.folder = 'drafts'", me)
    channel = one("SELECT c.name FROM chat_channel c JOIN chat_member m ON m.channel_id = c.id "
                  "WHERE m.person_id = ? AND c.kind = 'public' ORDER BY c.id", me)
    unjoined = one("SELECT name FROM chat_channel c WHERE kind = 'public' AND NOT EXISTS (SELECT 1 FROM chat_member m "
                   "WHERE m.channel_id = c.id AND m.person_id = ?) ORDER BY id", me)
    channel_id = one("SELECT id FROM chat_channel WHERE name = ?", channel)
    chat_message = one("SELECT id FROM chat_message WHERE channel_id = ? AND thread_id IS NULL ORDER BY posted_at DESC",
                       channel_id)
    colleague = one("SELECT name FROM directory_person WHERE id != ? AND role = 'cfo'", me)
    department = one("SELECT d.name FROM directory_department d JOIN directory_person p ON p.department_id = d.id "
                     "WHERE p.id = ?", me)
    account = one("SELECT name FROM crm_account ORDER BY id")
    account_id = one("SELECT id FROM crm_account ORDER BY id")
    contact_email = one("SELECT email FROM crm_contact ORDER BY id")
    contact_id = one("SELECT id FROM crm_contact ORDER BY id")
    deal = one("SELECT name FROM crm_deal GROUP BY name HAVING count(*) = 1 ORDER BY min(id)")
    deal_id = one("SELECT id FROM crm_deal WHERE stage NOT IN ('closed_won', 'closed_lost') ORDER BY id")
    invoice = one("SELECT number FROM crm_invoice ORDER BY id")
    activity = one("SELECT id FROM crm_activity ORDER BY id")
    sheet = one("SELECT id FROM drive_file WHERE name = 'Bench sheet'")
    doc = one("SELECT id FROM drive_file WHERE name = 'Bench doc'")
    folder = one("SELECT id FROM drive_file WHERE name = 'Bench folder'")
    shared_file = one("SELECT f.name FROM drive_file f JOIN drive_permission p ON p.file_id = f.id "
                      "WHERE p.principal = 'domain' ORDER BY f.id")
    cfo_email = one("SELECT email FROM directory_person WHERE role = 'cfo'")
    trashed = one("SELECT id FROM drive_file WHERE name = 'Bench trashed'")
    mine = one("SELECT id FROM calendar_event WHERE title = 'Bench review'")
    invited = one("SELECT e.id FROM calendar_event e JOIN calendar_attendee a ON a.event_id = e.id "
                  "WHERE a.person_id = ? AND e.organizer_id != ? AND e.status = 'confirmed' ORDER BY e.start_at DESC",
                  me, me)
    office = one("SELECT office FROM calendar_room ORDER BY id")
    # Free/busy reads the calendars of the people asked, so its cost follows their load, not the
    # world's size: on both worlds ask about the two people whose calendars hold the most usual
    # number of events (acme's median), not the CFO and the user (4.5x busier on large than on acme).
    # A person's entry lists their direct reports, and no team size exists on both worlds (acme's
    # managers have 5-19 reports, large's 38-84): that is output, not a scan.  So ask about someone
    # with no reports on both (the entry, the department and the reports probe are all still read),
    # by a name no one else has (large has namesakes, and a name lookup answers with the first).
    individual = one("SELECT m.name FROM directory_person m WHERE m.id != ? "
                  "AND NOT EXISTS (SELECT 1 FROM directory_person r WHERE r.manager_id = m.id) "
                  "AND (SELECT count(*) FROM directory_person n WHERE n.name = m.name) = 1 ORDER BY m.id", me)
    typical = [row[0] for row in world.db.execute(
        "SELECT p.email FROM directory_person p LEFT JOIN calendar_attendee a ON a.person_id = p.id WHERE p.id != ? "
        "GROUP BY p.id ORDER BY abs(count(a.event_id) - ?), p.id LIMIT 2", (me, TYPICAL_EVENTS))]
    day = world.now().date()
    week = {"start": str(day), "end": str(day + timedelta(days=7))}
    return {
        "calendar_cancel_event": {"event_id": mine, "note": "Moved to next week."},
        "calendar_create_event": {"title": "Bench sync", "start": f"{day + timedelta(days=2)}T15:00",
                                  "end": f"{day + timedelta(days=2)}T15:30", "attendees": [cfo_email]},
        "calendar_find_free_time": {"people": typical, "duration_minutes": 30, "include_me": False, **week},
        "calendar_get_event": {"event_id": invited},
        "calendar_get_free_busy": {"people": typical, **week},
        "calendar_list_events": {**week, "limit": 20},
        "calendar_list_rooms": {"office": office},
        "calendar_respond_event": {"event_id": invited, "response": "accepted"},
        "calendar_search_events": {"query": "review", "limit": 20},
        "calendar_update_event": {"event_id": mine, "title": "Bench review (moved)"},
        "drive_restore_file": {"file_id": trashed},
        "chat_get_message": {"message_id": chat_message},
        "chat_get_thread": {"message_id": chat_message},
        "chat_join_channel": {"channel": unjoined},
        "chat_list_channels": {},
        "chat_list_members": {"channel": channel},
        "chat_list_messages": {"channel": channel, "limit": 20},
        "chat_post_message": {"channel": channel, "text": "Shipping the numbers today."},
        "chat_react_message": {"message_id": chat_message, "emoji": "eyes"},
        "chat_reply_message": {"message_id": chat_message, "text": "On it."},
        "chat_search_messages": {"query": "budget", "limit": 20},
        "chat_send_dm": {"person": colleague, "text": "Quick question about the budget."},
        "crm_create_contact": {"account_id": account, "name": "Ada Bench", "email": "ada.bench@example.org"},
        "crm_create_deal": {"account_id": account, "name": "Bench expansion", "amount": 12000,
                            "close_date": "2026-12-15"},
        "crm_get_account": {"account_id": account},
        "crm_get_activity": {"activity_id": activity},
        "crm_get_contact": {"contact_id": contact_email},
        "crm_get_deal": {"deal_id": deal},
        "crm_get_invoice": {"invoice_id": invoice},
        "crm_list_activities": {"account_id": account_id, "limit": 20},
        "crm_list_pipeline": {},
        "crm_log_activity": {"kind": "call", "subject": "Pricing call", "deal_id": deal_id},
        "crm_move_deal": {"deal_id": deal_id, "stage": "closed_won"},
        "crm_search_accounts": {"query": account.split()[0], "limit": 20},
        "crm_search_contacts": {"query": contact_email.split("@")[0], "limit": 20},
        "crm_search_deals": {"query": deal.split()[0], "limit": 20},
        "crm_search_invoices": {"account_id": account, "limit": 20},
        "crm_update_contact": {"contact_id": contact_id, "title": "VP Finance"},
        "crm_update_deal": {"deal_id": deal_id, "next_step": "Send the order form"},
        "directory_get_person": {"person": individual},
        "directory_list_departments": {},
        "directory_search_people": {"department": department, "limit": 20},
        "drive_append_rows": {"file_id": sheet, "rows": [["2026-09-03", "C", 30]]},
        "drive_create_doc": {"name": "Bench notes", "content": "Hello."},
        "drive_create_folder": {"name": "Bench archive"},
        "drive_create_sheet": {"name": "Bench tracker", "columns": ["A", "B"]},
        "drive_delete_file": {"file_id": doc},
        "drive_delete_rows": {"file_id": sheet, "row_numbers": [1]},
        "drive_get_doc": {"file_id": doc},
        "drive_get_file": {"file_id": sheet},
        "drive_list_folder": {"limit": 20},
        "drive_move_file": {"file_id": doc, "folder_id": folder},
        "drive_read_sheet": {"file_id": sheet, "limit": 20},
        "drive_search_files": {"query": shared_file, "limit": 20},
        "drive_share_file": {"file_id": doc, "person": cfo_email, "role": "viewer"},
        "drive_update_doc": {"file_id": doc, "content": "\nOne more line.", "mode": "append"},
        "drive_update_rows": {"file_id": sheet, "row_numbers": [1], "values": [{"column": "Amount", "value": 11}]},
        "mail_create_draft": {"to": [cfo_email], "subject": "Numbers", "body": "Draft."},
        "mail_delete_message": {"message_id": message},
        "mail_forward_message": {"message_id": message, "to": [cfo_email]},
        "mail_get_attachment": {"message_id": attached[0], "file_id": attachment_file} if attached else None,
        "mail_get_message": {"message_id": message},
        "mail_get_thread": {"thread_id": thread},
        "mail_label_message": {"message_id": message, "add": ["follow-up"]},
        "mail_list_folders": {},
        "mail_mark_message": {"message_id": message, "read": False},
        "mail_move_message": {"message_id": message, "folder": "archive"},
        "mail_reply_all": {"message_id": message, "body": "Thanks, all."},
        "mail_reply_message": {"message_id": message, "body": "Thanks."},
        "mail_search_messages": {"query": "budget", "limit": 20},
        "mail_send_draft": {"draft_id": draft},
        "mail_send_message": {"to": [cfo_email], "subject": "Numbers", "body": "See the sheet."},
        "mail_update_draft": {"draft_id": draft, "subject": "Bench draft v2"},
    }


def median_call(world: World, snapshot: bytes, name: str, arguments: dict[str, Any], write: bool,
                rounds: int) -> tuple[float, float]:
    """Median (CPU, wall) seconds of one call; a write is timed on a freshly reset world each time.

    The ratios use CPU time: on a shared machine the wall clock also counts other processes."""
    cpus, walls = [], []
    for _ in range(rounds):
        if write:
            world.reset(snapshot)
        wall, cpu = time.perf_counter(), time.process_time()
        world.call(name, arguments)
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    if write:
        world.reset(snapshot)
    return statistics.median(cpus), statistics.median(walls)


STEP_TICK = 1  # VM steps per progress-handler tick: every step, so the count is exact


def vm_steps(world: World, snapshot: bytes, name: str, arguments: dict[str, Any], write: bool) -> int:
    """The SQLite VM steps one call executes (in ticks of ``STEP_TICK``), with the time budget's own
    handler off (it would replace this one)."""
    if write:
        world.reset(snapshot)
    ticks = [0]

    def tick() -> int:
        ticks[0] += 1
        return 0

    budget, world.time_budget = world.time_budget, None
    world.db.set_progress_handler(tick, STEP_TICK)
    try:
        world.call(name, arguments)
    finally:
        world.db.set_progress_handler(None, 0)
        world.time_budget = budget
    if write:
        world.reset(snapshot)
    return ticks[0] * STEP_TICK


def measure(spec: str, rounds: int) -> tuple[dict[str, float], float, int, dict[str, float], dict[str, int]]:
    """Per tool, the median call CPU time on a world of ``spec``; the bare lookup; the world's rows;
    per tool, the median wall time; per tool, the VM steps of one call."""
    world = World.generate(ROOT / "worlds" / f"{spec}.yaml")
    prepare(world)
    snapshot = world.snapshot()
    world.reset(snapshot)
    tools = registry()
    found = cases(world)
    missing = sorted(set(tools) - set(found))
    if missing:
        raise SystemExit(f"no benchmark case for: {', '.join(missing)}")
    times: dict[str, float] = {}
    walls: dict[str, float] = {}
    steps: dict[str, int] = {}
    for name, arguments in sorted(found.items()):
        if arguments is None:
            continue
        write = tools[name].kind == "write"
        probe = world.call(name, arguments)
        if write:
            world.reset(snapshot)
        if "error" in probe:
            raise SystemExit(f"{spec}: {name}({arguments}) failed: {probe['error']}")
        times[name], walls[name] = median_call(world, snapshot, name, arguments, write, rounds)
        steps[name] = vm_steps(world, snapshot, name, arguments, write)
    deal = _one(world, "SELECT id FROM crm_deal ORDER BY id")
    return times, _bare(world, deal, rounds), sum(world.counts().values()), walls, steps


def _bare(world: World, deal: str, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.process_time()
        world.db.execute("SELECT * FROM crm_deal WHERE id = ?", (deal,)).fetchall()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


SCANS = ("_search_", "_list_")  # tools whose work is meant to grow with what they search or list


def run(rounds: int, figures: Figures, large: str = "large") -> None:
    cpu = time.process_time()
    small_times, small_bare, small_rows, small_walls, small_steps = measure("acme", rounds)
    big_times, big_bare, big_rows, big_walls, big_steps = measure(large, rounds)
    writes = {name for name, spec in registry().items() if spec.kind == "write"}
    print(f"== every tool's median call, CPU time (wall time in brackets): acme ({small_rows:,} rows) vs {large} "
          f"({big_rows:,} rows, {big_rows / small_rows:.1f}x); then SQLite VM steps per call on both ==")
    print(f"   bare baseline: a primary-key SELECT, {fmt_us(small_bare)} on acme, {fmt_us(big_bare)} on {large}; "
          "w = a write, timed just after an in-place reset (its time does not flag, its VM steps do)")
    flagged_lookups, flagged_scans = [], []
    for name in sorted(small_times):
        ratio = big_times[name] / small_times[name]
        step_ratio = big_steps[name] / max(small_steps[name], STEP_TICK)
        scan = any(part in name for part in SCANS)
        write = name in writes
        flag = ""
        if step_ratio > GROWTH_LIMIT or (ratio > GROWTH_LIMIT and not write):
            flag = "  <-- grows with the world (a search or list)" if scan else "  <-- LOOKUP OVER 3x"
            (flagged_scans if scan else flagged_lookups).append(name)
        kind = "w" if write else " "
        print(f"  {name:<28}{kind} acme {fmt_us(small_times[name]):>11} ({fmt_us(small_walls[name]):>11})  "
              f"{large} {fmt_us(big_times[name]):>11} ({fmt_us(big_walls[name]):>11})  {ratio:5.2f}x  "
              f"({small_times[name] / small_bare:5.0f}x bare)  steps {small_steps[name]:>8,} -> {big_steps[name]:>9,} "
              f"{step_ratio:5.2f}x{flag}")
    lookups = [n for n in small_times if not any(p in n for p in SCANS)]
    worst_time = max((big_times[n] / small_times[n], n) for n in lookups if n not in writes)
    worst_steps = max((big_steps[n] / max(small_steps[n], STEP_TICK), n) for n in lookups)
    median = statistics.median(small_times.values())
    print(f"  median over {len(small_times)} tools on acme: {fmt_us(median)}; lookups over {GROWTH_LIMIT:g}x "
          f"from acme to {large}: {', '.join(flagged_lookups) or 'none'} (worst read time {worst_time[1]} "
          f"{worst_time[0]:.2f}x, worst VM steps {worst_steps[1]} {worst_steps[0]:.2f}x); searches and lists over "
          f"{GROWTH_LIMIT:g}x: {', '.join(flagged_scans) or 'none'}")
    print(f"  (CPU {time.process_time() - cpu:.1f} s for both worlds, generation included)")
    figures.add("tool_median_acme", median * 1e6, unit="us", what=f"median tool call on acme over all "
                f"{len(small_times)} tools", shown=fmt_us(median))
    figures.add("lookups_over_3x", len(flagged_lookups), what="lookups over 3x from acme to large (read time or "
                "VM steps)", target="none", ok=not flagged_lookups,
                shown=f"{len(flagged_lookups)} (worst read {worst_time[1]} {worst_time[0]:.2f}x, worst VM steps "
                f"{worst_steps[1]} {worst_steps[0]:.2f}x)")
    figures.add("scans_over_3x", len(flagged_scans), what="searches/lists over 3x from acme to large",
                shown=", ".join(flagged_scans) or "none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=41, help="calls per tool and world (median)")
    parser.add_argument("--json", help="merge the figures into this JSON file")
    args = parser.parse_args()
    figures = Figures("tools")
    run(args.rounds, figures)
    figures.write(args.json)


if __name__ == "__main__":
    main()
