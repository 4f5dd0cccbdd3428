"""The worker's side of the tool sandbox (``tenderflow.pdf.sandbox``): start it, hand it runs, watch them.

A worker process is threaded, and nothing may run between ``fork`` and ``exec`` in a threaded process
(Python documents ``preexec_fn`` as unsafe there). So every tool run and every sandboxed call is
forked by one small single-threaded process per worker process, the sandbox server, started here on
first use (``python -I``, the worker's ``sys.path``, the tools' minimal environment, a session of its
own). Each run is one request:

- the worker makes the run's stdout and stderr pipes and a socket pair for the run, and passes the
  pipes' write ends and one end of the socket to the server over the control socket (SCM_RIGHTS, one
  byte per run);
- over the run's socket it sends the request (one JSON line); the server answers
  ``{"started": pid}`` (or ``{"failed": reason}``), and ``{"exited": status, "cpu": seconds}`` once it
  has killed what was left in the run's process group and reaped the run;
- ``{"kill": true}`` (or closing the socket) has the server SIGKILL the run's whole group. Only the
  server kills and reaps, so a process group is never signalled after its leader was reaped and its
  id could have been reused.

The exit report replaces Linux's ``pidfd_open``: the same code waits for a run on Linux, macOS and
the BSDs. When the worker dies, SIGKILL included, the kernel closes its end of the control socket;
the server sees end-of-file, kills every run's group and exits (see sandbox.py for Linux's
PR_SET_PDEATHSIG on top).

``ENTRIES`` holds the functions a sandboxed call may name (registered with ``@entry``), ``inside()``
says whether this process is a sandboxed call (whose tools then run as its own children, see
``tools.run_tool``).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

_READ_CHUNK = 65536
_START_SECONDS = 60.0
"""How long the server may take to start (a Python start-up, on a machine that may be loaded)."""
KILL_GRACE_SECONDS = 10.0
"""How long a run may take to be reported dead after it was killed before the server is given up on."""

Entry = Callable[[Mapping[str, Any], Callable[[Any], None]], Any]
"""A sandboxed call: its JSON arguments and a progress callback in, a JSON-able result out."""

ENTRIES: dict[str, Entry] = {}

_F = TypeVar("_F", bound=Entry)


def entry(name: str) -> Callable[[_F], _F]:
    """Register a function a sandboxed call may run under ``name`` (its module must be one the server
    preloads, ``sandbox.PRELOAD``)."""

    def register(function: _F) -> _F:
        ENTRIES[name] = function
        return function

    return register


PARENT_DEATH_SIGNAL = True
"""Whether runs ask Linux to kill them when the server dies (PR_SET_PDEATHSIG). Only tests turn it
off, to show that the portable way (the server's end-of-file on the control socket) holds alone."""

PORTABLE_WAIT = False
"""Have the server wait for runs the way it does off Linux (tests run that path on Linux with it)."""

_inside = False


def inside() -> bool:
    """True in a sandboxed call: a single-threaded child of the server, limits already set."""
    return _inside


def mark_inside() -> None:
    global _inside
    _inside = True


class SandboxUnavailableError(Exception):
    """The sandbox server stopped answering during a run (tools.py says what that means)."""


class SandboxStartError(SandboxUnavailableError):
    """The sandbox server cannot be started at all."""


@dataclass
class Outcome:
    """What the server and the run's pipes said about one run."""

    pid: int | None = None
    status: int | None = None
    """Exit status, negative for a signal (Popen's convention); None if the run never started."""
    cpu_seconds: float = 0.0
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    timed_out: bool = False
    too_large: bool = False
    failed: str | None = None
    """Why the server could not start the run (the program could not be executed)."""
    failed_errno: int | None = None


class _Server:
    """The sandbox server of this process, started on first use and again if it died."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._owner = 0

    def _running(self) -> bool:
        return (self._control is not None and self._process is not None and self._owner == os.getpid()
                and self._process.poll() is None)

    def _start(self) -> None:
        self._stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        environment = {"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C"}
        boot = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
                "from tenderflow.pdf.sandbox import serve; serve(int(sys.argv[2]), portable=sys.argv[3] == 'portable')")
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", boot, json.dumps(sys.path), str(theirs.fileno()),
                 "portable" if PORTABLE_WAIT else "native"],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                env=environment, start_new_session=True,
            )
        except OSError as error:
            ours.close()
            raise SandboxStartError(f"the tool sandbox cannot be started: {error}") from error
        finally:
            theirs.close()
        ours.settimeout(_START_SECONDS)
        try:
            ready = ours.recv(1)
        except OSError:
            ready = b""
        if ready != b"k":
            process.kill()
            process.wait()
            ours.close()
            raise SandboxStartError(f"the tool sandbox did not start ({sys.executable} exited "
                                          f"with status {process.returncode}; its error is in the log above)")
        ours.settimeout(None)
        self._control, self._process, self._owner = ours, process, os.getpid()

    def _stop(self) -> None:
        if self._control is not None:
            self._control.close()  # the server sees end-of-file, kills what runs and exits
        if self._process is not None and self._owner == os.getpid():
            try:
                self._process.wait(timeout=KILL_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._control = self._process = None

    def send(self, fds: list[int]) -> None:
        """Hand the server a run's file descriptors; start (or restart) the server when needed."""
        with self._lock:
            for attempt in (1, 2):
                if not self._running():
                    self._start()
                assert self._control is not None
                try:
                    socket.send_fds(self._control, [b"r"], fds)
                    return
                except OSError as error:
                    if attempt == 2:
                        raise SandboxUnavailableError(f"the tool sandbox does not take runs: {error}") from error
                    self._stop()

    def restart(self) -> None:
        """Give up on a server that stopped answering: kill it; the next run starts a new one."""
        with self._lock:
            if self._process is not None and self._owner == os.getpid():
                self._process.kill()
            self._stop()

    def warm_up(self) -> None:
        """Start the server and have it import what sandboxed calls need, before the first job."""
        run(({"kind": "preload"}), timeout_seconds=_START_SECONDS, max_output_bytes=1024)


_SERVER = _Server()


def warm_up() -> None:
    _SERVER.warm_up()


def restart() -> None:
    """Stop this process's server (killing what it runs); the next run starts a new one, which reads
    PARENT_DEATH_SIGNAL and PORTABLE_WAIT afresh (tests)."""
    _SERVER.restart()


def run(
    request: Mapping[str, Any], *, timeout_seconds: float, max_output_bytes: int, stderr_tail_bytes: int = 65536,
    on_line: Callable[[bytes], None] | None = None, drain_seconds: float = 1.0,
) -> Outcome:
    """Have the server start ``request`` (``{"kind": "exec", ...}`` or ``{"kind": "call", ...}``, see
    sandbox.py) and wait until it ended or was killed.

    stdout is kept up to ``max_output_bytes`` (past it the run is killed: ``too_large``), or, with
    ``on_line``, handed over line by line as it arrives (the deadline then starts again after each
    line: a sandboxed call reports progress); only the tail of stderr is kept. Past the deadline the
    run's group is killed (``timed_out``). Whatever ``on_line`` raises kills the run and is raised once
    the run is reaped. Raises SandboxUnavailableError when the server cannot be started or stops
    answering.
    """
    ours, out_read, err_read = _hand_over()
    watch = _RunWatch(ours, timeout_seconds=timeout_seconds, max_output_bytes=max_output_bytes,
                      stderr_tail_bytes=stderr_tail_bytes, on_line=on_line, drain_seconds=drain_seconds)
    try:
        ours.sendall(json.dumps(request).encode() + b"\n")
        watch.follow(out_read, err_read)
    except SandboxUnavailableError:
        _kill_unwatched(watch.outcome)
        _SERVER.restart()
        raise
    finally:
        ours.close()  # a run still going is killed by the server when its socket closes
        os.close(out_read)
        os.close(err_read)
    if watch.raised is not None:
        raise watch.raised
    return watch.outcome


def _hand_over() -> tuple[socket.socket, int, int]:
    """A new run's socket and the read ends of its stdout and stderr pipes; the other end of the socket
    and the pipes' write ends are the server's now (closed here once handed over, or on failure)."""
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        _SERVER.send([theirs.fileno(), out_write, err_write])
    except BaseException:
        for fd in (out_read, err_read):
            os.close(fd)
        ours.close()
        raise
    finally:
        theirs.close()
        os.close(out_write)
        os.close(err_write)
    return ours, out_read, err_read


def _kill_unwatched(outcome: Outcome) -> None:
    """Kill the group of a run that started and was not reported reaped: nobody watches it any more
    (its leader is orphaned, so the group still holds its id while anything in it runs)."""
    if outcome.pid is not None and outcome.status is None:
        try:
            os.killpg(outcome.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class _RunWatch:
    """One run followed from the worker's side: the server's replies on the run's socket, the run's
    stdout and stderr, its deadline, and the kill asked for past it (or past the output cap, or when
    ``on_line`` raised)."""

    def __init__(self, server: socket.socket, *, timeout_seconds: float, max_output_bytes: int,
                 stderr_tail_bytes: int, on_line: Callable[[bytes], None] | None, drain_seconds: float) -> None:
        self.outcome = Outcome()
        self.raised: BaseException | None = None
        """What ``on_line`` raised, to raise again once the run is reaped."""
        self._server = server
        self._timeout_seconds = timeout_seconds
        self._max_output_bytes = max_output_bytes
        self._stderr_tail_bytes = stderr_tail_bytes
        self._on_line = on_line
        self._drain_seconds = drain_seconds
        self._killed = False
        self._exited = False
        self._replies = bytearray()
        self._pending = bytearray()  # stdout not yet ended by a newline (on_line)
        self._deadline = time.monotonic() + timeout_seconds
        self._kill_deadline: float | None = None

    def follow(self, out_read: int, err_read: int) -> None:
        """Read until the server reported the run's exit AND both pipes closed: the last output may still
        be in a pipe when the exit is reported. Raises SandboxUnavailableError when the server stops
        answering, or does not report a killed run's end in KILL_GRACE_SECONDS."""
        with selectors.DefaultSelector() as selector:
            selector.register(out_read, selectors.EVENT_READ, self.outcome.stdout)
            selector.register(err_read, selectors.EVENT_READ, self.outcome.stderr)
            selector.register(self._server, selectors.EVENT_READ, None)
            while not (self._exited and len(selector.get_map()) == 0):
                wait = self._seconds_to_wait()
                if wait is None:
                    break
                for key, _ in selector.select(wait):
                    if key.data is None:
                        self._read_replies(selector)
                    else:
                        self._read_output(selector, key)

    def _seconds_to_wait(self) -> float | None:
        """How long the next select may wait, or None when there is nothing left to wait for; kills the
        run past its deadline (``timed_out``)."""
        now = time.monotonic()
        if self._kill_deadline is not None and now > self._kill_deadline:
            raise SandboxUnavailableError("the tool sandbox did not report a killed run's end")
        if self._exited and now > self._deadline:
            return None  # only a process that left the run's group can still hold a pipe
        if not self._exited and now > self._deadline:
            self.outcome.timed_out = True
            self._kill()
        wait = (self._kill_deadline if self._kill_deadline is not None else self._deadline) - now
        return max(wait, 0.0)

    def _kill(self) -> None:
        """Ask the server, once, to kill the run's whole group; it has KILL_GRACE_SECONDS to report it."""
        if not self._killed:
            self._killed = True
            self._kill_deadline = time.monotonic() + KILL_GRACE_SECONDS
            try:
                self._server.sendall(b'{"kill": true}\n')
            except OSError:
                pass  # the server is gone, or already closed the run: either way it ends

    def _read_replies(self, selector: selectors.BaseSelector) -> None:
        """Take the server's replies (one JSON line each) as they arrive."""
        chunk = self._server.recv(_READ_CHUNK)
        if not chunk:
            selector.unregister(self._server)
            if not self._exited:
                raise SandboxUnavailableError("the tool sandbox stopped during a run")
            return
        self._replies += chunk
        while b"\n" in self._replies:
            line, _, rest = bytes(self._replies).partition(b"\n")
            self._replies[:] = rest
            self._take_reply(json.loads(line))

    def _take_reply(self, message: dict[str, Any]) -> None:
        """The run started (its pid), could not start, or exited (its status and CPU time); after the
        exit its pipes have ``drain_seconds`` left to close."""
        if "started" in message:
            self.outcome.pid = int(message["started"])
        elif "failed" in message:
            self.outcome.failed = str(message["failed"])
            self.outcome.failed_errno = message.get("errno")
            self._exited = True
        elif "exited" in message:
            self.outcome.status = int(message["exited"])
            self.outcome.cpu_seconds = float(message["cpu"])
            self._exited = True
            self._deadline = min(self._deadline, time.monotonic() + self._drain_seconds)

    def _read_output(self, selector: selectors.BaseSelector, key: selectors.SelectorKey) -> None:
        """Keep what the run wrote: the tail of stderr, stdout up to the cap (past it the run is killed:
        ``too_large``), handed to ``on_line`` line by line when there is one."""
        chunk = os.read(key.fd, _READ_CHUNK)
        if not chunk:
            selector.unregister(key.fd)
            return
        buffer: bytearray = key.data
        if buffer is self.outcome.stderr:
            buffer += chunk
            if len(buffer) > self._stderr_tail_bytes:
                del buffer[: len(buffer) - self._stderr_tail_bytes]
            return
        self.outcome.stdout += chunk
        if len(self.outcome.stdout) > self._max_output_bytes:
            self.outcome.too_large = True
            self._kill()
        if self._on_line is not None and not self._killed:
            self._hand_lines(self._on_line, chunk)

    def _hand_lines(self, on_line: Callable[[bytes], None], chunk: bytes) -> None:
        """Hand ``on_line`` each line ``chunk`` ends; its deadline starts again after each. Whatever it
        raises kills the run and is kept in ``raised``."""
        self._pending += chunk
        while b"\n" in self._pending:
            line, _, rest = bytes(self._pending).partition(b"\n")
            self._pending[:] = rest
            try:
                on_line(line)
            except BaseException as error:  # raised again once the run is reaped
                self.raised = error
                self._kill()
                return
            self._deadline = time.monotonic() + self._timeout_seconds
