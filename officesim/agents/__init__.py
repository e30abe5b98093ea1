"""Agents that play episodes: built-in (oracle, null, random, hack probes) and ``openai``."""
