"""The company directory: departments and people, with role keys for key people."""

from officesim.apps.descriptor import AppDescriptor, SizeKnob

APP = AppDescriptor(
    name="directory",
    package=__name__,
    id_prefixes={"directory_department": "dept", "directory_person": "p"},
    after=(),
    size={
        "people": SizeKnob(100, "Employees in the directory.", ge=5, le=100_000),
        "departments": SizeKnob(8, "Departments (Finance, Sales, ...).", ge=3, le=40),
    },
    reads=(
        "directory_search_people",
        "directory_get_person",
        "directory_list_departments",
    ),
    distractor_writes=(),
)
