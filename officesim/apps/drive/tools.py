"""drive tools (to be written)."""
