"""``officesim tasks stats``: what each family's reference solutions need, measured by playing them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from officesim import load_task
from officesim.pipeline.taskstats import measure, skeleton

ROOT = Path(__file__).resolve().parent.parent
TASKS = Path(__file__).parent / "fixtures" / "tasks"


def test_measure_counts_the_reference_calls_bytes_and_apps() -> None:
    task = load_task(TASKS / "move-deal-negotiation")
    assert task.solution is not None
    stats = measure(task)
    assert stats.calls == len(task.solution.steps) and stats.calls > 0
    assert stats.bytes_read > 100 and stats.apps >= 1
    assert stats.task_id == "move-deal-negotiation"


def test_skeleton_blanks_figures_and_names_so_swapped_instances_share_it() -> None:
    one = skeleton("Tell Alice Brown the total of Acme's 3 invoices ($1,200.50).")
    two = skeleton("Tell Bob Green the total of Acme's 7 invoices ($88.00).")
    assert one == two and "$" not in one


def test_stats_cli_prints_a_row_per_family_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "stats.json"
    done = subprocess.run([sys.executable, "-m", "officesim", "tasks", "stats", str(TASKS), "--json", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=True)
    assert "ref calls" in done.stdout and "traps" in done.stdout and "revisions" in done.stdout
    data = json.loads(out.read_text())
    assert data["summary"]["tasks"] == len(data["tasks"]) == 4
    assert {t["task_id"] for t in data["tasks"]} >= {"lookup-cfo-email", "move-deal-negotiation"}
