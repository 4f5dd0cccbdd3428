"""Candidates: a possible value of a field, where it was read, and how much to believe it.

Each field module proposes candidates with a score in [0, 1] that sums up its evidence (a label
right before it, the first page, a notice block) minus its doubts (a negative context such as
"bid security" before an amount, "opening" before a date, a placeholder). `choose` keeps the best
one only when its score reaches the field's threshold: a field with no confident candidate stays
empty, because a wrong value costs a bidder more than a missing one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tenderflow.extraction.schema import Sourced

V = TypeVar("V")

DEFAULT_THRESHOLD = 0.5

_RULE_DETAIL = re.compile(r"\s*\([^)]*\)|\s+p\d+\b|\s+lines=\S+|;.*$")


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

    @property
    def rule(self) -> str:
        """The rule that proposed this candidate: `why` without its particulars (the page, how the value
        stood to its label, and whatever follows a ';': the doubts weighed): "label 'reference no.'",
        "label ja, 件名" (a label rule names its label: one rule per label, the unit a rule that fires on one
        document only is judged by), "letterhead", "sub topic=bids"."""
        return _RULE_DETAIL.sub("", self.why).strip() or "unnamed"


@dataclass
class Reading:
    """What `choose` picked while one document was read, field by field (see `recording`)."""

    current: str | None = None
    chosen: dict[str, list[Candidate[Any]]] = field(default_factory=dict)
    unsure: dict[str, tuple[float, Candidate[Any]]] = field(default_factory=dict)
    """Per field, the best candidate that stayed below its threshold, with how near it came (its score
    over the threshold): what a person may be shown as a candidate, never as the field."""

    def candidate_of(self, name: str, value: Sourced[Any]) -> Candidate[Any] | None:
        """The chosen candidate a field's returned value came from (its value, page and quote)."""
        picked: list[Candidate[Any]] = self.chosen.get(name, [])
        return next((candidate for candidate in reversed(picked)
                     if (candidate.value, candidate.page, candidate.quote) == (value.value, value.page, value.quote)),
                    None)


_READING: ContextVar[Reading | None] = ContextVar("offline_reading", default=None)


@contextmanager
def recording() -> Iterator[Reading]:
    """Record, for this thread or task, every candidate `choose` picks, under the field `reading_field`
    names: how sure the extractor was of each value, and which rule it came from."""
    reading = Reading()
    token = _READING.set(reading)
    try:
        yield reading
    finally:
        _READING.reset(token)


@contextmanager
def reading_field(name: str) -> Iterator[None]:
    """Mark what the `choose` calls inside are choosing (a no-op when nothing is recording)."""
    reading = _READING.get()
    if reading is None:
        yield
        return
    previous, reading.current = reading.current, name
    try:
        yield
    finally:
        reading.current = previous


def choose(candidates: Iterable[Candidate[V]], threshold: float = DEFAULT_THRESHOLD) -> Candidate[V] | None:
    """The best-scoring candidate at or above `threshold` (the earliest in reading order on a tie),
    or None: abstention."""
    best: Candidate[V] | None = None
    unsure: Candidate[V] | None = None
    for candidate in candidates:
        if candidate.score < threshold:
            if unsure is None or candidate.score > unsure.score:
                unsure = candidate
            continue
        if best is None or candidate.score > best.score:
            best = candidate
    if best is not None:
        chosen(best)
    elif unsure is not None:
        doubted(unsure, unsure.score / threshold)
    return best


def chosen(candidate: Candidate[V]) -> Candidate[V]:
    """Record `candidate` as a field's value (what `choose` does; also for values decided otherwise)."""
    reading = _READING.get()
    if reading is not None and reading.current is not None:
        reading.chosen.setdefault(reading.current, []).append(candidate)
    return candidate


def doubted(candidate: Candidate[V], nearness: float) -> None:
    """Record `candidate` as the best value a field did not take (`nearness`: its score over the threshold)."""
    reading = _READING.get()
    if reading is not None and reading.current is not None:
        if nearness > reading.unsure.get(reading.current, (0.0, candidate))[0]:
            reading.unsure[reading.current] = (nearness, candidate)
