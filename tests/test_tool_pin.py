"""tools.pin: a task pins the shape of its tools, so a docstring edit rewrites no task folder."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

from officesim.task import load_task
from officesim.toolapi.pin import PIN_FILE, pin_problems, pins_of, render_pin

SOURCE = Path("tasks/budget-variance-answer-001")


def test_a_reworded_description_keeps_every_pin() -> None:
    tools = load_task(SOURCE).tools_json()
    reworded = copy.deepcopy(tools)
    for item in reworded:
        item["function"]["description"] += " Reworded."
        for prop in item["function"]["parameters"]["properties"].values():
            prop["description"] = "other words"
    assert pins_of(reworded) == pins_of(tools)
    renamed = copy.deepcopy(tools)
    first = renamed[0]["function"]["parameters"]
    first["properties"]["renamed"] = first["properties"].pop(next(iter(first["properties"])))
    assert pins_of(renamed)[renamed[0]["function"]["name"]] != pins_of(tools)[tools[0]["function"]["name"]]


def test_a_pin_that_no_longer_holds_is_named(tmp_path: Path) -> None:
    folder = tmp_path / SOURCE.name
    shutil.copytree(SOURCE, folder)
    task = load_task(folder)
    (folder / PIN_FILE).write_text(render_pin(task))
    assert pin_problems(task) == []
    pinned = json.loads((folder / PIN_FILE).read_text())
    pinned["tools"]["submit"] = "sha256:0000000000000000"
    (folder / PIN_FILE).write_text(json.dumps(pinned))
    problems = pin_problems(task)
    assert len(problems) == 1 and "the parameters of submit changed shape" in problems[0]
