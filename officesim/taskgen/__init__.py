"""The task library: families of deterministic task generators and the writer of task folders.

``FAMILIES`` maps each family's name to its generator; ``generate_all`` writes every instance of
the chosen families, on each of their worlds, into a tasks folder, byte for byte the same on every
run.  A family skipped for a world (it lacks what the family needs) is reported, not an error.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from officesim.errors import OfficesimError
from officesim.taskgen.base import Family, GenerationError, WorldLacks
from officesim.taskgen.fam_answers import BudgetVarianceAnswer, ExpensePolicyAnswer, HeadcountAnswer
from officesim.taskgen.fam_approvals import ApprovalChain
from officesim.taskgen.fam_audit import ExpenseAudit, RenewalRiskDigest
from officesim.taskgen.fam_calendar import ScheduleMeeting
from officesim.taskgen.fam_calendar_conflicts import RescheduleConflict
from officesim.taskgen.fam_calendar_invites import InvitationTriage
from officesim.taskgen.fam_calendar_leave import OooCoverage
from officesim.taskgen.fam_calendar_offsite import OffsitePlanning
from officesim.taskgen.fam_chat import ChannelSummaryPost, DmAnswerQuestion, ThreadToDoc
from officesim.taskgen.fam_colleagues import AskBeforeActing, DelegatedRequest
from officesim.taskgen.fam_crm_basic import ContactFromSignature, InvoiceTotalAnswer, LogCallFromMail
from officesim.taskgen.fam_customer import CustomerBrief, ThreeAppQuestion
from officesim.taskgen.fam_docs_mail import ConfidentialRequest, MeetingFollowup
from officesim.taskgen.fam_drive import ShareDocExact, SheetUpdateFromRequest
from officesim.taskgen.fam_latest import ConflictingInstructions, LateChange
from officesim.taskgen.fam_mail import ForwardContractToLegal, InboxTriage, MailCleanup
from officesim.taskgen.fam_pipeline_chat import DealHandoff, PipelineFromStandup
from officesim.taskgen.fam_process import MonthEndClose
from officesim.taskgen.fam_process_escalation import CustomerEscalation
from officesim.taskgen.fam_process_offboarding import SalesRepOffboarding
from officesim.taskgen.fam_process_report import QuarterlyReportPack
from officesim.taskgen.fam_process_vendor import VendorOnboarding
from officesim.taskgen.fam_safety import DeclineAgainstPolicy
from officesim.taskgen.fam_safety_access import BeyondPermissions
from officesim.taskgen.fam_safety_fraud import PaymentFraudCheck
from officesim.taskgen.fam_safety_infeasible import InfeasibleRequest
from officesim.taskgen.fam_safety_inject import InjectionInData
from officesim.taskgen.fam_sales import ChaseOverdueInvoices, DealReconcileFromMail, LeadToDeal, PipelineSummaryMail
from officesim.taskgen.fam_travel import TravelExpenseReport
from officesim.taskgen.writer import (
    WORLD_SPEC,
    WorldChoice,
    base_snapshot,
    render_instance,
    world_choice,
    write_task,
)

_ALL: tuple[Family, ...] = (
    TravelExpenseReport(), CustomerBrief(), ThreeAppQuestion(), ExpenseAudit(), RenewalRiskDigest(),
    InvoiceTotalAnswer(), ContactFromSignature(), LogCallFromMail(),
    ShareDocExact(), SheetUpdateFromRequest(),
    BudgetVarianceAnswer(), ExpensePolicyAnswer(), HeadcountAnswer(),
    InboxTriage(), MailCleanup(), ForwardContractToLegal(),
    DealReconcileFromMail(), ChaseOverdueInvoices(), PipelineSummaryMail(), LeadToDeal(),
    DmAnswerQuestion(), ChannelSummaryPost(), ThreadToDoc(), PipelineFromStandup(), DealHandoff(),
    MeetingFollowup(), ConfidentialRequest(),
    DeclineAgainstPolicy(), PaymentFraudCheck(), InjectionInData(), BeyondPermissions(),
    InfeasibleRequest(),
    AskBeforeActing(), ApprovalChain(), LateChange(), ConflictingInstructions(),
    DelegatedRequest(),
    MonthEndClose(), VendorOnboarding(), CustomerEscalation(), QuarterlyReportPack(), SalesRepOffboarding(),
    ScheduleMeeting(), RescheduleConflict(), InvitationTriage(), OooCoverage(), OffsitePlanning(),
)
FAMILIES: dict[str, Family] = {family.name: family for family in _ALL}
INDEX = "INDEX.md"

__all__ = ["FAMILIES", "Family", "GenerationError", "WorldLacks", "generate_all"]
WorldsArg = Sequence[str] | Mapping[str, Sequence[str]] | None


def select(names: Iterable[str] | None) -> list[Family]:
    """The families named (all when ``names`` is None); unknown names are an error with the list."""
    if names is None:
        return list(FAMILIES.values())
    chosen = []
    for name in names:
        family = FAMILIES.get(name) or FAMILIES.get(name.replace("-", "_"))
        if family is None:
            raise OfficesimError(f"no task family {name!r}; families: {', '.join(FAMILIES)}")
        chosen.append(family)
    return chosen


def world_label(world: WorldChoice) -> str:
    """The world part of a task id: the spec's key, with ``-s<seed>`` when not the spec's own seed."""
    return world.label.replace("@", "-s")


def worlds_for(family: Family, worlds: WorldsArg) -> list[str]:
    """The worlds to generate ``family`` on: its own list, or the one given for all families or
    per family (by name)."""
    if worlds is None:
        return list(family.worlds)
    if isinstance(worlds, Mapping):
        return list(worlds.get(family.name, family.worlds))
    return list(worlds)


def _stale(out: Path, family: Family) -> list[Path]:
    """The folders of ``family`` in ``out`` on any world (``<slug>[-<world>]-NNN``), never another
    family's (a longer slug that starts with this one)."""
    mine = re.compile(rf"^{re.escape(family.slug)}(-[a-z0-9-]+)?-\d{{3}}$")
    longer = [f.slug for f in FAMILIES.values() if f.slug.startswith(family.slug + "-")]
    return [old for old in sorted(out.iterdir()) if old.is_dir() and mine.match(old.name)
            and not any(old.name.startswith(slug + "-") for slug in longer)]


