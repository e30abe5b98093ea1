"""Revision mode: after a failed ``submit`` the agent hears what is still wrong and may go on.

Multi-turn environments for RL feed back which hidden checks failed so the model can revise.  The
feedback must help without giving the answer away, so it never quotes a check's id, description,
reason or evidence (generated graders write expected values there): each failed check becomes
one public sentence chosen by its kind and role alone, and repeated sentences are said once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from officesim.grading.scoring import CheckResult, Grade

MAX_REVISIONS = 10

# What a failed check of each kind tells the agent.  Penalties that applied say what was done wrong.
_REQUIRED = {
    "mail_sent": "An email the task asks for was not sent as asked (check the recipients, subject, content "
                 "and attachments).",
    "mail_recipients_outside": "Mail went to people the task did not ask you to write to.",
    "mail_private": "A recipient was sent information that belongs to someone else.",
    "record": "A record is not in the state the task asks for.",
    "changed": "A change the task asks for has not been made, or not as asked.",
    "no_record": "A record exists that should not.",
    "allowed_changes": "Something was changed that the task did not ask you to change.",
    "unchanged": "Something was changed that the task did not ask you to change.",
    "sheet_cells": "A spreadsheet does not hold the values the task asks for.",
    "doc_contains": "A document does not contain what the task asks for.",
    "answer": "Your final answer does not state what was asked, or states something that is not right.",
    "facts": "What you wrote does not state every fact asked for with what it belongs to, or states "
             "something that is not supported by the sources.",
    "judge": "The work does not yet meet one of the quality criteria of the task.",
}
_GENERIC = "One of the task's requirements does not hold yet."
_PENALTY = "Something you did counts against the result: undo what the task did not ask for."


def failed_checks(grade: Grade) -> list[CheckResult]:
    """Gates and positive criteria that do not hold, and penalties that apply."""
    failed = [g for g in grade.gates if g.status != "pass"]
    for criterion in grade.criteria:
        penalty = (criterion.points or 0) < 0
        if (penalty and criterion.holds) or (not penalty and criterion.status != "pass"):
            failed.append(criterion)
    return failed


def feedback(grade: Grade) -> list[str]:
    """The public sentences for what is still wrong, in the grader's order, each once."""
    lines: list[str] = []
    for result in failed_checks(grade):
        text = _PENALTY if (result.points or 0) < 0 else _REQUIRED.get(result.check, _GENERIC)
        if text not in lines:
            lines.append(text)
    return lines


def revision_options(options: dict[str, Any]) -> tuple[int, float]:
    """(revisions, discount) from ``reset`` options, checked."""
    revisions = options.get("revisions", 0)
    discount = options.get("revision_discount", 1.0)
    if isinstance(revisions, bool) or not isinstance(revisions, int) or not 0 <= revisions <= MAX_REVISIONS:
        raise ValueError(f"options['revisions'] must be a whole number from 0 to {MAX_REVISIONS}, not {revisions!r}")
    if isinstance(discount, bool) or not isinstance(discount, int | float) or not 0 < discount <= 1:
        raise ValueError(f"options['revision_discount'] must be in (0, 1], not {discount!r}")
    return revisions, float(discount)
