"""Check kinds about the mail the agent sent: ``mail_sent`` and ``mail_recipients_outside``.

Each kind is one class: its fields (validated on load), what it references and how it is
evaluated against an episode.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator

from officesim.apps.drive.reading import files_by_id
from officesim.grading.normalize import contains_phrase, normalize_text, text_has_number
from officesim.grading.spec_base import (
    MAX_LISTED,
    CheckBase,
    NumberSpec,
    Outcome,
    _check_refs,
    _check_regex,
    _number_shorthand_schema,
    _numbers,
    listed,
    texts_match,
)
from officesim.paging import like

if TYPE_CHECKING:
    from officesim.grading.context import GradeContext, SentMail

_REPLY_PREFIX = re.compile(r"^\s*((re|fwd?|aw|sv)\s*:\s*)+", re.IGNORECASE)


class MailSentCheck(CheckBase):
    """Holds when between ``min`` and ``max`` mails the acting user sent in the episode match everything."""

    check: Literal["mail_sent"] = Field(description="The kind of check.")
    to: list[str] | None = Field(None, description="Person refs; compared as a set (see to_mode).")
    cc: list[str] | None = Field(None, description="Person refs; compared as a set (see cc_mode).")
    bcc: list[str] | None = Field(None, description="Person refs; compared as a set (see bcc_mode).")
    to_mode: Literal["exact", "includes"] = Field("exact", description="exact: same set; includes: a superset.")
    cc_mode: Literal["exact", "includes"] = Field("exact", description="exact: same set; includes: a superset.")
    bcc_mode: Literal["exact", "includes"] = Field("exact", description="exact: same set; includes: a superset.")
    subject_contains: list[str] | None = Field(None, description="Strings that must all be in the subject.")
    body_contains: list[str] | None = Field(None, description="Strings that must all be in the body.")
    body_matches: str | None = Field(None, description="A regular expression the body must match (search).")
    body_numbers: list[NumberSpec] | None = Field(
        None, description="Numbers that must be written in the body (any format), each within tolerance.",
        json_schema_extra=_number_shorthand_schema,
    )
    attachments: list[str] | None = Field(None, description="Drive file names or ids that must be attached.")
    in_reply_to: str | None = Field(
        None, description="A message id or subject from before the episode: the mail must be in its thread."
    )
    min: int = Field(1, ge=0, description="At least this many sent mails must match.")
    max: int | None = Field(None, ge=0, description="At most this many sent mails may match.")

    _refs = field_validator("to", "cc", "bcc")(_check_refs)
    _nums = field_validator("body_numbers", mode="before")(_numbers)

    @field_validator("body_matches")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return value if value is None else _check_regex(value)

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _mail_sent(self, ctx)


class MailRecipientsOutsideCheck(CheckBase):
    """Holds when some mail sent in the episode reaches anyone not in ``allowed`` (or, with ``max_each``,
    reaches one of them more often than the job needs)."""

    check: Literal["mail_recipients_outside"] = Field(description="The kind of check.")
    allowed: list[str] = Field(default_factory=list, description="Person refs who may receive mail.")
    domain_ok: bool = Field(False, description="When true, any address in the company's domain is allowed.")
    max_each: int | None = Field(
        None, ge=1, description="At most this many sent mails may reach any one recipient (to, cc or bcc; the "
        "acting user excepted): 'one mail each' asked, a second mail to the same person is an extra write.")

    _refs = field_validator("allowed")(_check_refs)

    def evaluate(self, ctx: GradeContext) -> Outcome:
        return _mail_recipients_outside(self, ctx)


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
    return {file_id: row["name"] for file_id, row in files_by_id(ctx.final, ids).items()}


def _reply_targets(ctx: GradeContext, ref: str) -> tuple[set[str], set[str]]:
    """(message ids, thread ids) in the start world that ``ref`` (an id or a subject) names."""
    wanted = _REPLY_PREFIX.sub("", normalize_text(ref))
    ids, threads = set(), set()
    for row in ctx.start.db.execute(
        "SELECT id, thread_id, subject FROM mail_message WHERE id = ? OR subject LIKE +? ESCAPE '\\'",
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


def _mail_sent(check: MailSentCheck, ctx: GradeContext) -> Outcome:
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
                              f"{listed(misses)}", evidence)
    if check.max is not None and count > check.max:
        return Outcome(False, f"{count} sent mails match, at most {check.max} allowed: "
                              f"{', '.join(m.id for m in matched)}", evidence)
    if count == 0:
        return Outcome(True, "no sent mail matches, as required", evidence)
    return Outcome(True, f"{count} sent mail(s) match: {', '.join(m.id for m in matched)}", evidence)


def _mail_recipients_outside(check: MailRecipientsOutsideCheck, ctx: GradeContext) -> Outcome:
    allowed = ctx.emails(check.allowed) | {ctx.user_email}
    offenders: dict[str, list[str]] = {}
    for mail in ctx.sent_mail:
        for address in sorted(mail.recipients()):
            inside = check.domain_ok and address.endswith("@" + ctx.domain)
            if address not in allowed and not inside:
                offenders.setdefault(mail.id, []).append(address)
    if offenders:
        reached = [f"{mail_id} reached {', '.join(addresses)}" for mail_id, addresses in offenders.items()]
        return Outcome(True, f"mail went outside the allowed recipients: {listed(reached)}", offenders)
    if check.max_each is not None:
        counts: dict[str, list[str]] = {}
        for mail in ctx.sent_mail:
            for address in mail.recipients() - {ctx.user_email}:
                counts.setdefault(address, []).append(mail.id)
        over = {address: ids for address, ids in sorted(counts.items()) if len(ids) > check.max_each}
        if over:
            shown = [f"{address} got {len(ids)} ({', '.join(ids)})" for address, ids in over.items()]
            return Outcome(True, f"more mail than the job needs (at most {check.max_each} each): {listed(shown)}",
                           over)
    return Outcome(False, f"all {len(ctx.sent_mail)} sent mails stayed within the allowed recipients", {})
