"""One function per check kind: does the check hold for this episode, and why.

Each function reads the ``GradeContext`` (start and final world, diff, answer, transcript) and
returns an ``Outcome``: ``holds`` (or no verdict, for a judge that failed or is not configured),
a reason a person can act on, and the evidence it looked at.  A check never defaults to holding
when its subject is missing.  A broken grader (a person reference that matches nobody) raises
``SpecError`` and becomes an ``error`` outcome in ``rubric.grade``; any other exception is a bug.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from officesim.grading import facts as facts_kind
from officesim.grading.evidence import collect
from officesim.grading.normalize import (
    contains_phrase,
    extract_dates,
    matches,
    normalize_text,
    parse_date,
    stated_numbers,
    text_has_number,
    values_equal,
)
from officesim.grading.spec import (
    AllowedChangesCheck,
    AnswerCheck,
    ChangedCheck,
    DocContainsCheck,
    FactsCheck,
    JudgeCheck,
    MailPrivateCheck,
    MailRecipientsOutsideCheck,
    MailSentCheck,
    NoRecordCheck,
    RecordCheck,
    SheetCellsCheck,
)
from officesim.results import like

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext, SentMail

MAX_LISTED = 5
_REPLY_PREFIX = re.compile(r"^\s*((re|fwd?|aw|sv)\s*:\s*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Outcome:
    """The result of one check: whether it holds, why, and what it looked at.

    ``verdict`` is ``"error"`` or ``"unjudged"`` when no verdict exists (``holds`` is then None).
    """

    holds: bool | None
    reason: str
    evidence: Any = None
    verdict: Literal["verdict", "error", "unjudged"] = "verdict"


def _listed(items: list[str]) -> str:
    shown = "; ".join(items[:MAX_LISTED])
    return shown + (f"; and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


# ---------------------------------------------------------------------------------------- mail
def _set_problem(field: str, actual: tuple[str, ...], wanted: set[str] | None, mode: str) -> str | None:
    if wanted is None:
        return None
    have = set(actual)
    if mode == "exact" and have != wanted:
        return f"{field} is {sorted(have)}, expected exactly {sorted(wanted)}"
    if mode == "includes" and not wanted <= have:
        return f"{field} is {sorted(have)}, missing {sorted(wanted - have)}"
    return None


def _attachment_names(ctx: GradeContext, ids: tuple[str, ...]) -> dict[str, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = ctx.final.db.execute(f"SELECT id, name FROM drive_file WHERE id IN ({marks})", ids).fetchall()
    return {r["id"]: r["name"] for r in rows}


def _reply_targets(ctx: GradeContext, ref: str) -> tuple[set[str], set[str]]:
    """(message ids, thread ids) in the start world that ``ref`` (an id or a subject) names."""
    wanted = _REPLY_PREFIX.sub("", normalize_text(ref))
    ids, threads = set(), set()
    for row in ctx.start.db.execute(
        "SELECT id, thread_id, subject FROM mail_message WHERE id = ? OR subject LIKE ? ESCAPE '\\'",
        (ref, like(wanted)),
    ):
        if row["id"] == ref or _REPLY_PREFIX.sub("", normalize_text(row["subject"])) == wanted:
            ids.add(row["id"])
            threads.add(row["thread_id"])
    return ids, threads


def _mail_problem(mail: SentMail, check: MailSentCheck, ctx: GradeContext,
                  wanted: dict[str, set[str] | None], targets: tuple[set[str], set[str]] | None) -> str | None:
    """The first condition ``mail`` misses, or ``None`` when it matches them all."""
    for field, mode in (("to", check.to_mode), ("cc", check.cc_mode), ("bcc", check.bcc_mode)):
        problem = _set_problem(field, getattr(mail, field), wanted[field], mode)
        if problem:
            return problem
    for text in check.subject_contains or []:
        if not contains_phrase(mail.subject, text):
            return f"subject {mail.subject!r} lacks {text!r}"
    for text in check.body_contains or []:
        if not contains_phrase(mail.body, text):
            return f"body lacks {text!r}"
    if check.body_matches and not re.search(check.body_matches, mail.body):
        return f"body does not match /{check.body_matches}/"
    for number in check.body_numbers or []:
        if not text_has_number(mail.body, number.value, number.tolerance):
            return f"body has no number within {number.tolerance:.1%} of {number.value:g}"
    if check.attachments:
        names = _attachment_names(ctx, mail.attachments)
        for wanted_file in check.attachments:
            if not any(fid == wanted_file or texts_match(name, wanted_file) for fid, name in names.items()):
                return f"no attachment {wanted_file!r} (attached: {sorted(names.values()) or 'nothing'})"
    if targets is not None:
        ids, threads = targets
        if mail.in_reply_to not in ids and mail.thread_id not in threads:
            return f"not a reply in the thread of {check.in_reply_to!r}"
    return None


def texts_match(actual: str, wanted: str) -> bool:
    return normalize_text(actual) == normalize_text(wanted)


def mail_sent(check: MailSentCheck, ctx: GradeContext) -> Outcome:
    wanted = {
        "to": ctx.emails(check.to) if check.to is not None else None,
        "cc": ctx.emails(check.cc) if check.cc is not None else None,
        "bcc": ctx.emails(check.bcc) if check.bcc is not None else None,
    }
    targets = None
    if check.in_reply_to is not None:
        targets = _reply_targets(ctx, check.in_reply_to)
        if not targets[0]:
            return Outcome(None, f"the grader is broken: in_reply_to {check.in_reply_to!r} names no message that "
                                 "existed at the start", verdict="error")
    matched, misses = [], []
    for mail in ctx.sent_mail:
        problem = _mail_problem(mail, check, ctx, wanted, targets)
        if problem is None:
            matched.append(mail)
        else:
            misses.append(f"{mail.id} ({mail.subject!r}): {problem}")
    count = len(matched)
    evidence = {"matched": [m.summary() for m in matched], "misses": misses[:MAX_LISTED]}
    if count < check.min:
        if not ctx.sent_mail:
            return Outcome(False, "no mail was sent during the episode", evidence)
        return Outcome(False, f"{count} of {len(ctx.sent_mail)} sent mails match, need at least {check.min}: "
                              f"{_listed(misses)}", evidence)
    if check.max is not None and count > check.max:
        return Outcome(False, f"{count} sent mails match, at most {check.max} allowed: "
                              f"{', '.join(m.id for m in matched)}", evidence)
    if count == 0:
        return Outcome(True, "no sent mail matches, as required", evidence)
    return Outcome(True, f"{count} sent mail(s) match: {', '.join(m.id for m in matched)}", evidence)


def mail_recipients_outside(check: MailRecipientsOutsideCheck, ctx: GradeContext) -> Outcome:
    allowed = ctx.emails(check.allowed) | {ctx.user_email}
    offenders: dict[str, list[str]] = {}
    for mail in ctx.sent_mail:
        for address in sorted(mail.recipients()):
            inside = check.domain_ok and address.endswith("@" + ctx.domain)
            if address not in allowed and not inside:
                offenders.setdefault(mail.id, []).append(address)
    if not offenders:
        return Outcome(False, f"all {len(ctx.sent_mail)} sent mails stayed within the allowed recipients", {})
    listed = [f"{mail_id} reached {', '.join(addresses)}" for mail_id, addresses in offenders.items()]
    return Outcome(True, f"mail went outside the allowed recipients: {_listed(listed)}", offenders)


# ---------------------------------------------------------------------------------------- records
def _row_matches(row: dict[str, Any], conditions: dict[str, Any], tolerance: float) -> list[str]:
    """The fields of ``row`` that miss ``conditions`` (empty: the row matches)."""
    return [name for name, expected in conditions.items() if not matches(row.get(name), expected, tolerance)]


def _resolved(ctx: GradeContext, conditions: dict[str, Any]) -> dict[str, Any]:
    return {name: ctx.resolve(name, value) for name, value in conditions.items()}


def _row_ok(row: dict[str, Any], conditions: dict[str, Any], tolerance: float) -> bool:
    return all(matches(row.get(name), expected, tolerance) for name, expected in conditions.items())


def _select(ctx: GradeContext, table: str, match: dict[str, Any], tolerance: float) -> list[dict[str, Any]]:
    """Rows of ``table`` in the final world matching ``match`` (tolerantly).

    Ids (``id`` and ``*_id`` columns given as plain text) are canonical, so they are compared in
    SQL, on an index; only the other conditions are compared tolerantly, row by row.
    """
    exact = {c: v for c, v in match.items() if (c == "id" or c.endswith("_id")) and isinstance(v, str)}
    rest = {c: v for c, v in match.items() if c not in exact}
    where = " AND ".join(f'"{c}" = ?' for c in exact) or "1"
    rows = ctx.final.db.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY id", tuple(exact.values()))
    return [dict(r) for r in rows if not rest or _row_ok(dict(r), rest, tolerance)]


def _show(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def record(check: RecordCheck, ctx: GradeContext) -> Outcome:
    match, expect = _resolved(ctx, check.match), _resolved(ctx, check.expect)
    rows = _select(ctx, check.table, match, check.tolerance)
    wrong = []
    for row in rows:
        for name in _row_matches(row, expect, check.tolerance):
            wrong.append(f"{row['id']}.{name} is {_show(row.get(name))}, expected {_show(check.expect[name])}")
    evidence = {"rows": [r["id"] for r in rows[:20]], "count": len(rows)}
    where = f"{check.table} rows matching {_show(check.match)}"
    if check.count is not None and len(rows) != check.count:
        return Outcome(False, f"{len(rows)} {where}, expected exactly {check.count}", evidence)
    if check.count is None and not rows:
        return Outcome(False, f"no {where}", evidence)
    if wrong:
        return Outcome(False, f"{_listed(wrong)}", evidence)
    detail = f" with {_show(check.expect)}" if check.expect else ""
    return Outcome(True, f"{len(rows)} {where}{detail}", evidence)


def no_record(check: NoRecordCheck, ctx: GradeContext) -> Outcome:
    rows = _select(ctx, check.table, _resolved(ctx, check.match), check.tolerance)
    if rows:
        ids = [r["id"] for r in rows]
        return Outcome(False, f"{len(rows)} {check.table} rows match {_show(check.match)}: {', '.join(ids[:10])}",
                       {"rows": ids[:20]})
    return Outcome(True, f"no {check.table} row matches {_show(check.match)}", {})


def changed(check: ChangedCheck, ctx: GradeContext) -> Outcome:
    diff = ctx.diff.table(check.table)
    match = _resolved(ctx, check.match)
    candidates: list[tuple[str, str, dict[str, Any], set[str]]] = []
    if check.op in ("insert", "any"):
        candidates += [("insert", k, row, set(row)) for k, row in diff.inserted.items()]
    if check.op in ("update", "any"):
        candidates += [("update", k, ch["_row"], set(ch) - {"_row"}) for k, ch in diff.updated.items()]
    if check.op in ("delete", "any"):
        candidates += [("delete", k, row, set()) for k, row in diff.deleted.items()]
    hits, near = [], []
    for op, key, row, fields in candidates:
        if _row_matches(row, match, check.tolerance):
            continue
        missing = sorted(set(check.fields or []) - fields) if op == "update" else []
        if missing:
            near.append(f"{key} was updated but not {', '.join(missing)}")
        else:
            hits.append(f"{op} {key}")
    if hits:
        return Outcome(True, f"{check.table}: {_listed(hits)}", {"changes": hits[:20]})
    what = {"any": "changed", "insert": "inserted", "update": "updated", "delete": "deleted"}[check.op]
    reason = f"no {check.table} row matching {_show(check.match)} was {what} during the episode"
    return Outcome(False, reason + (f" ({_listed(near)})" if near else ""), {"near": near[:20]})


def allowed_changes(check: AllowedChangesCheck, ctx: GradeContext) -> Outcome:
    allowed = check.allowed()
    violations: list[str] = []
    for table in ctx.diff.changed_tables():
        diff = ctx.diff.table(table)
        rows = len(diff.inserted) + len(diff.updated) + len(diff.deleted)
        if table not in allowed:
            violations.append(f"{table} changed ({rows} rows) but is not allowed")
            continue
        fields = allowed[table]
        if fields is not None:
            if diff.inserted or diff.deleted:
                violations.append(f"{table}: rows inserted/deleted, only updates of {fields} are allowed")
            for key, change in diff.updated.items():
                extra = sorted(set(change) - {"_row"} - set(fields))
                if extra:
                    violations.append(f"{table} {key}: {', '.join(extra)} changed (allowed: {', '.join(fields)})")
        if check.max_rows is not None and rows > check.max_rows:
            violations.append(f"{table}: {rows} rows changed, at most {check.max_rows} allowed")
    summary = ctx.diff.summary()
    if violations:
        return Outcome(False, _listed(violations), summary)
    return Outcome(True, f"changes stayed within {', '.join(sorted(allowed))}" if summary else "nothing changed",
                   summary)


# ---------------------------------------------------------------------------------------- drive
def _files(ctx: GradeContext, ref: str, kind: str) -> list[dict[str, Any]]:
    rows = ctx.final.db.execute(
        "SELECT id, name, content FROM drive_file "
        "WHERE kind = ? AND trashed = 0 AND (id = ? OR name = ? COLLATE NOCASE)",
        (kind, ref, ref),
    ).fetchall()
    if not rows:
        rows = [r for r in ctx.final.db.execute(
            "SELECT id, name, content FROM drive_file WHERE kind = ? AND trashed = 0", (kind,)
        ) if texts_match(r["name"], ref)]
    return [dict(r) for r in rows]


def _sheet_rows(ctx: GradeContext, file_id: str, tab: str | None) -> list[dict[str, Any]]:
    """Every data row of the file's tabs as {normalised header: cell}."""
    out = []
    for sheet in ctx.final.db.execute("SELECT id, name, columns FROM drive_sheet WHERE file_id = ?", (file_id,)):
        if tab is not None and not texts_match(sheet["name"], tab):
            continue
        headers = [normalize_text(h) for h in json.loads(sheet["columns"])]
        data = ctx.final.db.execute("SELECT cells FROM drive_row WHERE sheet_id = ? ORDER BY position", (sheet["id"],))
        out += [dict(zip(headers, json.loads(row["cells"]), strict=False)) for row in data]
    return out


