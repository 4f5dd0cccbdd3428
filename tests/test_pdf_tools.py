"""run_tool: process-group kill on timeout, memory limit, minimal environment, output cap; each run
started by the tool sandbox, waited for as on Linux and as on other Unixes (no WNOWAIT)."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from tenderflow.errors import ConfigurationError, PermanentError, RetryableError
from tenderflow.pdf import launcher
from tenderflow.pdf.tools import ToolOutputTooLargeError, ToolTimeoutError, run_tool

GIB = 1024**3


@pytest.fixture(autouse=True, params=["native-wait", "portable-wait"])
def sandbox_server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test once with the server waiting for runs as on Linux, once as on macOS and the BSDs."""
    monkeypatch.setattr(launcher, "PORTABLE_WAIT", request.param == "portable-wait")
    launcher.restart()
    yield
    launcher.restart()


def _alive(pid: int) -> bool:
    """True while ``pid`` is a running process (a zombie waiting for its reaper is dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 100 & echo $! > {pids}; echo $$ >> {pids}; sleep 100"
    started = time.monotonic()
    with pytest.raises(ToolTimeoutError) as raised:
        run_tool(["sh", "-c", script], timeout_seconds=0.5, memory_bytes=GIB)
    # The background sleep holds stdout open: only a group kill lets run_tool return this soon.
    assert time.monotonic() - started < 5
    assert raised.value.program == "sh"
    background, shell = (int(line) for line in pids.read_text().split())
    deadline = time.monotonic() + 5
    while (_alive(background) or _alive(shell)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(background), "the background child survived the timeout"
    assert not _alive(shell), "the direct child survived the timeout"
    assert not Path(f"/proc/{shell}").exists(), "the direct child was not reaped"


def test_finished_tool_leaves_nothing_running(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    result = run_tool(["sh", "-c", f"sleep 100 & echo $! > {pids}; echo done"], timeout_seconds=10, memory_bytes=GIB)
    assert result.returncode == 0 and result.stdout == b"done\n"
    assert result.seconds < 5
    background = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _alive(background) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(background)


def test_memory_limit_applies_to_the_tool() -> None:
    allocate = "bytearray(400 * 1024 * 1024)"
    limited = run_tool([sys.executable, "-c", allocate], timeout_seconds=30, memory_bytes=200 * 1024**2)
    assert limited.returncode != 0
    assert b"MemoryError" in limited.stderr
    roomy = run_tool([sys.executable, "-c", allocate], timeout_seconds=30, memory_bytes=2 * GIB)
    assert roomy.returncode == 0, roomy.stderr_text


def test_environment_is_minimal_with_one_openmp_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "must-not-leak")
    result = run_tool(["env"], timeout_seconds=10, memory_bytes=GIB)
    variables = dict(line.split("=", 1) for line in result.stdout.decode().splitlines())
    assert variables["OMP_THREAD_LIMIT"] == "1"
    assert "AWS_SECRET_ACCESS_KEY" not in variables
    assert set(variables) <= {"PATH", "LC_ALL", "OMP_THREAD_LIMIT", "TESSDATA_PREFIX"}


def test_flooding_stdout_is_stopped() -> None:
    with pytest.raises(ToolOutputTooLargeError):
        run_tool(["yes"], timeout_seconds=30, memory_bytes=GIB, max_output_bytes=1024**2)


def test_stderr_and_exit_status_are_returned() -> None:
    result = run_tool(["sh", "-c", "echo oops >&2; exit 3"], timeout_seconds=10, memory_bytes=GIB)
    assert result.returncode == 3
    assert result.stderr == b"oops\n"
    assert not result.killed_from_outside


def test_missing_program_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="no-such-tool"):
        run_tool(["no-such-tool"], timeout_seconds=10, memory_bytes=GIB)


def test_timeout_reports_the_cpu_the_tool_used() -> None:
    with pytest.raises(ToolTimeoutError) as busy:
        run_tool(["sh", "-c", "while :; do :; done"], timeout_seconds=1, memory_bytes=GIB)
    with pytest.raises(ToolTimeoutError) as idle:
        run_tool(["sleep", "100"], timeout_seconds=1, memory_bytes=GIB)
    assert busy.value.cpu_seconds > 0.1
    assert idle.value.cpu_seconds < 0.1


def test_busy_timeout_is_permanent_and_starved_timeout_retryable() -> None:
    busy = ToolTimeoutError(program="pdftoppm", timeout_seconds=120, cpu_seconds=118)
    starved = ToolTimeoutError(program="pdftoppm", timeout_seconds=120, cpu_seconds=20)
    permanent = busy.as_job_error("page 3: rendering")
    assert isinstance(permanent, PermanentError)
    assert str(permanent) == "page 3: rendering took longer than 120 s and was stopped"
    assert isinstance(starved.as_job_error("page 3: rendering"), RetryableError)


def test_runs_from_many_threads_at_once_each_get_their_own_output() -> None:
    def run(number: int) -> tuple[int, bytes]:
        result = run_tool(["sh", "-c", f"sleep 0.{number % 3}; echo {number}; echo err{number} >&2"],
                          timeout_seconds=30, memory_bytes=GIB)
        return result.returncode, result.stdout + result.stderr

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(run, range(24)))
    assert results == [(0, f"{number}\nerr{number}\n".encode()) for number in range(24)]


def test_a_program_that_cannot_be_executed_is_a_configuration_error(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "pdfinfo"
    broken.write_bytes(b"\x7fELF not really")
    broken.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ConfigurationError, match=r"pdfinfo \(.*\) cannot be executed"):
        run_tool(["pdfinfo", "-v"], timeout_seconds=10, memory_bytes=GIB)


def test_a_new_sandbox_server_is_started_when_the_old_one_died() -> None:
    run_tool(["true"], timeout_seconds=10, memory_bytes=GIB)
    [server] = [child for child in psutil.Process().children() if "tenderflow.pdf.sandbox" in " ".join(child.cmdline())]
    server.send_signal(signal.SIGKILL)
    server.wait(10)
    assert run_tool(["echo", "again"], timeout_seconds=10, memory_bytes=GIB).stdout == b"again\n"


def test_a_run_whose_server_dies_under_it_is_retryable_and_its_tool_killed(tmp_path: Path) -> None:
    pids = tmp_path / "pid"

    def kill_the_server_once_the_tool_runs() -> None:
        deadline = time.monotonic() + 10
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        for child in psutil.Process().children():
            if "tenderflow.pdf.sandbox" in " ".join(child.cmdline()):
                child.send_signal(signal.SIGKILL)

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(kill_the_server_once_the_tool_runs)
        with pytest.raises(RetryableError, match="the tool sandbox stopped during a run"):
            run_tool(["sh", "-c", f"echo $$ > {pids}; exec sleep 100"], timeout_seconds=60, memory_bytes=GIB)
    tool = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _alive(tool) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(tool), "the orphaned tool was left running"