def generate_all(out_dir: str | Path, families: Iterable[str] | None = None,
                 progress: Callable[[str], None] | None = None, worlds: WorldsArg = None) -> list[Path]:
    """Write every instance of ``families`` (default: all) on their worlds into ``out_dir``.

    ``worlds`` overrides each family's ``worlds`` (one list for all, or a mapping family -> list;
    spec names or paths).  A family's old folders (``<slug>[-<world>]-NNN``) are removed first, so
    a family that shrank leaves no stale instances behind; other folders in ``out_dir`` are never
    touched.  A family the world lacks something for is skipped there (``progress`` says why).
    Returns the folders written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    counts: Counter[str] = Counter()
    spread: dict[str, list[str]] = {}
    for family in select(families):
        for old in _stale(out, family):
            shutil.rmtree(old)
        refs = worlds_for(family, worlds)
        for ref in refs:
            world = world_choice(ref)
            label = world_label(world)
            made, skipped = _generate_on(out, family, world, label, written)
            counts[family.name] += made
            if made:
                spread.setdefault(family.name, []).append(label)
            if progress is not None:
                progress(f"{family.name}: {made} tasks" + ("" if refs == ["acme"] else f" on {label}"))
                if skipped:
                    progress(f"{family.name}: {len(skipped)} skipped on {label}: {skipped[0]}")
    if families is None:
        (out / INDEX).write_text(index_text(counts, spread), encoding="utf-8")
    return written


def _generate_on(out: Path, family: Family, world: WorldChoice, label: str,
                 written: list[Path]) -> tuple[int, list[str]]:
    """Write ``family``'s instances on one world; returns how many, and why any were skipped."""
    base = base_snapshot(world)
    made, skipped = 0, []
    for index in range(family.count_on(label)):
        try:
            rendered = render_instance(family, index, base, world, family.task_id(index, label))
        except WorldLacks as exc:
            if world.key == WORLD_SPEC:  # every family runs on acme: its ids are the library's fixtures
                raise GenerationError(f"{exc} (every family must run on {WORLD_SPEC})") from None
            skipped.append(str(exc))
            continue
        written.append(write_task(out, rendered))
        made += 1
    return made, skipped


def index_text(counts: Mapping[str, int] | None = None, spread: Mapping[str, Sequence[str]] | None = None) -> str:
    """``tasks/INDEX.md``: one row per family, for people browsing the library.

    ``counts`` are the tasks written per family (default: each family's ``count``); a ``worlds``
    column appears once some family spans more than acme (``spread``: its worlds).
    """
    counts = counts if counts is not None else {f.name: f.count for f in FAMILIES.values()}
    spread = spread or {}
    several = any(list(worlds) != ["acme"] for worlds in spread.values())
    extra = " worlds |" if several else ""
    lines = ["# Task library", "",
             "Generated by `officesim tasks generate` from `officesim/taskgen/`; do not edit by hand.", "",
             f"| family | difficulty | apps | category | tasks | groups |{extra} what the agent does |",
             f"| --- | --- | --- | --- | --- | --- |{' --- |' if several else ''} --- |"]
    order = {"easy": 0, "medium": 1, "hard": 2}
    for family in sorted(FAMILIES.values(), key=lambda f: (order[f.difficulty], f.name)):
        summary = (type(family).__doc__ or "").strip().splitlines()[0]
        worlds = f" {', '.join(spread.get(family.name, ['acme']))} |" if several else ""
        lines.append(f"| `{family.name}` | {family.difficulty} | {', '.join(family.apps)} | {family.category} | "
                     f"{counts.get(family.name, 0)} | {len(family.variants)} |{worlds} {summary} |")
    total = sum(counts.get(f.name, 0) for f in FAMILIES.values())
    lines += ["", f"{len(FAMILIES)} families, {total} tasks. Each task folder holds `task.yaml`, `grader.yaml`, "
                  "`solution.yaml` and `tools.pin` (the shape of each allowed tool; `officesim deliver` writes "
                  "the full `tools.json`); near twins share a `group` (`<family>/<variant>`).", ""]
    return "\n".join(lines)
