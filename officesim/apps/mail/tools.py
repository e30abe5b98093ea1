"""mail tools (to be written)."""