def sheet_cells(check: SheetCellsCheck, ctx: GradeContext) -> Outcome:
    files = _files(ctx, check.file, "sheet")
    if not files:
        return Outcome(False, f"no spreadsheet named {check.file!r} exists", {})
    best: list[str] = []
    for file in files:
        rows = _sheet_rows(ctx, file["id"], check.sheet)
        missing = []
        for expected in check.rows:
            wanted = {normalize_text(k): v for k, v in expected.items()}
            if not any(all(matches(row.get(k), v, check.tolerance) for k, v in wanted.items()) for row in rows):
                missing.append(_show(expected))
        if not missing:
            return Outcome(True, f"{file['name']} ({file['id']}) has all {len(check.rows)} expected rows",
                           {"file": file["id"]})
        if not best or len(missing) < len(best):
            best = [f"{file['name']} ({file['id']}) lacks a row {m}" for m in missing]
    return Outcome(False, _listed(best), {"files": [f["id"] for f in files]})


def doc_contains(check: DocContainsCheck, ctx: GradeContext) -> Outcome:
    docs = _files(ctx, check.file, "doc")
    if not docs:
        return Outcome(False, f"no document named {check.file!r} exists", {})
    best: list[str] = []
    for doc in docs:
        content = doc["content"] or ""
        missing = [f"{s!r}" for s in check.contains if not contains_phrase(content, s)]
        missing += [f"the number {n.value:g}" for n in check.numbers
                    if not text_has_number(content, n.value, n.tolerance)]
        if not missing:
            return Outcome(True, f"{doc['name']} ({doc['id']}) contains everything expected", {"file": doc["id"]})
        if not best or len(missing) < len(best):
            best = [f"{doc['name']} ({doc['id']}) lacks {m}" for m in missing]
    return Outcome(False, _listed(best), {"files": [d["id"] for d in docs]})


