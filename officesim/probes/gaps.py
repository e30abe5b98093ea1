"""Known grader gaps: self-test runs that fail today, listed so that they are reported, not hidden.

``known_gaps.yaml`` (beside this module) maps a family to the variant and probe kinds whose runs
fail on its grader.  ``officesim tasks validate`` prints them as known gaps, fails on any gap not
listed, and fails when a listed gap stops occurring, so the list can only shrink as graders are
fixed.  Every line is a defect of a family's grader (issue 9), never of the self-test.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from officesim.pipeline.selftest import AgentRun, SelfTestReport

KNOWN_GAPS_FILE = Path(__file__).resolve().parent / "known_gaps.yaml"


def known_gaps() -> dict[str, dict[str, str]]:
    """family -> {variant or probe name: what goes wrong}."""
    data = yaml.safe_load(KNOWN_GAPS_FILE.read_text(encoding="utf-8")) if KNOWN_GAPS_FILE.is_file() else None
    return {str(family): {str(k): str(v) for k, v in (kinds or {}).items()} for family, kinds in (data or {}).items()}


def is_known(run: AgentRun, family: str, gaps: dict[str, dict[str, str]] | None = None) -> bool:
    """Whether ``run`` failed the way ``known_gaps.yaml`` lists for ``family``."""
    return not run.ok and run.agent in (known_gaps() if gaps is None else gaps).get(family, {})


def open_failures(report: SelfTestReport, family: str) -> list[str]:
    """What is wrong with a self-test beyond the known gaps: problems and unlisted failing runs."""
    gaps = known_gaps()
    return [*report.problems, *(run.reason for run in report.runs if not run.ok and not is_known(run, family, gaps))]
