"""One place per check kind: every kind a grader may name validates, references and evaluates itself."""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path
from typing import Literal

import pytest

from officesim.errors import SpecError
from officesim.grading.grader_spec import Check, GraderSpec
from officesim.grading.record_checks import AllowedChangesCheck, ChangedCheck, RecordCheck
from officesim.grading.spec_base import CheckBase, Outcome
from officesim.task import load_task

KINDS: list[type[CheckBase]] = list(typing.get_args(typing.get_args(Check)[0]))


def _kind(cls: type[CheckBase]) -> str:
    return typing.get_args(cls.model_fields["check"].annotation)[0]


@pytest.mark.parametrize("cls", KINDS, ids=_kind)
def test_every_kind_evaluates_itself(cls: type[CheckBase]) -> None:
    assert not inspect.isabstract(cls), f"{cls.__name__} has no evaluate()"
    assert cls.evaluate is not CheckBase.evaluate


def test_the_published_grader_schema_names_exactly_these_kinds() -> None:
    schema = json.loads(Path("officesim/schemas/grader.schema.json").read_text())
    published = {d["properties"]["check"]["const"] for d in schema["$defs"].values()
                 if "check" in d.get("properties", {}) and "const" in d["properties"]["check"]}
    assert published == {_kind(c) for c in KINDS}


def test_a_kind_without_an_evaluator_cannot_be_built() -> None:
    class Forgotten(CheckBase):
        check: Literal["forgotten"] = "forgotten"

    with pytest.raises(TypeError, match="abstract method evaluate"):
        Forgotten(id="x")


def test_a_kind_with_its_evaluator_is_one_class() -> None:
    class Always(CheckBase):
        check: Literal["always"] = "always"

        def evaluate(self, ctx: object) -> Outcome:
            return Outcome(True, "always holds")

    assert Always(id="x").evaluate(None).holds is True  # type: ignore[arg-type]


def test_kinds_name_what_they_reference() -> None:
    record = RecordCheck(id="r", check="record", table="crm_deal", match={"name": "x"}, expect={"stage": "won"})
    assert [(t.table, t.columns) for t in record.references().tables] == [("crm_deal", ("name", "stage"))]
    changed = ChangedCheck(id="c", check="changed", table="crm_deal", fields=["amount"])
    assert changed.references().tables[0].columns == ("amount",)
    allowed = AllowedChangesCheck(id="a", check="allowed_changes", tables=["mail_message", {"crm_deal": ["stage"]}])
    assert [(t.table, t.columns, t.at) for t in allowed.references().tables] == [
        ("mail_message", (), ".tables"), ("crm_deal", ("stage",), ".tables")]
    grader = GraderSpec.model_validate({"criteria": [
        {"id": "j", "check": "judge", "points": 1, "rubric": "professional_tone",
         "evidence": ["sent_mail", "doc:Plan", "crm:deal"]}]})
    refs = grader.criteria[0].references()
    assert refs.rubrics == ("professional_tone",) and refs.files == ("Plan",)
    assert [t.table for t in refs.tables] == ["crm_deal"]


@pytest.mark.parametrize(("check", "message"), [
    ({"id": "r", "check": "record", "table": "crm_deal", "match": {"nmae": "x"}}, "gates.0 (r): "),
    ({"id": "a", "check": "allowed_changes", "tables": ["crm_dael"]}, "gates.0 (a).tables: "),
    ({"id": "j", "check": "judge", "prompt": "ok?", "evidence": ["crm:dael"]}, "gates.0 (j): crm:dael: "),
    ({"id": "f", "check": "facts", "text": "crm:crm_activity.bdy", "name": ["acme"]},
     "gates.0 (f).text: crm:crm_activity.bdy: "),
])
def test_a_check_naming_what_the_world_lacks_fails_to_load(tmp_path: Path, check: dict, message: str) -> None:
    source = Path("tasks/budget-variance-answer-001")
    folder = tmp_path / source.name
    folder.mkdir()
    for name in ("task.yaml", "solution.yaml"):
        (folder / name).write_bytes((source / name).read_bytes())
    grader = {"gates": [check]}
    if check["check"] == "facts":
        grader["facts"] = {"entities": {"acme": {"name": "Acme"}}, "facts": []}
    (folder / "grader.yaml").write_text(json.dumps(grader))
    with pytest.raises(SpecError) as raised:
        load_task(folder)
    assert message in str(raised.value)
