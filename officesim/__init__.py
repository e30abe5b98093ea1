"""officesim: a seeded simulated office (mail, drive, chat, CRM) where LLM agents work and are scored."""

from officesim.env import OfficeEnv
from officesim.task import load_task
from officesim.world import World, WorldDiff

__all__ = ["OfficeEnv", "World", "WorldDiff", "load_task"]
__version__ = "0.1.0"
