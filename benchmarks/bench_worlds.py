"""Generation time of every shipped world spec, and how mail generation scales with people.

Run: ``python benchmarks/bench_worlds.py [--repeat N]``.  Prints CPU and wall seconds per spec
and the ratio to acme measured in the same run; then builds one spec at 250, 500, 1,000 and
2,000 people (mail only, 12 messages each) and prints each doubling's CPU ratio, which stays
near 2 while mail generation is linear in people (it was quadratic before: every thread copied
the list of everyone).

Target (2-core machine): every shipped spec under 10 s of CPU; the 1,000-person ``shopline``
within 10x of acme; each doubling of people at most 2.5x the CPU.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]  # this checkout

from timing import median_times

from officesim import World
from officesim.resources import PACKAGED_WORLDS
from officesim.world_spec import load_spec


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds per measurement (median)")
    args = parser.parse_args()
    names = sorted(p.stem for p in PACKAGED_WORLDS.glob("*.yaml"))
    times = {name: median_times(lambda n=name: World.generate(n), repeat=args.repeat) for name in names}
    base_cpu = times["acme"][1]
    print(f"{'spec':<10} {'people':>7} {'CPU s':>7} {'wall s':>7} {'x acme':>7}")
    for name in sorted(names, key=lambda n: load_spec(n).size.people):
        wall, cpu = times[name]
        print(f"{name:<10} {load_spec(name).size.people:>7,} {cpu:>7.2f} {wall:>7.2f} {cpu / base_cpu:>7.1f}")
    print("\nmail generation against people (12 messages each, other apps minimal)")
    previous = None
    for people in (250, 500, 1000, 2000):
        spec = load_spec("tiny").model_copy(update={"name": f"mail-{people}"})
        spec = spec.model_validate({**spec.model_dump(), "size": {**spec.size.model_dump(), "people": people,
                                                                    "mail_per_person": 12}})
        wall, cpu = median_times(lambda s=spec: World.generate(s), repeat=args.repeat)
        ratio = f"{cpu / previous:.2f}x the half size" if previous else "baseline"
        print(f"  {people:>5,} people: {cpu:6.2f} s CPU, {wall:6.2f} s wall ({ratio})")
        previous = cpu
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
