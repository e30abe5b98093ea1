"""The CLI imports only what the verb being run needs, so ``--help`` answers at once."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from officesim.cli import VERBS, build_parser

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, sys
from officesim.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = ("officesim.world", "officesim.env", "officesim.pipeline.runner", "sqlmodel", "fastapi", "uvicorn",
         "matplotlib", "openai", "mcp")
print(json.dumps(sorted(name for name in sys.modules if name in heavy or name.startswith("officesim.cli."))))
"""


def imported_by(*argv: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_top_level_help_imports_no_verb_and_no_heavy_library() -> None:
    assert imported_by("--help") == []


def test_tasks_validate_help_imports_its_verb_module_only() -> None:
    assert imported_by("tasks", "validate", "--help") == ["officesim.cli.generate", "officesim.cli.sample",
                                                         "officesim.cli.tasks"]


def test_import_officesim_is_lazy_until_a_name_is_used() -> None:
    code = ("import sys, officesim; before = 'officesim.world' in sys.modules; officesim.World; "
            "print(before, 'officesim.world' in sys.modules, 'officesim.pipeline.runner' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "False"]  # the world and tools, not the pipeline


def _summaries(parser: argparse.ArgumentParser) -> dict[str, str]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help for choice in action._choices_actions}


def test_the_verb_table_matches_what_each_module_registers() -> None:
    registered = _summaries(build_parser())  # every module imported and registered
    assert registered == {verb: summary for verb, (_, summary) in VERBS.items()}


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_a_verb_parses_when_named(verb: str) -> None:
    parser = build_parser([verb, "--help"])
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args([verb, "--help"])
    assert exit_info.value.code == 0
