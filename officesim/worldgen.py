"""World generation: a spec and a seed become a coherent company across every app.

Apps generate in dependency order (each app's descriptor names the apps it reads) so later apps
can refer to what earlier ones made: mail about CRM deals, chat threads that link Drive docs.  Every random
draw comes from ``ctx.rng(label)`` / ``ctx.faker(label)``, derived from the seed with a stable
hash.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faker import Faker

from officesim.apps.money import money
from officesim.apps.registry import apps
from officesim.industries import Industry, Locale, industry, locale
from officesim.seeding import faker_for, rng_for
from officesim.world_spec import WorldSpec

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
    dept_kind: dict[str, str] = field(default_factory=dict)  # department id -> kind ('Sales', ...)

    @property
    def industry(self) -> Industry:
        """The spec's industry profile (what the company's content is about)."""
        return industry(self.spec.industry)

    @property
    def locale(self) -> Locale:
        """The spec's locale profile (holidays, phones, customers' cities)."""
        return locale(self.spec.locale)

    def department_kind(self, department: dict[str, Any]) -> str:
        """The canonical kind of a department row ('Sales' for a law firm's 'Business Development')."""
        return self.dept_kind.get(department["id"], department["name"])

    def department_named(self, kind: str) -> dict[str, Any] | None:
        """The department of ``kind``, if the world has one."""
        return next((d for d in self.departments if self.department_kind(d) == kind), None)

    def cities(self, default: tuple[str, ...]) -> tuple[str, ...]:
        """Cities people travel to and meet in: the offices' and customers' (``default`` for the classic
        worlds, which name no offices)."""
        if self.spec.offices is None:
            return default
        customers = (city for city, *_ in self.locale.customer_cities or ())
        return tuple(dict.fromkeys([*(office.city for office in self.spec.offices), *customers]))

    def money(self, amount: float, currency: str | None = None, **options: Any) -> str:
        """``amount`` written the world's way (``officesim.apps.money``), in the home currency by default."""
        return money(amount, currency or self.spec.currency, locale=self.spec.locale, **options)

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


def populate(world: World, spec: WorldSpec, seed: int, *, on_stage: StageCallback | None = None) -> None:
    """Fill an empty world with every app's generated data, in one transaction.

    ``on_stage`` hears of each app before it generates (``officesim world build`` shows progress
    with it); it never changes what is generated.
    """
    ctx = GenContext(world=world, spec=spec, seed=seed)
    world.db.execute("BEGIN")
    try:
        ordered = apps()  # in registration order, which puts every app after those it reads
        for index, app in enumerate(ordered):
            if on_stage is not None:
                on_stage(app.name, index, len(ordered))
            app.generate(ctx)
    except BaseException:
        world.db.execute("ROLLBACK")  # never leave a half-generated world behind an open transaction
        raise
    world.db.execute("COMMIT")
    world.reload_meta()
