"""officesim: a seeded simulated office (mail, drive, chat, CRM) where LLM agents work and are scored.

The public names are imported on first use (PEP 562), so ``import officesim`` costs nothing and
the CLI answers ``--help`` at once: ``officesim.World`` brings in the world and its tools,
``officesim.OfficeEnv`` the episode and grading as well, ``officesim.TaskSampler`` the task
families, and nothing here imports the pipeline
(runner, agents, servers, reports).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from officesim.env import OfficeEnv
    from officesim.sampler import TaskSampler
    from officesim.task import load_task
    from officesim.world import World, WorldDiff

__all__ = ["OfficeEnv", "TaskSampler", "World", "WorldDiff", "load_task"]
__version__ = "0.1.0"

_LAZY = {"OfficeEnv": "officesim.env", "World": "officesim.world", "WorldDiff": "officesim.world",
         "load_task": "officesim.task", "TaskSampler": "officesim.sampler"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'officesim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
