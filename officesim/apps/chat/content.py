"""The text library chat generation draws from: conversation templates per channel theme.

A conversation is a tuple of strings: the root message, then its replies (thread replies in
channels, consecutive messages in DMs).  A reply starting with ``!`` is written by an approver
(a manager, the CFO, the channel's owner), so approval requests get approved by someone who may.
``{slots}`` are filled from the company's own data: Drive files (``{doc}``, ``{doc_id}``), CRM
deals and accounts (``{deal}``, ``{account}``, ``{deal_money}``, ``{stage}``, ``{close}``), people
and departments.  A template whose slots the world cannot fill (no Drive files yet) is skipped.
"""

from __future__ import annotations

Conversation = tuple[str, ...]

THEMES: dict[str, tuple[Conversation, ...]] = {
    "general": (
        ("Welcome {person} to the {dept} team! 👋", "Welcome aboard!", "Great to have you, {first}!"),
        ("Reminder: the office is closed on {date}. Enjoy the long weekend!",),
        ("All-hands on {day} at 4pm. Agenda: {doc} (drive file {doc_id})", "Will it be recorded?",
         "Yes, the recording goes to Drive afterwards"),
        ("Please finish the security awareness training by {date}.", "Done ✅"),
        ("Benefits enrollment closes {date}; details in {doc} (drive file {doc_id})",),
        ("Congrats to the Sales team on closing {deal}! 🎉", "Amazing work!"),
        ("The {quarter} company update is up: {doc} (drive file {doc_id})", "Thanks for sharing"),
    ),
    "random": (
        ("Anyone up for lunch at {place}?", "I'm in", "Count me in, 12:30?"),
        ("Photos from last week's team dinner are up 📸",),
        ("Happy Friday everyone!",),
        ("Does anyone have a spare USB-C charger?", "There are a few in the supply closet"),
        ("Coffee machine on the 3rd floor is fixed ☕", "Best news all week"),
        ("Book club: anyone read anything good lately?", "Working through a sci-fi series, happy to lend it"),
    ),
    "dept": (
        ("Stand-up: yesterday I wrapped up {done}; today {todo}; blockers: {blocker}.",),
        ("Stand-up: {done} is finished, next up is {todo}. Blockers: {blocker}.",),
        ("Draft is up: {doc} (drive file {doc_id}). Comments welcome before {day}.", "Thanks, reviewing today",
         "Left a few comments, LGTM otherwise"),
        ("Does anyone know where the latest {doc} lives?", "It's in Drive: {doc} (drive file {doc_id})", "Thanks!"),
        ("Who is covering for {person} while they're out next week?", "I am, ping me for anything urgent"),
        ("Team sync moved to {day} 2pm this week.",),
        ("Can I expense {item} ({money}) for the team?", "!Approved, go ahead", "Thanks!"),
    ),
    "close": (
        ("Reminder: {quarter} accruals are due by {date}.", "On it", "Accruals for my areas are in"),
        ("Accrual for {vendor} ({money}) for {quarter}: ok to book?", "!approved", "Booked ✅"),
        ("Reconciliation for {account} is done; invoices tie out to the ledger.", "Thanks!"),
        ("Close checklist is up: {doc} (drive file {doc_id}). Please update your rows by {day}.", "Updated mine"),
        ("Flux review on {day}: please explain variances over 10%.", "Will have notes ready"),
        ("Is the {vendor} invoice ({money}) in {quarter} or next quarter?", "!{quarter}: the service was delivered "
         "this quarter", "Thanks, booking it now"),
    ),
    "deal": (
        ("Need sign-off on a {pct}% discount on {deal} ({deal_money}, {stage}).",
         "!Approved up to {pct}%", "Thanks, sending the revised order form"),
        ("The customer on {deal} asked for net-60 payment terms. OK?", "!LGTM, approved", "Legal is fine with it"),
        ("Contract redlines for {deal} are in {doc} (drive file {doc_id}).", "Reviewing today"),
        ("Update on {deal}: now in {stage}, close date {close}.", "Thanks for the update"),
        ("Can someone review the pricing for {deal} ({deal_money}) before I send it?", "!Looks good, approved"),
        ("Reminder: discounts over 20% need CFO approval here before the quote goes out.",),
    ),
    "travel": (
        ("Requesting approval for travel to {city} on {date} to meet {account}; estimated cost {money}.",
         "!approved", "Thanks! Booking now"),
        ("Travel request: {city}, {date}, {money} for the {dept} team meeting.",
         "!Approved, please use the preferred hotel", "Will do"),
        ("Policy reminder: bookings over {money} need approval here first. Details: {doc} (drive file {doc_id})",),
        ("My flight to {city} on {date} was rescheduled; the change fee is {money}. OK?", "!OK, approved"),
    ),
    "leadership": (
        ("Board deck draft: {doc} (drive file {doc_id}). Please add your section by {day}.", "Sales section is in",
         "Finance numbers updated"),
        ("Pipeline review: {deal} at {deal_money}, currently {stage}.", "What's the risk on timing?",
         "Close date is {close}; legal review is the long pole"),
        ("The {quarter} headcount plan needs sign-off by {date}.", "!Approved as proposed"),
        ("Offsite agenda is in {doc} (drive file {doc_id}).", "LGTM"),
    ),
    "launch": (
        ("Launch checklist for {product} is updated: {doc} (drive file {doc_id}).",
         "Marketing items are on track", "Docs will be ready by {day}"),
        ("Beta feedback from {account}: they love the new dashboards and want SSO sooner.",
         "Noted, adding it to the backlog"),
        ("{product} launch date confirmed for {date}. 🚀", "🎉"),
        ("Need final copy for the {product} announcement by {day}.", "Draft is up: {doc} (drive file {doc_id})"),
    ),
    "helpdesk": (
        ("My laptop won't connect to the VPN since the last update.",
         "Try restarting the client; if that fails I'll remote in", "That fixed it, thanks!"),
        ("Can I get access to {tool}?", "Done, you should have access now"),
        ("Reminder: password rotation is due by {date}.",),
        ("Is {tool} down for anyone else?", "The vendor is investigating, ETA 30 minutes", "Back up now"),
    ),
    "escalations": (
        ("{account} reports failing exports since yesterday and asks for an ETA.", "Engineering is on it",
         "Fix is deployed, confirmed with the customer"),
        ("{account} is unhappy with the onboarding pace; their renewal is at risk.",
         "Let's set up a call with their team this week"),
        ("Escalation summary for {account} is in {doc} (drive file {doc_id}).", "Thanks, reviewing"),
        ("A customer reports slow dashboards after the upgrade; has anyone seen this?",
         "Yes, Engineering has a fix going out today"),
    ),
    "vendors": (
        ("{vendor} renewal is up on {date}: {money} a year. Renew?", "!approved", "PO raised"),
        ("Comparing quotes from {vendor} and {vendor2}; notes in {doc} (drive file {doc_id}).",
         "{vendor} looks better on support"),
        ("The {vendor} invoice for {money} doesn't match the PO. Checking.", "Found it: the PO was missing shipping"),
    ),
    "hiring": (
        ("Candidate for the {title} role: strong panel, moving to offer?", "!approved", "Sending the offer today"),
        ("Hiring plan for {quarter} updated: {doc} (drive file {doc_id}).", "LGTM"),
        ("Offer accepted for the {title} role! Start date {date}. 🎉", "🎉"),
    ),
    "offsite": (
        ("Offsite venue shortlist in {city}: {doc} (drive file {doc_id}).", "Option 2 looks great", "+1 for option 2"),
        ("Please fill in dietary requirements by {date}.", "Done"),
        ("Hotel block booked in {city} for {date}. Budget so far: {money}.", "Great, thanks!"),
    ),
    "wins": (
        ("Closed {deal}: {deal_money}! 🎉", "Huge, congrats!", "Great work team"),
        ("{account} signed the renewal. 🚀", "🎉"),
        ("Another new logo this week! Details in the pipeline review.", "🎉"),
    ),
    "budget": (
        ("FY{year} budget template is up: {doc} (drive file {doc_id}). Submissions due {date}.",
         "Engineering draft is in"),
        ("Marketing is asking for {money} more for events. Thoughts?", "!Approved if we trim the print budget"),
    ),
    "oncall": (
        ("Paging alert on API latency; investigating.", "Found it: a slow query, rolling back", "Resolved"),
        ("On-call handover: nothing open, runbook in {doc} (drive file {doc_id}).", "Thanks"),
    ),
    "security": (
        ("Phishing email reported by {person}; the sender domain is blocked.", "Thanks, I'll remind all staff"),
        ("Quarterly access review due {date}: {doc} (drive file {doc_id}).", "!Approved for my team"),
    ),
    "kudos": (
        ("Shout-out to {person} for getting {done} over the line! 🙌", "👏👏", "Well deserved"),
        ("Thanks {person} for covering the {dept} queue this week!", "🙏"),
    ),
    "project": (
        ("Kickoff notes: {doc} (drive file {doc_id}).", "Thanks for writing these up"),
        ("Status: {done}; next: {todo}. Blockers: {blocker}.",),
        ("Can we push the review to {day}?", "Works for me"),
        ("Budget request for {item} ({money}).", "!approved"),
    ),
    "dm": (
        ("Hey {first}, do you have a minute to look at {doc} (drive file {doc_id})?",
         "Sure, I'll take a look this afternoon", "Thanks!"),
        ("Can you send me the latest numbers for {account}?", "Sent by mail just now", "Got it, thanks"),
        ("Are you joining the {dept} sync on {day}?", "Yes, might be 5 minutes late"),
        ("Thanks for the help with {done} yesterday!", "Anytime 🙂"),
        ("Quick question about the {quarter} report: is the final version in Drive?",
         "Yes: {doc} (drive file {doc_id})", "Perfect"),
        ("Lunch on {day}?", "Sounds good!"),
    ),
}

