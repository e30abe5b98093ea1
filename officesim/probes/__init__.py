"""Self-tests in both directions: generated correct variants must pass, generated hacks must fail.

``play_kinds(env, reference)`` builds, from a task's reference solution and its facts, every
variant (``variants.py``) and probe (``probes.py``) its family declares (``families.py``) and
plays each on the cached start state; ``officesim.pipeline.selftest`` judges the outcomes.
"""

from officesim.probes import paths, probes, variants
from officesim.probes.families import FAMILIES, kinds_for
from officesim.probes.kinds import PROBES, VARIANTS, Context, Kind
from officesim.probes.run import KindRun, play_kinds
from officesim.probes.trajectory import Reference, ReplayAgent, Trajectory

__all__ = ["FAMILIES", "PROBES", "VARIANTS", "Context", "Kind", "KindRun", "Reference", "ReplayAgent", "Trajectory",
           "kinds_for", "paths", "play_kinds", "probes", "variants"]
