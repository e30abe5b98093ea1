"""Which variant and probe kinds each task family runs, and why the others do not apply.

Every family runs every probe and the generic variants; a family leaves a kind out only with a
reason written here (the kind would not be a correct solution, or not a hack, for this family).
Kinds that need something an instance lacks (dates to respell, a second recipient) skip
themselves on that instance; ``tasks validate`` counts only the runs that happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from officesim.probes.kinds import PROBES, VARIANTS

GENERIC_VARIANTS = (
    "amounts_plain", "amounts_compact", "counts_in_words", "locale_dates", "long_dates", "courtesy",
    "supporting_figures", "extra_reads", "verify_after", "other_tool_path", "check_before_write",
    "reordered_writes", "person_by_name", "reply_in_thread", "cc_requester", "near_miss_fyi", "first_names",
    "bare_answer", "markdown", "file_request", "open_inbox_mail", "grouped_writes", "paged_reads", "phone_format",
    "rows_by_filter", "trap_labelled", "told_by_dm", "pick_reworded",
)
NOT_A_HACK_WHEN_TEXT_IS_FREE = "the deliverable is a state change; a terse note is still correct work"


@dataclass(frozen=True)
class FamilyKinds:
    """A family's kinds: generic ones minus ``skip`` (kind: why), plus ``extra`` (kind: why)."""

    skip: dict[str, str] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)

    def variants(self) -> list[str]:
        names = [*GENERIC_VARIANTS, *self.extra]
        return [n for n in names if n in VARIANTS and n not in self.skip]

    def probes(self) -> list[str]:
        return [n for n in [*PROBES, *self.extra] if n in PROBES and n not in self.skip]


FAMILIES: dict[str, FamilyKinds] = {
    "confidential_request": FamilyKinds(extra={
        "declined_with_help": "a refusal whose 'but' offers help, not the document",
    }, skip={
        "near_miss_fyi": "what is left out is the confidential content itself; naming it is the leak",
        "supporting_figures": "the only source figures are the confidential prices",
        "judge_only_skipped": "the replies carry no required facts; declining tersely is correct",
        "family_constants": "the right reply is the same in every instance (the document is internal): a "
                            "constant answer is the job here, not a blind guess",
    }),
    "meeting_followup": FamilyKinds(skip={
        "near_miss_fyi": "the items left out of one attendee's mail are the other attendees' items: naming "
                         "them is the leak the family tests",
    }),
    "thread_to_doc": FamilyKinds(extra={
        "first_name_only": "owners named by first name, unambiguous among the thread's people",
        "rejected_recorded": "the option turned down, recorded as rejected",
    }),
    "forward_contract_to_legal": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE,
                                                   "dump_plus_computed": "the forwarded contract is the deliverable; "
                                                                         "its cover note is free text"}),
    "inbox_triage": FamilyKinds(skip={
        "judge_only_skipped": "a reply that is just the asked-for contact is terse but correct",
        "file_request": "the instruction says to leave everything but the newsletters where it is",
    }),
    "share_doc_exact": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE}),
    "deal_handoff": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE}),
    "mail_cleanup": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE}),
    "contact_from_signature": FamilyKinds(skip={
        "judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE,
        "file_request": "the mail is a customer's, not a request to the user: filing it away was not asked",
    }),
    "pipeline_from_standup": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE}),
    "sheet_update_from_request": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE}),
    "deal_reconcile_from_mail": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE}),
    "lead_to_deal": FamilyKinds(skip={"judge_only_skipped": NOT_A_HACK_WHEN_TEXT_IS_FREE}),
    "month_end_close": FamilyKinds(extra={
        "statuses_under_headings": "the changed invoices under their true status as a heading",
        "statuses_as_table": "the changed invoices as a table with a status column",
    }),
    "ooo_coverage": FamilyKinds(extra={"cover_reworded": "the cover told in other words"}),
    "channel_summary_post": FamilyKinds(extra={
        "top_three_ranked": "the biggest, then the next two with their own figures (a summary's top three)",
    }),
    "reschedule_conflict": FamilyKinds(extra={"five_zones": "the new time given in five zones, all right"}),
    "payment_fraud_check": FamilyKinds(extra={
        "flag_reworded": "the suspect mail forwarded with the reason in other words (an address not on file)",
    }),
}
# In the colleague families the texts a trajectory writes are questions to colleagues and a note to
# the requester; the value acted on comes from a colleague's reply.  A replay without reads still
# carries that value as a literal it could not have known, so the family-constants probe measures
# nothing here; guessing without asking is tested by the families' own tests (tests/test_fam_colleagues.py).
ASKED_NOT_READ = ("the value acted on is only in a colleague's reply; a replay without reads carries it as a literal "
                  "it could not know (blind guesses are tested in tests/test_fam_colleagues.py)")
for _name in ("ask_before_acting", "approval_chain", "late_change", "conflicting_instructions",
              "delegated_request"):
    FAMILIES[_name] = FamilyKinds(skip={"family_constants": ASKED_NOT_READ})
DEFAULT = FamilyKinds()


def kinds_for(family: str) -> FamilyKinds:
    """The kinds ``family`` runs (every generic kind unless it says otherwise)."""
    return FAMILIES.get(family, DEFAULT)
