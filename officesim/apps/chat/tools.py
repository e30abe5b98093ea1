"""chat tools (to be written)."""
