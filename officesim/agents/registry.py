"""``make_agent(name, **options)``: build any agent by name (for the CLI, the runner and calibration).

Names: ``oracle`` (plays the task's reference solution), ``null`` (submits at once), ``random``,
``openai`` (needs ``model``), and ``probe:<name>`` for each hack probe (``probe:spam_everyone``...).
Agents that need the task (the oracle) receive it as ``task=``; the others ignore it.
"""

from __future__ import annotations

import difflib
import inspect
import os
from collections.abc import Callable
from typing import Any

from officesim.agents.base import Agent
from officesim.agents.random_agent import RandomAgent
from officesim.agents.scripted import PROBES, NullAgent, OracleAgent
from officesim.errors import OfficesimError

PROBE_PREFIX = "probe:"


class UnknownAgent(OfficesimError):
    """No agent has that name."""


def probe_names() -> list[str]:
    """``probe:<name>`` for every hack probe."""
    return [f"{PROBE_PREFIX}{probe.name}" for probe in PROBES]


def agent_names() -> list[str]:
    """Every name ``make_agent`` accepts."""
    return ["oracle", "null", "random", "openai", *probe_names()]


def _openai_agent() -> Callable[..., Agent]:
    """The openai agent's class, imported on first use: importing ``openai`` alone takes ~0.5 s,
    which every CLI command and runner worker would otherwise pay without needing it."""
    from officesim.agents.openai_agent import OpenAIAgent

    return OpenAIAgent


def _factories() -> dict[str, Callable[..., Agent]]:
    factories: dict[str, Callable[..., Agent]] = {"oracle": OracleAgent, "null": NullAgent, "random": RandomAgent}
    factories.update({f"{PROBE_PREFIX}{probe.name}": probe for probe in PROBES})
    return factories


def _call(factory: Callable[..., Agent], options: dict[str, Any]) -> Agent:
    """Call ``factory`` with the options it accepts (``task`` and ``seed`` only when it takes them)."""
    params = inspect.signature(factory).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return factory(**options)
    return factory(**{k: v for k, v in options.items() if k in params})


def _factory(name: str) -> Callable[..., Agent]:
    if name == "openai":
        return _openai_agent()
    factories = _factories()
    factory = factories.get(name)
    if factory is None:
        close = difflib.get_close_matches(name, agent_names(), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownAgent(f"no agent named {name!r}.{hint} Known agents: {', '.join(agent_names())}")
    return factory


def check_agent(name: str, options: dict[str, Any]) -> None:
    """Fail early (before any episode) on an unknown agent, a missing model or an unknown option."""
    factory = _factory(name)
    if name == "openai" and not options.get("model"):
        raise OfficesimError("the openai agent needs a model (--model NAME)")
    if name == "openai" and not (options.get("base_url") or options.get("api_key") or os.environ.get("OPENAI_API_KEY")):
        raise OfficesimError("the openai agent needs OPENAI_API_KEY for OpenAI, or --base-url for a local endpoint")
    params = inspect.signature(factory).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    unknown = sorted(set(options) - set(params) - {"task", "seed"})
    if unknown:
        raise OfficesimError(f"agent {name!r} has no option {', '.join(map(repr, unknown))} "
                             f"(its options: {', '.join(p for p in params if p != 'self') or 'none'})")


def check_endpoint(name: str, options: dict[str, Any]) -> None:
    """Once per run: an agent that calls a model endpoint must find it alive (see ``probe_endpoint``)."""
    if name == "openai":
        from officesim.agents.openai_agent import probe_endpoint  # lazy: importing openai costs ~0.5 s

        probe_endpoint(**options)


def make_agent(name: str, **options: Any) -> Agent:
    """Build the agent called ``name``.

    Args:
        name: one of ``agent_names()``.
        **options: the agent's options (e.g. ``model``, ``base_url`` for openai; ``seed`` for
            random); ``task`` is passed to agents that need the task (the oracle).
    """
    options = {k: v for k, v in options.items() if v is not None}
    check_agent(name, {k: v for k, v in options.items() if k != "task"})
    return _call(_factory(name), options)
