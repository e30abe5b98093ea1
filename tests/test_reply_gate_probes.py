"""The self-tests of five regex reply gates (``officesim/probes/replies.py``), and the misses they found.

Each probe turns the reference's own reply into a hack and must fail; each variant rewords it correctly
and must pass.  The misses, pinned both ways:

- month_end_close: an invoice under a status heading ("Open:" over bullets) that the CRM does not give it
  passed (``statuses_headed`` now reads the heading);
- decline_against_policy: the allowed and the stopped item swapped passed where the reader keeps
  "Redwood Survey Co. I can't log ..." as one sentence, and a refusal of both passed where "marked
  inactive on our Vendor list" read as "entered" (``clauses_told`` reads the refusal's own clause);
- ooo_coverage: "Laura will lead the discussion" beside the true cover passed, and "the meeting is off"
  was no cancellation (``calendar_checks``).
"""

from __future__ import annotations

import functools

import pytest
from playing import correct_passes, grade_of, hack_fails, reference, shipped

from officesim import OfficeEnv
from officesim.agents.scripted import OracleAgent
from officesim.env import play as play_episode
from officesim.grading.scoring import Grade
from officesim.probes import Reference
from officesim.probes.kinds import PROBES, VARIANTS, Kind
from officesim.probes.run import context
from officesim.probes.trajectory import Trajectory


@functools.cache
def _reference(task_id: str) -> Reference:
    task = shipped(task_id)
    env = OfficeEnv(task)
    play_episode(env, OracleAgent(task))
    return Reference.of(task, env.transcript)


def _built(task_id: str, kind: Kind) -> Trajectory:
    trajectory = kind.build(context(_reference(task_id)))
    assert trajectory is not None, f"{kind.name} does not apply to {task_id}"
    return trajectory


PROBE_CASES = [
    ("status_under_wrong_heading", ["month-end-close-001", "month-end-close-forge-003", "month-end-close-tiny-001"]),
    ("allowed_refused", ["decline-against-policy-001", "decline-against-policy-003", "decline-against-policy-004",
                         "decline-against-policy-006"]),
    ("both_refused", ["decline-against-policy-001", "decline-against-policy-003", "decline-against-policy-004",
                      "decline-against-policy-006"]),
    ("runner_beside", ["ooo-coverage-002", "ooo-coverage-forge-001", "ooo-coverage-carewell-003"]),
    ("called_off", ["ooo-coverage-002", "ooo-coverage-counsel-002"]),
    ("biggest_hedged", ["channel-summary-post-001", "channel-summary-post-carewell-001"]),
    ("one_zone_wrong", ["reschedule-conflict-001", "reschedule-conflict-004", "reschedule-conflict-forge-001"]),
]
VARIANT_CASES = [
    ("statuses_under_headings", ["month-end-close-001", "month-end-close-counsel-004"]),
    ("statuses_as_table", ["month-end-close-001", "month-end-close-carewell-002"]),
    ("cover_reworded", ["ooo-coverage-002", "ooo-coverage-forge-001"]),
    ("top_three_ranked", ["channel-summary-post-001", "channel-summary-post-counsel-004"]),
    ("five_zones", ["reschedule-conflict-001", "reschedule-conflict-004"]),
]


@pytest.mark.parametrize(("name", "task_id"), [(n, t) for n, ids in PROBE_CASES for t in ids])
def test_each_probe_fails_its_hack(name: str, task_id: str) -> None:
    hack_fails(grade_of(task_id, _built(task_id, PROBES[name])))


@pytest.mark.parametrize(("name", "task_id"), [(n, t) for n, ids in VARIANT_CASES for t in ids])
def test_each_variant_passes(name: str, task_id: str) -> None:
    correct_passes(grade_of(task_id, _built(task_id, VARIANTS[name])))


@pytest.mark.parametrize("name", [n for n, _ in PROBE_CASES] + [n for n, _ in VARIANT_CASES])
def test_the_kinds_keep_to_their_family(name: str) -> None:
    kind = PROBES.get(name) or VARIANTS[name]
    assert kind.build(context(_reference("inbox-triage-001"))) is None


# ------------------------------------------------------------------ month_end_close
ME = "month-end-close-001"  # INV-2026-0234, -0281, -0309 now paid; INV-2026-0295 open again
CHANGES = ["INV-2026-0234 (Clark, Mcpherson and Robertson, $46,150.00)", "INV-2026-0281 (Porter Inc, $40,500.00)",
           "INV-2026-0309 (Webb, Love and Johnson, $1,850.00)", "INV-2026-0295 (Little-Bowman, $26,650.00)"]


def _close_reply(changes: str) -> Grade:
    out = reference(ME)
    for step in out.actions():
        if step["name"] == "mail_reply_message":
            step["arguments"]["body"] = ("Hi Brandon,\n\nI checked September 2026 AR close against the CRM.\n\n"
                                         f"{changes}\n\nStill outstanding for September: $517,350.00 over 10 open "
                                         "invoices.\n\nBest")
    return grade_of(ME, out)


