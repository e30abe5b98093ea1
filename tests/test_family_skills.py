"""Every family says what it tests, in the shared skills vocabulary, and typed checks render as YAML does."""

from __future__ import annotations

from officesim.grading.record_checks import ChangedCheck
from officesim.taskgen import FAMILIES
from officesim.taskgen.base import check_dict
from officesim.taskgen.skills import SKILLS, unknown_skills


def test_every_family_names_known_skills() -> None:
    for family in FAMILIES.values():
        assert family.skills, f"{family.name} declares no skills (Family.skills)"
        assert not unknown_skills(family.skills), f"{family.name}: unknown skills {unknown_skills(family.skills)}"


def test_the_library_tests_many_distinct_skills() -> None:
    used = {skill for family in FAMILIES.values() for skill in family.skills}
    assert len(used) >= 14, sorted(set(SKILLS) - used)


def test_a_check_model_renders_as_the_mapping_grader_yaml_holds() -> None:
    model = ChangedCheck(id="shared", check="changed", points=1, table="drive_permission", op="insert")
    assert check_dict(model) == {"id": "shared", "check": "changed", "points": 1,
                                 "table": "drive_permission", "op": "insert"}
    assert check_dict({"id": "x", "check": "changed"}) == {"id": "x", "check": "changed"}
