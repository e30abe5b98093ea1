"""World generation: a spec and a seed become a coherent company across every app.

Apps generate in dependency order (each app's descriptor names the apps it reads) so later apps
can refer to what earlier ones made: mail about CRM deals, chat threads that link Drive docs.  Every random
draw comes from ``ctx.rng(label)`` / ``ctx.faker(label)``, derived from the seed with a stable
hash.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faker import Faker

from officesim.apps.registry import apps
from officesim.seeding import faker_for, rng_for
from officesim.spec import WorldSpec

if TYPE_CHECKING:
    from officesim.world import World


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


def populate(world: World, spec: WorldSpec, seed: int) -> None:
    """Fill an empty world with every app's generated data, in one transaction."""
    ctx = GenContext(world=world, spec=spec, seed=seed)
    world.db.execute("BEGIN")
    try:
        for app in apps():  # in registration order, which puts every app after those it reads
            app.generate(ctx)
    except BaseException:
        world.db.execute("ROLLBACK")  # never leave a half-generated world behind an open transaction
        raise
    world.db.execute("COMMIT")
    world.reload_meta()
