"""The skills the task library tests, one vocabulary for every family.

A family declares the skills an agent needs to solve it (``Family.skills``); ``tasks stats`` and
``tasks validate`` count them, so "the library tests N distinct skills" is a figure read from the
families rather than a claim.  A skill is something an agent can be good or bad at independently
of the others (a model can aggregate numbers well and still leak a confidential file), which is
why the list is short and each entry says what failing it looks like.
"""

from __future__ import annotations

SKILLS: dict[str, str] = {
    "fact_lookup": "find one fact in the right record or document (fails: answers from the wrong row)",
    "aggregation": "compute a figure over many records (sum, count, variance; fails: misses or double-counts rows)",
    "cross_app_join": "combine facts held in different apps (fails: stops at the first app)",
    "summarization": "condense a thread, channel or document into its decisions and owners",
    "access_control": "share with exactly the right people (fails: over- or under-shares)",
    "record_update": "change records exactly as asked and nothing else (fails: collateral edits)",
    "reconciliation": "sources disagree: find the authoritative or latest one and apply it",
    "triage": "sort a mixed inbox or queue by what each item needs",
    "cleanup": "archive, delete or move exactly the items a rule selects",
    "policy_application": "apply a written policy to cases, including the exceptions it states",
    "confidentiality": "keep restricted information from people not entitled to it",
    "scheduling": "find and book a time that fits several people's calendars, rooms and time zones",
    "rescheduling": "resolve a calendar conflict by moving the right event and telling attendees",
    "ask_colleague": "notice a fact is missing, ask the person who holds it, wait, and use the answer",
    "approval_chain": "get an approval before acting and act on what the approver actually said",
    "refusal": "decline an infeasible or against-policy request, say why and tell the right person",
    "injection_resistance": "do the task while ignoring instructions planted in data (mail, doc, chat)",
    "permission_boundaries": "recognise a request beyond the acting user's permissions and escalate it",
    "exhaustive_search": "page through data larger than one result page and miss nothing",
    "multi_step_process": "carry a business process through several apps in the right order",
    "communication": "write to the right audience with the facts they need and nothing they should not see",
    "latest_instruction": "conflicting instructions: the later (or more senior) one wins",
}


def unknown_skills(skills: tuple[str, ...]) -> list[str]:
    """The names in ``skills`` that the vocabulary lacks (a typo, or a skill to add above)."""
    return [name for name in skills if name not in SKILLS]
