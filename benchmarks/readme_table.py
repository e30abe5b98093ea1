"""Regenerate the README's benchmark table from a ``bench_all.py --json`` file.

Run: ``python benchmarks/readme_table.py benchmarks/results.json [--readme README.md] [--check]``.

The table sits between ``<!-- benchmarks:begin -->`` and ``<!-- benchmarks:end -->`` in the
README; everything else is left as it is.  ``--check`` exits 1 when the README's table differs
from the file's figures (it was edited by hand, or not regenerated after a run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- benchmarks:begin -->", "<!-- benchmarks:end -->"
# The README's rows, in order: (benchmark, figure key).
ROWS = [
    ("runner", "runner_vs_loop"),
    ("http", "http_cpu_ratio_1"),
    ("http", "http_cpu_ratio_8"),
    ("http", "http_rate_1"),
    ("http", "http_rate_8"),
    ("http", "http_bytes_per_step"),
    ("cli", "cli_help"),
    ("cli", "cli_validate_help"),
    ("episodes", "episode_vs_bare"),
    ("episodes", "episode_without_grading_vs_bare"),
    ("episodes", "episode_rate"),
    ("episodes", "grading_median"),
    ("episodes", "grading_fresh_texts"),
    ("world", "reset_acme_vs_bare"),
    ("world", "reset_large_vs_bare"),
    ("world", "rewind_acme_vs_bare"),
    ("world", "rewind_large_vs_bare"),
    ("tools", "tool_median_acme"),
    ("tools", "lookups_over_3x"),
    ("tools", "scans_over_3x"),
]


def table(data: dict[str, Any]) -> str:
    """The markdown table of the figures in ``data`` (a ``bench_all.py --json`` file's content)."""
    measured = sorted({bench["measured_at"] for bench in data.values()})
    lines = [f"Measured {measured[-1] if measured else 'never'} with `python benchmarks/bench_all.py --json "
             "benchmarks/results.json`; regenerate this table with `python benchmarks/readme_table.py "
             "benchmarks/results.json`.", "", "| what | this run | target | met |", "| --- | --- | --- | --- |"]
    for bench, key in ROWS:
        figure = data.get(bench, {}).get("figures", {}).get(key)
        if figure is None:
            continue
        met = {True: "yes", False: "**no**", None: ""}[figure["ok"]]
        lines.append(f"| {figure['what']} | {figure['shown']} | {figure['target']} | {met} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="the JSON written by bench_all.py --json")
    parser.add_argument("--readme", default=str(ROOT / "README.md"))
    parser.add_argument("--check", action="store_true", help="only check that the README is up to date")
    args = parser.parse_args()
    readme = Path(args.readme)
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{readme} has no {BEGIN} ... {END} section to fill")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    data = json.loads(Path(args.results).read_text(encoding="utf-8"))
    new = f"{head}{BEGIN}\n{table(data)}\n{END}{tail}"
    if args.check:
        if new != text:
            print(f"{readme}'s benchmark table is stale: run python benchmarks/readme_table.py {args.results}")
            sys.exit(1)
        return
    readme.write_text(new, encoding="utf-8")
    print(f"wrote the benchmark table of {args.results} into {readme}")


if __name__ == "__main__":
    main()
