"""The tool sandbox server: one single-threaded process per worker process that starts every tool run
and every sandboxed call as a child of its own, with its limits, in its own process group.

Started by ``launcher.py`` (which says how a run is asked for and reported), it never reads a
stranger's input itself. Two kinds of run:

- ``exec`` (pdfinfo, pdftotext, pdftoppm, tesseract): the program is started with vfork + exec as a
  session and process group leader of its own (``setsid``), with the minimal environment it was
  given. Its limits are set with ``resource`` here and inherited: for the length of the spawn this
  process lowers its own soft limits, address space to the run's ``memory_bytes`` and core files to
  0, then puts them back; being single-threaded, nothing else allocates meanwhile, and no Python
  code runs between fork and exec (a process that does not fit in the limit it would lend forks a
  child that sets hard and soft limits itself instead). No ``prlimit`` binary, no ``preexec_fn`` in
  a threaded process. Measured against the old prlimit runs, a pdfinfo run costs the same CPU.
- ``call`` (an OCR batch): a forked child of this process that becomes a session leader, sets its
  own hard and soft limits, asks Linux to send it SIGTERM when this server dies
  (``PR_SET_PDEATHSIG``; it then kills its own group), and runs one of the registered
  ``launcher.ENTRIES``, writing JSON lines on its result pipe. pdf2image and pytesseract start their
  programs as its children: in its group, under its limits.

When a run's leader exits, the server kills whatever is left in its group, reaps it (Linux waits
with ``WNOWAIT`` first, so the group is killed while its leader's pid is still reserved) and reports
the exit status and CPU time. A run is killed on request, and when the worker's end of its socket
closes. When the worker's end of the control socket closes (the worker exited or was SIGKILLed) or
the server gets SIGTERM, every run's group is killed and the server exits: this end-of-file is how a
worker's tools die with it, on every Unix.

macOS refuses address-space limits (``setrlimit(RLIMIT_AS)`` fails with EINVAL, and XNU would not
enforce one): there the memory limit is skipped, and time limits, group kills and the pixel cap
remain.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib
import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from tenderflow.pdf import launcher

PRELOAD = ("tenderflow.pdf.ocr", "tenderflow.pdf.languages", "tenderflow.pdf.searchable")
"""The modules whose entries sandboxed calls run: imported once here, so that a call's child is a
fork (about a millisecond), not a Python start-up with pytesseract, pdf2image and PIL (~0.2 s)."""

OPTIONAL_IMPORTS_REFUSED = ("numpy", "pandas")
"""Optional imports of pytesseract that the server refuses (see ``_Server._preload``)."""

_LINUX = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1
_READ_CHUNK = 65536


@functools.cache
def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _address_space_within_hard_limit(memory_bytes: int) -> int:
    """``memory_bytes``, or this process's hard address-space limit when that is lower."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    return memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)


