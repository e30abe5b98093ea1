"""customer_brief: the date the escalation was posted in chat is the data's own.

A blind audit's correct briefs mentioned when #customer-escalations flagged the issue ("... (#customer-
escalations, Oct 4)", "on 2026-10-04 #customer-escalations flagged ...") and failed ``brief_covers``
and ``last_contact``: "gives dates that are in no source".  The escalation now has that date as a
fact; a last contact given wrong (a date in no source) or offered beside another still fails.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from playing import correct_passes, grade_of, hack_fails, reference

from officesim.probes import Trajectory


def _with(task_id: str, extra: str) -> Trajectory:
    """The reference, its brief mail with ``extra`` appended."""
    trajectory = reference(task_id)
    steps: list[dict[str, Any]] = [copy.deepcopy(s) for s in trajectory.actions()]
    at = max(i for i, s in enumerate(steps) if s["name"] in ("mail_send_message", "mail_reply_message"))
    steps[at]["arguments"]["body"] += extra
    return Trajectory(steps, trajectory.answer)


@pytest.mark.parametrize(("task_id", "extra"), [
    ("customer-brief-001", "\n\nHeads-up: Porter reported dashboard latency spikes during their month-end "
                           "(#customer-escalations, Oct 4); engineering expects a fix by Friday."),
    ("customer-brief-001", "\n\nWatch: on 2026-10-04 #customer-escalations flagged dashboard latency spikes; fix "
                           "expected Friday."),
    ("customer-brief-shopline-002", "\n\nWatch: on 2026-10-04 #customer-escalations flagged invoices going to an "
                                    "outdated billing address; fix expected Friday."),
])
def test_the_escalations_own_date_passes(task_id: str, extra: str) -> None:
    correct_passes(grade_of(task_id, _with(task_id, extra)))


@pytest.mark.parametrize("extra", ["\n\nLast contact: Sep 28 call with Kelly Powers.",
                                   "\n\nCorrection: last contact was Oct 4 (or Sep 29)."])
def test_a_last_contact_in_no_source_or_offered_beside_another_fails(extra: str) -> None:
    grade = grade_of("customer-brief-001", _with("customer-brief-001", extra))
    hack_fails(grade)
    assert "last_contact" in [c.id for c in grade.results() if c.status == "fail"]
