"""drive data generation (to be written)."""

from __future__ import annotations

from typing import Any


def generate(ctx: Any) -> None:
    """Placeholder until the app lands."""
