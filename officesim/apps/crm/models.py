"""CRM tables: accounts, their contacts, deals, invoices, and activities linked to any of them."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class Account(SQLModel, table=True):
    """A customer company."""

    __tablename__ = "crm_account"

    id: str = Field(primary_key=True)  # acc_3
    name: str = Field(index=True)
    domain: str  # the customer's mail domain, '<name>.test'
    industry: str
    tier: str  # strategic | enterprise | mid-market | smb
    owner_id: str = Field(index=True)  # account owner (person id)
    city: str
    country: str
    created_at: str


class Contact(SQLModel, table=True):
    """A person at a customer account."""

    __tablename__ = "crm_contact"

    id: str = Field(primary_key=True)  # con_9
    account_id: str = Field(index=True)
    name: str
    email: str = Field(index=True)
    title: str
    phone: str
    # Added for crm_create_contact / crm_update_contact: when and by whom (person id) the row last changed.
    created_at: str | None = None
    updated_at: str | None = None
    updated_by: str | None = None


class Deal(SQLModel, table=True):
    """An opportunity with an account, moving through the pipeline stages."""

    __tablename__ = "crm_deal"

    id: str = Field(primary_key=True)  # deal_14
    account_id: str = Field(index=True)
    name: str
    stage: str = Field(index=True)  # prospecting|qualification|proposal|negotiation|closed_won|closed_lost
    amount: float
    currency: str
    close_date: str  # YYYY-MM-DD
    owner_id: str = Field(index=True)
    next_step: str = ""
    created_at: str
    updated_at: str
    # Who (person id) last changed the deal, and the last stage move made by crm_move_deal.
    updated_by: str | None = None
    previous_stage: str | None = None
    stage_changed_at: str | None = None


class Invoice(SQLModel, table=True):
    """An invoice billed to an account (for collections work)."""

    __tablename__ = "crm_invoice"

    id: str = Field(primary_key=True)  # inv_5
    number: str = Field(index=True)  # 'INV-2026-0042'
    account_id: str = Field(index=True)
    deal_id: str | None = None
    amount: float
    currency: str
    issued_on: str  # YYYY-MM-DD
    due_on: str
    status: str  # open | paid | void
    paid_on: str | None = None


class Activity(SQLModel, table=True):
    """A call, meeting, email, note or task logged against an account, contact and/or deal."""

    __tablename__ = "crm_activity"

    id: str = Field(primary_key=True)  # act_20
    kind: str  # call | meeting | email | note | task
    subject: str
    body: str = ""
    at: str = Field(index=True)
    person_id: str  # who logged it
    account_id: str | None = Field(default=None, index=True)
    contact_id: str | None = Field(default=None, index=True)
    deal_id: str | None = Field(default=None, index=True)
