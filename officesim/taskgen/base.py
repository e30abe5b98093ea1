"""The family contract: a generator that turns (a world, index, seeded rng) into one task.

A family plants the facts its task needs through a ``Stage`` (every step runs live on the world
and is recorded as a ``setup`` step, so later steps can use the ids earlier ones created), then
returns a ``Draft``: the instruction, the allowed tools, the grader and a ``solve`` function.
``solve`` plays the reference solution through a ``Solver`` against the world after setup; the
writer records the calls with their literal ids and refuses to write a task whose oracle does not
score 1.0.  Everything random comes from the rng handed in, so the same code writes the same bytes.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from officesim.apps.money import money as format_money
from officesim.colleagues import Colleague, Office, TimedEvent
from officesim.env import tool_exchange, transcript_json
from officesim.errors import OfficesimError
from officesim.grading.spec_base import CheckBase
from officesim.taskgen.factsheet import FactSheet
from officesim.toolexport import MAX_WAIT_MINUTES, WAIT

if TYPE_CHECKING:
    from officesim.world import World

Difficulty = Literal["easy", "medium", "hard"]
# A grader check as a family writes it: a check model from ``officesim.grading`` (validated when it
# is built, so a wrong field fails in the family, not in a test of the written file) or, for the
# families not yet moved to models, the same check as a plain mapping.
CheckItem = CheckBase | dict[str, Any]
StepRunner = Callable[["World", dict[str, Any]], Any]


class GenerationError(OfficesimError):
    """A family produced a task that cannot be written (a setup call failed, the oracle fails)."""


class WorldLacks(GenerationError):
    """The world lacks what a family needs (a role, a kind of account, a row it looks up).

    Not a bug in the family: it is skipped for that world, and the reason is reported.  Raised by
    ``Family.requires`` answers and by the stage's lookups (``Stage.one``), so a family's
    assumptions about a world are checked where it makes them.
    """


@dataclass
class Draft:
    """One task instance as its family built it, before the writer verifies and renders it.

    Attributes:
        instruction: What the model reads: a request from a colleague, never a test spec.
        tools: The allowed tool names (reads of the apps involved, the writes the task needs and
            some plausible distractor writes).
        gates: Grader checks that must all hold (any failure scores 0).
        criteria: Grader checks worth points (negative points describe bad behaviour; the writer
            raises every penalty but a judge's to the sum of positive points, so it zeroes the score).
        solve: Plays the reference solution on the world after setup.
        variant: The near-twin group inside the family; instances differing only in surface
            details share it, so the held-out split never separates them.
        max_steps: The step budget of an episode.
        pass_threshold: Score needed to pass, when it is not the default 1.0.
        fixed_points: Ids of penalties whose points a spec fixes (the issue's Q3 travel rubric
            says "-2" for mailing anyone besides the CFO); the writer leaves them as written.
        facts: The scenario's facts (entities, values, wrong readings, sources), written into
            ``grader.yaml`` under ``facts:`` for the ``facts`` checks to read.
        difficulty: This instance's tier when it differs from the family's (a family may build an
            easy tier with convenience filters and a hard one without, more data and unstated traps).
        colleagues: Colleagues who answer the agent's mail and DMs during the episode (scripted
            replies, out-of-office auto-replies), written into ``task.yaml``.
        events: Setup steps that happen during the episode on the simulated clock (a mail at
            +30 minutes retracting an approval), written into ``task.yaml``.
        traps: What a quick reading gets wrong in this instance and the grader catches, one short
            line each ("an older copy of the sheet, superseded", "the leaver's second deal is in
            another region"), written into ``task.yaml`` as hidden metadata.  ``tasks stats``
            counts them and ``tasks validate`` checks that a hard instance declares at least two
            and that the instruction does not name them.
    """

    instruction: str
    tools: Sequence[str]
    gates: Sequence[CheckItem]
    criteria: Sequence[CheckItem]
    solve: Callable[[Solver], None]
    variant: str
    max_steps: int = 30
    pass_threshold: float | None = None
    fixed_points: tuple[str, ...] = ()
    facts: FactSheet | None = None
    difficulty: Difficulty | None = None
    colleagues: Sequence[Colleague] = ()
    events: Sequence[TimedEvent] = ()
    traps: Sequence[str] = ()

    def gate_dicts(self) -> list[dict[str, Any]]:
        """The gates as ``grader.yaml`` holds them."""
        return [check_dict(item) for item in self.gates]

    def criterion_dicts(self) -> list[dict[str, Any]]:
        """The criteria as ``grader.yaml`` holds them."""
        return [check_dict(item) for item in self.criteria]

def check_dict(item: CheckItem) -> dict[str, Any]:
    """A check as ``grader.yaml`` writes it: a model's fields the family set, in the model's order."""
    if not isinstance(item, CheckBase):
        return item
    data = item.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    points = data.get("points")
    if isinstance(points, float) and points.is_integer():
        data["points"] = int(points)  # "points: 2", as people write it
    return data


class Stage:
    """The live world of one instance while its family plants facts; records the setup steps.

    Each step is applied at once through ``run_step`` (the task module's own setup executor), so
    what the generator saw is exactly what a loaded task will rebuild.
    """

    def __init__(self, world: World, run_step: StepRunner) -> None:
        self.world = world
        self.steps: list[dict[str, Any]] = []
        self.acting_user: str | None = None
        self._run_step = run_step

    def act_as(self, ref: str) -> None:
        """Make ``ref`` the employee the agent acts as; only before the first setup step.

        The task loader switches the acting user before it runs setup, so ``user`` in setup steps
        means this person.
        """
        if self.steps:
            raise GenerationError("the acting user must be chosen before any setup step")
        self.acting_user = ref
        self.world.set_user(self.person(ref)["id"])

    # ------------------------------------------------------------------ recorded steps
    def clock(self, moment: str) -> None:
        """Set the simulated clock (ISO UTC); later calls are stamped from there."""
        self._apply({"clock": moment})

    def act(self, who: str, name: str, /, **arguments: Any) -> dict[str, Any]:
        """A tool call made by a named person (a person reference); returns its result.

        A call that comes back as an error means the family is broken, so it raises.
        """
        result = self._apply({"as": who, "call": name, "arguments": arguments})
        if not isinstance(result, dict):
            raise GenerationError(f"setup call {name} returned {result!r}, expected the tool's result")
        if "error" in result:
            raise GenerationError(f"setup call {name}({arguments}) as {who} failed: {result['error']}")
        return result

    def insert(self, table: str, rows: Iterable[dict[str, Any]]) -> list[str]:
        """Write rows directly; returns their ids (assigned by the executor when omitted)."""
        rows = [dict(r) for r in rows]
        before = self._max_rowid(table)
        self._apply({"insert": table, "rows": rows})
        return [r[0] for r in self.world.db.execute(
            f"SELECT id FROM {table} WHERE rowid > ? ORDER BY rowid", (before,))]

    def update(self, table: str, match: dict[str, Any], values: dict[str, Any]) -> None:
        """Change the rows of ``table`` matching ``match``."""
        self._apply({"update": table, "match": match, "set": values})

    # ------------------------------------------------------------------ lookups (not recorded)
    def one(self, sql: str, *params: Any) -> dict[str, Any]:
        """The single row a query must return (a family's assumption about the world)."""
        row = self.world.db.execute(sql, params).fetchone()
        if row is None:
            raise WorldLacks(f"the world has no row for {sql!r} {params!r}")
        return dict(row)

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        """Every row a query returns, as dicts."""
        return [dict(r) for r in self.world.db.execute(sql, params)]

    def person(self, ref: str) -> dict[str, Any]:
        """A directory row by role key (``role:cfo``), id or email."""
        if ref.startswith("role:"):
            return self.one("SELECT * FROM directory_person WHERE role = ?", ref[5:])
        return self.world.person(ref)

    def department(self, kind: str) -> str:
        """This world's name for the department of ``kind`` (one of the canonical kinds: 'Sales', 'Finance', ...).

        Families name departments by kind so they run on every world: a law firm may call its Sales
        department 'Business Development'.  The directory generator records the names it used in the
        ``department_names`` meta entry (kind -> name); worlds without it use the kinds themselves.
        """
        names = json.loads(self.world.meta("department_names") or "{}")
        return str(names.get(kind, kind))

    def money(self, amount: float, *, cents: bool = True) -> str:
        """An amount in this world's currency and locale, as colleagues write it (``$12,450.00``).

        ``cents=False`` rounds to whole units (``$48,000``).  Families use this rather than the
        module-level ``money`` so that a GBP or INR world reads naturally.
        """
        currency = self.world.meta("currency") or "USD"
        locale = self.world.meta("locale") or "en_US"
        return format_money(amount, currency, locale=locale, cents=cents)

    def _max_rowid(self, table: str) -> int:
        return int(self.world.db.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0])

    def _apply(self, step: dict[str, Any]) -> Any:
        self.steps.append(step)
        return self._run_step(self.world, step)


@dataclass
class Solver:
    """Plays a reference solution on the world after setup and records it as literal calls.

    With ``office`` (the task's colleagues and timed events) time moves as in an episode: every
    call costs a step of simulated time and ``wait`` lets more pass, so colleagues answer and
    events happen exactly as they will for an agent (the same ``Office`` the env runs).
    """

    world: World
    allowed: frozenset[str]
    steps: list[dict[str, Any]] = field(default_factory=list)
    answer: str | None = None
    office: Office | None = None
    # the calls and their results as an episode's transcript records them (OpenAI chat messages), so
    # that the writer grades the reference with it: checks that read the transcript (what was read
    # before a write, what a tool result showed) are verified too
    transcript: list[dict[str, Any]] = field(default_factory=list)

    def call(self, name: str, /, **arguments: Any) -> dict[str, Any]:
        """Run one allowed tool as the acting user; an error result means the solution is wrong."""
        if name not in self.allowed:
            raise GenerationError(f"the solution calls {name}, which the task does not allow")
        result = self.world.call(name, arguments)
        if "error" in result:
            raise GenerationError(f"solution step {name}({arguments}) failed: {result['error']}")
        self.steps.append({"name": name, "arguments": arguments})
        call_id = f"call_{len(self.steps)}"
        self.transcript += tool_exchange(call_id, name, transcript_json(arguments), transcript_json(result))
        if self.office is not None:
            self.office.after_step(self.world)
        return result

    def wait(self, minutes: int) -> None:
        """The built-in ``wait``: let ``minutes`` of simulated time pass (colleagues answer, events happen)."""
        if self.office is None:
            raise GenerationError("the solution waits, but the task has no colleagues or timed events")
        if not 1 <= minutes <= MAX_WAIT_MINUTES:
            raise GenerationError(f"the solution waits {minutes} minutes; wait takes 1 to {MAX_WAIT_MINUTES}")
        self.steps.append({"name": WAIT, "arguments": {"minutes": minutes}})
        self.office.after_step(self.world, minutes=minutes)

    def submit(self, answer: str | None) -> None:
        """The final answer handed to ``submit``."""
        self.answer = answer


class Family(ABC):
    """A task family: a deterministic generator of near-related task instances.

    Subclasses set the class attributes and implement ``build``.  ``variants`` name the near-twin
    groups; ``variant_for`` spreads instances over them so every group holds several instances.
    """

    name: ClassVar[str]
    category: ClassVar[str]
    difficulty: ClassVar[Difficulty]
    apps: ClassVar[tuple[str, ...]]
    variants: ClassVar[tuple[str, ...]]
    # What the family tests, from the vocabulary in ``taskgen/skills.py`` (a test checks the names).
    skills: ClassVar[tuple[str, ...]] = ()
    count: ClassVar[int] = 14
    # The worlds the shipped library holds instances on (spec names; acme first), and how many
    # instances each world other than acme gets (acme gets ``count``).  Ids on acme are
    # ``<slug>-NNN``; on another world ``<slug>-<world>-NNN``.
    worlds: ClassVar[tuple[str, ...]] = ("acme",)
    count_per_world: ClassVar[int] = 5
    # 2: penalties weigh all positive points; answers, phones and names checked as people write them
    version: ClassVar[int] = 2

    @property
    def slug(self) -> str:
        """The id prefix of the family's tasks (``travel-expense-report``)."""
        return self.name.replace("_", "-")

    def task_id(self, index: int, world: str | None = None) -> str:
        """The id (and folder name) of instance ``index`` (0-based): ``<slug>-001`` on acme,
        ``<slug>-<world>-001`` on another world (``world`` is its id label)."""
        middle = "" if world in (None, "acme") else f"{world}-"
        return f"{self.slug}-{middle}{index + 1:03d}"

    def count_on(self, world: str) -> int:
        """How many instances the library holds on ``world`` (a spec name or id label)."""
        return self.count if world == "acme" else self.count_per_world

    def variant_for(self, index: int) -> str:
        """The near-twin group of instance ``index``: instances cycle through the variants."""
        return self.variants[index % len(self.variants)]

    def requires(self, stage: Stage) -> str | None:
        """Why this family cannot run on the stage's world (``None`` when it can).

        Checked before ``build`` on the freshly restored world; a family that needs, say, a legal
        department or open invoices says so here and is skipped for worlds without them.  The
        default asks nothing: lookups in ``build`` still raise ``WorldLacks`` when they find nothing.
        """
        return None

    @abstractmethod
    def build(self, stage: Stage, index: int, rng: random.Random) -> Draft:
        """Plant the facts of instance ``index`` on ``stage`` and return its draft."""


def pick(rng: random.Random, items: Sequence[Any], k: int) -> list[Any]:
    """``k`` distinct items in a seeded random order (a readable name for ``rng.sample``)."""
    return rng.sample(list(items), k)

