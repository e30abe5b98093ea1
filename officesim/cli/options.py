"""Command-line options that several verbs share, defined once so their flags cannot drift apart.

``run``, ``calibrate`` and ``deliver`` all pick an agent, a judge, a number of worker processes
and whether to show progress; ``calibrate`` and ``deliver`` both take calibration thresholds.
Each helper adds its options to a parser, and a matching reader turns the parsed namespace into
the object the library takes (``AgentSpec``, ``OfficeEnv`` options, ``CalibrationConfig``).
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from officesim.agents.registry import agent_names
from officesim.grading.judge import JudgeConfig
from officesim.pipeline.calibrate import CalibrationConfig
from officesim.pipeline.runner import AgentSpec

# What each calibration threshold means, for its --help (the default is appended).
CALIBRATION_HELP: dict[str, str] = {
    "drop_above": "drop tasks with a pass rate at least this",
    "inspect_below": "inspect tasks with a pass rate at most this",
    "hack_bound": "a probe scoring above this makes a task hackable",
    "ambiguity_bound": "share of regrades on which a judge criterion may disagree with itself",
    "oracle_seeds": "oracle attempts per task; 0 skips the oracle",
    "regrade_attempts": "stored trajectories regraded per task",
    "regrades": "times each is regraded",
}


def bounded_int(low: int, high: int | None = None, *, what: str = "a number") -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``[low, high]``, else argparse's one-line usage error (exit 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {text!r}") from None
        if value < low or (high is not None and value > high):
            allowed = f"{low}-{high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{what} must be {allowed}, not {value}")
        return value

    return parse


def positive_float(what: str) -> Callable[[str], float]:
    """An argparse ``type``: a finite number above 0."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a number, not {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{what} must be a number above 0, not {text}")
        return value

    return parse


def add_agent_options(parser: argparse.ArgumentParser, *, default_agent: str | None = None) -> None:
    """The agent and its model options; ``--agent`` is required unless a default is given."""
    parser.add_argument("--agent", default=default_agent, required=default_agent is None,
                        help=f"the agent: {', '.join(agent_names())}")
    parser.add_argument("--model", help="the model name (openai agent)")
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (vLLM)")
    parser.add_argument("--temperature", type=float, help="sampling temperature (openai agent)")
    parser.add_argument("--max-tokens", type=bounded_int(1, what="--max-tokens"),
                        help="completion token limit per request (openai agent)")
    parser.add_argument("--timeout", type=positive_float("--timeout"), help="seconds per request (openai agent)")
    parser.add_argument("--max-retries", type=bounded_int(0, what="--max-retries"),
                        help="retries per request on 429/5xx/timeouts (openai agent)")
    parser.add_argument("--agent-seed", type=int, help="the random agent's seed")


def agent_spec(args: argparse.Namespace) -> AgentSpec:
    """The agent spec from the options of ``add_agent_options`` (unset options are left out)."""
    options: dict[str, Any] = {
        "model": args.model, "base_url": args.base_url, "temperature": args.temperature,
        "max_tokens": args.max_tokens, "timeout": args.timeout, "max_retries": args.max_retries,
        "seed": args.agent_seed,
    }
    return AgentSpec(args.agent, {k: v for k, v in options.items() if v is not None})


def add_judge_options(parser: argparse.ArgumentParser, *, purpose: str = "judge criteria") -> None:
    """``--judge-model`` and ``--judge-base-url``, falling back to the ``OFFICESIM_JUDGE_*`` variables."""
    parser.add_argument("--judge-model", help=f"judge model for {purpose} (default: $OFFICESIM_JUDGE_MODEL)")
    parser.add_argument("--judge-base-url", help="judge endpoint (default: $OFFICESIM_JUDGE_BASE_URL)")


def env_options(args: argparse.Namespace) -> dict[str, Any]:
    """``OfficeEnv`` options from ``add_judge_options``: the judge, when one is configured."""
    overrides = {k: v for k, v in (("model", args.judge_model), ("base_url", args.judge_base_url)) if v}
    judge = JudgeConfig.from_env(**overrides)
    return {"judge": judge} if judge is not None else {}


def add_workers_option(parser: argparse.ArgumentParser) -> None:
    """``--workers``: how many processes play or check attempts (default: the CPUs)."""
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: CPUs)")


def add_quiet_option(parser: argparse.ArgumentParser, *, text: str = "no progress bar") -> None:
    """``--quiet``: no progress output (the summary is still printed); ``text`` is its --help."""
    parser.add_argument("--quiet", action="store_true", help=text)


def add_calibration_options(parser: argparse.ArgumentParser, fields: Sequence[str], *,
                            helps: Mapping[str, str] | None = None) -> None:
    """One option per ``CalibrationConfig`` field named, with that field's type and default.

    Args:
        parser: the verb's parser.
        fields: the fields to expose, in --help order (``drop_above`` becomes ``--drop-above``).
        helps: wording that differs for this verb (default: ``CALIBRATION_HELP``).
    """
    defaults = CalibrationConfig()
    wording = {**CALIBRATION_HELP, **(helps or {})}
    for field in fields:
        default = getattr(defaults, field)
        parser.add_argument(f"--{field.replace('_', '-')}", type=type(default), default=default,
                            help=f"{wording[field]} (default {default})")


def calibration_config(args: argparse.Namespace, fields: Sequence[str], **extra: Any) -> CalibrationConfig:
    """The ``CalibrationConfig`` of the options that ``add_calibration_options(fields)`` added, plus ``extra``."""
    return CalibrationConfig(**{field: getattr(args, field) for field in fields}, **extra)
