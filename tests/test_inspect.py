"""inspect_ai, the real package: reference solutions score 1.0 through the @task, its tools and our scorer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

inspect_ai = pytest.importorskip("inspect_ai")  # part of the dev extra: CI has it

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402

from officesim.integrations.inspect import load_library, officesim, reference_outputs  # noqa: E402

pytestmark = pytest.mark.framework
ROOT = Path(__file__).resolve().parent.parent
TASKS = Path(__file__).parent / "fixtures" / "tasks"
TWO = "lookup-cfo-email,move-deal-negotiation"


def _scores(log) -> dict[str, dict]:
    return {s.id: s.scores["office_grade"] for s in log.samples}


def test_mockllm_playing_the_reference_solutions_scores_one(tmp_path: Path) -> None:
    model = get_model("mockllm/model", custom_outputs=reference_outputs)
    (log,) = inspect_eval(officesim(tasks=str(TASKS), ids=TWO), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    scores = _scores(log)
    assert {k: v.value for k, v in scores.items()} == {"lookup-cfo-email": {"score": 1.0, "passed": 1},
                                                       "move-deal-negotiation": {"score": 1.0, "passed": 1}}
    explanation = scores["move-deal-negotiation"].explanation
    for criterion in ("stage_moved", "only_crm_changed", "call_logged", "mentions_pricing", "other_deals_untouched"):
        assert criterion in explanation  # every gate and criterion, with its reason
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == 1.0


def test_the_task_offers_only_its_tools_with_relaxed_schemas(tmp_path: Path) -> None:
    seen: list[list] = []

    def no_tools(messages, tools, tool_choice, config):
        seen.append(tools)
        return reference_outputs(messages[:1], tools, tool_choice, config)  # the first call only, then stop

    (log,) = inspect_eval(officesim(tasks=str(TASKS), ids="lookup-cfo-email"), display="none",
                          model=get_model("mockllm/model", custom_outputs=no_tools), log_dir=str(tmp_path))
    names = sorted(t.name for t in seen[0])
    task = load_library(TASKS, ids=["lookup-cfo-email"])[0]
    assert names == sorted([*task.tools, "submit"])
    search = next(t for t in seen[0] if t.name == "directory_search_people")
    assert "limit" not in search.parameters.required
    # The model stopped calling tools without submitting: graded as it stands, not lost.
    score = _scores(log)["lookup-cfo-email"]
    assert score.value == {"score": 0.0, "passed": 0} and "NOT PASSED" in score.explanation


@pytest.mark.slow
def test_inspect_eval_command_line_with_the_reference_model(tmp_path: Path) -> None:
    """``inspect eval`` as a user runs it, on their own file that imports our task.

    (``.ci/wheel-smoke`` runs the registered name, ``inspect eval officesim/officesim``, from the
    installed wheel, where inspect namespaces it by package.)
    """
    (tmp_path / "office_eval.py").write_text("from officesim.integrations.inspect import officesim  # noqa: F401\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "INSPECT_LOG_DIR": str(tmp_path / "logs")}
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", "office_eval.py@officesim",
                           "-T", f"tasks={TASKS}", "-T", f"ids={TWO}", "--model", "officesim/reference",
                           "--log-format", "json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]
    (log_file,) = (tmp_path / "logs").glob("*.json")
    log = json.loads(log_file.read_text())
    assert log["status"] == "success"
    assert [s["scores"]["office_grade"]["value"]["score"] for s in log["samples"]] == [1.0, 1.0]
