"""Run one external program (pdfinfo, pdftotext, pdftoppm, tesseract) on hostile input, safely; and
run a whole OCR batch the same way (``call_sandboxed``).

Every run is started by the tool sandbox (``sandbox.py``; ``launcher.py`` is this side of it): a
single-threaded server process per worker process forks it, so that the limits below are set in the
child, by the child, with no code between fork and exec in a threaded process. Every run gets:

- its own session and process group, so a timeout can kill the tool AND anything it started with one
  ``killpg(SIGKILL)``; the group is killed after every run, normal or not, so no helper process
  outlives its tool (only one that calls setsid itself could, which poppler and tesseract never do);
- an address-space limit (RLIMIT_AS = ``memory_bytes``) and no core dumps, set with ``resource`` by
  the single-threaded sandbox server, which a program inherits across vfork + exec, and by a
  sandboxed call's child for itself (macOS refuses the address-space limit, see sandbox.py);
- death with its worker: when the worker process dies, SIGKILL included, the server kills every run's
  group (it sees the control socket close); on Linux each run also has PR_SET_PDEATHSIG on the server;
- a minimal environment: PATH, TESSDATA_PREFIX when set, ``LC_ALL=C`` and ``OMP_THREAD_LIMIT=1``
  (one tesseract thread per process: parallelism comes from the worker pools, and OpenMP threads
  on a loaded machine make tesseract slower, not faster). Database URLs, storage and LLM keys in the
  worker's environment never reach a program that parses a stranger's file, nor the sandbox server;
- a wall-clock timeout, captured stdout (capped: a tool that floods it is killed) and the tail of
  stderr; the exit status and the CPU time it used come from the server's ``wait4``.

A sandboxed call (``call_sandboxed``: an OCR batch, the language first pass) is a Python child of the
server with the same group, limits and environment, in which pdf2image and pytesseract start their
programs as its own children: they inherit the limits and the group, and a timeout kills them all.
Inside it ``run_tool`` runs programs as plain children (``launcher.inside()``): they are already in
the call's group and under its limits.

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
- ``ConfigurationError``: the program is not installed, cannot be executed, or cannot even load its
  libraries within ``memory_bytes``; or the sandbox server cannot be started.
- ``RetryableError``: the sandbox server stopped during the run (killed from outside).
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tenderflow.errors import (
    ConfigurationError,
    JobError,
    LeaseLostError,
    PermanentError,
    RetryableError,
    TenderflowError,
)
from tenderflow.pdf import launcher

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
    ToolOutputTooLargeError, ConfigurationError when the program is missing or cannot be executed,
    the memory limit is too small for it to start or the sandbox cannot be started, and
    RetryableError when the sandbox stopped during the run.
    """
    if not args:
        raise ValueError("run_tool needs a program to run")
    environment = tool_environment()
    program = args[0]
    executable = _locate(program, environment)
    started = time.monotonic()
    if launcher.inside():
        outcome = _run_here(executable, args, environment, cwd, timeout_seconds, max_output_bytes)
    else:
        request = {
            "kind": "exec", "executable": executable, "args": list(args), "env": environment,
            "cwd": str(cwd) if cwd is not None else None, "memory_bytes": memory_bytes,
            "parent_death_signal": launcher.PARENT_DEATH_SIGNAL,
        }
        outcome = _through_sandbox(request, f"{program}", timeout_seconds=timeout_seconds,
                                   max_output_bytes=max_output_bytes)
        if outcome.failed is not None:
            raise ConfigurationError(f"{program} ({executable}) cannot be executed: {outcome.failed}")
    if outcome.timed_out:
        raise ToolTimeoutError(program=program, timeout_seconds=timeout_seconds, cpu_seconds=outcome.cpu_seconds)
    if outcome.too_large:
        raise ToolOutputTooLargeError(program=program, max_output_bytes=max_output_bytes)
    status = outcome.status if outcome.status is not None else -signal.SIGKILL
    if status == 127 and b"error while loading shared libraries" in outcome.stderr:
        # The dynamic loader could not map the program's libraries inside the limit: the limit is
        # too small for this program to start at all, whatever the input.
        raise ConfigurationError(
            f"{program} cannot start within a {memory_bytes} byte memory limit: "
            f"{outcome.stderr.decode(errors='replace')}"
        )
    return ToolResult(
        program=program,
        returncode=status,
        stdout=bytes(outcome.stdout),
        stderr=bytes(outcome.stderr),
        seconds=time.monotonic() - started,
        cpu_seconds=outcome.cpu_seconds,
    )