def set_limits(memory_bytes: int) -> None:
    """This process's limits: no core file, and at most ``memory_bytes`` of address space (not on macOS,
    which refuses the limit). Children inherit both."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limit = _address_space_within_hard_limit(memory_bytes)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        if sys.platform != "darwin":
            raise


def set_parent_death_signal(signum: int) -> None:
    """Linux only: have the kernel send ``signum`` to this process when its parent dies."""
    if _LINUX and _libc().prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already empty (or only a zombie that no longer counts)


@contextlib.contextmanager
def _lowered_limits(memory_bytes: int) -> Iterator[None]:
    """This process's soft address-space limit lowered to ``memory_bytes`` and its soft core-file
    limit to 0 for the block, then put back: what a program started inside it inherits. The hard
    limits stay (an unprivileged process could not raise them again), so a program could lift its
    soft limits itself, which poppler and tesseract never do. Safe only in a single-threaded
    process: no other thread may allocate while the limit is low."""
    address_space = resource.getrlimit(resource.RLIMIT_AS)
    core = resource.getrlimit(resource.RLIMIT_CORE)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (_address_space_within_hard_limit(memory_bytes), address_space[1]))
    except (ValueError, OSError):
        if sys.platform != "darwin":
            raise
        address_space = None  # macOS refuses address-space limits
    resource.setrlimit(resource.RLIMIT_CORE, (0, core[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, core)
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, address_space)


def _prepare_exec(memory_bytes: int, server_pid: int, death_signal: bool) -> None:
    """Runs in the forked child between fork and exec (``preexec_fn``; safe: this process has one
    thread). Popen has already made it a session leader."""
    set_limits(memory_bytes)
    if death_signal:
        set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != server_pid:
        os._exit(1)  # the server died before the death signal was armed: nobody would watch this run


@dataclass(eq=False)
class _Run:
    sock: socket.socket
    out_fd: int
    err_fd: int
    buffer: bytearray = field(default_factory=bytearray)
    started: bool = False
    pid: int | None = None
    popen: subprocess.Popen[bytes] | None = None
    orphan: bool = False
    """The worker's end of the run's socket closed: kill, reap, report to nobody."""


class _Server:
    def __init__(self, control_fd: int, *, native_wait: bool) -> None:
        self.pid = os.getpid()
        self.native_wait = native_wait
        self.control = socket.socket(fileno=control_fd)
        self.selector = selectors.DefaultSelector()
        self.live: dict[int, _Run] = {}  # by pid: started, not yet reaped
        self.preloaded = False
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_write, False)
        os.set_blocking(self.wake_read, False)
        signal.set_wakeup_fd(self.wake_write)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.signal(signal.SIGTERM, self._on_sigterm)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is for the worker, which decides
        self.selector.register(self.control, selectors.EVENT_READ, self._on_control)
        self.selector.register(self.wake_read, selectors.EVENT_READ, self._on_wake)

    def _on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    def serve(self) -> None:
        self.control.sendall(b"k")
        try:
            while True:
                for key, _ in self.selector.select():
                    key.data()
                self._reap()
        except SystemExit:
            pass
        finally:
            self._shutdown()

    # --- events -----------------------------------------------------------------------------------

    def _on_control(self) -> None:
        try:
            data, fds, _, _ = socket.recv_fds(self.control, 1, 3)
        except OSError:
            data, fds = b"", []
        if not data:
            raise SystemExit(0)  # the worker is gone
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            return
        for fd in fds:
            os.set_inheritable(fd, False)
        run = _Run(socket.socket(fileno=fds[0]), fds[1], fds[2])
        self.selector.register(run.sock, selectors.EVENT_READ, functools.partial(self._on_run, run))

    def _on_wake(self) -> None:
        try:
            while os.read(self.wake_read, 4096):
                pass
        except BlockingIOError:
            pass

    def _on_run(self, run: _Run) -> None:
        try:
            data = run.sock.recv(_READ_CHUNK)
        except OSError:
            data = b""
        if not data:
            self.selector.unregister(run.sock)
            run.orphan = True
            if run.pid is not None and run.pid in self.live:
                _kill_group(run.pid)
            else:
                self._close(run)
            return
        run.buffer += data
        while b"\n" in run.buffer:
            line, _, rest = bytes(run.buffer).partition(b"\n")
            run.buffer[:] = rest
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not run.started:
                run.started = True
                self._start(run, message)
            elif message.get("kill") and run.pid is not None and run.pid in self.live:
                _kill_group(run.pid)

    # --- runs -------------------------------------------------------------------------------------

    def _start(self, run: _Run, request: Mapping[str, Any]) -> None:
        kind = request.get("kind")
        try:
            if kind == "preload":
                self._preload()
                self._send(run, {"exited": 0, "cpu": 0.0})
                self._close(run)
                return
            if kind == "exec":
                self._start_exec(run, request)
            elif kind == "call":
                self._preload()
                self._start_call(run, request)
            else:
                raise ValueError(f"unknown kind of run {kind!r}")
        except (OSError, subprocess.SubprocessError, ValueError, KeyError, ImportError) as error:
            self._send(run, {"failed": str(error), "errno": getattr(error, "errno", None)})
            self._close(run)
            return
        finally:
            for fd in (run.out_fd, run.err_fd):  # the child has its copies; the pipes close when it ends
                if fd >= 0:
                    os.close(fd)
            run.out_fd = run.err_fd = -1
        assert run.pid is not None
        self.live[run.pid] = run
        self._send(run, {"started": run.pid})

    def _start_exec(self, run: _Run, request: Mapping[str, Any]) -> None:
        memory_bytes = int(request["memory_bytes"])
        arguments: dict[str, Any] = {
            "executable": request["executable"], "stdin": subprocess.DEVNULL, "stdout": run.out_fd,
            "stderr": run.err_fd, "env": dict(request["env"]), "cwd": request.get("cwd"),
            "start_new_session": True, "close_fds": True,
        }
        try:
            # The fast way: this process's soft limits lowered for the length of a vfork + exec, which
            # the program inherits; no Python code runs in the child at all.
            with _lowered_limits(memory_bytes):
                run.popen = subprocess.Popen(list(request["args"]), **arguments)
        except MemoryError:
            # This process does not fit in the limit it would lend: set it in a forked child instead.
            run.popen = subprocess.Popen(
                list(request["args"]), **arguments,
                preexec_fn=functools.partial(_prepare_exec, memory_bytes, self.pid,
                                             bool(request.get("parent_death_signal", True))),
            )
        run.pid = run.popen.pid

    def _start_call(self, run: _Run, request: Mapping[str, Any]) -> None:
        name = str(request["entry"])
        if name not in launcher.ENTRIES:
            raise ValueError(f"no sandboxed entry named {name!r}")
        pid = os.fork()
        if pid == 0:
            _call_child(run, request, self.pid)  # never returns
        run.pid = pid

    def _preload(self) -> None:
        if self.preloaded:
            return
        # pytesseract imports numpy and pandas when they are installed, only to accept arrays and
        # return data frames, which tenderflow never asks for; numpy's OpenBLAS would start a thread
        # here, and this process must stay single-threaded (see the module docstring).
        for optional in OPTIONAL_IMPORTS_REFUSED:
            sys.modules.setdefault(optional, None)  # type: ignore[arg-type]  # None: "import fails"
        for module in PRELOAD:
            importlib.import_module(module)
        import pytesseract

        from tenderflow.pdf.packs import installed_languages

        try:  # asked once here, so that no call's child runs `tesseract --version` and `--list-langs` again
            pytesseract.get_tesseract_version()
            installed_languages()
        except Exception:  # noqa: S110 - a missing tesseract is reported by the run that needs it
            pass
        self.preloaded = True

    def _reap(self) -> None:
        for pid, run in list(self.live.items()):
            try:
                if self.native_wait:
                    if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
                        continue
                    _kill_group(pid)  # the leader is a zombie: its group id cannot have been reused
                    _, status, usage = os.wait4(pid, 0)
                else:
                    reaped, status, usage = os.wait4(pid, os.WNOHANG)
                    if reaped == 0:
                        continue
                    _kill_group(pid)
            except ChildProcessError:  # reaped by someone else: nothing to report but its end
                del self.live[pid]
                self._send(run, {"exited": -1, "cpu": 0.0})
                self._close(run)
                continue
            code = os.waitstatus_to_exitcode(status)
            if run.popen is not None:
                run.popen.returncode = code  # Popen must not wait for it again
            del self.live[pid]
            if not run.orphan:
                self._send(run, {"exited": code, "cpu": usage.ru_utime + usage.ru_stime})
            self._close(run)

    def _send(self, run: _Run, message: Mapping[str, Any]) -> None:
        if run.orphan:
            return
        try:
            run.sock.sendall(json.dumps(message).encode() + b"\n")
        except OSError:
            run.orphan = True

    def _close(self, run: _Run) -> None:
        if run.sock.fileno() >= 0:
            try:
                self.selector.unregister(run.sock)
            except (KeyError, ValueError):
                pass
            run.sock.close()
        for fd in (run.out_fd, run.err_fd):
            if fd >= 0:
                os.close(fd)
        run.out_fd = run.err_fd = -1

    def _shutdown(self) -> None:
        for pid in self.live:
            _kill_group(pid)
        for pid in list(self.live):
            try:
                os.wait4(pid, 0)
            except ChildProcessError:
                pass


def _open_files_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if 0 < soft < 1 << 20 else 1 << 16


def _write(fd: int, message: Mapping[str, Any]) -> None:
    data = memoryview(json.dumps(message).encode() + b"\n")
    while data:
        data = data[os.write(fd, data):]


def _kill_own_group(signum: int, frame: FrameType | None) -> None:
    os.killpg(0, signal.SIGKILL)


def _call_child(run: _Run, request: Mapping[str, Any], server_pid: int) -> None:
    """The child of a sandboxed call: limits, file descriptors, environment, the entry; then _exit.

    fd 3 is the result pipe (JSON lines: ``{"progress": …}``, then ``{"return": …}`` or
    ``{"raise": …}``); stdout and stderr both go to the run's stderr pipe, so that nothing a library
    prints can garble the results."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, _kill_own_group)
        set_limits(int(request["memory_bytes"]))
        if request.get("parent_death_signal", True):
            set_parent_death_signal(signal.SIGTERM)
        if os.getppid() != server_pid:
            os._exit(1)
        results = os.dup(run.out_fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(run.err_fd, 1)
        os.dup2(run.err_fd, 2)
        if results != 3:
            os.dup2(results, 3, inheritable=False)
        os.set_inheritable(3, False)
        os.closerange(4, _open_files_limit())
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = request.get("tmpdir") or None
        launcher.mark_inside()
        function = launcher.ENTRIES[str(request["entry"])]
        value = function(request["arguments"], lambda progress: _write(3, {"progress": progress}))
        _write(3, {"return": value})
        code = 0
    except BaseException as error:
        from tenderflow.pdf.tools import describe_error

        try:
            traceback.print_exc()
            _write(3, {"raise": describe_error(error)})
            code = 0
        except BaseException:  # noqa: S110 - the exit status says it failed
            pass
    finally:
        os._exit(code)


def serve(control_fd: int, *, portable: bool = False) -> None:
    """The server's main loop, on the control socket the worker passed (``launcher._Server._start``);
    ``portable`` waits for runs as off Linux (no ``WNOWAIT``), for tests."""
    _Server(control_fd, native_wait=_LINUX and not portable).serve()
