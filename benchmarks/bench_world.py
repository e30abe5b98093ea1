"""World benchmarks: generation, snapshot size, restore, and tool-call latency per app.

Run: ``python benchmarks/bench_world.py [--skip-large] [--json FILE]``.  Prints medians (wall
and CPU) and, for restore, reset and tool calls, the ratio against bare ``sqlite3`` doing the
same work in the same run.

Targets (2-core machine): restore within 2x of a bare deserialize; median tool call under
150 us on acme; acme generated in under 5 s.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

from timing import Figures, fmt_us, median_seconds, median_times

from officesim import World

ROOT = Path(__file__).resolve().parent.parent


def bare_deserialize(data: bytes) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.deserialize(data)
    return conn


def bare_deserialize_usable(data: bytes) -> sqlite3.Connection:
    """Deserialize plus the first statement: SQLite parses the schema then, and not before.

    A world is not usable until its schema is parsed (tables, indexes and the change-log
    triggers), so this is the like-for-like baseline for ``World.restore``.
    """
    conn = bare_deserialize(data)
    conn.execute("SELECT value FROM _meta WHERE key = 'clock'").fetchall()
    return conn


def _first(world: World, sql: str, *params: Any) -> Any:
    row = world.db.execute(sql, params).fetchone()
    if row is None:
        raise SystemExit(f"benchmark fixture query found nothing: {sql}")
    return row[0]


def call_cases(world: World) -> list[tuple[str, str, str, dict[str, Any], str, tuple[Any, ...]]]:
    """(app, kind, tool, arguments, bare SQL, params): the tool call and the same query on bare sqlite3."""
    me = world.user_id
    email = world.user["email"]
    cfo = _first(world, "SELECT email FROM directory_person WHERE role = 'cfo'")
    message = _first(world, "SELECT message_id FROM mail_entry WHERE owner_id = ? AND folder = 'inbox'", me)
    sheet = _first(
        world,
        "SELECT f.id FROM drive_file f WHERE f.kind = 'sheet' AND (f.owner_id = ? OR EXISTS (SELECT 1 FROM "
        "drive_permission p WHERE p.file_id = f.id AND (p.person_id = ? OR p.principal = 'domain')))",
        me, me,
    )
    doc = _first(world, "SELECT id FROM drive_file WHERE kind = 'doc' AND owner_id = ?", me) if world.db.execute(
        "SELECT 1 FROM drive_file WHERE kind = 'doc' AND owner_id = ?", (me,)).fetchone() else None
    channel = _first(
        world, "SELECT c.name FROM chat_channel c JOIN chat_member m ON m.channel_id = c.id "
        "WHERE m.person_id = ? AND c.kind = 'public'", me)
    channel_id = _first(world, "SELECT id FROM chat_channel WHERE name = ?", channel)
    deal = _first(world, "SELECT id FROM crm_deal ORDER BY id")
    cases = [
        ("directory", "read", "directory_get_person", {"person": cfo},
         "SELECT p.*, d.name FROM directory_person p JOIN directory_department d ON d.id = p.department_id "
         "WHERE p.email = ?", (cfo,)),
        ("mail", "read", "mail_get_message", {"message_id": message},
         "SELECT m.*, e.folder, e.labels, e.is_read FROM mail_message m JOIN mail_entry e ON e.message_id = m.id "
         "WHERE m.id = ? AND e.owner_id = ?", (message, me)),
        ("mail", "read", "mail_search_messages", {"query": "budget", "limit": 20},
         "SELECT m.id, m.subject FROM mail_entry e JOIN mail_message m ON m.id = e.message_id WHERE e.owner_id = ? "
         "AND e.folder != 'trash' AND (m.subject LIKE '%budget%' OR m.body LIKE '%budget%') "
         "ORDER BY m.sent_at DESC LIMIT 21", (me,)),
        ("mail", "write", "mail_send_message", {"to": [cfo], "subject": "Numbers", "body": "See the sheet."},
         "INSERT INTO mail_message (id, thread_id, status, sender, sender_name, \"to\", cc, bcc, subject, body, "
         "sent_at, attachments) VALUES (hex(randomblob(8)), 'thr_x', 'sent', ?, 'x', '[]', '[]', '[]', 's', 'b', "
         "'2026-01-01T00:00:00Z', '[]')", (email,)),
        ("drive", "read", "drive_read_sheet", {"file_id": sheet, "limit": 20},
         "SELECT r.* FROM drive_row r JOIN drive_sheet s ON s.id = r.sheet_id WHERE s.file_id = ? "
         "ORDER BY r.position LIMIT 21", (sheet,)),
        ("chat", "read", "chat_list_messages", {"channel": channel, "limit": 20},
         "SELECT * FROM chat_message WHERE channel_id = ? AND thread_id IS NULL ORDER BY posted_at DESC LIMIT 21",
         (channel_id,)),
        ("chat", "write", "chat_post_message", {"channel": channel, "text": "Shipping the numbers today."},
         "INSERT INTO chat_message (id, channel_id, author_id, text, posted_at) "
         "VALUES (hex(randomblob(8)), ?, ?, 'x', '2026-01-01T00:00:00Z')", (channel_id, me)),
        ("crm", "read", "crm_get_deal", {"deal_id": deal},
         "SELECT d.*, a.name FROM crm_deal d JOIN crm_account a ON a.id = d.account_id WHERE d.id = ?", (deal,)),
        ("crm", "write", "crm_update_deal", {"deal_id": deal, "next_step": "Send the order form"},
         "UPDATE crm_deal SET next_step = 'Send the order form' WHERE id = ?", (deal,)),
    ]
    if doc:
        cases.append(("drive", "write", "drive_update_doc", {"file_id": doc, "content": "\nOne more line.",
                      "mode": "append"}, "UPDATE drive_file SET content = content || ? WHERE id = ?", ("x", doc)))
    return cases


def bench_generation(specs: list[str]) -> dict[str, World]:
    print("== world generation (median) and snapshot size ==")
    worlds = {}
    for name in specs:
        path = ROOT / "worlds" / f"{name}.yaml"
        repeat = {"tiny": 5, "acme": 3}.get(name, 1)
        seconds = median_seconds(lambda p=path: World.generate(p), repeat=repeat)
        world = World.generate(path)
        worlds[name] = world
        rows = sum(world.counts().values())
        size = len(world.snapshot())
        print(f"  {name:<6} {seconds:7.2f} s   {rows:>8,} rows   snapshot {size / 1e6:6.2f} MB")
    return worlds


def bench_restore(worlds: dict[str, World], figures: Figures) -> None:
    print("== restore: World.restore vs bare sqlite3 connect + deserialize of the same bytes ==")
    print("   (bare+parse = deserialize and the first statement, which makes SQLite parse the schema)")
    for name, world in worlds.items():
        data = world.snapshot()
        number = 200 if len(data) < 5e6 else 20
        ours = median_seconds(lambda d=data: World.restore(d), repeat=9, number=number)
        bare = median_seconds(lambda d=data: bare_deserialize(d), repeat=9, number=number)
        usable = median_seconds(lambda d=data: bare_deserialize_usable(d), repeat=9, number=number)
        print(f"  {name:<6} World.restore {fmt_us(ours):>11}   bare+parse {fmt_us(usable):>11} "
              f"(ratio {ours / usable:4.2f}x)   bare alone {fmt_us(bare):>11} (ratio {ours / bare:4.2f}x)")
        restored = World.restore(data)
        conn = bare_deserialize(data)
        in_place, in_place_cpu = median_times(lambda w=restored, d=data: w.reset(d), repeat=9, number=number)
        bare_in_place, bare_cpu = median_times(lambda c=conn, d=data: c.deserialize(d), repeat=9, number=number)
        ratio = in_place_cpu / bare_cpu
        print(f"         World.reset (in place, warm schema) {fmt_us(in_place):>11} wall, {fmt_us(in_place_cpu)} CPU; "
              f"bare in-place deserialize {fmt_us(bare_in_place)} wall, {fmt_us(bare_cpu)} CPU "
              f"(ratio {ratio:4.2f}x CPU)")
        figures.add(f"reset_{name}_vs_bare", ratio, unit="x", target="<= 2x" if name == "large" else "",
                    ok=ratio <= 2 if name == "large" else None,
                    what=f"World.reset on {name} / bare in-place deserialize of the same bytes (CPU)",
                    shown=f"{fmt_us(in_place_cpu)} vs {fmt_us(bare_cpu)} ({ratio:.2f}x)")
        rewind_cpu = _rewind_cpu(data)
        print(f"         World.reset with the start world after an episode's writes (a rewind: only the "
              f"touched rows go back) {fmt_us(rewind_cpu)} CPU ({rewind_cpu / bare_cpu:4.2f}x the bare deserialize)")
        figures.add(f"rewind_{name}_vs_bare", rewind_cpu / bare_cpu, unit="x",
                    what=f"an episode's reset on {name} (rewind after a mail, a post and a deal update) / bare "
                    "in-place deserialize (CPU)",
                    shown=f"{fmt_us(rewind_cpu)} vs {fmt_us(bare_cpu)} ({rewind_cpu / bare_cpu:.2f}x)")
        first_write = median_seconds(
            lambda w=restored: w.call("chat_post_message", {"channel": "general", "text": "hi"}), repeat=1)
        print(f"         first tool call on a freshly restored world (prepares statements) {fmt_us(first_write)}")


def _rewind_cpu(data: bytes, rounds: int = 9, number: int = 50) -> float:
    """Median CPU seconds of ``World.reset(data, origin=...)`` after a few writes, as an episode leaves
    its world (only the reset is timed; the writes are not)."""
    origin, world = World.restore(data), World.restore(data)
    cfo = _first(world, "SELECT email FROM directory_person WHERE role = 'cfo'")
    channel = _first(world, "SELECT c.name FROM chat_channel c JOIN chat_member m ON m.channel_id = c.id "
                     "WHERE m.person_id = ? AND c.kind = 'public'", world.user_id)
    deal = _first(world, "SELECT id FROM crm_deal ORDER BY id")
    medians = []
    for _ in range(rounds):
        spent = 0.0
        for _ in range(number):
            world.call("mail_send_message", {"to": [cfo], "subject": "Numbers", "body": "See the sheet."})
            world.call("chat_post_message", {"channel": channel, "text": "Shipping the numbers today."})
            world.call("crm_update_deal", {"deal_id": deal, "next_step": "Send the order form"})
            start = time.process_time()
            world.reset(data, origin=origin)
            spent += time.process_time() - start
        medians.append(spent / number)
    if world._rewinds == 0:
        raise SystemExit("the benchmark's resets were not rewinds")
    return statistics.median(medians)


def bench_calls(world: World) -> None:
    print("== tool calls on acme: median per call vs the same query on bare sqlite3 ==")
    ours_all, ratios = [], []
    bare_conn = bare_deserialize(world.snapshot())
    for app, kind, name, arguments, sql, params in call_cases(world):
        probe = world.call(name, arguments)
        if "error" in probe:
            raise SystemExit(f"{name} failed in the benchmark: {probe['error']}")
        ours = median_seconds(lambda n=name, a=arguments: world.call(n, a), repeat=7, number=200)
        bare = median_seconds(lambda s=sql, p=params: bare_conn.execute(s, p).fetchall(), repeat=7, number=200)
        ours_all.append(ours)
        ratios.append(ours / bare)
        print(f"  {app:<9} {kind:<5} {name:<24} {fmt_us(ours):>11}   bare {fmt_us(bare):>9}   "
              f"ratio {ours / bare:5.1f}x")
    print(f"  median over these calls: {fmt_us(statistics.median(ours_all))} "
          f"(target < 150 us); median ratio {statistics.median(ratios):.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-large", action="store_true", help="skip the large world (slow to generate)")
    parser.add_argument("--json", help="merge the figures into this JSON file")
    args = parser.parse_args()
    figures = Figures("world")
    run(not args.skip_large, figures)
    figures.write(args.json)


def run(large: bool, figures: Figures) -> None:
    specs = ["tiny", "acme"] + (["large"] if large else [])
    worlds = bench_generation(specs)
    bench_restore(worlds, figures)
    bench_calls(worlds["acme"])


if __name__ == "__main__":
    main()