# ---------------------------------------------------------------------------------------- answer
def answer(check: AnswerCheck, ctx: GradeContext) -> Outcome:
    given = ctx.answer
    if given is None or not given.strip():
        return Outcome(False, "no answer was submitted", {"answer": given})
    problems = []
    if check.equals is not None and not values_equal(given, check.equals, check.tolerance):
        problems.append(f"the answer is not {check.equals!r}")
    problems += [f"the answer lacks {s!r}" for s in check.contains or [] if not contains_phrase(given, s)]
    if check.number is not None and not text_has_number(given, check.number, check.tolerance):
        problems.append(f"the answer has no number within {check.tolerance:.1%} of {check.number:g}")
    problems += [f"the answer names {s!r}, which is not the answer" for s in check.none_of or []
                 if contains_phrase(given, s)]
    problems += [f"the answer states {n.value:g}, which a wrong reading gives" for n in check.wrong_numbers or []
                 if text_has_number(given, n.value, n.tolerance)]
    cap = check.number_cap()
    if cap is not None:
        figures = stated_numbers(given)
        if len(figures) > cap:
            problems.append(f"the answer states {len(figures)} different figures (at most {cap}): a list of "
                            "candidates is not an answer")
    if check.date is not None:
        wanted = parse_date(check.date)
        if wanted is None:
            return Outcome(None, f"the grader is broken: {check.date!r} is not a date", verdict="error")
        if wanted not in extract_dates(given):
            problems.append(f"the answer does not give the date {wanted.isoformat()}")
    shown = given if len(given) <= 200 else given[:197] + "..."
    if problems:
        return Outcome(False, "; ".join(problems) + f" (answer: {shown!r})", {"answer": given})
    return Outcome(True, f"the answer matches ({shown!r})", {"answer": given})


