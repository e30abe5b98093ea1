"""How colleagues ask for the audit families' jobs, per structure, and how their traps read.

Kept apart from the generators in ``fam_audit.py`` so each module stays small: these are the
instruction texts (what a structure does not name stays unsaid) and the declared trap lines.
"""

from __future__ import annotations

from typing import Any

from officesim.taskgen.policy import POLICY_NAME


def expense_texts(variant: str, sheet: str, boss: str, limit: str) -> list[str]:
    """The ways a colleague asks for this structure's audit (what it does not name stays unsaid)."""
    caps = (f"hotel caps per night, meal allowances per day, receipts above {limit}")
    base = [
        f"Please audit the claims in '{sheet}' against our {POLICY_NAME} ({caps}) and mail {boss} the claims that "
        "break it: claim ID, the rule broken and, for caps, how much it is over. Don't list the compliant ones.",
        f"{boss} wants the policy exceptions in '{sheet}'. Check every claim against the {POLICY_NAME} and send "
        f"{boss} a mail with each exception's claim ID, which rule it breaks and by how much (where there's a cap). "
        "Only the exceptions.",
        f"Month-end expense check: go through '{sheet}' claim by claim with the {POLICY_NAME} next to it and tell "
        f"{boss} by mail which claims we shouldn't pay as submitted (ID, rule, amount over the cap where there is "
        "one). Leave the clean ones out.",
    ]
    extra = {
        "policy-caps": [],
        "duplicate-claims": [
            f"Please audit September's expense claims for {boss}: the main sheet is '{sheet}' and a few came in "
            f"late on their own sheet. Check them against the {POLICY_NAME} and make sure nothing gets paid twice; "
            "mail the exceptions (claim ID, what's wrong and, for caps, how much over) and nothing else.",
            f"{boss} needs the exceptions in this month's claims ('{sheet}' plus the late submissions): policy "
            "breaks and anything claimed more than once. One mail with the claim IDs, the reason, and the overrun "
            "for cap breaks.",
            f"Before we pay September's claims, could you check '{sheet}' and the late submissions that came in "
            f"after it against the {POLICY_NAME}, and catch any expense submitted twice? Mail {boss} just the "
            "problem claims: ID, the issue and, for a cap, the overrun.",
        ],
        "own-report-approval": [
            f"Please audit '{sheet}' for {boss}: the {POLICY_NAME}'s caps and receipt rule, and the approvals "
            "(nobody's claim may be approved by someone who reports to them). Mail the exceptions with claim ID, the "
            "rule and, for caps, the overrun; only the exceptions.",
            f"Can you check the approvals as well as the policy limits in '{sheet}'? A claim approved by the "
            f"claimant's own report doesn't count as approved. Send {boss} the claims that fail either test (ID, "
            "why, overrun where a cap applies).",
            f"{boss} asked for the month's expense exceptions from '{sheet}'. Besides the {POLICY_NAME} (caps, "
            "receipts), a claim only counts as approved if the approver doesn't report to the claimant; check the "
            "org chart. Mail the exceptions (ID, rule, overrun for caps).",
        ],
        "mail-exception": [
            f"Please audit '{sheet}' against the {POLICY_NAME} and mail {boss} the real exceptions (claim ID, rule "
            "broken, amount over the cap). Anything finance already signed off doesn't need flagging.",
            f"{boss} wants this month's policy exceptions from '{sheet}': ID, rule and overrun for each. Check my "
            "mail for anything that was agreed in advance before you list it.",
        ],
        "leaver-claims": [
            f"Please audit '{sheet}' for {boss}: the {POLICY_NAME} rules and anything else we shouldn't reimburse "
            "(HR tells us about leavers by mail). Mail the exceptions with claim ID, reason and, for caps, the "
            "overrun.",
            f"Check every claim in '{sheet}': policy caps, receipts, and whether the person still worked here on "
            f"the claim date. {boss} wants the list of exceptions by mail (ID, reason, amount over where a cap "
            "applies), nothing else.",
            f"Expense audit for {boss}, please: '{sheet}' against the {POLICY_NAME}, and nothing reimbursed for "
            "anyone after their last day with us (check HR's mails). Send the exceptions only, with claim ID, "
            "reason and the overrun where a cap applies.",
        ],
    }[variant]
    return base if variant == "policy-caps" else extra + base if variant == "mail-exception" else extra


def renewal_traps(by_role: dict[str, list[dict[str, Any]]], region: str | None) -> list[str]:
    """The planted near misses, one line each, as a reviewer reads them."""
    lines = {"late": "{}'s renewal closes just after the window",
             "paid": "{}'s invoice is already paid",
             "notdue": "{}'s invoice is open but not yet due",
             "churned": "{} has an overdue invoice but churned: its renewal is closed lost",
             "signed": "{}'s renewal was signed per its owner's mail, though the CRM still shows it open",
             "away": "{} qualifies but is outside " + (region or "the region")}
    return [lines[role].format(a["name"]) for role, group in by_role.items() if role in lines for a in group]


def renewal_texts(variant: str, name: str, first: str, window: str, region: str | None) -> list[str]:
    """How a colleague asks for this structure's digest (the hard book leaves its traps unsaid)."""
    if variant == "hard-book":
        return [
            f"{first} wants the renewal-risk list before the forecast call: every customer that owes us money past "
            f"its due date and has a renewal coming up {window}. Mail {first} each one with the overdue total and "
            "the renewal value.",
            f"Could you send {name} our at-risk renewals? That's any account with an overdue invoice whose renewal "
            f"is due {window}. Overdue total and renewal amount per account, please.",
            f"Please go through the renewals {window} and mail {first} the accounts that are also behind on "
            "payments, with what they owe and what the renewal is worth.",
        ]
    where = f" in {region}" if region else ""
    texts = [
        f"Please send {name} a list of the customers{where} that have an overdue invoice and also an open renewal "
        f"deal closing {window}. For each one give the total overdue amount and the renewal's value.",
        f"{first} wants to know which accounts{where} are at risk: an overdue invoice plus an open renewal closing "
        f"{window}. Mail {first} the list with the overdue total and the renewal amount for each.",
        f"Renewal-risk digest for {first}, please: the accounts{where} behind on an invoice whose renewal is still "
        f"open and closes {window}, each with the overdue total and the renewal value.",
    ]
    if variant == "one-region":
        texts.append(f"{first} looks after {region}. Could you mail {first} the {region} accounts that have an "
                     f"overdue invoice and an open renewal closing {window}, with the overdue total and renewal "
                     f"value for each? Only {region}, please.")
    if variant == "signed-in-mail":
        texts.append(f"Please mail {first} the accounts still at risk at renewal: overdue invoice, renewal closing "
                     f"{window} and not yet signed. Overdue total and renewal value for each.")
    return texts
