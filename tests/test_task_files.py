"""Task folders: strict loading with file/field errors, setup steps, person refs, schemas, sealing."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from officesim import World, load_task
from officesim.errors import SpecError
from officesim.person_refs import check_ref_syntax, email_of, person_id, resolve_arguments
from officesim.task import SUBMIT, find_tasks, published_schema_files, read_yaml, world_snapshot
from officesim.task_setup import CallStep, ClockStep, InsertStep, UpdateStep, apply_setup
from officesim.tools import dispatch, registry
from officesim.toolschema import strict_schema

FIXTURES = Path(__file__).parent / "fixtures" / "tasks"
SEALED = Path(__file__).parent / "fixtures" / "sealed"
SCHEMAS = Path(__file__).resolve().parent.parent / "officesim" / "schemas"


def copy_task(tmp_path: Path, name: str, new_id: str | None = None) -> Path:
    """A writable copy of a fixture task (renamed when ``new_id`` is given)."""
    target = tmp_path / (new_id or name)
    shutil.copytree(FIXTURES / name, target)
    if new_id:
        edit_yaml(target / "task.yaml", lambda d: d.update(id=new_id))
    return target


def edit_yaml(path: Path, change: Any) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


# ------------------------------------------------------------------------------------ loading
def test_fixture_tasks_load_with_metadata_and_hashes() -> None:
    task = load_task(FIXTURES / "budget-summary-to-cfo")
    assert task.id == "budget-summary-to-cfo"
    assert task.tools == ["mail_search_messages", "mail_get_message", "mail_send_message", "directory_search_people"]
    assert (task.max_steps, task.pass_threshold, task.category, task.difficulty) == (12, 0.75, "finance-reporting",
                                                                                      "easy")
    assert (task.family, task.group, task.reviewed_by) == ("budget_summary", "budget_summary/tiny", "test-fixture")
    assert task.task_hash == hashlib.sha256((task.dir / "task.yaml").read_bytes()).hexdigest()
    assert task.grader_hash == hashlib.sha256((task.dir / "grader.yaml").read_bytes()).hexdigest()
    assert task.solution is not None and len(task.solution.steps) == 2
    assert [c.id for c in task.grader.gates] == ["mailed_cfo_with_total", "only_mail_changed"]


def test_group_defaults_to_family_and_grader_hash_covers_rubrics() -> None:
    task = load_task(FIXTURES / "budget-sheet-judged")
    assert task.group == "budget_sheet"
    grader_only = hashlib.sha256((task.dir / "grader.yaml").read_bytes()).hexdigest()
    assert task.grader_hash != grader_only  # the rubric's bytes are part of the grader
    assert set(task.rubrics) == {"numbers_traceable"}


def test_tools_json_lists_exactly_the_allowed_tools_plus_submit() -> None:
    task = load_task(FIXTURES / "lookup-cfo-email")
    names = [t["function"]["name"] for t in task.tools_json()]
    assert sorted(names) == sorted([*task.tools, SUBMIT])
    submit = task.tools_json()[-1]["function"]
    assert submit["parameters"]["properties"]["answer"]["type"] == ["string", "null"]
    assert submit["parameters"]["additionalProperties"] is False
    person = next(t for t in task.tools_json() if t["function"]["name"] == "directory_get_person")
    assert person["function"]["parameters"] == strict_schema(registry()["directory_get_person"].parameters)


def test_find_tasks_walks_directories(tmp_path: Path) -> None:
    assert [p.name for p in find_tasks([FIXTURES])] == sorted(p.name for p in FIXTURES.iterdir())
    assert find_tasks([FIXTURES / "lookup-cfo-email"]) == [FIXTURES / "lookup-cfo-email"]
    with pytest.raises(SpecError, match="neither a task folder"):
        find_tasks([tmp_path / "missing"])


@pytest.mark.parametrize(
    ("file", "change", "expected"),
    [
        ("task.yaml", lambda d: d.update(id="other-name"), r"id: 'other-name' must equal the folder name"),
        ("task.yaml", lambda d: d.update(colour="blue"), r"task\.yaml is invalid:\n  colour: Extra inputs"),
        ("task.yaml", lambda d: d.update(difficulty="brutal"), r"difficulty: Input should be 'easy'"),
        ("task.yaml", lambda d: d.update(tools=["directory_search_peple"]),
         r"tools\.0: no tool 'directory_search_peple' is registered \(did you mean 'directory_search_people'\?\)"),
        ("task.yaml", lambda d: d.update(tools=["directory_search_people", "submit"]), r"submit and wait are built in"),
        ("task.yaml", lambda d: d.update(acting_user="role:cfoo"),
         r"acting_user: Value error, unknown role key 'cfoo'"),
        ("task.yaml", lambda d: d.update(max_steps=0), r"max_steps: Input should be greater than or equal to 1"),
        ("task.yaml", lambda d: d.update(setup=[{"wait": 3}]), r"setup\.0: a setup step has one of the keys"),
        ("task.yaml", lambda d: d.update(setup=[{"insert": "crm_dael", "rows": [{"id": "x"}]}]),
         r"setup\.0 \(InsertStep\): there is no table 'crm_dael'"),
        ("task.yaml", lambda d: d.update(setup=[{"insert": "crm_deal", "rows": [{"stagee": "won"}]}]),
         r"setup\.0 \(InsertStep\): crm_deal has no column 'stagee'"),
        ("task.yaml", lambda d: d["world"].update(spec="atlantis"), r"world spec 'atlantis' is neither a file"),
        ("grader.yaml", lambda d: d["criteria"][0].update(check="answr"),
         r"grader\.yaml is invalid:\n  criteria\.0: Input tag 'answr' found using 'check' does not match"),
        ("grader.yaml", lambda d: d["criteria"][0].update(equal="x"), r"criteria\.0\.answer\.equal: Extra inputs"),
        ("grader.yaml", lambda d: d["criteria"][0].pop("points"), r"criterion 'right_address' needs non-zero points"),
        ("grader.yaml", lambda d: d["gates"][0].update(points=1), r"gate 'nothing_changed' has points"),
        ("grader.yaml", lambda d: d["criteria"][0].update(id="nothing_changed"), r"'nothing_changed' is used twice"),
        ("grader.yaml", lambda d: d["gates"].append({"id": "x", "check": "record", "table": "crm_deal",
                                                     "match": {"stag": "won"}}),
         r"gates\.1 \(x\): crm_deal has no column 'stag'"),
        ("grader.yaml", lambda d: d["gates"].append({"id": "x", "check": "mail_sent", "to": ["role:cfoo"]}),
         r"gates\.1\.mail_sent\.to: Value error, unknown role key 'cfoo'"),
        ("grader.yaml", lambda d: d["gates"].append({"id": "x", "check": "judge", "rubric": "vibes"}),
         r"gates\.1 \(x\)\.rubric: there is no rubric 'vibes'"),
        ("grader.yaml", lambda d: d["gates"].append({"id": "x", "check": "judge", "prompt": "ok?",
                                                     "evidence": ["screenshot"]}),
         r"'screenshot' is not an evidence form"),
        ("grader.yaml", lambda d: d["gates"].append({"id": "x", "check": "record", "table": "crm_deal",
                                                     "match": {"stage": {"like": "won"}}}),
         r"an operator value has exactly one key among contains"),
        ("solution.yaml", lambda d: d["steps"].append({"name": "mail_send_message", "arguments": {}}),
         r"steps\.1\.name: 'mail_send_message' is not among the task's tools"),
        ("solution.yaml", lambda d: d["steps"][0]["arguments"].update(limit="many"),
         r"steps\.0\.arguments: invalid arguments for directory_search_people: 'limit'"),
    ],
)
def test_errors_name_the_file_and_the_field(tmp_path: Path, file: str, change: Any, expected: str) -> None:
    folder = copy_task(tmp_path, "lookup-cfo-email")
    edit_yaml(folder / file, change)
    with pytest.raises(SpecError, match=expected) as caught:
        load_task(folder)
    assert str(folder / file) in str(caught.value) or "world spec" in str(caught.value)


def test_missing_files_are_reported(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"has no task\.yaml"):
        load_task(tmp_path)
    folder = copy_task(tmp_path, "lookup-cfo-email")
    (folder / "grader.yaml").unlink()
    with pytest.raises(SpecError, match=r"has no grader\.yaml"):
        load_task(folder)
    (folder / "grader.yaml").write_text("gates: [\n")
    with pytest.raises(SpecError, match=r"grader\.yaml is not valid YAML"):
        load_task(folder)


def test_dates_in_yaml_stay_text() -> None:
    data = read_yaml(FIXTURES / "move-deal-negotiation" / "task.yaml")
    assert data["setup"][0]["rows"][0]["close_date"] == "2026-12-15"


# ------------------------------------------------------------------------------------ schemas
def test_published_schemas_match_the_models() -> None:
    expected = published_schema_files()
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == sorted(expected)
    for name, text in expected.items():
        assert (SCHEMAS / name).read_text() == text, f"{name} is stale: run 'officesim tasks schemas'"


def test_fixture_files_validate_against_the_published_schemas() -> None:
    schemas = {name: json.loads((SCHEMAS / f"{name}.schema.json").read_text()) for name in ("task", "grader",
                                                                                             "solution")}
    for folder in find_tasks([FIXTURES]):
        for name, schema in schemas.items():
            jsonschema.validate(read_yaml(folder / f"{name}.yaml"), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"gates": [{"id": "a", "check": "answer", "equals": "x", "bogus": 1}]}, schemas["grader"])


# ------------------------------------------------------------------------------------ people
def test_person_refs_resolve_every_form(tiny: World) -> None:
    cfo = person_id(tiny, "role:cfo")
    email = tiny.person(cfo)["email"]
    assert person_id(tiny, email.upper()) == cfo
    assert email_of(tiny, cfo) == email
    assert email_of(tiny, "user") == tiny.user["email"]
    assert email_of(tiny, "Someone@Customer.test") == "someone@customer.test"  # external: passes through
    with pytest.raises(SpecError, match="matches nobody"):
        person_id(tiny, "p_999")
    assert check_ref_syntax("role:cfo") is None
    assert "unknown role key" in str(check_ref_syntax("role:chief"))
    assert "not a person reference" in str(check_ref_syntax("the cfo"))


def test_resolve_arguments_only_touches_person_fields_and_role_refs(tiny: World) -> None:
    cfo_email = email_of(tiny, "role:cfo")
    out = resolve_arguments(tiny, {"to": ["role:cfo", "user", "x@y.test"], "subject": "user guide",
                                   "body": "ping role:cfo", "owner": "role:cfo"})
    assert out["to"] == [cfo_email, tiny.user["email"], "x@y.test"]
    assert out["subject"] == "user guide"  # 'user' outside a person field is just a word
    assert out["body"] == "ping role:cfo"  # a ref inside text is text
    assert out["owner"] == cfo_email


# ------------------------------------------------------------------------------------ setup
def test_insert_fills_ids_defaults_and_clock_and_resolves_refs(tiny: World) -> None:
    tiny.set_clock("2026-10-06T10:00:00Z")
    before = tiny.meta("seq:msg")
    apply_setup(tiny, [InsertStep(insert="mail_message", rows=[{
        "sender": "role:cfo", "sender_name": "CFO", "to": ["role:ops_manager"], "subject": "hi", "body": "b"}])])
    row = tiny.db.execute("SELECT * FROM mail_message ORDER BY rowid DESC LIMIT 1").fetchone()
    assert row["id"] == f"msg_{int(before) + 1}"
    assert row["thread_id"].startswith("thr_")
    assert row["status"] == "sent" and row["cc"] == "[]"  # model defaults
    assert row["sent_at"] == "2026-10-06T10:00:00Z"  # required timestamp from the clock
    assert row["sender"] == email_of(tiny, "role:cfo")
    assert json.loads(row["to"]) == [tiny.user["email"]]


def test_update_changes_matching_rows_and_rejects_no_match(tiny: World) -> None:
    apply_setup(tiny, [UpdateStep(update="crm_deal", match={"id": "deal_1"}, set={"stage": "closed_lost",
                                                                                   "owner_id": "role:cfo"})])
    row = tiny.db.execute("SELECT stage, owner_id FROM crm_deal WHERE id = 'deal_1'").fetchone()
    assert (row["stage"], row["owner_id"]) == ("closed_lost", person_id(tiny, "role:cfo"))
    with pytest.raises(SpecError, match=r"setup\[0\]: no row of crm_deal matches"):
        apply_setup(tiny, [UpdateStep(update="crm_deal", match={"id": "deal_0"}, set={"stage": "x"})])


def test_setup_call_runs_as_someone_and_a_failing_call_breaks_the_task(tiny: World) -> None:
    user = tiny.user_id
    apply_setup(tiny, [ClockStep(clock="2026-10-05T07:00:00Z"), CallStep.model_validate({
        "as": "role:cfo", "call": "mail_send_message",
        "arguments": {"to": ["user"], "subject": "Budget", "body": "See attached"}})])
    row = tiny.db.execute("SELECT sender, sent_at FROM mail_message WHERE subject = 'Budget'").fetchone()
    assert row["sender"] == email_of(tiny, "role:cfo")
    assert row["sent_at"].startswith("2026-10-05T07:0")
    assert tiny.user_id == user  # acting_as restored the user
    with pytest.raises(SpecError, match=r"setup\[0\] \(mail_get_message as user\) returned an error.*not_found"):
        apply_setup(tiny, [CallStep(call="mail_get_message", arguments={"message_id": "msg_0"})])


def test_insert_that_violates_the_schema_names_the_row(tiny: World) -> None:
    with pytest.raises(SpecError, match=r"setup\[0\]\.rows\[0\]: cannot insert into crm_deal"):
        apply_setup(tiny, [InsertStep(insert="crm_deal", rows=[{"name": "no account"}])])


# ------------------------------------------------------------------------------------ start state
def test_start_snapshot_applies_setup_and_is_cached() -> None:
    task = load_task(FIXTURES / "move-deal-negotiation")
    snapshot = task.start_snapshot()
    assert task.start_snapshot() is snapshot
    world = World.restore(snapshot)
    assert world.db.execute("SELECT stage FROM crm_deal WHERE id = 'deal_900'").fetchone()[0] == "proposal"
    assert world.changed_keys() == {}  # the log is cleared: episode diffs start from here
    assert task.start_world() is task.start_world()
    assert task.user_info()["email"] == world.user["email"]
    # A second Task object for another task on the same world reuses the generated world.
    assert world_snapshot(task.spec_path, task.spec.world.seed) is world_snapshot(task.spec_path,
                                                                                  task.spec.world.seed)
    task.release()
    assert task.start_snapshot() is not snapshot and task.start_snapshot() == snapshot  # rebuilt identically


def test_acting_user_and_broken_setup_surface_when_building(tmp_path: Path) -> None:
    folder = copy_task(tmp_path, "lookup-cfo-email")
    edit_yaml(folder / "task.yaml", lambda d: d.update(acting_user="role:cfo"))
    assert load_task(folder).user_info()["email"] == "jasmine.jones@tinyco.test"
    edit_yaml(folder / "task.yaml", lambda d: d.update(setup=[{"as": "role:cfo", "call": "mail_get_message",
                                                               "arguments": {"message_id": "msg_0"}}]))
    with pytest.raises(SpecError, match=r"task\.yaml: setup\[0\] \(mail_get_message as role:cfo\)"):
        load_task(folder).start_snapshot()


# ------------------------------------------------------------------------------------ sealing
SECRET = "ZEBRA-PAPAYA-7731"


def _probe_arguments(tool: Any, seen: list[str]) -> dict[str, Any]:
    """Arguments that make a tool do something: seen ids/emails for strings, small values otherwise."""
    args: dict[str, Any] = {}
    for name, schema in tool.parameters["properties"].items():
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if "null" in kinds:
            continue
        if "string" in kinds:
            args[name] = seen[len(args) % len(seen)] if seen else "x"
        elif "array" in kinds:
            args[name] = [seen[0]] if seen else []
        elif "integer" in kinds or "number" in kinds:
            args[name] = 1
        elif "boolean" in kinds:
            args[name] = True
    return args


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str) and 2 < len(value) < 60:
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def test_no_tool_result_ever_contains_grader_or_solution_content() -> None:
    """Call every registered tool with probe arguments; the secret in grader/solution never comes back.

    Probes use fragments of the secret (never the whole of it), so an echo of the arguments is not
    mistaken for a leak.
    """
    task = load_task(SEALED / "sealed-secret")
    assert SECRET in (task.dir / "grader.yaml").read_text()
    assert SECRET in (task.dir / "solution.yaml").read_text()
    world = World.restore(task.start_snapshot())
    fragments = ["ZEBRA", "PAPAYA", "7731", "grader", "solution", "secret", str(task.dir)]
    seen: list[str] = []
    calls = 0
    for _ in range(2):  # the second pass reuses ids and emails found in the first
        for name, tool in registry().items():
            variants = [{}, _probe_arguments(tool, seen)]
            strings = [k for k, v in tool.parameters["properties"].items() if "string" in str(v.get("type"))]
            variants += [{**_probe_arguments(tool, seen), key: fragment} for key in strings for fragment in fragments]
            for arguments in variants:
                result = dispatch(world, name, arguments)
                calls += 1
                assert SECRET not in json.dumps(result), f"{name}({arguments}) returned the grader's secret"
                _strings(result, seen)
    assert calls > 4 * len(registry())
    assert len(seen) > 50  # the probes reached real objects, not just errors
    assert SECRET.encode() not in world.snapshot()  # nor does the world itself hold it


def test_insert_of_a_value_sqlite_cannot_store_names_the_row(tiny: World) -> None:
    with pytest.raises(SpecError, match=r"setup\[0\]\.rows\[0\]: cannot insert into crm_account"):
        apply_setup(tiny, [InsertStep(insert="crm_account", rows=[{"name": "Big", "industry": 2**70}])])
