"""The tool sandbox: tools and OCR batches die with the process that started them, even SIGKILLed;
a sandboxed OCR batch is limited like a tool run; the server stays single-threaded.

Real processes throughout: a real `tenderflow worker` (and stand-in processes that run tools through
the sandbox) killed with SIGKILL, real poppler and tesseract, psutil to see what is left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tenderflow.errors import ConfigurationError, PermanentError
from tenderflow.pdf import launcher, tools
from tenderflow.pdf.ocr import OcrOptions, read_pages
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tests.conftest import wait_until
from tests.support import pdf_fixtures as fixtures

GIB = 1024**3
TOOLS = ("pdftoppm", "tesseract", "pdfinfo", "pdftotext", "sleep")


pytestmark = pytest.mark.ocr


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _running(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def _tools_under(pid: int, named: str | None = None) -> list[psutil.Process]:
    """The tools (those `named`, when given) running below `pid`. A process's name is read once, here: one
    that ends between the listing and the look (a short-lived pdfinfo or tesseract) is left out, not raised."""
    tools = []
    for process in _descendants(pid):
        try:
            name = process.name()
        except psutil.NoSuchProcess:
            continue
        if name in TOOLS and named in (None, name):
            tools.append(process)
    return tools


def _the_server_of(pid: int) -> psutil.Process:
    [server] = [process for process in psutil.Process(pid).children() if "tenderflow.pdf.sandbox" in
                " ".join(process.cmdline())]
    return server


STAND_IN = textwrap.dedent("""
    import sys, threading
    from pathlib import Path
    from tenderflow.pdf import launcher, tools
    from tenderflow.pdf.ocr import OcrOptions, read_pages
    launcher.PARENT_DEATH_SIGNAL = sys.argv[1] == "with-death-signal"
    kind, path = sys.argv[2], sys.argv[3]
    if kind == "exec":
        work = lambda: tools.run_tool(["sleep", "300"], timeout_seconds=300, memory_bytes=2 << 30)
    else:
        work = lambda: read_pages(Path(path), [1], OcrOptions(timeout_seconds=300))
    threading.Thread(target=work, daemon=True).start()  # a job thread, as in a worker
    print("started", flush=True)
    threading.Event().wait()