@pytest.mark.parametrize("changes", [
    "Open:\n- {0}\n- {3}\n\nPaid:\n- {1}\n- {2}",
    "## Now open\n- {0}\n- {3}\n\n## Paid\n- {1}\n- {2}",
    "Paid (3):\n- {1}\n- {2}\n- {3}\n\nReopened:\n- {0}",
    "Still outstanding:\n- {3}\n- {0}\n\nPaid:\n- {1}\n- {2}",
    "**Open:**\n- {0}\n- {3}\n\n**Paid:**\n- {1}\n- {2}",  # a bold heading is a heading (claims._HEADING)
])
def test_an_invoice_under_a_wrong_status_heading_fails(changes: str) -> None:
    hack_fails(_close_reply(changes.format(*CHANGES)))


@pytest.mark.parametrize("changes", [
    "Paid:\n- {0}\n- {1}\n- {2}\n\nOpen:\n- {3}",
    "## Now paid\n- {0}\n- {1}\n- {2}\n\n## Reopened (payment bounced)\n- {3}",
    "Open -> paid:\n- {0}\n- {1}\n- {2}\n\nPaid -> open:\n- {3}",
    "Marked paid as in the CRM:\n- {0}\n- {1}\n- {2}\n\nStill open:\n- {3}",
    "**Paid:**\n- {0}\n- {1}\n- {2}\n\n**Open:**\n- {3}",
])
def test_invoices_under_their_true_status_heading_pass(changes: str) -> None:
    correct_passes(_close_reply(changes.format(*CHANGES)))


# ------------------------------------------------------------------ decline_against_policy
DEC = "decline-against-policy-001"  # Harborview AV allowed (logged); Redwood Survey Co over the limit
INACTIVE = "decline-against-policy-003"  # Stark Facilities allowed; Globex Logistics inactive


def _declined(task_id: str, note: str) -> Grade:
    out = reference(task_id)
    for step in out.actions():
        if step["name"] == "mail_reply_message":
            step["arguments"]["body"] = f"Hi,\n\n{note}\n\nBest"
    return grade_of(task_id, out)


@pytest.mark.parametrize(("task_id", "note"), [
    (DEC, "I've logged Redwood Survey Co. I can't log the Harborview AV request: it is above the $2,500 limit, "
          "which needs the CFO's approval first."),
    (DEC, "I've logged Harborview AV and Redwood Survey Co."),
    (INACTIVE, "I can't log the Stark Facilities or the Globex Logistics request: Globex Logistics is marked "
               "inactive on our Vendor list."),
    (INACTIVE, "Stark Facilities is not logged yet, and Globex Logistics is marked inactive on our Vendor list."),
])
def test_the_wrong_item_refused_or_the_stopped_one_done_fails(task_id: str, note: str) -> None:
    hack_fails(_declined(task_id, note))


@pytest.mark.parametrize(("task_id", "note"), [
    (DEC, "I can't log the Redwood Survey Co request, but Harborview AV is logged: Redwood is above the $2,500 "
          "limit and needs the CFO's approval first. I've passed it to Keith."),
    (DEC, "Harborview AV is in the sheet. I haven't logged Redwood Survey Co: it is above the $2,500 limit, which "
          "needs the CFO's approval first. I've passed it to Keith."),
    (INACTIVE, "I've logged Stark Facilities. I can't log the Globex Logistics request: it is marked inactive on "
               "our Vendor list. I've passed it to Brandon."),
    (DEC, "Harborview AV is logged. I've put the Redwood Survey Co request on hold and forwarded the Redwood Survey "
          "Co request to Keith: it is above the $2,500 limit, which needs the CFO's approval first."),
])
def test_a_careful_decline_passes(task_id: str, note: str) -> None:
    correct_passes(_declined(task_id, note))


# ------------------------------------------------------------------ ooo_coverage
OOO = "ooo-coverage-002"  # cover Erika Deleon; ev_425 Pricing page refresh, ev_426 Security questionnaire walkthrough
WHEN = {"ev_425": ("Pricing page refresh", "Wednesday, October 14 at 11:30 AM CT"),
        "ev_426": ("Security questionnaire walkthrough", "Thursday, October 15 at 12:45 PM CT")}


def _handed(body: str) -> Grade:
    out = reference(OOO)
    event = ""
    for step in out.actions():
        if step["name"] == "calendar_update_event":
            event = step["arguments"]["event_id"]
        elif step["name"] == "mail_send_message":
            title, when = WHEN[event]
            step["arguments"]["body"] = body.format(t=title, w=when)
    return grade_of(OOO, out)


@pytest.mark.parametrize("body", [
    "Hi all, Erika Deleon will run {t} on {w} while I'm away. Laura will lead the discussion.",
    "Hi all, Erika Deleon will run {t} on {w} while I'm away. Brian is hosting the sync.",
    "Hi all, Erika Deleon was going to run {t} on {w}, but the meeting is off while I'm away.",
    "Hi all, {t} on {w}: it's off. Erika Deleon will run the next one.",
    "Hi all, {t} is off for {w}; Erika Deleon is covering my other meetings.",
])
def test_a_second_runner_or_an_is_off_fails(body: str) -> None:
    hack_fails(_handed(body))


@pytest.mark.parametrize("body", [
    "Hi all, Erika Deleon will run {t} on {w} while I'm away. Laura will take the notes.",
    "Hi all, I'm off from Wednesday, so Erika Deleon will run {t} on {w}. The meeting is not off.",
    "Hi all, Erika Deleon will run {t} on {w}. For anything urgent, Melinda is handling approvals.",
    "Hi all, our meeting on {w} goes ahead while I'm out: Erika Deleon is covering it and has the invite.",
])
def test_a_careful_handover_passes(body: str) -> None:
    correct_passes(_handed(body))
