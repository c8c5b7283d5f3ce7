"""Verifiable chance: every die and shuffle comes from the game's secret seed and a draw index.

Draw ``i`` is ``HMAC-SHA256(seed, "pbem-draw:i")``. The seed stays secret until the game ends;
its SHA-256 (the commitment) is sent to every player at the start, so afterwards anyone can
recompute every roll and shuffle from the revealed seed (``pbem verify``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from pbem.engine.values import evolve

T = TypeVar("T")

_SPACE = 1 << 64


@dataclass(frozen=True)
class Dice:
    """The chance stream's state: the secret seed (hex) and how many draws were used."""

    seed: str
    draws: int = 0

    @property
    def commitment(self) -> str:
        """The SHA-256 of the seed, published at the start of the game."""
        return commitment(self.seed)


def commitment(seed: str) -> str:
    """SHA-256 hex digest of a seed as published before the game."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def raw_draw(seed: str, index: int) -> int:
    """The 64-bit number of draw ``index``."""
    digest = hmac.new(bytes.fromhex(seed), f"pbem-draw:{index}".encode(), hashlib.sha256)
    return int.from_bytes(digest.digest()[:8], "big")


def below(dice: Dice, n: int) -> tuple[int, Dice]:
    """A uniform integer in ``[0, n)`` and the advanced dice (rejection sampling, no bias)."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = _SPACE - _SPACE % n
    index = dice.draws
    while True:
        value = raw_draw(dice.seed, index)
        index += 1
        if value < limit:
            return value % n, evolve(dice, draws=index)


def roll_2d6(dice: Dice) -> tuple[tuple[int, int], Dice]:
    """Two six-sided dice and the advanced dice."""
    a, dice = below(dice, 6)
    b, dice = below(dice, 6)
    return (a + 1, b + 1), dice


def shuffled(items: Sequence[T], dice: Dice) -> tuple[tuple[T, ...], Dice]:
    """The items in a uniformly random order (Fisher-Yates) and the advanced dice."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, dice = below(dice, i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out), dice
