"""Drive: folders, documents and spreadsheets, shared person by person."""

from officesim.apps.descriptor import AppDescriptor, SizeKnob

APP = AppDescriptor(
    name="drive",
    package=__name__,
    id_prefixes={"drive_file": "f", "drive_permission": "perm", "drive_row": "row", "drive_sheet": "sh"},
    after=("directory",),
    size={
        "docs": SizeKnob(60, "Drive documents (text/markdown).", ge=1),
        "sheets": SizeKnob(15, "Drive spreadsheets.", ge=1),
    },
    reads=(
        "drive_search_files",
        "drive_list_folder",
        "drive_get_file",
        "drive_get_doc",
        "drive_read_sheet",
    ),
    distractor_writes=("drive_delete_file", "drive_share_file", "drive_update_doc"),
)