""")


@pytest.fixture
def stand_in(tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes that run a tool (or an OCR batch) through the sandbox from a thread, as a worker does."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def _start_stand_in(started: list[subprocess.Popen[bytes]], death_signal: bool, kind: str, path: Path
                    ) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-c", STAND_IN, "with-death-signal" if death_signal else "portable", kind, str(path)],
        stdout=subprocess.PIPE,
    )
    started.append(process)
    assert process.stdout is not None and process.stdout.readline() == b"started\n"
    return process


@pytest.mark.parametrize("death_signal", [False, True], ids=["portable", "linux-death-signal"])
@pytest.mark.parametrize("kind", ["exec", "call"])
def test_tools_die_with_the_process_that_started_them_when_it_is_sigkilled(
    tmp_path: Path, stand_in: list[subprocess.Popen[bytes]], death_signal: bool, kind: str
) -> None:
    slow = fixtures.slow_to_render_pdf(tmp_path / "slow.pdf", draws=6000)  # minutes of pdftoppm
    process = _start_stand_in(stand_in, death_signal, kind, slow)
    tool = "sleep" if kind == "exec" else "pdftoppm"
    wait_until(lambda: _tools_under(process.pid, tool), timeout=60,
               message=f"{tool} is running")
    everything = [p.pid for p in _descendants(process.pid)]

    process.send_signal(signal.SIGKILL)
    process.wait()
    # Nothing of the sandbox outlives it: not the tool, not the OCR batch, not the server.
    wait_until(lambda: not _running(everything), timeout=10, message=f"{everything} have all ended")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_an_ocr_batchs_tools_die_with_a_sigkilled_sandbox_server(
    tmp_path: Path, stand_in: list[subprocess.Popen[bytes]]
) -> None:
    slow = fixtures.slow_to_render_pdf(tmp_path / "slow.pdf", draws=6000)
    process = _start_stand_in(stand_in, True, "call", slow)
    wait_until(lambda: _tools_under(process.pid, "pdftoppm"), timeout=60,
               message="pdftoppm is running")
    server = _the_server_of(process.pid)
    batch_and_tools = [p.pid for p in server.children(recursive=True)]
    server.send_signal(signal.SIGKILL)  # no end-of-file cleanup: only the death signal is left
    wait_until(lambda: not _running(batch_and_tools), timeout=10, message=f"{batch_and_tools} have all ended")


def test_the_sandbox_server_has_one_thread_and_a_minimal_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "must-not-leak")
    launcher.restart()
    tools.warm_up()  # the OCR libraries imported: pytesseract must not have brought numpy's threads
    server = _the_server_of(os.getpid())
    assert server.num_threads() == 1
    assert "AWS_SECRET_ACCESS_KEY" not in server.environ()
    assert set(server.environ()) <= {"PATH", "LC_ALL"}


def test_an_ocr_batchs_tools_get_the_minimal_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "must-not-leak")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = subprocess.run(["sh", "-c", "command -v tesseract"], capture_output=True, text=True).stdout.strip()
    (bin_dir / "tesseract").write_text(f"#!/bin/sh\nenv >> '{tmp_path / 'env.log'}'\nexec '{real}' \"$@\"\n")
    (bin_dir / "tesseract").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    scan = fixtures.scanned_pdf(tmp_path / "scan.pdf", [fixtures.text_image()])
    [page] = read_pages(scan, [1], OcrOptions(timeout_seconds=60))
    assert "municipal" in page.text
    variables = {line.split("=", 1)[0] for line in (tmp_path / "env.log").read_text().splitlines() if "=" in line}
    assert "AWS_SECRET_ACCESS_KEY" not in variables
    assert {"PATH", "LC_ALL", "OMP_THREAD_LIMIT"} <= variables <= {"PATH", "LC_ALL", "OMP_THREAD_LIMIT",
                                                                   "TESSDATA_PREFIX", "PWD", "SHLVL", "_"}


def test_an_ocr_batch_over_its_memory_limit_fails_its_pages_for_good(tmp_path: Path) -> None:
    scan = fixtures.scanned_pdf(tmp_path / "scan.pdf", [fixtures.text_image()])
    # Less than tesseract needs for its English model (it starts, then fails to allocate): the limit
    # applies inside the batch, to the programs pytesseract starts.
    with pytest.raises(PermanentError, match=r"^page 1: OCR needs more than 80 MiB of memory$"):
        read_pages(scan, [1], OcrOptions(timeout_seconds=60, memory_bytes=80 * 1024**2))
    # Too little for tesseract even to load its libraries: the limit is wrong, not the page.
    with pytest.raises(ConfigurationError, match="cannot start within a 41943040 byte memory limit"):
        read_pages(scan, [1], OcrOptions(timeout_seconds=60, memory_bytes=40 * 1024**2))


def test_a_killed_workers_ocr_tools_die_with_it(database_url: str, conn: object, tmp_path: Path) -> None:
    """A real `tenderflow worker`, SIGKILLed (only itself, not its group) while pdftoppm renders a page
    for it: nothing it started is left running."""
    import psycopg

    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    env.update({
        "DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
        "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "TENDERFLOW_POLL_SECONDS": "0.2",
        "TENDERFLOW_OCR_DETECT_LANGUAGES": "false", "TENDERFLOW_LOG_JSON": "true",
    })
    storage = open_storage((tmp_path / "objects").as_uri())
    with psycopg.connect(database_url, autocommit=True) as db:
        upload_file(db, storage, fixtures.slow_to_render_pdf(tmp_path / "slow.pdf", draws=6000),
                    UploadPolicy(max_bytes=10**8))
    log = (tmp_path / "worker.log").open("wb")
    worker = subprocess.Popen([sys.executable, "-m", "tenderflow", "worker", "--pool", "ocr", "--threads", "1"],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        found = wait_until(lambda: _tools_under(worker.pid, "pdftoppm"), timeout=120,
                           message="the worker's pdftoppm is running")
        everything = [p.pid for p in _descendants(worker.pid)]
        assert found
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        wait_until(lambda: not _running(everything), timeout=10,
                   message=f"the killed worker's {everything} have all ended")
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        log.close()
