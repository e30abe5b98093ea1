"""Chat tables (Slack-like): channels (public, private, DM), members, messages, reactions."""

from __future__ import annotations

import re

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


def dm_channel_name(person_a: str, person_b: str) -> str:
    """The stored name of the DM between two people: ``dm-p_3-p_12`` (ids in numeric order).

    Generation and ``chat_send_dm`` both name DMs this way, so the name is stable whoever starts
    the conversation.
    """

    def key(person_id: str) -> tuple[int, str]:
        digits = re.sub(r"\D", "", person_id)
        return (int(digits) if digits else 0, person_id)

    first, second = sorted((person_a, person_b), key=key)
    return f"dm-{first}-{second}"


class Channel(SQLModel, table=True):
    """A public or private channel, or a direct-message conversation (kind 'dm')."""

    __tablename__ = "chat_channel"

    id: str = Field(primary_key=True)  # ch_4
    name: str = Field(index=True)  # 'finance', 'q3-close'; DMs: 'dm-p_3-p_9'
    kind: str  # public | private | dm
    topic: str = ""
    created_by: str
    created_at: str
    archived: bool = False


class Member(SQLModel, table=True):
    """A person's membership of a channel."""

    __tablename__ = "chat_member"
    # Membership checks run on every chat call: one index probe instead of a scan of #general.
    __table_args__ = (Index("ix_chat_member_channel_person", "channel_id", "person_id"),)

    id: str = Field(primary_key=True)  # mem_40
    channel_id: str = Field(index=True)
    person_id: str = Field(index=True)
    joined_at: str


class Message(SQLModel, table=True):
    """A chat message; replies carry the id of their thread's root in ``thread_id``."""

    __tablename__ = "chat_message"
    # A channel's history, newest first, without sorting the whole channel.
    __table_args__ = (Index("ix_chat_message_channel_posted", "channel_id", "posted_at"),)

    id: str = Field(primary_key=True)  # cm_300
    channel_id: str = Field(index=True)
    author_id: str = Field(index=True)
    text: str
    posted_at: str = Field(index=True)
    thread_id: str | None = Field(default=None, index=True)


class Reaction(SQLModel, table=True):
    """An emoji reaction by one person to one message."""

    __tablename__ = "chat_reaction"

    id: str = Field(primary_key=True)  # rx_2
    message_id: str = Field(index=True)
    person_id: str
    emoji: str  # name without colons: 'thumbsup'
