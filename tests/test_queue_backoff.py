"""Backoff: capped exponential steps with jitter, within bounds for every attempt."""

from __future__ import annotations

import pytest

from tenderflow.queue import Backoff

ALMOST_ONE = 0.9999999999


def capped_step(backoff: Backoff, attempts: int) -> float:
    return min(backoff.cap_seconds, backoff.base_seconds * 2 ** (attempts - 1))


@pytest.mark.parametrize("jitter_fraction", [0.0, 0.25, 0.5, 1.0])
def test_delay_stays_within_jitter_window_of_capped_step_for_attempts_1_to_20(jitter_fraction: float) -> None:
    for attempts in range(1, 21):
        for u in (0.0, 0.5, ALMOST_ONE):
            backoff = Backoff(base_seconds=2.0, cap_seconds=600.0, jitter_fraction=jitter_fraction,
                              random=lambda u=u: u)
            step = capped_step(backoff, attempts)
            delay = backoff.delay(attempts)
            assert (1 - jitter_fraction) * step - 1e-9 <= delay <= step, (attempts, u, delay, step)


def test_delay_without_jitter_draw_is_the_full_capped_step() -> None:
    backoff = Backoff(base_seconds=2.0, cap_seconds=600.0, jitter_fraction=0.5, random=lambda: 0.0)
    assert [backoff.delay(n) for n in range(1, 12)] == [2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600]


def test_largest_jitter_draw_takes_off_the_jitter_fraction() -> None:
    backoff = Backoff(base_seconds=2.0, cap_seconds=600.0, jitter_fraction=0.5, random=lambda: ALMOST_ONE)
    assert backoff.delay(1) == pytest.approx(1.0)
    assert backoff.delay(20) == pytest.approx(300.0)


def test_capped_steps_never_decrease_and_never_pass_the_cap() -> None:
    for u in (0.0, 0.3, ALMOST_ONE):
        backoff = Backoff(base_seconds=1.5, cap_seconds=90.0, jitter_fraction=0.5, random=lambda u=u: u)
        delays = [backoff.delay(n) for n in range(1, 21)]
        assert delays == sorted(delays)
        assert max(delays) <= 90.0
        assert delays[-1] == pytest.approx(90.0 * (1 - 0.5 * u))


def test_huge_attempt_counts_neither_overflow_nor_pass_the_cap() -> None:
    backoff = Backoff(base_seconds=2.0, cap_seconds=600.0, jitter_fraction=0.5, random=lambda: 0.0)
    assert backoff.delay(10_000) == 600.0


def test_default_random_source_stays_in_bounds() -> None:
    backoff = Backoff(base_seconds=3.0, cap_seconds=100.0, jitter_fraction=0.5)
    for attempts in range(1, 21):
        step = capped_step(backoff, attempts)
        for _ in range(50):
            assert 0.5 * step <= backoff.delay(attempts) <= step
