"""``officesim run TASKS --agent A --n N --out runs/NAME``: attempts in parallel, resumable, with metrics."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from officesim.agents.registry import agent_names
from officesim.grading.judge import JudgeConfig
from officesim.metrics import format_groups, summarize
from officesim.runner import AgentSpec, read_results, run
from officesim.task import find_tasks


def add_agent_options(parser: argparse.ArgumentParser, *, default_agent: str | None = None) -> None:
    """The agent options shared by ``run`` and ``deliver``."""
    parser.add_argument("--agent", default=default_agent, required=default_agent is None,
                        help=f"the agent: {', '.join(agent_names())}")
    parser.add_argument("--model", help="the model name (openai agent)")
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (vLLM)")
    parser.add_argument("--temperature", type=float, help="sampling temperature (openai agent)")
    parser.add_argument("--max-tokens", type=int, help="completion token limit per request (openai agent)")
    parser.add_argument("--timeout", type=float, help="seconds per request (openai agent)")
    parser.add_argument("--max-retries", type=int, help="retries per request on 429/5xx/timeouts (openai agent)")
    parser.add_argument("--agent-seed", type=int, help="the random agent's seed")
    parser.add_argument("--judge-model", help="judge model for judge criteria (default: $OFFICESIM_JUDGE_MODEL)")
    parser.add_argument("--judge-base-url", help="judge endpoint (default: $OFFICESIM_JUDGE_BASE_URL)")


def agent_spec(args: argparse.Namespace) -> AgentSpec:
    """The agent spec from the command-line options (unset options are left out)."""
    options: dict[str, Any] = {
        "model": args.model, "base_url": args.base_url, "temperature": args.temperature,
        "max_tokens": args.max_tokens, "timeout": args.timeout, "max_retries": args.max_retries,
        "seed": args.agent_seed,
    }
    return AgentSpec(args.agent, {k: v for k, v in options.items() if v is not None})


def env_options(args: argparse.Namespace) -> dict[str, Any]:
    """``OfficeEnv`` options: the judge, when one is configured."""
    overrides = {k: v for k, v in (("model", args.judge_model), ("base_url", args.judge_base_url)) if v}
    judge = JudgeConfig.from_env(**overrides)
    return {"judge": judge} if judge is not None else {}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="run n attempts per task with an agent (parallel, resumable)")
    parser.add_argument("tasks", nargs="+", help="task folders or directories of task folders")
    add_agent_options(parser)
    parser.add_argument("--n", type=int, default=1, help="attempts per task (default 1)")
    parser.add_argument("--out", required=True, help="the run folder, e.g. runs/NAME (resumed when it exists)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: CPUs)")
    parser.add_argument("--base-seed", type=int, default=0, help="mixed into every attempt seed (default 0)")
    parser.add_argument("--retry-errors", action="store_true", help="play again attempts recorded as error")
    parser.add_argument("--k", type=int, nargs="*", default=[1, 5, 10], help="k values for pass@k (default 1 5 10)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    tasks = find_tasks(args.tasks)
    if not tasks:
        print("officesim: no task folders found", file=sys.stderr)
        return 2
    spec = agent_spec(args)
    out = Path(args.out)
    report = run(tasks, spec, args.n, out, workers=args.workers, base_seed=args.base_seed,
                 retry_errors=args.retry_errors, env_options=env_options(args), progress=not args.quiet)
    print(f"{spec.name}: {report.played} attempt(s) played, {report.skipped} already done, "
          f"{report.errors} error(s); results in {out / 'results.jsonl'}")
    ids = {t.name for t in tasks}
    records = [r for r in read_results(out) if r["task"] in ids]
    summary = summarize(records, ks=[k for k in args.k if k <= args.n] or [1])
    print(format_groups(summary.categories.values(), "category"))
    print(format_groups(summary.difficulties.values(), "difficulty"))
    print(format_groups([summary.overall], "overall"))
    for k in summary.ks:
        if k in summary.overall.pass_at:
            print(f"pass@{k} {summary.overall.pass_at[k]:.3f}   pass^{k} {summary.overall.pass_hat[k]:.3f}")
    if report.crashes:
        shown = ", ".join(report.crashes[:5]) + (" ..." if len(report.crashes) > 5 else "")
        print(f"officesim: {len(report.crashes)} attempt(s) crashed (a bug or a broken task; the traceback is "
              f"under 'crash' in results.jsonl): {shown}", file=sys.stderr)
        return 1
    return 0
