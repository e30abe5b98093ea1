"""Seeds derived with a stable hash, so every random draw is reproducible on any machine.

Never ``hash()`` (salted per process) and never the global ``random``: every generator gets its
own ``random.Random`` or ``Faker`` seeded from the world seed and a label.
"""

from __future__ import annotations

import hashlib
import random

from faker import Faker


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed from ``seed`` and labels, stable across processes and machines."""
    text = "/".join([str(seed), *map(str, labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def rng_for(seed: int, *labels: object) -> random.Random:
    """An independent ``random.Random`` for one purpose."""
    return random.Random(derive_seed(seed, *labels))


def faker_for(seed: int, locale: str, *labels: object) -> Faker:
    """An independently seeded ``Faker`` for one purpose."""
    fake = Faker(locale)
    fake.seed_instance(derive_seed(seed, "faker", *labels))
    return fake