def _through_sandbox(request: Mapping[str, Any], what: str, **options: Any) -> launcher.Outcome:
    try:
        return launcher.run(request, stderr_tail_bytes=STDERR_TAIL_BYTES, drain_seconds=_DRAIN_SECONDS, **options)
    except launcher.SandboxUnavailableError as error:
        if isinstance(error, launcher.SandboxStartError):
            raise ConfigurationError(str(error)) from error
        raise RetryableError(f"{what}: {error} (killed from outside?)") from error


def _run_here(
    executable: str, args: Sequence[str], environment: dict[str, str], cwd: Path | None, timeout_seconds: float,
    max_output_bytes: int,
) -> launcher.Outcome:
    """A program run by a sandboxed call: a plain child, in the call's process group and under its
    limits (so the call's own timeout kills it with everything else); no other thread starts
    processes here."""
    outcome = launcher.Outcome()
    deadline = time.monotonic() + timeout_seconds
    try:
        process = subprocess.Popen(
            list(args), executable=executable, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=environment, cwd=cwd,
        )
    except OSError as error:
        raise ConfigurationError(f"{args[0]} ({executable}) cannot be executed: {error}") from error
    assert process.stdout is not None and process.stderr is not None
    outcome.pid = process.pid
    reaped = None
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ, outcome.stdout)
            selector.register(process.stderr, selectors.EVENT_READ, outcome.stderr)
            while selector.get_map() and not outcome.too_large:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    outcome.timed_out = True
                    break
                for key, _ in selector.select(remaining):
                    chunk = os.read(key.fd, _READ_CHUNK)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    buffer: bytearray = key.data
                    buffer += chunk
                    if buffer is outcome.stderr and len(buffer) > STDERR_TAIL_BYTES:
                        del buffer[: len(buffer) - STDERR_TAIL_BYTES]
                    if buffer is outcome.stdout and len(buffer) > max_output_bytes:
                        outcome.too_large = True
        # Both pipes closed: the program is ending (or closed them and goes on: the deadline holds).
        while not (outcome.timed_out or outcome.too_large):
            reaped = os.wait4(process.pid, os.WNOHANG)
            if reaped[0] != 0:
                break
            if time.monotonic() >= deadline:
                outcome.timed_out = True
                break
            time.sleep(0.005)
    finally:
        if reaped is None or reaped[0] == 0:
            try:
                os.kill(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            reaped = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(reaped[1])  # Popen must not wait again
        process.stdout.close()
        process.stderr.close()
    outcome.status = process.returncode
    outcome.cpu_seconds = reaped[2].ru_utime + reaped[2].ru_stime
    return outcome


# --- sandboxed calls --------------------------------------------------------------------------------

DEFAULT_MAX_CALL_OUTPUT_BYTES = 256 * 1024 * 1024
"""A call's results: page texts (at most ~200,000 characters a page) as JSON."""


def call_sandboxed(
    entry: str,
    arguments: Mapping[str, Any],
    *,
    memory_bytes: int,
    progress_timeout_seconds: float,
    what: str,
    on_progress: Callable[[Any], None] | None = None,
    max_output_bytes: int = DEFAULT_MAX_CALL_OUTPUT_BYTES,
) -> Any:
    """Run the registered sandbox entry ``entry`` (``launcher.entry``) on JSON ``arguments`` in a
    child of the sandbox server, and return its JSON result.

    The call gets the limits of a tool run (its own process group, RLIMIT_AS = ``memory_bytes`` for
    it and each program it starts, the minimal environment, death with the worker). Each progress
    report it makes is handed to ``on_progress`` (whatever that raises kills the call and is raised
    here: the OCR handler stops a cancelled job between pages); ``progress_timeout_seconds`` is how
    long the call may go without one before its group is killed (the tools it runs have their own,
    shorter timeouts; this one is the backstop). What the entry raised is raised here again (the
    job errors, ConfigurationError, ValueError, the tool errors; anything else as a RuntimeError
    naming it); ``what`` names the call in the errors of a call that died or ran out of time.
    """
    results: list[Mapping[str, Any]] = []

    def on_line(line: bytes) -> None:
        message = json.loads(line)
        if "progress" in message:
            if on_progress is not None:
                on_progress(message["progress"])
        else:
            results.append(message)

    request = {
        "kind": "call", "entry": entry, "arguments": dict(arguments), "env": tool_environment(),
        "tmpdir": tempfile.gettempdir(), "memory_bytes": memory_bytes,
        "parent_death_signal": launcher.PARENT_DEATH_SIGNAL,
    }
    outcome = _through_sandbox(request, what, timeout_seconds=progress_timeout_seconds,
                               max_output_bytes=max_output_bytes, on_line=on_line)
    if outcome.failed is not None:
        raise ConfigurationError(f"{what}: the sandbox cannot run it: {outcome.failed}")
    if outcome.timed_out:
        raise ToolTimeoutError(program=what, timeout_seconds=progress_timeout_seconds,
                               cpu_seconds=outcome.cpu_seconds)
    if outcome.too_large:
        raise ToolOutputTooLargeError(program=what, max_output_bytes=max_output_bytes)
    for message in results:
        if "return" in message:
            return message["return"]
        if "raise" in message:
            if message["raise"].get("type") == "MemoryError":
                raise PermanentError(f"{what} needs more than {memory_text(memory_bytes)} of memory")
            raise error_from_description(message["raise"])
    # No answer: the call's process died.
    if outcome.status == -signal.SIGKILL:
        raise RetryableError(f"{what} was killed from outside (out of memory on the machine?)")
    tail = outcome.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1:] or [""]
    raise PermanentError(f"{what} crashed (exit status {outcome.status}) {tail[0][:200]}".rstrip())


