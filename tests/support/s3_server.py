"""A real S3 endpoint for tests: moto's server on a free loopback port, speaking HTTP.

    with run_s3_server() as endpoint_url:
        storage = open_storage("s3://bucket", endpoint_url=endpoint_url, region="us-east-1")

Clients still need credentials (any values: moto does not check them); set AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY in the test's environment, e.g. with `fake_aws_credentials(monkeypatch)`.
Every server in one process shares moto's in-memory state, so give each test its own bucket.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer


@contextlib.contextmanager
def run_s3_server() -> Iterator[str]:
    """Serve the S3 API on 127.0.0.1 (port chosen by the OS) and yield its endpoint URL."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@contextlib.contextmanager
def s3_bucket(monkeypatch: pytest.MonkeyPatch, prefix: str = "inbox") -> Iterator[tuple[str, str, Any]]:
    """moto's server with fake credentials and a new bucket of its own: (endpoint URL, bucket, client)."""
    fake_aws_credentials(monkeypatch)
    with run_s3_server() as endpoint:
        bucket = f"{prefix}-{uuid.uuid4().hex[:10]}"
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
        client.create_bucket(Bucket=bucket)
        yield endpoint, bucket, client


def fake_aws_credentials(monkeypatch: pytest.MonkeyPatch, *, region: str = "us-east-1") -> None:
    """Point boto3's credential chain at fixed fake keys, away from any real profile or instance role."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", region)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/tenderflow-test-aws-config")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/tenderflow-test-aws-credentials")
    for name in (
        "AWS_PROFILE",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
    ):
        monkeypatch.delenv(name, raising=False)
