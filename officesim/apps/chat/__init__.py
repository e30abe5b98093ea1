"""Slack-style chat: channels, members, messages, threads and reactions."""

from officesim.apps.descriptor import AppDescriptor, SizeKnob

APP = AppDescriptor(
    name="chat",
    package=__name__,
    id_prefixes={"chat_channel": "ch", "chat_member": "mem", "chat_message": "cm", "chat_reaction": "rx"},
    after=("directory", "crm", "drive"),
    size={
        "channels": SizeKnob(12, "Chat channels besides the per-department ones.", ge=2),
        "messages_per_channel": SizeKnob(25, "Chat messages per channel.", ge=0, le=10_000),
        "dms": SizeKnob(30, "Direct-message conversations.", ge=0),
    },
    reads=(
        "chat_list_channels",
        "chat_list_messages",
        "chat_get_thread",
        "chat_get_message",
        "chat_search_messages",
        "chat_list_members",
    ),
    distractor_writes=("chat_post_message", "chat_send_dm"),
)