_SENT_BACK: dict[str, type[Exception]] = {
    error.__name__: error
    for error in (PermanentError, RetryableError, ConfigurationError, ValueError, LeaseLostError)
}


def describe_error(error: BaseException) -> dict[str, Any]:
    """``error`` as JSON, for a sandboxed call to send back (``error_from_description`` reads it)."""
    description: dict[str, Any] = {"type": type(error).__name__, "message": str(error)}
    for name in ("retry_after", "program", "timeout_seconds", "cpu_seconds", "max_output_bytes"):
        if isinstance(getattr(error, name, None), (int, float, str)):
            description[name] = getattr(error, name)
    return description


def error_from_description(description: Mapping[str, Any]) -> Exception:
    """The exception a sandboxed call raised, rebuilt on this side."""
    kind, message = str(description.get("type")), str(description.get("message", ""))
    if kind == "ToolTimeoutError":
        return ToolTimeoutError(program=str(description["program"]),
                                timeout_seconds=float(description["timeout_seconds"]),
                                cpu_seconds=float(description["cpu_seconds"]))
    if kind == "ToolOutputTooLargeError":
        return ToolOutputTooLargeError(program=str(description["program"]),
                                       max_output_bytes=int(description["max_output_bytes"]))
    if kind == "RetryableError":
        retry_after = description.get("retry_after")
        return RetryableError(message, retry_after=float(retry_after) if retry_after is not None else None)
    known = _SENT_BACK.get(kind)
    if known is not None:
        return known(message)
    return RuntimeError(f"{kind} in a sandboxed call: {message}")


def memory_text(size: int) -> str:
    """A memory limit as people write it: "2 GiB", "512 MiB"."""
    return f"{size / 1024**3:g} GiB" if size >= 1024**3 else f"{size / 1024**2:.0f} MiB"


def warm_up() -> None:
    """Start this process's sandbox server and have it import what calls need (the OCR libraries),
    so that the first job does not pay for it. Raises ConfigurationError when it cannot start."""
    try:
        launcher.warm_up()
    except launcher.SandboxUnavailableError as error:
        raise ConfigurationError(str(error)) from error
