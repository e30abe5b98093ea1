"""Mail text conventions shared by the tools and the generator: subjects, quoting, snippets.

Replies and forwards written by an agent and those in the generated history must look the same,
so that a model (and a grader reading bodies) meets one convention: ``Re:``/``Fwd:`` subjects,
``On <date>, <name> <email> wrote:`` quote headers with ``> `` lines, and a Gmail-style
forwarded-message block.
"""

from __future__ import annotations

import re

from officesim.clock import parse_ts

FORWARD_MARK = "---------- Forwarded message ----------"
_REPLY_PREFIX = re.compile(r"^\s*re\s*:", re.IGNORECASE)
_FORWARD_PREFIX = re.compile(r"^\s*(fwd?|fw)\s*:", re.IGNORECASE)


def human_time(ts: str) -> str:
    """A stored timestamp as mail clients print it in quote headers: ``Mon, Sep 14, 2026 at 09:30 UTC``."""
    return parse_ts(ts).strftime("%a, %b %d, %Y at %H:%M UTC")


def reply_subject(subject: str) -> str:
    """``Re: <subject>``, without stacking prefixes (``Re: Re: ...``)."""
    return subject if _REPLY_PREFIX.match(subject) else f"Re: {subject}"


def forward_subject(subject: str) -> str:
    """``Fwd: <subject>``, without stacking prefixes."""
    return subject if _FORWARD_PREFIX.match(subject) else f"Fwd: {subject}"


def quote(body: str, *, sender_name: str, sender: str, sent_at: str) -> str:
    """The quoted original appended under a reply (every line prefixed with ``> ``)."""
    quoted = "\n".join(f"> {line}" if line else ">" for line in body.splitlines())
    return f"On {human_time(sent_at)}, {sender_name} <{sender}> wrote:\n{quoted}"


def forward_block(
    body: str, *, sender_name: str, sender: str, sent_at: str, subject: str, to: list[str], cc: list[str]
) -> str:
    """The forwarded original under a forward's note, with its headers, as mail clients write it."""
    lines = [FORWARD_MARK, f"From: {sender_name} <{sender}>", f"Date: {human_time(sent_at)}",
             f"Subject: {subject}", f"To: {', '.join(to)}"]
    if cc:
        lines.append(f"Cc: {', '.join(cc)}")
    return "\n".join(lines) + "\n\n" + body


def join_note(note: str, tail: str) -> str:
    """A new note above a quoted or forwarded original, separated by one blank line."""
    note = note.rstrip()
    return f"{note}\n\n{tail}" if note else tail


def snippet(body: str, length: int = 160) -> str:
    """The start of the message's own text (quotes and forwarded parts cut), on one line.

    Plain string searches, not regular expressions: search results render twenty of these per call.
    """
    end = len(body)
    wrote = body.find(" wrote:\n")
    if wrote != -1:
        header = body.rfind("\nOn ", 0, wrote)
        end = header if header != -1 else end
    forwarded = body.find(FORWARD_MARK, 0, end)
    end = forwarded if forwarded != -1 else end
    text = " ".join(body[: min(end, length + 120)].split())
    if not text:  # a bare forward: show the forwarded text instead of nothing
        text = " ".join(body[: length + 120].split())
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"