# ---------------------------------------------------------------------------------------- judge
def judge(check: JudgeCheck, ctx: GradeContext) -> Outcome:
    if ctx.judge is None:
        return Outcome(None, "no judge is configured, so this criterion was not judged", verdict="unjudged")
    criterion = ctx.rubrics[check.rubric].render() if check.rubric is not None else str(check.prompt)
    artifacts = collect(ctx, check.evidence, source=False)
    sources = collect(ctx, check.source, source=True)
    try:
        verdict = ctx.judge.evaluate(criterion, artifacts, sources, instruction=ctx.instruction,
                                     penalty=(check.points or 0) < 0)
    except Exception as exc:  # whatever a judge does, grading goes on and says so
        return Outcome(None, f"the judge failed: {type(exc).__name__}: {exc}", verdict="error")
    evidence = {"artifacts": [b.label for b in artifacts], "sources": [b.label for b in sources],
                "cached": verdict.cached}
    if verdict.status == "error":
        return Outcome(None, f"the judge failed: {verdict.reason}", evidence, verdict="error")
    return Outcome(verdict.status == "pass", f"judge: {verdict.reason}", evidence)


def facts(check: FactsCheck, ctx: GradeContext) -> Outcome:
    holds, reason, evidence = facts_kind.facts(check, ctx)
    return Outcome(holds, reason, evidence, verdict="verdict" if holds is not None else "error")


def mail_private(check: MailPrivateCheck, ctx: GradeContext) -> Outcome:
    holds, reason, evidence = facts_kind.mail_private(check, ctx)
    return Outcome(holds, reason, evidence, verdict="verdict" if holds is not None else "error")


CHECKS: dict[str, Callable[[Any, GradeContext], Outcome]] = {
    "mail_sent": mail_sent,
    "mail_recipients_outside": mail_recipients_outside,
    "record": record,
    "no_record": no_record,
    "changed": changed,
    "allowed_changes": allowed_changes,
    "sheet_cells": sheet_cells,
    "doc_contains": doc_contains,
    "answer": answer,
    "judge": judge,
    "facts": facts,
    "mail_private": mail_private,
}
