"""The replay/play worker's process pool: a child that dies ends the run with an error, never a hang."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import pytest

from officesim.toolapi import worker


def _echo(item: dict[str, Any]) -> dict[str, Any]:
    return {"key": item["key"], "pid_differs": os.getpid() != item["parent"]}


def _dies_on_three(item: dict[str, Any]) -> dict[str, Any]:
    if item["key"] == 3:
        os._exit(9)  # as a child killed for memory or crashed in native code
    return {"key": item["key"]}


def _run(handler: Any, items: list[dict[str, Any]], workers: int) -> tuple[int | None, list[dict[str, Any]]]:
    """``run_items`` in a thread, given 60 s: (its exit status, or None when it hung; the lines written)."""
    out: list[str] = []
    status: list[int] = []
    writer = worker.sys.stdout

    class Lines:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    worker.sys.stdout = Lines()
    try:
        thread = threading.Thread(target=lambda: status.append(worker.run_items(handler, items, workers)), daemon=True)
        thread.start()
        thread.join(60)
    finally:
        worker.sys.stdout = writer
    lines = [json.loads(line) for line in "".join(out).splitlines() if line.strip()]
    return (status[0] if status else None), lines


def test_outputs_come_in_input_order_from_the_children() -> None:
    items = [{"key": i, "parent": os.getpid()} for i in range(40)]
    status, lines = _run(_echo, items, 2)
    assert status == 0
    assert [line["key"] for line in lines] == list(range(40))
    assert all(line["pid_differs"] for line in lines)


def test_a_child_that_dies_ends_the_run_with_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    items = [{"key": i} for i in range(12)]
    status, _ = _run(_dies_on_three, items, 2)
    assert status == 1, "the run must end (not hang) and fail when a worker process dies"
    assert "a worker process died" in capsys.readouterr().err
