"""Candidates: a possible value of a field, where it was read, and how much to believe it.

Each field module proposes candidates with a score in [0, 1] that sums up its evidence (a label
right before it, the first page, a notice block) minus its doubts (a negative context such as
"bid security" before an amount, "opening" before a date, a placeholder). `choose` keeps the best
one only when its score reaches the field's threshold: a field with no confident candidate stays
empty, because a wrong value costs a bidder more than a missing one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from tenderflow.extraction.schema import Sourced

V = TypeVar("V")

DEFAULT_THRESHOLD = 0.5


@dataclass(frozen=True)
class Candidate(Generic[V]):
    """A value for one field with its page, its verbatim quote, a score and why (for debugging)."""

    value: V
    page: int
    quote: str
    score: float
    why: str = ""

    def sourced(self) -> Sourced[V]:
        return Sourced[V](value=self.value, page=self.page, quote=self.quote)


def choose(candidates: Iterable[Candidate[V]], threshold: float = DEFAULT_THRESHOLD) -> Candidate[V] | None:
    """The best-scoring candidate at or above `threshold` (the earliest in reading order on a tie),
    or None: abstention."""
    best: Candidate[V] | None = None
    for candidate in candidates:
        if candidate.score < threshold:
            continue
        if best is None or candidate.score > best.score:
            best = candidate
    return best
