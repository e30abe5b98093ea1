"""The CRM: customer accounts, contacts, deals, logged activities and invoices."""

from officesim.apps.descriptor import AppDescriptor, SizeKnob

APP = AppDescriptor(
    name="crm",
    package=__name__,
    id_prefixes={"crm_account": "acc", "crm_activity": "act", "crm_contact": "con", "crm_deal": "deal",
                 "crm_invoice": "inv"},
    after=("directory",),
    size={
        "accounts": SizeKnob(40, "Customer accounts in the CRM.", ge=2),
        "contacts_per_account": SizeKnob(3, "External contacts per account.", ge=1, le=50),
        "deals": SizeKnob(80, "Deals in the CRM pipeline.", ge=1),
        "activities_per_deal": SizeKnob(2, "Logged calls/meetings/notes per deal.", ge=0, le=50),
    },
    reads=(
        "crm_search_accounts",
        "crm_get_account",
        "crm_search_contacts",
        "crm_get_contact",
        "crm_search_deals",
        "crm_get_deal",
        "crm_list_activities",
        "crm_get_activity",
        "crm_list_pipeline",
        "crm_search_invoices",
        "crm_get_invoice",
    ),
    distractor_writes=("crm_update_deal", "crm_move_deal", "crm_update_contact"),
)
