"""HTML building blocks for the viewer: one page layout, escaped tables, bounded lists.

Everything the viewer shows passes through ``esc`` (world data and transcripts are untrusted
text).  Tables get a ``sortable`` class; a few lines of inline script sort them on a header click.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any
from urllib.parse import urlencode

PAGE_LIMIT = 200  # rows shown per table; pages say when more exist

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;color:#222}
header{background:#243b53;color:#fff;padding:.5em 1em}header a{color:#fff;margin-right:1em}
main{padding:1em 1.5em;max-width:1200px}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{border:1px solid #ccd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#eef2f7}table.sortable th{cursor:pointer}
pre{background:#f6f8fa;padding:.5em;overflow-x:auto;white-space:pre-wrap;max-height:30em}
.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}
.error,.unjudged{color:#9a6700;font-weight:bold}.muted{color:#667}
nav.steps a{margin-right:.3em}.current{font-weight:bold;text-decoration:underline}
form{margin:.5em 0}img{max-width:100%}
"""

SCRIPT = """
document.querySelectorAll('table.sortable th').forEach(function(th, col){
  th.addEventListener('click', function(){
    var body = th.closest('table').tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var up = th.dataset.dir !== 'asc'; th.dataset.dir = up ? 'asc' : 'desc';
    rows.sort(function(a, b){
      var x = a.cells[col].dataset.v || a.cells[col].textContent;
      var y = b.cells[col].dataset.v || b.cells[col].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return up ? c : -c;
    });
    rows.forEach(function(r){ body.appendChild(r); });
  });
});
"""


def esc(value: Any) -> str:
    """Any value as escaped text (None as an empty string)."""
    return "" if value is None else escape(str(value))


def link(href: str, text: Any, **params: Any) -> str:
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f'<a href="{esc(href)}{"?" + esc(query) if query else ""}">{esc(text)}</a>'


def page(title: str, body: str, nav: Sequence[tuple[str, str]] = ()) -> str:
    """A whole page: header links, title, body (already HTML)."""
    links = "".join(f'<a href="{esc(h)}">{esc(t)}</a>' for h, t in nav)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)} - officesim</title>"
            f"<link rel='icon' href='data:,'><style>{STYLE}</style></head><body>"
            f"<header><strong>officesim view</strong> &nbsp; {links}</header><main><h1>{esc(title)}</h1>{body}"
            f"</main><script>{SCRIPT}</script></body></html>")


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], *, sortable: bool = False, total: int | None = None,
          raw: bool = True, css_id: str | None = None) -> str:
    """A table of cells (HTML when ``raw``, else escaped), at most ``PAGE_LIMIT`` rows, saying when cut."""
    rows = list(rows)
    shown = rows[:PAGE_LIMIT]
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else esc(c)}</td>" for c in row) + "</tr>" for row in shown)
    count = total if total is not None else len(rows)
    note = (f"<p class='muted'>showing {len(shown)} of {count} rows</p>" if count > len(shown) else "")
    ident = f" id='{esc(css_id)}'" if css_id else ""
    return (f"<table{ident} class='{'sortable' if sortable else ''}'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>{note}")


def pre(value: Any, limit: int = 20_000) -> str:
    """JSON (or text) in a <pre>, cut at ``limit`` characters with a marker."""
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters)"
    return f"<pre>{esc(text)}</pre>"


def status(value: Any) -> str:
    """A pass/fail/error/unjudged word, coloured."""
    word = esc(value)
    return f"<span class='{word}'>{word}</span>"


def search_form(action: str, query: str | None, placeholder: str = "search") -> str:
    return (f"<form action='{esc(action)}' method='get'><input name='q' value='{esc(query or '')}' "
            f"placeholder='{esc(placeholder)}'> <button type='submit'>search</button></form>")
