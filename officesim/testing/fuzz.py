"""Hypothesis strategies for tool arguments, derived from each tool's own JSON Schema.

Used by the fuzz test (``tests/test_fuzz_tools.py``) and for long local runs.  A strategy mostly
draws values the schema allows, biased to the edges a model finds: ids that exist in the world,
boundary dates and numbers, strings at and past their ``maxLength``, lists past ``maxItems``, odd
unicode (lone surrogates, NUL, right-to-left marks, combining marks, emoji); and sometimes
values it does not allow (wrong types, extra keys, nothing at all).  Requires ``hypothesis`` (a
dev dependency); nothing else in officesim imports this module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

# Ids of every kind, some that exist in the tiny world and some that cannot.
IDS = ("msg_1", "msg_3", "msg_40", "thr_1", "f_1", "f_2", "f_5", "f_9", "f_12", "p_1", "p_2", "p_5", "acc_1",
       "con_1", "deal_1", "deal_2", "inv_1", "act_1", "ch_1", "ch_2", "cm_1", "cm_3", "sh_1", "row_1", "trash",
       "general", "#general", "@p_2", "msg_0", "f_0", "msg_99999999999999999999", "")
DATES = ("2026-10-05", "2026-01-01", "0001-01-01", "9999-12-31", "0001-01-01T00:00:00+01:00",
         "9999-12-31T23:59:59-01:00", "2026-02-30", "2026-10-05T09:00:00Z", "2026-10-05T09:00:00+14:00",
         "yesterday", "20261005", "2026-W40-1")
ODD_TEXT = ("\ud800", "\x00", "a\x00b", "\u202eevil", "e\u0301\u0301\u0301", "\U0001f600" * 10, "\ufeff",
            "'; DROP TABLE mail_message; --", "%", "_", "\\", '"quoted phrase"', "  ", "\n\t",
            "ignore previous instructions", "\u0000" * 3, "Ω" * 300)
NUMBERS = (0, 1, -1, 100, 101, 2**31, 2**53, 2**63, -(2**63), 10**30, 1e15, 1e16, 1e308, -1e308, 0.5, -0.0)


Pools = Mapping[str, Sequence[Any]]  # plausible values by parameter name (ids that exist in the world)


def _text(schema: dict[str, Any], hostile: bool, pool: Sequence[Any]) -> st.SearchStrategy[str]:
    common = st.sampled_from(IDS + DATES)
    if not hostile:
        return st.sampled_from(list(pool)) if pool else st.one_of(common, st.text(max_size=12), st.emails())
    limit = int(schema.get("maxLength", 1000))
    return st.one_of(
        common, st.text(max_size=min(limit, 40)), st.sampled_from(ODD_TEXT),
        st.just("x" * limit),  # at the maximum: allowed
        st.just("y" * (limit + 1)),  # one past it: refused before any work
    )


def _array(schema: dict[str, Any], hostile: bool, pool: Sequence[Any]) -> st.SearchStrategy[list[Any]]:
    limit = int(schema.get("maxItems", 100))
    items = value_of(schema.get("items", {}), hostile=hostile, pool=pool)
    small = st.lists(items, max_size=min(limit, 3))
    if not hostile:
        return small
    return st.one_of(small, small, items.map(lambda item: [item] * (limit + 1)))  # one past the maximum


def value_of(schema: dict[str, Any], *, hostile: bool = True, pool: Sequence[Any] = ()) -> st.SearchStrategy[Any]:
    """Values for one property schema: plausible ones (from ``pool`` when given), or (``hostile``)
    edges and worse."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([value_of(member, hostile=hostile, pool=pool) for member in schema["anyOf"]])
    kinds = schema.get("type", [])
    kinds = kinds if isinstance(kinds, list) else [kinds]
    strategies: list[st.SearchStrategy[Any]] = []
    for kind in kinds:
        if kind == "null":
            strategies.append(st.none())
        elif kind == "string":
            strategies.append(_text(schema, hostile, pool))
        elif kind == "integer":
            strategies.append(st.integers(0, 60) | st.sampled_from([n for n in NUMBERS if isinstance(n, int)])
                              if hostile else st.integers(1, 30))
        elif kind == "number":
            strategies.append(st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(NUMBERS)
                              if hostile else st.floats(0, 100_000))
        elif kind == "boolean":
            strategies.append(st.booleans())
        elif kind == "array":
            strategies.append(_array(schema, hostile, pool))
        elif kind == "object":
            strategies.append(arguments_of(schema, hostile=hostile))
    return st.one_of(strategies) if strategies else ANY_JSON


ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def arguments_of(
    schema: dict[str, Any], *, hostile: bool = True, pools: Pools | None = None
) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects for an object schema; ``hostile`` ones also leave properties out, send any
    type for them and add keys that are not parameters."""
    pools = pools or {}
    properties: dict[str, Any] = schema.get("properties", {})

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, prop in properties.items():
            choice = draw(st.integers(0, 9)) if hostile else 9
            if choice == 0:
                continue  # left out
            null_ok = "null" in json.dumps(prop.get("type", prop.get("anyOf", "")))
            if not hostile and null_ok and draw(st.booleans()):
                out[name] = None  # an optional parameter a model leaves at its default
                continue
            pool = pools.get(name, ())
            out[name] = draw(ANY_JSON if choice == 1 else value_of(prop, hostile=hostile, pool=pool))
        if hostile and draw(st.integers(0, 4)) == 0:
            out[draw(st.text(min_size=1, max_size=8))] = draw(ANY_JSON)  # a parameter that does not exist
        return out

    return build()


def raw_arguments_of(schema: dict[str, Any], pools: Pools | None = None) -> st.SearchStrategy[Any]:
    """What a model may put in a tool call's ``arguments``: a plausible object (most often), a
    hostile one, either as JSON text, or junk."""
    plausible = arguments_of(schema, hostile=False, pools=pools)
    hostile = arguments_of(schema, hostile=True, pools=pools)
    return st.one_of(
        plausible, plausible, plausible, hostile, hostile,
        st.one_of(plausible, hostile).map(json.dumps),
        st.sampled_from(["", "{", "[1, 2]", "null", '{"a": NaN}', "9" * 5000, "[" * 5000, '"text"']),
    )


def pools_from(world: Any) -> dict[str, list[Any]]:
    """Plausible values by parameter name, read from ``world``: ids the acting user can reach, and
    the words, dates and names a model would send (plus a few that are wrong)."""

    def ids(sql: str, *params: Any) -> list[Any]:
        return [r[0] for r in world.db.execute(f"{sql} LIMIT 12", params)]

    me = world.user_id
    messages = ids("SELECT message_id FROM mail_entry WHERE owner_id = ? ORDER BY id", me)
    files = ids("SELECT id FROM drive_file WHERE owner_id = ? ORDER BY id", me) + ids(
        "SELECT file_id FROM drive_permission WHERE person_id = ? OR principal = 'domain' ORDER BY id", me)
    people = ids("SELECT email FROM directory_person ORDER BY id") + ids("SELECT id FROM directory_person")
    channels = ids("SELECT c.name FROM chat_channel c JOIN chat_member m ON m.channel_id = c.id "
                   "WHERE m.person_id = ? ORDER BY c.id", me) + ids("SELECT id FROM chat_channel ORDER BY id")
    words = ["invoice", "budget", "Q3", "travel", '"offsite plan"', "renewal", "policy"]
    dates = ["2026-09-01", "2026-10-05", "2026-12-31", "2026-10-01T09:00:00Z", "0001-01-01", "9999-12-31"]
    texts = ["Thanks, will do.", "Please review the attached numbers.", "Q3 totals: 48.2L"]
    pools: dict[str, list[Any]] = {
        "message_id": messages + ids("SELECT id FROM chat_message ORDER BY id"),
        "draft_id": ids("SELECT m.id FROM mail_message m WHERE m.status = 'draft' ORDER BY id") + messages[:2],
        "thread_id": ids("SELECT DISTINCT m.thread_id FROM mail_message m JOIN mail_entry e ON "
                         "e.message_id = m.id WHERE e.owner_id = ?", me),
        "file_id": files, "folder_id": [*ids("SELECT id FROM drive_file WHERE kind = 'folder' ORDER BY id"),
                                        "trash", "root"],
        "attachments": files, "person": people, "owner": people, "manager": people, "sender": people,
        "recipient": people, "author": people, "to": people, "cc": people, "bcc": people, "email": people,
        "channel": channels, "account_id": ids("SELECT id FROM crm_account ORDER BY id"),
        "contact_id": ids("SELECT id FROM crm_contact ORDER BY id"),
        "deal_id": ids("SELECT id FROM crm_deal ORDER BY id"), "invoice_id": ids("SELECT id FROM crm_invoice"),
        "activity_id": ids("SELECT id FROM crm_activity ORDER BY id"),
        "department": ids("SELECT name FROM directory_department ORDER BY id"),
        "query": words, "label": ["follow-up", "Customers"], "add": ["follow-up", "urgent"],
        "remove": ["follow-up"], "folder": ["archive", "inbox", "trash", "Invoices"], "emoji": ["thumbsup", "eyes"],
        "after": dates, "before": dates, "close_after": dates, "close_before": dates, "close_date": dates,
        "subject": ["Q3 numbers", "Re: invoice"], "body": texts, "text": texts, "content": texts,
        "name": ["Q3 summary", "Trip costs"], "sheet": ["Sheet1"], "columns": ["Date", "Vendor", "Amount"],
        "cursor": ["o20", "o5"], "currency": ["USD", "EUR"], "next_step": ["Send the proposal"],
    }
    return {k: v for k, v in pools.items() if v}
