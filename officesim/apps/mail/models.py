"""Mail tables.

A message is stored once (``mail_message``); every mailbox that holds it has its own entry
(``mail_entry``) with folder, labels and read flag, as in a real mail server.  Addresses are
stored as emails so that external senders (customers) need no directory row.  JSON lists are
stored as text.
"""

from __future__ import annotations

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class Message(SQLModel, table=True):
    """One sent message or one draft."""

    __tablename__ = "mail_message"

    id: str = Field(primary_key=True)  # msg_12
    thread_id: str = Field(index=True)  # thr_4: messages of one conversation
    status: str = "sent"  # sent | draft
    sender: str = Field(index=True)  # email
    sender_name: str
    to: str = "[]"  # JSON list of emails
    cc: str = "[]"
    bcc: str = "[]"  # only in the sender's copy of the truth; hidden from other recipients
    subject: str
    body: str
    sent_at: str = Field(index=True)  # ISO UTC
    in_reply_to: str | None = None  # message id
    attachments: str = "[]"  # JSON list of drive file ids
    # JSON list of {file_id, name, kind, content}: each attachment's content as it was when the
    # message was written (a doc's text, a sheet as CSV), which is what recipients read.
    attachment_copies: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})


class Entry(SQLModel, table=True):
    """A message in one person's mailbox: folder, labels, read flag."""

    __tablename__ = "mail_entry"
    # Covering index for one person's mailbox: find an entry by message, filter by folder and read flag.
    __table_args__ = (Index("ix_mail_entry_owner_message", "owner_id", "message_id", "folder", "is_read"),)

    id: str = Field(primary_key=True)  # mbx_88
    owner_id: str = Field(index=True)  # person id
    message_id: str = Field(index=True)
    folder: str = "inbox"  # inbox | sent | drafts | archive | trash
    labels: str = "[]"  # JSON list
    is_read: bool = False
