"""Run and delivery pages: a sortable, filterable table of attempts; a delivery's report, split and calibration."""

from __future__ import annotations

import io
import json
from pathlib import Path

from markdown_it import MarkdownIt

from officesim.pipeline import plots
from officesim.pipeline.attempts import Attempt, read_attempts
from officesim.pipeline.metrics import summarize
from officesim.pipeline.runner import read_run_info
from officesim.view.html import PAGE_LIMIT, esc, link, table

ATTEMPT_COLUMNS = ["task", "attempt", "category", "difficulty", "score", "passed", "status", "steps", "tokens", "error"]


def _tokens(record: Attempt) -> int:
    tokens = record.tokens
    if isinstance(tokens, dict):
        return int(sum(v for v in tokens.values() if isinstance(v, int | float)))
    return int(tokens or 0)


def run_page(folder: Path, prefix: str, filters: dict[str, str | None]) -> str:
    info = read_run_info(folder) or {}
    records = read_attempts(folder)
    categories = sorted({str(r.category) for r in records})
    chosen = [r for r in records
              if (not filters.get("category") or r.category == filters["category"])
              and (not filters.get("passed") or str(bool(r.passed)).lower() == filters["passed"])
              and (not filters.get("q") or str(filters["q"]) in r.task)]
    passed = sum(bool(r.passed) for r in chosen)
    agent = info.get("agent") or {}
    options = "".join(f"<option{' selected' if c == filters.get('category') else ''}>{esc(c)}</option>"
                      for c in categories)
    form = (f"<form id='filters' method='get' action='{prefix}'>task "
            f"<input name='q' value='{esc(filters.get('q') or '')}'> category <select name='category'>"
            f"<option value=''>all</option>{options}</select> passed <select name='passed'><option value=''>any"
            "</option><option>true</option><option>false</option></select> "
            "<button type='submit'>filter</button></form>")
    rows = []
    for r in chosen[:PAGE_LIMIT]:
        error = r.error or (r.crash or "").strip().splitlines()[-1:] or ""
        rows.append([link(f"{prefix}/episode/{r.task}/{r.attempt}", r.task), str(r.attempt),
                     esc(r.category), esc(r.difficulty), f"{r.score_or_zero:.3f}",
                     "<span class='pass'>yes</span>" if r.passed else "<span class='fail'>no</span>",
                     esc(r.status), esc(r.steps), str(_tokens(r)), esc(error)])
    return (f"<p>agent <strong>{esc(agent.get('name'))}</strong> {esc(json.dumps(agent.get('options') or {}))}; "
            f"n = {esc(info.get('n'))}; {len(records)} attempt(s) recorded; {passed} of {len(chosen)} shown passed."
            f"</p>{form}<img alt='pass@1 per category' src='{prefix}/plot.png'>"
            + table(ATTEMPT_COLUMNS, rows, sortable=True, total=len(chosen), css_id="attempts"))


def run_plot(folder: Path, title: str) -> bytes:
    """pass@1 per category of a run, as PNG bytes."""
    buffer = io.BytesIO()
    plots.pass_rate_per_category(buffer, summarize(read_attempts(folder), ks=(1,)), title)
    return buffer.getvalue()


def delivery_page(folder: Path, prefix: str) -> str:
    report = (folder / "report.md").read_text(encoding="utf-8") if (folder / "report.md").is_file() else ""
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    html = renderer.render(report)
    # Images in the report are files of the delivery; serve them from the files route.
    html = html.replace('src="', f'src="{prefix}/files/')
    sections = [link(f"{prefix}/split", "split"), link(f"{prefix}/calibration", "calibration table"),
                link(f"{prefix}/card", "dataset card")]
    return f"<p>{' | '.join(sections)}</p>{html}"


def card_page(folder: Path) -> str:
    path = folder / "dataset_card.md"
    text = path.read_text(encoding="utf-8") if path.is_file() else "(no dataset_card.md)"
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def split_page(folder: Path, prefix: str) -> str:
    parts = []
    for side in ("tasks", "heldout"):
        ids = sorted(p.name for p in (folder / side).iterdir() if (p / "task.yaml").is_file()) \
            if (folder / side).is_dir() else []
        rows = [[link(f"{prefix}/task/{side}/{t}", t)] for t in ids]
        parts.append(f"<h2>{'training' if side == 'tasks' else 'held out'} ({len(ids)})</h2>" + table(["task"], rows))
    return "".join(parts)


def calibration_page(folder: Path) -> str:
    path = folder / "calibration.json"
    if not path.is_file():
        return "<p>No calibration.json in this folder.</p>"
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = [[esc(t), esc(v.get("decision")), esc(v.get("category")), esc(v.get("n")),
             esc("-" if v.get("pass_rate") is None else f"{v['pass_rate']:.2f}"), esc(", ".join(v.get("flags") or [])),
             esc("; ".join(v.get("reasons") or []))] for t, v in sorted(data.get("tasks", {}).items())]
    counts = ", ".join(f"{k} {v}" for k, v in (data.get("counts") or {}).items())
    return f"<p>{esc(counts)}</p>" + table(["task", "decision", "category", "n", "pass rate", "flags", "reasons"], rows,
                                           sortable=True, css_id="calibration")
