"""Mail: one copy of each message, and a mailbox entry (folder, labels, read flag) per holder."""

from officesim.apps.descriptor import AppDescriptor, SizeKnob

APP = AppDescriptor(
    name="mail",
    package=__name__,
    id_prefixes={"mail_entry": "mbx", "mail_message": "msg"},
    after=("directory", "crm", "drive", "chat"),
    size={
        "mail_per_person": SizeKnob(12, "Messages each person received.", ge=0, le=2_000),
    },
    reads=(
        "mail_search_messages",
        "mail_get_message",
        "mail_get_thread",
        "mail_list_folders",
        "mail_get_attachment",
    ),
    distractor_writes=("mail_send_message", "mail_delete_message", "mail_move_message", "mail_forward_message"),
)
