"""A remote worker's server address (issue 12): plain http:// to another machine is warned about (the
token and the documents' text would cross the network in clear), loopback and https are not, and
what is no http(s) URL is a usage error. No request leaves this machine: the CLI checks stop before
a worker connects."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.remote.client import server_url_problem


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://127.8.0.3", "http://localhost:9000/",
                                 "http://[::1]:8000", "http://api.localhost", "https://tenders.example.com",
                                 "https://10.1.2.3:8443"])
def test_loopback_and_https_are_fine(url: str) -> None:
    assert server_url_problem(url) == (None, None)


@pytest.mark.parametrize("url", ["http://tenders.example.com", "http://10.1.2.3:8000", "http://[2001:db8::1]/",
                                 "http://localhost.example.com", "http://0.0.0.0:8000"])
def test_plain_http_to_another_machine_is_warned_about(url: str) -> None:
    refusal, warning = server_url_problem(url)
    assert refusal is None and warning is not None and "unencrypted" in warning and "https://" in warning


@pytest.mark.parametrize("url", ["tenders.example.com", "ftp://tenders.example.com", "http://", "file:///tmp/x"])
def test_what_is_no_http_url_is_refused(url: str) -> None:
    refusal, _ = server_url_problem(url)
    assert refusal is not None and "http:// or https://" in refusal


def test_the_worker_command_warns_then_goes_on_and_refuses_a_bad_url(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    env |= {"TENDERFLOW_DATA_DIR": str(tmp_path), "TENDERFLOW_LOG_JSON": "true"}
    # --burst is refused for a remote worker after the address is checked, before anything connects.
    warned = CliRunner().invoke(app, ["worker", "--remote", "http://tenders.example.com", "--token", "tfw_x",
                                      "--pool", "ocr", "--burst"], env=env)
    assert "warning: http://tenders.example.com is plain http to another machine" in warned.output
    assert warned.exit_code == 2 and "--burst needs the database" in warned.output  # a usage error
    quiet = CliRunner().invoke(app, ["worker", "--remote", "https://tenders.example.com", "--token", "tfw_x",
                                     "--pool", "ocr", "--burst"], env=env)
    assert "warning" not in quiet.output and "--burst needs the database" in quiet.output
    refused = CliRunner().invoke(app, ["worker", "--remote", "tenders.example.com", "--token", "tfw_x"], env=env)
    assert refused.exit_code == 2 and "needs an http:// or https:// URL" in refused.output
