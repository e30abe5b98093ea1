"""crm tools (to be written)."""
