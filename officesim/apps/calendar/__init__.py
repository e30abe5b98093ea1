"""The calendar: one per person, rooms, recurring and one-off events, invitations and free/busy."""

from officesim.apps.descriptor import AppDescriptor, SizeKnob

APP = AppDescriptor(
    name="calendar",
    package=__name__,
    id_prefixes={"calendar_attendee": "att", "calendar_calendar": "cal", "calendar_event": "ev",
                 "calendar_room": "room"},
    after=("directory", "crm"),
    size={
        "meetings_per_person": SizeKnob(2, "One-off meetings each person organises around the clock's day.",
                                        ge=0, le=20),
        "customer_calls": SizeKnob(30, "Calls scheduled on open CRM deals (at most one per deal).", ge=0,
                                   le=10_000),
    },
    reads=(
        "calendar_list_events",
        "calendar_search_events",
        "calendar_get_event",
        "calendar_get_free_busy",
        "calendar_find_free_time",
        "calendar_list_rooms",
    ),
    distractor_writes=("calendar_create_event", "calendar_cancel_event"),
)
