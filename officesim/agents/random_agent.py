"""``RandomAgent``: valid but aimless tool calls, a weak baseline and a fuzzer for the tool layer.

Every call it makes validates against its tool's JSON Schema, so what it exercises is the
world's behaviour on *legal* input (unknown ids, odd strings, boundary numbers), not the
argument parser.  It reuses strings seen in earlier results (ids, emails, names) half the time,
so it reaches real objects and sometimes changes them: a baseline that a task's grader should
score low, and a probe for tasks that pass by accident.
"""

from __future__ import annotations

import random
import string
from typing import Any

from officesim.seeding import derive_seed

WORDS = ("report", "invoice", "q3", "budget", "meeting", "travel", "contract", "update", "renewal",
         "draft", "hello", "urgent", "deal", "customer", "plan")
MAX_POOL = 500


def _collect_strings(value: Any, pool: list[str]) -> None:
    """Every short string in a JSON result (ids, emails, names) into ``pool``."""
    if isinstance(value, str):
        if 0 < len(value) <= 80 and value not in pool:
            pool.append(value)
            del pool[:-MAX_POOL]
    elif isinstance(value, dict):
        for item in value.values():
            _collect_strings(item, pool)
    elif isinstance(value, list):
        for item in value:
            _collect_strings(item, pool)


class SchemaSampler:
    """Draws JSON values that validate against a (strict, tool-sized) JSON Schema."""

    def __init__(self, rng: random.Random, pool: list[str]) -> None:
        self.rng = rng
        self.pool = pool

    def value(self, schema: dict[str, Any], depth: int = 0) -> Any:
        """A random value valid under ``schema``."""
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        if "const" in schema:
            return schema["const"]
        if "anyOf" in schema or "oneOf" in schema:
            return self.value(self.rng.choice(schema.get("anyOf") or schema["oneOf"]), depth)
        kind = schema.get("type", "string")
        if isinstance(kind, list):
            # Optional parameters are nullable: leave them out (null) most of the time.
            concrete = [k for k in kind if k != "null"]
            if "null" in kind and (not concrete or self.rng.random() < 0.6):
                return None
            kind = self.rng.choice(concrete)
        return self._typed(kind, schema, depth)

    def _typed(self, kind: str, schema: dict[str, Any], depth: int) -> Any:
        if kind == "null":
            return None
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "integer":
            low = int(schema.get("minimum", 0))
            high = int(schema.get("maximum", max(low, 0) + 20))
            return self.rng.randint(low, high)
        if kind == "number":
            lowest = float(schema.get("minimum", 0.0))
            highest = float(schema.get("maximum", lowest + 1000.0))
            return round(self.rng.uniform(lowest, highest), 2)
        if kind == "array":
            low = int(schema.get("minItems", 0))
            high = int(schema.get("maxItems", low + 3))
            items = schema.get("items", {"type": "string"})
            return [self.value(items, depth + 1) for _ in range(self.rng.randint(low, high))]
        if kind == "object":
            properties = schema.get("properties", {})
            required = set(schema.get("required", []))
            return {name: self.value(sub, depth + 1) for name, sub in properties.items()
                    if name in required or self.rng.random() < 0.5}
        return self._string(schema)

    def _string(self, schema: dict[str, Any]) -> str:
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", 200))
        if self.pool and self.rng.random() < 0.5:
            candidate = self.rng.choice(self.pool)
            if low <= len(candidate) <= high and "pattern" not in schema:
                return candidate
        if "pattern" in schema:
            return ""  # patterns are rare in tool schemas; an empty string is the honest fallback
        text = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(1, 3)))
        if self.rng.random() < 0.2:
            text += "".join(self.rng.choice(string.ascii_lowercase) for _ in range(4))
        text = text[:high]
        return text + "x" * max(0, low - len(text))


class RandomAgent:
    """Calls random allowed tools with schema-valid arguments, then submits.

    Args:
        seed: mixed with the episode seed, so attempts differ and each is reproducible.
        min_steps: the fewest tool calls before ``submit``.
        max_steps: the most (also bounded by the task's step budget).
    """

    name = "random"

    def __init__(self, seed: int = 0, *, min_steps: int = 1, max_steps: int = 12) -> None:
        self.seed = seed
        self.min_steps = min_steps
        self.max_steps = max_steps
        self._reset_state(0, [], 1)

    def _reset_state(self, episode_seed: int, tools: list[dict[str, Any]], budget: int) -> None:
        self.rng = random.Random(derive_seed(self.seed, "random-agent", episode_seed))
        self.pool: list[str] = []
        self.sampler = SchemaSampler(self.rng, self.pool)
        self.tools = [t["function"] for t in tools if t.get("function", {}).get("name") != "submit"]
        low = min(self.min_steps, budget)
        self.planned = self.rng.randint(low, max(low, min(self.max_steps, budget)))
        self.taken = 0

    def reset(self, obs: dict[str, Any], *, seed: int) -> None:
        """Pick how many calls this episode gets (leaving one step for ``submit``)."""
        budget = int(obs.get("max_steps") or self.max_steps + 1) - 1
        self._reset_state(seed, list(obs.get("tools") or []), max(0, budget))

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        """A random schema-valid call, or ``submit`` once the planned calls are made."""
        if obs.get("result") is not None:
            _collect_strings(obs["result"], self.pool)
        steps_left = obs.get("steps_left")
        if not self.tools or self.taken >= self.planned or (steps_left is not None and steps_left <= 1):
            answer = self.rng.choice(self.pool) if self.pool and self.rng.random() < 0.5 else None
            return {"name": "submit", "arguments": {"answer": answer}}
        self.taken += 1
        function = self.rng.choice(self.tools)
        arguments = self.sampler.value(function.get("parameters", {"type": "object", "properties": {}}))
        return {"name": function["name"], "arguments": arguments}
