"""Fuzz every registered tool from its own schema on the tiny world (issue 7, item 4).

Each example restores the tiny world, makes a few calls to other tools (so that tools meet states
other than the generated one) and then calls the tool under test.  Every call must come back as a
dict (no exception escapes ``World.call``), as strict JSON (no NaN), within a size bound, and a
call that fails must leave the world exactly as it was.

``OFFICESIM_FUZZ_EXAMPLES`` (default 12 per tool, ~2,000 calls, well under a minute) sets the
volume; e.g. ``OFFICESIM_FUZZ_EXAMPLES=500 python3 -m pytest tests/test_fuzz_tools.py`` for a
long local run.  Run with ``-s`` to see the totals.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officesim import World
from officesim.errors import MAX_MESSAGE
from officesim.testing.fuzz import pools_from, raw_arguments_of
from officesim.tools import registry

TOOLS = registry()
EXAMPLES = int(os.environ.get("OFFICESIM_FUZZ_EXAMPLES", "12"))
MAX_RESULT_CHARS = 256_000  # the largest legitimate result (a long thread) is well under this
STATS = {"calls": 0, "errors": 0, "seconds": 0.0, "tools": set()}


@pytest.fixture(scope="module")
def world(tiny_snapshot: bytes) -> World:
    """One world for the module, reset in place before every example."""
    return World.restore(tiny_snapshot)


@pytest.fixture(scope="module")
def pools(world: World) -> dict[str, list[Any]]:
    return pools_from(world)


def _meta(world: World) -> list[tuple[str, str]]:
    return [tuple(r) for r in world.db.execute("SELECT key, value FROM _meta ORDER BY key")]


def _checked_call(world: World, name: str, arguments: Any) -> dict[str, Any]:
    # Unchanged means what state_hash() compares (every app table, and the meta table with the
    # clock and id counters); the change log answers for the app tables in microseconds, where
    # hashing the whole world per call would take most of the test's time.
    world.clear_change_log()
    meta = _meta(world)
    start = time.perf_counter()
    result = world.call(name, arguments)
    STATS["seconds"] += time.perf_counter() - start
    STATS["calls"] += 1
    STATS["tools"].add(name)
    assert isinstance(result, dict), result
    text = json.dumps(result, allow_nan=False)  # strict JSON: no NaN or Infinity reaches a model
    assert len(text) <= MAX_RESULT_CHARS, f"{name} returned {len(text)} characters"
    if "error" in result:
        STATS["errors"] += 1
        assert set(result["error"]) == {"type", "message"} and result["error"]["message"]
        assert len(result["error"]["message"]) <= MAX_MESSAGE + 60
        assert world.changed_keys() == {} and _meta(world) == meta, (
            f"{name} failed ({result['error']}) but changed the world")
    return result


_PRELUDE = st.lists(st.sampled_from(sorted(TOOLS)), max_size=2)


@pytest.mark.parametrize("name", sorted(TOOLS))
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_no_call_escapes_is_unbounded_or_fails_with_a_trace(
    world: World, tiny_snapshot: bytes, pools: dict[str, list[Any]], name: str, data: st.DataObject
) -> None:
    world.reset(tiny_snapshot)
    for other in data.draw(_PRELUDE, label="prelude"):
        _checked_call(world, other, data.draw(raw_arguments_of(TOOLS[other].parameters, pools), label=other))
    before = world.state_hash()
    result = _checked_call(world, name, data.draw(raw_arguments_of(TOOLS[name].parameters, pools), label=name))
    if "error" in result and data.draw(st.integers(0, 3), label="full check") == 0:
        assert world.state_hash() == before  # the full check, row for row, on a quarter of the examples


def test_fuzz_volume_is_reported() -> None:
    """Prints the totals of the fuzz run above (pytest -s shows them); runs last in this module."""
    if STATS["calls"]:
        print(f"\nfuzz: {STATS['calls']} calls ({STATS['errors']} errors) over {len(STATS['tools'])} tools "
              f"in {STATS['seconds']:.1f} s of tool time")
        assert set(STATS["tools"]) <= set(TOOLS)
        if os.environ.get("PYTEST_XDIST_WORKER") is None:  # under xdist each worker fuzzes only some tools
            assert len(STATS["tools"]) == len(TOOLS)