DONE = (
    "the vendor reconciliation", "the onboarding checklist", "the export fix", "the weekly metrics",
    "the pipeline report", "the contract redlines", "the expense audit", "the Q&A for the webinar",
    "the customer health scores", "the migration plan", "the price list update", "the SOC 2 evidence",
)
TODO = (
    "prepping the forecast", "the board metrics", "cleaning up the CRM data", "the renewal deck",
    "interviews for the open role", "the release notes", "vendor onboarding", "the travel report",
)
BLOCKERS = ("none", "none", "none", "waiting on legal", "need access to the billing dashboard",
            "waiting on numbers from Finance")
PLACES = ("the taco place", "Luigi's", "the ramen bar", "the food trucks", "the salad place")
TOOLS = ("Salesforce", "the BI dashboard", "Figma", "the finance share", "Jira", "NetSuite", "GitHub")
ITEMS = ("team lunch", "a standing desk", "conference tickets", "a training course", "a second monitor")
CITIES = ("Chicago", "London", "Berlin", "San Francisco", "Toronto", "Singapore", "Boston", "Paris",
          "Denver", "Seattle", "Dublin", "New York")
JOB_TITLES = ("Senior Accountant", "Account Executive", "Software Engineer", "Product Designer",
              "Customer Success Manager", "Data Analyst")
