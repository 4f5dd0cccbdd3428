"""Run one external program (pdfinfo, pdftotext, pdftoppm, tesseract) on hostile input, safely.

Every run gets:

- its own session and process group (``start_new_session=True``), so a timeout can kill the tool
  AND anything it started with one ``os.killpg(SIGKILL)``; the group is killed after every run,
  normal or not, so no helper process outlives its tool (only one that calls setsid itself could,
  which poppler and tesseract never do);
- an address-space limit (RLIMIT_AS = ``memory_bytes``) and no core dumps, set by util-linux
  ``prlimit`` exec'ing the tool. Not ``preexec_fn``: the workers are threaded, and Python documents
  ``preexec_fn`` as unsafe with threads (the child may deadlock before ``exec``); ``prlimit`` sets the
  limit in the child before the tool's first instruction with no Python code between fork and exec;
- a minimal environment: PATH, TESSDATA_PREFIX when set, ``LC_ALL=C`` and ``OMP_THREAD_LIMIT=1``
  (one tesseract thread per process: parallelism comes from the worker pools, and OpenMP threads
  on a loaded machine make tesseract slower, not faster). Database URLs, storage and LLM keys in the
  worker's environment never reach a program that parses a stranger's file;
- a wall-clock timeout, captured stdout (capped: a tool that floods it is killed) and the tail of
  stderr.

How a caller should judge what went wrong:

- ``ToolTimeoutError``: the tool ran out of time. When the tool was busy for most of that time the
  input itself is too slow to process and will be again on the next attempt, so
  ``ToolTimeoutError.as_job_error`` gives a PermanentError with a human reason. When it got little
  CPU (an overloaded machine, a stalled disk) the page says nothing about the input, so it gives a
  RetryableError; the queue's attempt limit still ends a job that never gets through.
- a ``ToolResult`` with ``returncode != 0``: the tool refused or crashed on the input; see
  ``ToolResult.killed_from_outside`` for the one case (SIGKILL we did not send, i.e. the kernel's
  OOM killer) that is not the input's fault.
- ``ToolOutputTooLargeError``: the input makes the tool print more than the cap: permanent.
- ``ConfigurationError``: the program (or prlimit) is not installed, or cannot even load its
  libraries within ``memory_bytes``.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tenderflow.errors import ConfigurationError, JobError, PermanentError, RetryableError, TenderflowError

DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024
"""Stdout cap per run. pdftotext of a few pages or pdfinfo of 2,000 pages print well under 1 MiB."""

STDERR_TAIL_BYTES = 64 * 1024
"""Only the end of stderr is kept: poppler can print one warning per broken object, and the reason
a tool gave up comes last."""

STARVED_CPU_SHARE = 0.5
"""A timed-out tool that used less CPU than this share of its timeout was starved, not slow."""

_READ_CHUNK = 65536
_DRAIN_SECONDS = 1.0  # how long output may keep arriving after the tool exited


class ToolError(TenderflowError):
    """An external program could not give a usable answer."""

    def __init__(self, message: str, *, program: str) -> None:
        super().__init__(message)
        self.program = program


class ToolTimeoutError(ToolError):
    """The program was still running at its timeout; its whole process group was killed and reaped.

    ``cpu_seconds`` is the user + system CPU time the program itself used (from ``wait4``), which
    tells a slow input (busy the whole time) from a starved machine (see ``as_job_error``).
    """

    def __init__(self, *, program: str, timeout_seconds: float, cpu_seconds: float) -> None:
        super().__init__(
            f"{program} was still running after {timeout_seconds:g} s (cpu {cpu_seconds:.1f} s) and was killed",
            program=program,
        )
        self.timeout_seconds = timeout_seconds
        self.cpu_seconds = cpu_seconds

    @property
    def starved(self) -> bool:
        """True when the program got too little CPU for the timeout to say anything about the input."""
        return self.cpu_seconds < STARVED_CPU_SHARE * self.timeout_seconds

    def as_job_error(self, what: str) -> JobError:
        """The outcome for the job: ``what`` names the step, e.g. "page 3: rendering".

        Busy until the timeout → PermanentError ("page 3: rendering took longer than 120 s and was
        stopped"): the same page on the same settings will take as long again. Starved → RetryableError.
        """
        if self.starved:
            return RetryableError(
                f"{what} was stopped after {self.timeout_seconds:g} s having had only "
                f"{self.cpu_seconds:.1f} s of CPU; the machine was overloaded"
            )
        return PermanentError(f"{what} took longer than {self.timeout_seconds:g} s and was stopped")


class ToolOutputTooLargeError(ToolError):
    """The program printed more than the cap on stdout; it was killed."""

    def __init__(self, *, program: str, max_output_bytes: int) -> None:
        super().__init__(f"{program} printed more than {max_output_bytes} bytes and was killed", program=program)
        self.max_output_bytes = max_output_bytes


@dataclass(frozen=True)
class ToolResult:
    """What a program that ended on its own left behind."""

    program: str
    returncode: int
    """Exit status; negative when a signal ended it (Popen's convention)."""
    stdout: bytes
    stderr: bytes
    """The last ``STDERR_TAIL_BYTES`` of stderr."""
    seconds: float
    cpu_seconds: float

    @property
    def killed_from_outside(self) -> bool:
        """SIGKILL that run_tool did not send: the kernel OOM killer or an operator, not the input."""
        return self.returncode == -signal.SIGKILL

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")


def tool_environment() -> dict[str, str]:
    """The whole environment a tool sees (see the module docstring for why it is this small)."""
    environment = {
        "PATH": os.environ.get("PATH", os.defpath),
        "LC_ALL": "C",
        "OMP_THREAD_LIMIT": "1",
    }
    # Pass-through, not configuration: a deployment that keeps traineddata elsewhere says so here.
    tessdata = os.environ.get("TESSDATA_PREFIX")
    if tessdata:
        environment["TESSDATA_PREFIX"] = tessdata
    return environment


def _locate(program: str, environment: dict[str, str]) -> str:
    found = shutil.which(program, path=environment["PATH"])
    if found is None:
        raise ConfigurationError(f"{program} is not installed or not on PATH")
    return found


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is already empty


def run_tool(
    args: Sequence[str],
    *,
    timeout_seconds: float,
    memory_bytes: int,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    cwd: Path | None = None,
) -> ToolResult:
    """Run ``args`` (program name first, found on PATH) and wait for it, at most ``timeout_seconds``.

    Returns a ToolResult whatever the exit status; the caller knows what each status means for
    its program. Raises ToolTimeoutError (group killed and the program reaped),
    ToolOutputTooLargeError, or ConfigurationError when the program or prlimit is missing or the
    memory limit is too small for the program to start.
    """
    if not args:
        raise ValueError("run_tool needs a program to run")
    environment = tool_environment()
    program = args[0]
    command = [
        _locate("prlimit", environment),
        f"--as={memory_bytes}",
        "--core=0",  # a crash under the memory limit must not leave a core file beside the page
        "--",
        _locate(program, environment),
        *args[1:],
    ]
    started = time.monotonic()
    deadline = started + timeout_seconds
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
        cwd=cwd,
        start_new_session=True,
    )
    # The child is our unreaped child until wait4 below, so its pid (= its process group id) cannot
    # be reused: every killpg in this function reaches the group we started, even after it exited.
    stdout = bytearray()
    stderr = bytearray()
    timed_out = False
    too_large = False
    pidfd = -1
    assert process.stdout is not None and process.stderr is not None
    try:
        pidfd = os.pidfd_open(process.pid)
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ, stdout)
            selector.register(process.stderr, selectors.EVENT_READ, stderr)
            selector.register(pidfd, selectors.EVENT_READ, None)
            exited = False
            # Wait for the exit AND for both pipes to close: a tool's last output may still be in
            # the pipe when it exits.
            while not (exited and len(selector.get_map()) == 0):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    # After the exit only a process that left our group with setsid can still
                    # hold a pipe: give up on its output, the tool itself finished in time.
                    timed_out = not exited
                    break
                for key, _ in selector.select(remaining):
                    if key.data is None:
                        exited = True
                        selector.unregister(pidfd)
                        # Anything the tool left running in its group would hold our pipes open
                        # (and outlive the job); nothing of a finished run may survive it.
                        _kill_group(process.pid)
                        deadline = min(deadline, time.monotonic() + _DRAIN_SECONDS)
                        continue
                    chunk = os.read(key.fd, _READ_CHUNK)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    buffer: bytearray = key.data
                    buffer += chunk
                    if buffer is stderr and len(stderr) > STDERR_TAIL_BYTES:
                        del stderr[: len(stderr) - STDERR_TAIL_BYTES]
                    if buffer is stdout and len(stdout) > max_output_bytes:
                        too_large = True
                if too_large:
                    break
    finally:
        # Reached on success, timeout, output flood and on any exception (KeyboardInterrupt
        # included): kill the whole group, then reap our child so no zombie is left.
        _kill_group(process.pid)
        _, wait_status, usage = os.wait4(process.pid, 0)
        if pidfd >= 0:
            os.close(pidfd)
        process.returncode = os.waitstatus_to_exitcode(wait_status)  # Popen must not wait again
        process.stdout.close()
        process.stderr.close()
        status = process.returncode
        cpu_seconds = usage.ru_utime + usage.ru_stime
    if timed_out:
        raise ToolTimeoutError(program=program, timeout_seconds=timeout_seconds, cpu_seconds=cpu_seconds)
    if too_large:
        raise ToolOutputTooLargeError(program=program, max_output_bytes=max_output_bytes)
    if status == 127 and b"error while loading shared libraries" in stderr:
        # The dynamic loader could not map the program's libraries inside the limit: the limit is
        # too small for this program to start at all, whatever the input.
        raise ConfigurationError(
            f"{program} cannot start within a {memory_bytes} byte memory limit: {stderr.decode(errors='replace')}"
        )
    return ToolResult(
        program=program,
        returncode=status,
        stdout=bytes(stdout),
        stderr=bytes(stderr),
        seconds=time.monotonic() - started,
        cpu_seconds=cpu_seconds,
    )
