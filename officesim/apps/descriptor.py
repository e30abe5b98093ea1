"""What an app declares about itself, once: the one place the rest of officesim reads.

An app package (``officesim/apps/<name>/``) defines ``APP = AppDescriptor(...)`` in its
``__init__.py``.  Everything that used to keep its own list of apps derives from the registered
descriptors: the table prefixes of the world schema, the id prefixes setup writes, the generator
order, the size knobs of the world spec, the read tools a task of the app allows and the writes
that hack probes reach for.  Adding an app is one package and one line in ``officesim/apps``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from officesim.worldgen import GenContext


@dataclass(frozen=True)
class SizeKnob:
    """One size field of the world spec (``size.<name>``), with its default and bounds."""

    default: int
    description: str
    ge: int = 0
    le: int | None = None


@dataclass(frozen=True)
class AppDescriptor:
    """One app: its name, tables, generator, size knobs and the tools tasks use.

    Attributes:
        name: The app's name: its tables are ``<name>_*`` and its tools ``<name>_<verb>[_<noun>]``.
        package: The Python package holding ``models.py``, ``tools.py`` and ``generate.py``.
        id_prefixes: Table -> prefix of the ids written in it (``'mail_message': 'msg'``).
        after: Apps whose generated data this app's generator reads (it runs after them).
        size: Size knobs of the world spec this app's generator reads.
        reads: The read tools a task involving this app allows.
        distractor_writes: Writes that careless agents and hack probes reach for.
    """

    name: str
    package: str
    id_prefixes: Mapping[str, str]
    after: tuple[str, ...] = ()
    size: Mapping[str, SizeKnob] = field(default_factory=dict)
    reads: tuple[str, ...] = ()
    distractor_writes: tuple[str, ...] = ()

    @property
    def table_prefix(self) -> str:
        return f"{self.name}_"

    def module(self, role: str) -> ModuleType:
        """The app's ``models``, ``tools`` or ``generate`` module (imported on first use)."""
        return importlib.import_module(f"{self.package}.{role}")

    @property
    def generate(self) -> Callable[[GenContext], Any]:
        """The app's world generator, ``generate(ctx)``."""
        func: Callable[[GenContext], Any] = self.module("generate").generate
        return func
