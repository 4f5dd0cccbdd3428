"""Wake-ups for long-polling claims: ONE thread LISTENs for enqueue notifications for the whole API
process, and every waiting claim request sleeps on a condition variable it signals.

So a hundred idle remote workers cost a hundred sleeping threads and one database connection, not
a hundred connections. NOTIFY is a hint only (lost behind transaction-pooling PgBouncer, or while
the listener reconnects): waiters also wake after their polling interval, and a reconnect wakes
everyone, since notifications may have been missed meanwhile.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterable

import psycopg
import structlog
from psycopg import sql

from tenderflow.queue.backoff import Backoff
from tenderflow.queue.jobs import NOTIFY_CHANNEL, parse_notification

log = structlog.get_logger("tenderflow.api.wakeups")


class JobWakeups:
    """Counts notifications per job type; `wait` returns when a count it watches moves.

    Usage: take `marker(types)` BEFORE trying to claim, then `wait(types, marker, timeout)` if the
    claim found nothing: a notification that arrived in between is not missed.
    """

    def __init__(self, conninfo: str, *, reconnect_cap_seconds: float = 30.0, poll_seconds: float = 1.0) -> None:
        self.conninfo = conninfo
        self.reconnect_cap_seconds = reconnect_cap_seconds
        self.poll_seconds = poll_seconds  # the listener's wait for notifications, between looks at `closing`
        # The listener's own channel: a notification on it ends the listener's wait at shutdown
        # (`join`), instead of within `poll_seconds`.
        self._wake_channel = f"{NOTIFY_CHANNEL}_wake_{secrets.token_hex(6)}"
        self._changed = threading.Condition()
        self._per_type: dict[str, int] = {}
        self._everyone = 0  # moves on reconnect and on shutdown: wakes every waiter
        self._closing = threading.Event()
        # Workers that said they are stopping, with when: their claims return at once. An entry is
        # only needed while such a claim may still be waiting, so old ones are dropped.
        self._stopped_waiters: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        self.listening = threading.Event()

    # --- the listener thread --------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._listen_loop, name="notify-listener", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Wake every waiter for good: claims in progress return at once (server shutdown)."""
        self._closing.set()
        self._bump_everyone()

    def join(self, timeout: float) -> None:
        """Wait for the listener to end, after `close`: woken on its own channel, it ends at once
        (`tenderflow serve` and every test's API stopped a second later without)."""
        if self._thread is None:
            return
        if self._closing.is_set() and self._thread.is_alive():
            self._wake_listener()
        self._thread.join(timeout)

    def _wake_listener(self) -> None:
        # Not in `close`: that runs in uvicorn's signal handler, which must not wait on the database.
        try:
            with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=2,
                                 application_name="tenderflow:api-listener-wake") as conn:
                conn.execute("SELECT pg_notify(%s, '')", (self._wake_channel,))
        except psycopg.Error:
            pass  # the listener sees `closing` within `poll_seconds` anyway

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    def _listen_loop(self) -> None:
        backoff = Backoff(base_seconds=0.5, cap_seconds=self.reconnect_cap_seconds, jitter_fraction=0.0)
        failures = 0
        while not self._closing.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True,
                                     application_name="tenderflow:api-listener") as conn:
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(NOTIFY_CHANNEL)))
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._wake_channel)))
                    self.listening.set()
                    self._bump_everyone()  # notifications may have been missed while disconnected
                    failures = 0
                    while not self._closing.is_set():
                        for notify in conn.notifies(timeout=self.poll_seconds):
                            if notify.channel == self._wake_channel:
                                break
                            self._bump(parse_notification(notify.payload)[0])
            except Exception as exc:  # any error: logged, then listen again after a backoff (review D4)
                self.listening.clear()
                failures += 1
                delay = backoff.delay(failures)
                log.warning("api.listen_failed", error=f"{type(exc).__name__}: {exc}", retry_in_seconds=delay,
                            exc_info=not isinstance(exc, psycopg.OperationalError))
                self._closing.wait(delay)
        self.listening.clear()

    def _bump(self, job_type: str) -> None:
        with self._changed:
            self._per_type[job_type] = self._per_type.get(job_type, 0) + 1
            self._changed.notify_all()

    def _bump_everyone(self) -> None:
        with self._changed:
            self._everyone += 1
            self._changed.notify_all()

    # --- waiters --------------------------------------------------------------------------------

    def marker(self, types: Iterable[str], waiter: str | None = None) -> tuple[int, ...]:
        with self._changed:
            return self._marker(tuple(types), waiter)

    def _marker(self, types: tuple[str, ...], waiter: str | None) -> tuple[int, ...]:
        stopped = 1 if waiter is not None and waiter in self._stopped_waiters else 0
        return (self._everyone, stopped, *(self._per_type.get(t, 0) for t in types))

    def wait(self, types: Iterable[str], marker: tuple[int, ...], timeout: float, waiter: str | None = None) -> bool:
        """Sleep until a job of `types` may have been enqueued since `marker`, or `timeout` passes.

        Returns True when woken by a notification (or shutdown, or `stop_waiting(waiter)`).
        """
        wanted = tuple(types)
        with self._changed:
            return self._changed.wait_for(lambda: self._marker(wanted, waiter) != marker, timeout)

    def stop_waiting(self, waiter: str, *, remember_seconds: float = 120.0) -> None:
        """Wake `waiter`'s claim for good: that worker is shutting down (see `waiter_stopped`)."""
        now = time.monotonic()
        with self._changed:
            for old in [name for name, since in self._stopped_waiters.items() if now - since > remember_seconds]:
                del self._stopped_waiters[old]
            self._stopped_waiters[waiter] = now
            self._changed.notify_all()

    def waiter_stopped(self, waiter: str) -> bool:
        with self._changed:
            return waiter in self._stopped_waiters

    def forget_waiter(self, waiter: str) -> None:
        """A worker that said it stopped is back (same instance name claiming again)."""
        with self._changed:
            self._stopped_waiters.pop(waiter, None)
