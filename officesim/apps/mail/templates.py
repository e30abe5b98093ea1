"""Hand-written mail templates for the generator, filled with the world's real names and numbers.

Faker's sentences are gibberish and slow in loops, so every body here is business prose with
``{placeholders}``; the generator fills them from the directory, the CRM and Drive.  Every template
of a group uses only the keys its group documents (a test formats each one).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Script:
    """One conversation: a subject, the opening message, then replies in order.

    Replies alternate between a recipient and the person they answer; a generated thread uses the
    opening and the first few replies, so every prefix must read as a finished conversation.
    """

    subject: str
    opening: str
    replies: tuple[str, ...] = ()
    personal: bool = False  # written to one person ("your expense report"), never to a group


@dataclass(frozen=True)
class Topic:
    """An internal conversation type: who starts it, what is said, how recipients file it."""

    key: str
    label: str  # the label recipients may put on it
    departments: tuple[str, ...]  # the sender's department, by preference (empty: anyone)
    scripts: tuple[Script, ...]
    keywords: tuple[str, ...] = ()  # words in Drive file names worth attaching
    sender_role: str | None = None  # a role key that usually sends it


# Keys for internal topics: first, dept, quarter, next_quarter, month, amount, amount2, amount3, percent,
# weeks, cost_line, due_date, weekday, date, city, venue, n, candidate, role_title, concern, project, risk,
# ref, vendor, system, campaign, account, cfo_first, reason, company, holiday, receipt_limit.
TOPICS: tuple[Topic, ...] = (
    Topic("budget_review", "finance", ("Finance",), (
        Script("{dept} budget review for {next_quarter}",
               "Ahead of the {next_quarter} planning cycle, could you review the {dept} budget? We are at "
               "{amount} against a plan of {amount2} ({percent}% of plan) with {weeks} weeks left in {quarter}. "
               "The biggest variance is in {cost_line}.\n\nPlease send me your adjustments by {due_date} so "
               "that {cfo_first} can sign off before the leadership meeting.",
               ("Thanks. {cost_line} is high because of {reason}. I can take about {amount3} out of "
                "discretionary spend if we push {project} into {next_quarter}.",
                "That works. I'll reflect the {amount3} saving in the forecast and flag {project} to {cfo_first}.",
                "Great, thanks. I'll hold new commitments on {cost_line} until the plan is signed off.")),
        Script("Re-forecast: {dept} spend vs plan",
               "I've pulled the {quarter} actuals for {dept}. Spend is {amount} so far, {percent}% of the "
               "{amount2} plan. {cost_line} is running ahead of forecast, mostly because of {reason}.\n\nCan we "
               "go through it on {weekday}? I need a revised forecast for {next_quarter} by {due_date}.",
               ("{weekday} works. One correction: {cost_line} should include the annual {vendor} renewal we "
                "paid in {month}. I've updated the sheet.",
                "Thanks, I see it now. With the renewal included we are still within plan for the year.")),
    ), ("budget", "expenses q3", "quarterly review", "headcount")),
    Topic("hiring", "hiring", ("People",), (
        Script("Candidate debrief - {candidate}",
               "We have {n} candidates in the final round for the {role_title} opening in {dept}. {candidate} "
               "stood out in the technical interview; the panel's concern was {concern}.\n\nCan you add your "
               "feedback to the scorecard by {due_date}? If we move quickly we can make an offer before the end "
               "of {month}.",
               ("My feedback is in: strong hire for {candidate}, with a note on {concern}.",
                "Thanks. I'll prepare the offer and loop in {cfo_first} on the compensation.",
                "Sounds good. Please keep me posted on the start date.")),
        Script("Hiring update: {role_title} ({dept})",
               "Quick update on the {role_title} search: {candidate} accepted our invitation to the onsite on "
               "{weekday}. Could you take the 45-minute slot on {concern}? The job description is in the shared "
               "hiring folder.",
               ("I can take the {weekday} slot. Do we have an approved salary band for this role yet?",
                "Yes, the band was approved last week; I'll send it to you before the interview.")),
    ), ("headcount", "onboarding checklist", "hiring"), "hr_lead"),
    Topic("offsite", "events", ("Operations", "Executive"), (
        Script("{dept} offsite in {city} - logistics",
               "We're planning the {dept} offsite in {city} on {date}. The budget is {amount3} for {n} people "
               "including travel, and I've shortlisted {venue}.\n\nPlease tell me about dietary requirements "
               "and whether you need a hotel by {due_date}.",
               ("Count me in. Vegetarian, and I'll need a hotel for one night.",
                "Noted, thanks. I'll add you to the hotel block.")),
        Script("Offsite agenda: {dept}, {date}",
               "Proposed agenda for the {dept} offsite ({date}, {city}): the morning on {quarter} results, the "
               "afternoon on {next_quarter} priorities, and a team dinner at {venue}. Any topics to add?",
               ("Could we add a session on {project}? Half an hour would be enough.",
                "Good idea, I've added it after lunch.",
                "Thanks! I'll prepare a few slides.")),
    ), ("offsite", "agenda"), "ops_manager"),
    Topic("it_notice", "it", ("IT",), (
        Script("Action required: password rotation by {due_date}",
               "As part of our security policy, please rotate your SSO password and re-enrol your MFA device by "
               "{due_date}. Accounts that have not been updated will be locked the following morning.\n\nReply "
               "here if you run into problems.",
               ("Done, thanks for the reminder.",)),
        Script("Scheduled maintenance: {system} on {date}",
               "{system} will be unavailable on {date} from 18:00 to 22:00 UTC while we apply updates. Save your "
               "work before then; nothing else is needed from you.",
               ("Does this affect the integrations that run overnight?",
                "No, they start after midnight and will run as usual.")),
        Script("Laptop refresh for {dept}",
               "Your laptop is due for replacement in the {dept} refresh. Please book a 30-minute hand-over slot "
               "before {due_date} and back up anything stored locally.",
               ("I'm travelling that week. Can I do the hand-over on {weekday} instead?",
                "Sure, {weekday} is fine. I've booked you in for 10:00."), personal=True),
    ), ("information security", "security"), "it_admin"),
    Topic("project_update", "projects", ("Engineering", "Product", "Data"), (
        Script("{project} status update",
               "Quick status on {project}: we're {percent}% through the current milestone with {n} issues open. "
               "The main risk is {risk}. Next checkpoint is {date}.\n\nCan you confirm you still have capacity "
               "for the review on {weekday}?",
               ("I have capacity for the review. Can you share the test plan beforehand?",
                "Will do, I'll send it by end of day.",
                "Thanks, got it.")),
        Script("{project}: risks and next milestone",
               "I'd like 20 minutes on {weekday} to go through {project}. We slipped a week on {risk}, and I want "
               "to agree whether we cut scope or move the {date} date.",
               ("Let's cut scope rather than move the date; {date} matters for {account}.",
                "Agreed. I'll send the reduced scope for sign-off tomorrow.")),
    ), ("brief", "tracker", "weekly sync")),
    Topic("expenses", "finance", ("Finance",), (
        Script("Expense report {ref} is missing receipts",
               "Your expense report {ref} for {amount3} is missing receipts for {n} items (mostly the {city} "
               "trip). Please upload them by {due_date}, otherwise the reimbursement moves to the next payroll "
               "run.",
               ("Uploaded the missing receipts just now, sorry for the delay.",
                "Thanks, the report is approved now."), personal=True),
        Script("Reminder: {month} expenses due {due_date}",
               "A reminder that {month} expense reports are due by {due_date}. Anything submitted later will be "
               "paid in the following cycle. Remember to attach itemised receipts for meals over $75.",
               ("One of my hotel receipts is lost. Is a bank statement enough?",
                "Yes, a bank statement with a short note is fine this time.")),
    ), ("expense",), "ap_specialist"),
    Topic("month_end", "finance", ("Finance",), (
        Script("{month} close checklist",
               "The {month} close starts on {weekday}. Please send me open purchase orders and any accruals over "
               "{amount3} by {due_date}. The {vendor} invoice is still unapproved; can you chase it?",
               ("The {vendor} invoice is approved now. Two accruals from my side are in the tracker.",
                "Perfect, thanks. That was the last open item.")),
        Script("Open items before the {month} close",
               "Status of the {month} close: revenue is booked, {n} reconciliations are still open, and the "
               "{vendor} accrual ({amount3}) needs a supporting document. Target sign-off is {due_date}.",
               ("I'll finish the bank reconciliations by tomorrow noon.",
                "Thanks. I'll chase the {vendor} document in the meantime.")),
    ), ("invoice tracker", "budget", "quarterly review"), "controller"),
    Topic("travel", "travel", ("Operations",), (
        Script("Travel booked: {city}, {date}",
               "Your trip to {city} on {date} is booked: flights on the morning of departure and two nights at a "
               "hotel near the {account} office. The total is {amount3}, within policy.\n\nLet me know by "
               "{due_date} if anything needs to change; after that the fares are non-refundable.",
               ("Perfect, thank you. Could you add a late checkout on the last day?",
                "Done, late checkout is confirmed."), personal=True),
        Script("Travel request for {city}",
               "I received your travel request for {city} ({date}). The quoted fare is above the policy cap, so "
               "I need your manager's approval before booking. Can you forward it to them?",
               ("My manager approved it this morning; please go ahead.",
                "Thanks, it's booked. The itinerary will follow separately."), personal=True),
    ), ("travel",), "travel_coordinator"),
    Topic("campaign", "marketing", ("Marketing",), (
        Script("{campaign} launch plan",
               "We're launching {campaign} on {date}. The budget is {amount3}, aimed at {percent}% more "
               "qualified leads than last quarter. I need a customer quote and a product demo by {due_date}; can "
               "your team help?",
               ("Happy to help. {account} might give us a quote; I'll ask them this week.",
                "That would be ideal, thank you!")),
        Script("{campaign} results so far",
               "{campaign} has been live for {weeks} weeks: {n}00 sign-ups so far and a cost per lead of about "
               "$85. I'd like to shift some spend from paid social to the webinar series. Thoughts before "
               "{weekday}?",
               ("Agreed on moving the spend. Let's review the numbers again at the end of {month}.",)),
    ), ("marketing",), "marketing_lead"),
    Topic("contract_review", "legal", ("Legal",), (
        Script("Contract review: {vendor} MSA",
               "Legal has reviewed the {vendor} agreement. Two points need a business decision: the liability "
               "cap (they propose {amount2}) and the auto-renewal clause. Can you confirm by {due_date} how you "
               "want to proceed?",
               ("We can accept the liability cap; please push back on auto-renewal.",
                "Understood. I'll send our position to their counsel today.")),
        Script("Redlines on the {account} order form",
               "Our redlines for the {account} order form are ready. The main change is payment terms (net 30 "
               "instead of net 60). Please review before it goes back to the customer on {weekday}.",
               ("Net 30 is fine from our side. Go ahead.",)),
    ), ("procurement policy", "legal"), "legal_counsel"),
    Topic("vendor", "vendors", ("Operations", "Procurement", "Finance"), (
        Script("Renewal: {vendor} contract expires {date}",
               "Our contract with {vendor} expires on {date}. Last year we paid {amount3}; their renewal quote is "
               "{percent}% higher. Should I negotiate or start looking at alternatives? I need a decision by "
               "{due_date}.",
               ("Negotiate first. If they won't move, get two other quotes.",
                "Will do. I'll report back before {due_date}.")),
        Script("PO request for {vendor}",
               "Please raise a purchase order for {vendor}: {amount3} for the {quarter} services, cost centre "
               "{dept}. The signed quote is in the shared folder.",
               ("PO raised; the number is in the procurement tracker.",
                "Thanks, I'll pass it on to {vendor}.")),
    ), ("vendor list", "procurement policy"), "ops_manager"),
    Topic("escalation", "customers", ("Customer Success", "Sales", "Support"), (
        Script("Escalation: {account} ticket {ref}",
               "{account} escalated ticket {ref} this morning: their weekly reports have failed {n} times since "
               "{date}. They are a renewal risk for {next_quarter}. Can engineering look at it today?",
               ("Engineering is on it; the root cause looks like a timeout in the export job.",
                "Thanks. I'll let {account} know we have a fix in progress.")),
        Script("At-risk: {account}",
               "Heads-up: {account} told us onboarding is taking longer than promised. Their sponsor wants a "
               "recovery plan by {due_date}. I'd like sales and support on a call on {weekday}.",
               ("I'll join the call. Let's offer them an extra training session at no cost.",
                "Good idea. I'll add it to the recovery plan and update their account plan.")),
    ), ("account plan", "onboarding checklist"), "cs_lead"),
    Topic("one_on_one", "1:1", (), (
        Script("1:1 agenda for {weekday}",
               "For our 1:1 on {weekday}: progress on {project}, your goals for {next_quarter}, and the {dept} "
               "training budget. Anything you'd like to add?",
               ("Sounds good. I'd also like to talk about the conference in {city}.",
                "Sure, let's cover that first."), personal=True),
        Script("Quick question about {project}",
               "Do you have ten minutes today? I'd like your view on {risk} before I reply to {account}.",
               ("Sure, I'm free after 3pm.",), personal=True),
    ), ("okrs",)),
    Topic("performance", "hr", ("People",), (
        Script("Performance review cycle opens {date}",
               "The {next_quarter} performance cycle opens on {date}. Self-reviews are due two weeks later, "
               "manager reviews two weeks after that. The guidelines and rating scale are unchanged from last "
               "cycle.",
               ("Thanks. Will calibration sessions happen per department again?",
                "Yes, same format as last time; invitations go out next week.")),
        Script("Reminder: self-reviews due {due_date}",
               "A reminder that self-reviews are due by {due_date}. {percent}% of {dept} has submitted so far. "
               "Managers: please nudge your teams.",
               ("Submitted mine today.",)),
    ), ("code of conduct", "pto policy", "okrs"), "hr_lead"),
)

# Sent by a department head to the department.  Keys as for TOPICS.
DEPARTMENT_UPDATES: tuple[tuple[str, str], ...] = (
    ("{dept} weekly update", "Highlights this week: {project} reached {percent}% of the milestone, we closed "
     "{n} open items, and the {quarter} numbers are on track. Next week: planning for {next_quarter}. Please "
     "update your status in the tracker by {weekday}."),
    ("{dept} team meeting moved to {weekday}", "Our team meeting moves to {weekday} this week because of the "
     "leadership offsite. Same time and room. Please bring one priority for {next_quarter}."),
    ("Welcome {candidate} to {dept}", "Please welcome {candidate}, who joins {dept} as {role_title} on "
     "{date}. {candidate} will start on {project}; please say hello and help with onboarding."),
    ("{dept} priorities for {next_quarter}", "Thanks for a strong {quarter}. For {next_quarter} our "
     "priorities are {project}, reducing {cost_line} costs by {percent}%, and hiring a {role_title}. Details at "
     "the team meeting on {weekday}."),
)

# Company-wide mail: (role of the sender, label, subject, text).  Keys as for TOPICS.
ANNOUNCEMENTS: tuple[tuple[str, str, str, str], ...] = (
    ("ceo", "news", "All-hands on {date}",
     "Our {quarter} all-hands is on {date} at 16:00 UTC. We'll cover results, the {next_quarter} plan and "
     "take questions. Please send questions in advance to the executive team."),
    ("marketing_lead", "news", "{company} newsletter - {month} edition",
     "In this edition: {n} new customers signed, the {city} office opening, our new benefits portal and a "
     "look at the product roadmap for {next_quarter}. Thanks to everyone who contributed stories."),
    ("hr_lead", "hr", "Office closure on {date} ({holiday})",
     "A reminder that all offices are closed on {date} for {holiday}. Support coverage is arranged; check "
     "the on-call schedule if you are part of the rotation."),
    ("it_admin", "it", "Security alert: phishing emails",
     "We are seeing phishing emails pretending to come from {system}. Never enter your password from a link "
     "in an email. Forward anything suspicious to IT and delete it."),
    ("cfo", "finance", "Updated travel and expense policy",
     "The travel and expense policy has been updated from {date}: economy class for flights under six hours, "
     "a hotel cap per city, and receipts required for every expense over {receipt_limit}. Reports must be submitted "
     "within 30 days."),
    ("hr_lead", "hr", "Open enrolment for benefits closes {date}",
     "Benefits open enrolment is running until {date}. If you want to change your health plan or pension "
     "contribution, do it in the portal before then; otherwise your current choices roll over."),
)

# Customer mail about one deal, by stage: the owner opens, then contact and owner alternate.
# Keys: contact_first, owner_first, account, deal, product, amount, close_date, next_step, company, weekday,
# competitor, percent.
DEAL_SCRIPTS: dict[str, tuple[Script, ...]] = {
    "prospecting": (
        Script("{company} x {account}",
               "Thanks for taking my call earlier. As promised, a short summary of how {company} helps teams like "
               "yours with the {product}. Would you have 30 minutes on {weekday} for a discovery call?",
               ("Thanks, {owner_first}. {weekday} afternoon works; please send an invite.",
                "Invite sent for {weekday} at 15:00. Next step on my side: {next_step}.",
                "Received, see you then.")),
        Script("Following up: {product}",
               "I'm following up on the note I sent last week about the {product}. Would a short call on "
               "{weekday} be useful?",
               ("Interesting timing. We are also talking to {competitor}, so a comparison would help.",
                "Happy to prepare one. Next step on my side: {next_step}.")),
    ),
    "qualification": (
        Script("Next steps on the {product}",
               "Thanks for the time on the call. To scope this properly: is the budget for the {product} "
               "confirmed, and who else should join the technical demo? We're working towards a decision by "
               "{close_date}.",
               ("Budget is approved in principle. Our head of IT will join the demo.",
                "Great. Next step on my side: {next_step}. I'll confirm the demo slot by {weekday}.",
                "Thanks, {owner_first}. Looking forward to it.")),
    ),
    "proposal": (
        Script("Proposal: {deal}",
               "As discussed, here is a summary of our proposal for the {product}: {amount} for the first year, "
               "including onboarding and premium support, valid until {close_date}. Happy to walk your team "
               "through it on {weekday}.",
               ("Thanks for the proposal. Is there flexibility on price if we commit for two years?",
                "There is: on a two-year term I can offer {percent}% off the first year. Next step on my side: "
                "{next_step}.",
                "That helps. We'll review internally and come back by the end of next week.")),
    ),
    "negotiation": (
        Script("{deal}: pricing and terms",
               "Following our conversation, I can offer a {percent}% discount on a two-year term, which brings "
               "the {product} to {amount}. The last open point is: {next_step}. Can we aim to sign by "
               "{close_date}?",
               ("Our legal team accepted most redlines. Can you confirm the {percent}% discount applies to year "
                "two as well?",
                "Confirmed: {percent}% in both years. I'll send the final order form with the {amount} total.",
                "Thanks. Procurement will route it for signature this week.")),
    ),
    "closed_won": (
        Script("Welcome aboard - {account} kickoff",
               "Thank you for choosing {company}! The order for the {product} ({amount}) is countersigned. Our "
               "onboarding team will reach out to schedule the kickoff; could you share who should attend?",
               ("Great to be on board! I'll send the names of the kickoff attendees tomorrow.",
                "Perfect. Our onboarding lead will send a calendar invite once we have them.",
                "Here they are: our head of IT, two analysts and me. Please send the invoice to our accounts "
                "payable team.")),
    ),
    "closed_lost": (
        Script("Following up on the {product}",
               "I understand you decided to go with {competitor} for now. Thank you for the open conversations. "
               "If it would help, I'd value 15 minutes of feedback on where our proposal ({amount}) fell short.",
               ("Happy to give feedback: it came down to price and an existing integration.",
                "Thank you, that is useful. Let's stay in touch for next year.")),
    ),
}

# Collections mail: (subject, text, replies).  Keys: number, amount, due_date, issued_date, account,
# contact_first, sender_first, days, pay_date, company.
INVOICE_SCRIPTS: dict[str, Script] = {
    "overdue": Script(
        "Overdue: invoice {number}",
        "Our records show that invoice {number} for {amount}, issued on {issued_date}, was due on {due_date} "
        "and is now {days} days overdue. Could you let us know when payment is scheduled? If it has already "
        "been sent, please share the remittance details.",
        ("Apologies, the payment was held up in our approval process. It is scheduled for {pay_date}.",)),
    "open": Script(
        "Invoice {number} from {company}",
        "Please find the details of invoice {number} for {amount}, issued on {issued_date} and due on "
        "{due_date}. Let us know if your accounts payable team needs a purchase order number on it.",
        ("Thanks, we have it. It will be paid within terms.",)),
    "paid": Script(
        "Payment received: invoice {number}",
        "Thank you, we received your payment of {amount} for invoice {number}. Your account is up to date.",
        ("Thanks for confirming.",)),
}

# Everyday filler lines, added to some bodies so mail does not all read the same.
FILLERS: tuple[str, ...] = (
    "Let me know if anything is unclear.", "Happy to jump on a call if that's easier.",
    "I've also added it to the shared tracker.", "Shout if I've missed anything.",
    "This came up in the leadership meeting as well.", "Questions welcome, as always.",
)
COST_LINES = ("contractors", "software licences", "travel", "cloud hosting", "events", "recruiting fees",
              "training", "office costs", "consulting")
REASONS = ("the mid-year price increase", "two unplanned hires", "the customer conference",
           "a one-off migration project", "currency movements", "annual renewals landing early")
CONCERNS = ("stakeholder management", "system design", "depth in SQL", "the notice period",
            "leadership experience", "salary expectations")
RISKS = ("the data migration", "a dependency on the billing API", "test coverage", "vendor delivery dates",
         "the security review", "performance under load")
PROJECTS = ("Project Atlas", "the billing migration", "the customer portal", "Data Warehouse 2.0",
            "the SSO rollout", "the pricing page redesign", "Project Northstar", "the mobile app beta")
SYSTEMS = ("the VPN", "Okta", "the HR portal", "Jira", "the expense tool", "the CRM")
CAMPAIGNS = ("the autumn launch", "the Analytics Summit", "the partner webinar series", "the product-led trial")
VENUES = ("the Harbour Hotel", "Greenhouse Studios", "the Old Mill conference centre", "Lakeside Lodge")
HOLIDAYS = ("Thanksgiving", "the company wellbeing day", "Labor Day", "the winter break")
GREETINGS = ("Hi {name},", "Hello {name},", "Hi {name},", "{name},")  # to one person
GROUP_GREETINGS = ("Hi all,", "Hi team,", "Hello everyone,", "Hi everyone,")
SIGNOFFS = ("Best,", "Thanks,", "Cheers,", "Kind regards,", "Best regards,")
LABEL_FOLDERS = {"customers": "Customers", "finance": "Finance", "projects": "Projects", "vendors": "Vendors"}
