"""How long a failed attempt waits before the next one: capped exponential backoff with jitter.

    delay(n) = min(cap, base * 2**(n-1)) * (1 - jitter_fraction * u),   u = random() in [0, 1)

so attempt n waits between (1 - jitter_fraction) and 1 times its capped exponential step. The
random source is a parameter: tests pass a fixed one.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Backoff:
    base_seconds: float = 2.0
    cap_seconds: float = 600.0
    jitter_fraction: float = 0.5
    random: Callable[[], float] = field(default=random.random, compare=False)

    def delay(self, attempts: int) -> float:
        """Seconds to wait after the `attempts`-th failed attempt (attempts >= 1)."""
        exponent = min(max(attempts - 1, 0), 62)  # 2**62 already dwarfs any cap; avoids overflow
        step = min(self.cap_seconds, self.base_seconds * (2.0**exponent))
        return step * (1.0 - self.jitter_fraction * self.random())
