"""World generation: a spec and a seed become a coherent company across every app.

Apps generate in dependency order (directory, crm, drive, chat, mail) so later apps can refer to
what earlier ones made: mail about CRM deals, chat threads that link Drive docs.  Every random
draw comes from ``ctx.rng(label)`` / ``ctx.faker(label)``, derived from the seed with a stable
hash.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faker import Faker

from officesim.apps.chat import generate as chat_generate
from officesim.apps.crm import generate as crm_generate
from officesim.apps.directory import generate as directory_generate
from officesim.apps.drive import generate as drive_generate
from officesim.apps.mail import generate as mail_generate
from officesim.seeding import faker_for, rng_for
from officesim.spec import WorldSpec

if TYPE_CHECKING:
    from officesim.world import World

GENERATORS = (directory_generate, crm_generate, drive_generate, chat_generate, mail_generate)


@dataclass
class GenContext:
    """What an app generator gets: the world being filled, the spec, and seeded randomness."""

    world: World
    spec: WorldSpec
    seed: int
    # Filled by the directory generator, read by the others.
    people: list[dict[str, Any]] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)  # role key -> person id
    departments: list[dict[str, Any]] = field(default_factory=list)

    def rng(self, *labels: object) -> random.Random:
        return rng_for(self.seed, *labels)

    def faker(self, *labels: object) -> Faker:
        return faker_for(self.seed, self.spec.locale, *labels)

    def insert(self, table: str, rows: Iterable[dict[str, Any]]) -> int:
        """Insert rows (dicts with the same keys) into ``table``; returns how many."""
        rows = list(rows)
        if not rows:
            return 0
        columns = list(rows[0])
        quoted = ", ".join(f'"{c}"' for c in columns)  # quoted: mail_message has a column named "to"
        sql = f"INSERT INTO {table} ({quoted}) VALUES ({', '.join('?' * len(columns))})"
        self.world.db.executemany(sql, [tuple(r[c] for c in columns) for r in rows])
        return len(rows)

    def set_counter(self, prefix: str, value: int) -> None:
        """Record that ids ``prefix_1..prefix_value`` are taken, so tools continue after them."""
        self.world.set_meta(f"seq:{prefix}", str(value))


# Called before each app generates: (app name, index from 0, number of apps).
StageCallback = Callable[[str, int, int], None]


def app_name(generator: object) -> str:
    """``mail`` for ``officesim.apps.mail.generate``."""
    return str(getattr(generator, "__name__", generator)).split(".")[-2]


def populate(world: World, spec: WorldSpec, seed: int, *, on_stage: StageCallback | None = None) -> None:
    """Fill an empty world with every app's generated data, in one transaction.

    ``on_stage`` hears of each app before it generates (``officesim world build`` shows progress
    with it); it never changes what is generated.
    """
    ctx = GenContext(world=world, spec=spec, seed=seed)
    world.db.execute("BEGIN")
    try:
        for index, generator in enumerate(GENERATORS):
            if on_stage is not None:
                on_stage(app_name(generator), index, len(GENERATORS))
            generator.generate(ctx)
    except BaseException:
        world.db.execute("ROLLBACK")  # never leave a half-generated world behind an open transaction
        raise
    world.db.execute("COMMIT")
    world.reload_meta()
