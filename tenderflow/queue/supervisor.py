"""Running workers as processes: one Worker per process with signal handling, and a supervisor
that keeps N such processes alive.

Signals, in a worker process:  SIGTERM or a first SIGINT → stop claiming, finish running jobs
within the grace period, give the remaining leases back; a second SIGINT → exit at once (leases
then expire and the reclaimer re-queues the jobs).
The supervisor forwards SIGTERM to its children, restarts a child that died on its own (a job
that kills its process, the OOM killer), and exits when all children have exited after a stop.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from types import FrameType
from typing import Protocol

import structlog

log = structlog.get_logger("tenderflow.supervisor")


class StoppableWorker(Protocol):
    """A local Worker or a remote pull worker: runs until asked to stop."""

    def request_stop(self) -> None: ...

    def run(self) -> int | None: ...


def run_worker_in_process(worker: StoppableWorker) -> int:
    """Run `worker` in the foreground of this process until a signal stops it; returns the exit code
    (the worker's own, or 0)."""
    interrupts = 0

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        worker.request_stop()

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts >= 2:
            os._exit(130)  # immediate: the leases expire and are reclaimed
        worker.request_stop()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_sigterm)
        signal.signal(signal.SIGINT, on_sigint)
    return worker.run() or 0


def supervise(
    child_argv: Sequence[str], processes: int, *, restart_delay_seconds: float = 1.0, until_done: bool = False,
) -> int:
    """Keep `processes` children running `child_argv`; forward stop signals; return 0 after a stop.
    With `until_done` (burst workers) a child that exits 0 has finished its work and is not started
    again; the supervisor returns 0 once every child has (a child that dies otherwise is restarted)."""
    finished: set[int] = set()
    stopping = threading.Event()
    interrupts = 0
    children: dict[int, subprocess.Popen[bytes]] = {}

    def start_child(slot: int) -> None:
        child = subprocess.Popen(list(child_argv))
        children[slot] = child
        log.info("supervisor.child_started", slot=slot, pid=child.pid)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupts
        stopping.set()
        if signum == signal.SIGINT:
            interrupts += 1
            # Children in the same foreground process group get the SIGINT from the terminal too;
            # send it anyway, for a `kill -INT` aimed at the supervisor alone.
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGKILL if interrupts >= 2 else signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    for slot in range(processes):
        start_child(slot)
    while True:
        alive = 0
        for slot, child in list(children.items()):
            code = child.poll()
            if code is None:
                alive += 1
            elif until_done and code == 0:
                if slot not in finished:
                    finished.add(slot)
                    log.info("supervisor.child_finished", slot=slot, pid=child.pid)
            elif not stopping.is_set():
                log.warning("supervisor.child_died", slot=slot, pid=child.pid, exit_code=code)
                time.sleep(restart_delay_seconds)
                if not stopping.is_set():
                    start_child(slot)
                    alive += 1
        if (stopping.is_set() or len(finished) == processes) and alive == 0:
            return 0
        stopping.wait(0.2)


def self_command() -> list[str]:
    """How to run this same program again (for child processes)."""
    return [sys.executable, "-m", "tenderflow"]