CODENAMES = (
    "atlas", "nova", "orion", "polaris", "zephyr", "aurora", "summit", "beacon", "comet", "falcon",
    "harbor", "juniper", "keystone", "lumen", "meridian", "nimbus", "onyx", "pioneer", "quartz", "redwood",
    "sequoia", "tundra", "vertex", "willow", "apex", "bluebird", "cascade", "delta", "ember", "fjord",
)
# Words that make a Drive file fit a channel's conversation (matched in file names).
THEME_KEYWORDS: dict[str, tuple[str, ...]] = {
    "general": ("Policy", "OKRs", "Code of Conduct", "Handbook"),
    "dept": ("weekly sync", "onboarding", "OKRs"),
    "close": ("{quarter}", "Invoice", "Budget", "expenses", "quarterly review"),
    "deal": ("Account plan", "pipeline", "Contract", "Proposal"),
    "travel": ("Travel",),
    "leadership": ("Executive", "OKRs", "Budget", "Headcount", "quarterly review"),
    "launch": ("Launch", "Roadmap"),
    "helpdesk": ("IT ", "Security"),
    "escalations": ("Account plan", "Customer Success"),
    "vendors": ("Vendor", "Procurement", "Invoice"),
    "hiring": ("Headcount", "Hiring", "People"),
    "offsite": ("Offsite", "Travel"),
    "wins": ("Account plan", "pipeline"),
    "budget": ("Budget", "expenses", "Headcount"),
    "oncall": ("Engineering", "Runbook", "Incident"),
    "security": ("Security",),
}
EMOJIS = ("thumbsup", "eyes", "white_check_mark", "heart", "pray", "raised_hands", "joy", "rocket", "100")
APPROVER_ROLES = ("cfo", "ceo", "head_of_sales", "ops_manager", "controller", "hr_lead", "legal_counsel",
                  "head_of_engineering", "it_admin", "marketing_lead")
