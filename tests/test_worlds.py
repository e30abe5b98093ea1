"""The shipped worlds differ in kind: industry, locale, currency, offices and size.

Each spec builds, the same bytes in any process; the industry and locale show in what the apps
generate; the three original specs build exactly as before profiles existed (the shipped tasks
run on them); and ``officesim world new`` drafts a spec that builds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from officesim import World
from officesim.apps.money import money
from officesim.cli import main
from officesim.errors import SpecError
from officesim.industries import industries
from officesim.resources import PACKAGED_WORLDS
from officesim.world_spec import WorldSpec, load_spec

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p.stem for p in PACKAGED_WORLDS.glob("*.yaml"))
# state_hash() of the original specs: the 378 shipped tasks run on acme, so its world must not move.
CLASSIC = {
    "tiny": "cd7513b393562ed854d38b7951fd46be72e052e8fac56fe88b9f6391df76ad4e",
    "acme": "8d43460817fe85f1fe1df30d161e24a377659653cf254f89e5654e191531f9d4",
}


def test_shipped_specs_span_industries_locales_and_sizes() -> None:
    specs = [load_spec(name) for name in SHIPPED]
    assert len(specs) >= 8
    assert len({s.industry for s in specs}) >= 5
    assert {(s.locale, s.currency) for s in specs} >= {("en_US", "USD"), ("en_GB", "GBP"), ("en_IN", "INR"),
                                                        ("de_DE", "EUR"), ("fr_FR", "EUR")}
    people = sorted(s.size.people for s in specs)
    assert people[0] <= 25 and any(900 <= n <= 1200 for n in people)
    for spec in specs:  # every new spec has offices in more than one region
        if spec.offices is not None:
            assert len({o.region for o in spec.offices}) > 1, spec.name


def test_shipped_specs_validate_against_the_published_schema() -> None:
    schema = json.loads((ROOT / "officesim" / "schemas" / "world.schema.json").read_text())
    for name in SHIPPED:
        jsonschema.validate(yaml.safe_load((PACKAGED_WORLDS / f"{name}.yaml").read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": "x", "company": "X", "domain": "x.test", "start": "2026-10-05T09:00:00Z",
                             "industry": "mining"}, schema)


@pytest.mark.parametrize("name", sorted(CLASSIC))
def test_original_worlds_build_as_before(name: str) -> None:
    world = World.generate(name)
    assert world.state_hash() == CLASSIC[name], (
        f"{name} no longer builds the world the shipped tasks were written on; the software profile must "
        "reproduce the apps' own lists exactly")
    assert world.meta("locale") is None and world.meta("department_names") is None


def _rows(world: World, sql: str) -> list[tuple]:
    return [tuple(r) for r in world.db.execute(sql)]


def test_a_law_firm_talks_like_one() -> None:
    world = World.generate("counsel")
    names = json.loads(world.meta("department_names"))
    assert names["Sales"] == "Business Development" and names["Engineering"] == "Litigation"
    assert world.meta("locale") == "en_GB" and world.meta("industry") == "legal"
    departments = {r[0] for r in _rows(world, "SELECT name FROM directory_department")}
    assert {"Business Development", "Litigation", "Client Services"} <= departments
    assert _rows(world, "SELECT title FROM directory_person WHERE role = 'ceo'") == [("Managing Partner",)]
    products = industries()["legal"].products
    deals = _rows(world, "SELECT name, currency FROM crm_deal")
    assert all(name.split(" - ", 1)[1].split(" (")[0] in products for name, _ in deals)
    assert {c for _, c in deals} <= {"GBP", "EUR"}
    channels = {r[0] for r in _rows(world, "SELECT name FROM chat_channel")}
    assert {"matter-intake", "business-development", "litigation"} <= channels and "deal-desk" not in channels
    assert _rows(world, "SELECT count(*) FROM mail_message WHERE subject LIKE 'Matter MAT-%'")[0][0] > 0
    zones = {r[0] for r in _rows(world, "SELECT DISTINCT time_zone FROM calendar_calendar")}
    assert {"Europe/London", "Asia/Singapore"} <= zones
    assert _rows(world, "SELECT DISTINCT work_start, work_end FROM calendar_calendar") == [("09:00", "18:30")]
    emails = [r[0] for r in _rows(world, "SELECT email FROM directory_person")]
    assert all(re.fullmatch(r"[a-z]+\.[a-z]+\d*@hartleyshaw\.test", e) for e in emails), emails[:5]


def test_rupee_world_writes_lakhs_and_crores() -> None:
    world = World.generate("carewell")
    amounts = [r[0] for r in _rows(world, "SELECT amount FROM crm_deal WHERE currency = 'INR'")]
    assert min(amounts) >= 400_000 and max(amounts) > 10_000_000  # rupee deals run to lakhs and crores
    big = max(amounts)
    notes = " ".join(r[0] for r in _rows(world, "SELECT body FROM crm_activity"))
    docs = " ".join(r[0] for r in _rows(world, "SELECT content FROM drive_file WHERE kind = 'doc'"))
    assert money(big, "INR", locale="en_IN") in notes + docs  # ₹1,20,00,000: Indian grouping
    assert re.search(r"₹\d{1,2},\d\d,\d\d,\d{3}", notes + docs)
    chat = " ".join(r[0] for r in _rows(world, "SELECT text FROM chat_message"))
    assert re.search(r"₹\d+(?:\.\d+)?(?:L|Cr)\b", chat)  # colleagues write ₹48.2L in chat
    assert world.meta("currency") == "INR" and world.meta("locale") == "en_IN"
    phones = [r[0] for r in _rows(world, "SELECT phone FROM directory_person LIMIT 5")]
    assert all(p.startswith("+91 ") for p in phones)


def test_french_non_profit_writes_euros_the_french_way() -> None:
    world = World.generate("lantern")
    text = " ".join(r[0] for r in _rows(world, "SELECT text FROM chat_message"))
    text += " ".join(r[0] for r in _rows(world, "SELECT body FROM mail_message"))
    assert re.search(r"\d{1,3}(?: \d{3})+(?:,\d\d)? €", text)
    assert not re.search(r"€\d", text)
    departments = {r[0] for r in _rows(world, "SELECT name FROM directory_department")}
    assert {"Fundraising", "Programmes"} <= departments
    accents = [r[0] for r in _rows(world, "SELECT name FROM directory_person") if re.search(r"[éèçëï]", r[0])]
    assert accents  # faker's French names; addresses are still plain ASCII
    assert all(e.isascii() for (e,) in _rows(world, "SELECT email FROM directory_person"))
    assert all(e.isascii() for (e,) in _rows(world, "SELECT email FROM crm_contact"))


@pytest.mark.parametrize(("change", "message"), [
    ({"industry": "mining"}, "'mining' is not an industry profile"),
    ({"industry": "retial"}, "Did you mean 'retail'?"),
    ({"offices": []}, "offices"),
    ({"offices": [{"city": "Remote", "country": "X", "time_zone": "UTC", "region": "EMEA"}]},
     "'Remote' is not an office"),
    ({"offices": [{"city": "Oslo", "country": "Norway", "time_zone": "Europe/Olso", "region": "EMEA"}]},
     "'Europe/Olso' is not an IANA time zone"),
    ({"offices": [{"city": "Oslo", "country": "Norway", "time_zone": "Europe/Oslo", "region": "Nordics"}]},
     "offices.0.region"),
    ({"offices": [{"city": "Oslo", "country": "Norway", "time_zone": "Europe/Oslo", "region": "EMEA"}] * 2},
     "the same city more than once (oslo)"),
    ({"offices": [{"city": "Oslo", "time_zone": "Europe/Oslo", "region": "EMEA"}]}, "offices.0.country"),
])
def test_bad_specs_say_which_field(tmp_path: Path, change: dict, message: str) -> None:
    data = {**yaml.safe_load((PACKAGED_WORLDS / "tiny.yaml").read_text()), **change}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(SpecError, match=re.escape(message)):
        load_spec(path)


def test_fingerprint_ignores_new_fields_at_their_defaults() -> None:
    acme = load_spec("acme")
    assert acme.fingerprint() == WorldSpec.model_validate(
        {**acme.model_dump(mode="json"), "industry": "software", "offices": None}).fingerprint()
    assert acme.fingerprint() != acme.model_copy(update={"industry": "retail"}).fingerprint()


def test_world_new_drafts_a_spec_that_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "brightpath.yaml"
    assert main(["world", "new", "brightpath", "--industry", "nonprofit", "--locale", "en_IN", "--people", "40",
                 "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    spec = load_spec(out)
    assert (spec.industry, spec.locale, spec.currency, spec.size.people) == ("nonprofit", "en_IN", "INR", 40)
    assert spec.start.isoformat() == "2026-10-05T03:30:00+00:00"  # 09:00 in Mumbai
    assert len({o.region for o in spec.offices}) > 1
    assert out.read_text().startswith("# Brightpath Foundation: non-profit, en_IN, INR, 40 people.")
    world = World.generate(out)
    assert world.counts()["directory_person"] == 40
    assert main(["world", "new", "brightpath", "--industry", "nonprofit", "--locale", "en_IN", "--people", "40",
                 "-o", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "message"), [
    (["--industry", "mining", "--locale", "en_US", "--people", "30"], "'mining' is not an industry profile"),
    (["--industry", "legal", "--locale", "xx_YY", "--people", "30"], "'xx_YY' is not one of the"),
    (["--industry", "legal", "--locale", "en_GB", "--people", "3"], "size.people: Input should be greater"),
])
def test_world_new_rejects_bad_arguments(args: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    assert main(["world", "new", "x", *args, "-o", str(tmp_path / "x.yaml")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.yaml").exists()


def test_world_build_without_output_reports_the_hash(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["world", "build", "tiny"]) == 0
    assert f"state hash {CLASSIC['tiny']}" in capsys.readouterr().out


def test_docs_describe_every_field() -> None:
    text = (ROOT / "docs" / "worlds.md").read_text()
    fields = [*WorldSpec.model_fields, *WorldSpec.model_fields["size"].annotation.model_fields,
              "city", "country", "time_zone", "region"]
    missing = [name for name in fields if f"`{name}`" not in text]
    assert not missing, f"docs/worlds.md does not describe {missing}"
    for name in SHIPPED:
        assert f"`{name}`" in text and f"`{name}`" in (ROOT / "README.md").read_text(), name
    for key in industries():
        assert f"`{key}`" in text


_HASHES = ("import json, sys; from officesim.world import World; "
           "print(json.dumps({n: World.generate(n).state_hash() for n in sys.argv[1:]}))")


@pytest.fixture(scope="module")
def hashes_in_other_processes() -> list[dict[str, str]]:
    """Every shipped spec's state hash, built in two fresh processes with different hash seeds."""
    runs = [subprocess.Popen([sys.executable, "-c", _HASHES, *SHIPPED], cwd=ROOT, stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONHASHSEED": seed}) for seed in ("1", "2")]
    outputs = [run.communicate()[0] for run in runs]  # both at once: two cores
    assert [run.returncode for run in runs] == [0, 0]
    return [json.loads(out) for out in outputs]


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_every_spec_builds_the_same_bytes_in_any_process(name: str,
                                                         hashes_in_other_processes: list[dict[str, str]]) -> None:
    here = World.generate(name).state_hash()
    assert [h[name] for h in hashes_in_other_processes] == [here, here]
