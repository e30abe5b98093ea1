"""officesim: a seeded simulated office (mail, drive, chat, CRM) where LLM agents work and are scored."""

from officesim.world import World, WorldDiff

__all__ = ["World", "WorldDiff"]
__version__ = "0.1.0"
