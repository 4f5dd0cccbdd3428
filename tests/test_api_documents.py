"""The tenants' HTTP API over real HTTP (uvicorn on loopback), a real PostgreSQL and file storage."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tenderflow.api.worker_tokens import create_token
from tenderflow.config import Settings
from tenderflow.logs import configure_logging
from tenderflow.pipeline.storage import open_storage
from tenderflow.remote.client import RemoteQueueClient
from tenderflow.remote.protocol import WorkerHello
from tests.support.api_harness import RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, text_pdf

pytestmark = pytest.mark.settings(max_upload_bytes=200_000)


def upload(api: RunningApi, key: str, path: Path, **params: Any) -> httpx.Response:
    with path.open("rb") as handle:
        return api.client.post("/v1/documents", headers=bearer(key), params=params,
                               files={"file": (path.name, handle, "application/pdf")})


def stored_objects(settings: Settings) -> list[Path]:
    root = Path(settings.resolved_storage_url.removeprefix("file://"))
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def spooled_files(settings: Settings) -> list[Path]:
    return list((settings.data_dir / "spool").glob("*"))


def test_upload_follow_and_read_text_and_fields(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    key = tenant_with_key(conn, "acme")
    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE, *numbered_pages(3)[1:]])

    created = upload(api, key, pdf)
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["status"] == "created" and body["version"] == 1
    assert created.headers["location"] == f"/v1/documents/{body['id']}"
    again = upload(api, key, pdf)
    assert (again.status_code, again.json()["status"], again.json()["id"]) == (200, "existing", body["id"])

    queued = api.client.get(f"/v1/documents/{body['id']}", headers=bearer(key)).json()
    assert (queued["state"], queued["pages_done"], queued["filename"]) == ("queued", 0, "notice.pdf")
    not_yet = api.client.get(f"/v1/documents/{body['id']}/text", headers=bearer(key))
    assert not_yet.status_code == 409 and "no finished version" in not_yet.json()["detail"]
    assert not_yet.headers["retry-after"] == "5", "a client polling for the text is told when to ask again"
    not_yet = api.client.get(f"/v1/documents/{body['id']}/fields", headers=bearer(key))
    assert not_yet.status_code == 409 and not_yet.headers["retry-after"] == "5"

    drain(api.services.pool, settings, open_storage(settings.resolved_storage_url))

    done = api.client.get(f"/v1/documents/{body['id']}", headers=bearer(key)).json()
    assert (done["state"], done["pages_done"], done["pages_total"], done["current_version"]) == ("done", 3, 3, 1)
    text = api.client.get(f"/v1/documents/{body['id']}/text", headers=bearer(key)).json()
    assert [page["number"] for page in text["pages"]] == [1, 2, 3]
    assert "EH-2026-0417" in text["pages"][0]["text"] and "PAGE-003" in text["pages"][2]["text"]
    fields = api.client.get(f"/v1/documents/{body['id']}/fields", headers=bearer(key)).json()
    assert fields["version"] == 1 and fields["fields"]["reference_number"]["value"] == "EH-2026-0417"
    # the deadline with the offset of the buyer's zone (the country, its zone and why, beside it)
    assert fields["deadlines"]["submission_deadline"]["date_time"] == "2026-03-15T12:00:00+01:00"
    assert (fields["country"]["code"], fields["country"]["time_zone"]) == ("NL", "Europe/Amsterdam")
    thumbnail = api.client.get(f"/v1/documents/{body['id']}/thumbnail", headers=bearer(key))
    assert thumbnail.status_code == 200 and thumbnail.headers["content-type"] == "image/png"
    assert thumbnail.content.startswith(b"\x89PNG")

    again = api.client.post(f"/v1/documents/{body['id']}/reprocess", headers=bearer(key),
                            json={"start_from": "extract"})
    assert again.status_code == 202 and again.json() == {"id": body["id"], "version": 2, "created": True}
    still_readable = api.client.get(f"/v1/documents/{body['id']}/fields", headers=bearer(key)).json()
    assert still_readable["version"] == 1  # the old results stay until the new version lands


def test_another_tenants_documents_do_not_exist_for_a_tenant(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    acme, globex = tenant_with_key(conn, "acme"), tenant_with_key(conn, "globex")
    document_id = upload(api, acme, text_pdf(tmp_path / "a.pdf", [TENDER_PAGE])).json()["id"]
    missing_id = document_id + 1000

    for path in ("", "/text", "/fields", "/thumbnail"):
        theirs = api.client.get(f"/v1/documents/{document_id}{path}", headers=bearer(globex))
        nobodys = api.client.get(f"/v1/documents/{missing_id}{path}", headers=bearer(globex))
        assert theirs.status_code == nobodys.status_code == 404, (path, theirs.text)
        assert theirs.json()["detail"] == f"no document with id {document_id}"
    reprocess = api.client.post(f"/v1/documents/{document_id}/reprocess", headers=bearer(globex))
    assert reprocess.status_code == 404
    assert api.client.get("/v1/documents", headers=bearer(globex)).json() == {"documents": [], "next_cursor": None}
    assert conn.execute("SELECT latest_version FROM documents WHERE id = %s", (document_id,)).fetchone() == (1,)
    # …while its owner sees it.
    assert api.client.get(f"/v1/documents/{document_id}", headers=bearer(acme)).status_code == 200


def test_missing_wrong_or_revoked_keys_are_refused_with_401(
    api: RunningApi, conn: psycopg.Connection[Any]
) -> None:
    from tenderflow.tenants.keys import revoke_api_key

    key = tenant_with_key(conn, "acme")
    assert api.client.get("/v1/documents", headers=bearer(key)).status_code == 200
    no_key = api.client.get("/v1/documents")
    assert no_key.status_code == 401 and "missing API key" in no_key.json()["detail"]
    assert no_key.headers["www-authenticate"] == "Bearer"
    tampered = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    assert api.client.get("/v1/documents", headers=bearer(tampered)).status_code == 401
    revoke_api_key(conn, key.split("_")[1])
    revoked = api.client.get("/v1/documents", headers=bearer(key))
    assert revoked.status_code == 401 and revoked.json()["detail"] == "invalid or revoked API key"


def test_documents_are_listed_newest_first_by_cursor_and_state(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    key = tenant_with_key(conn, "acme")
    ids = [upload(api, key, text_pdf(tmp_path / f"{n}.pdf", [[f"Tender {n}"]])).json()["id"] for n in range(5)]
    conn.execute("UPDATE document_versions SET state = 'failed', error = 'test', finished_at = now() "
                 "WHERE document_id = %s", (ids[1],))
    seen: list[int] = []
    cursor: int | None = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = api.client.get("/v1/documents", headers=bearer(key), params=params).json()
        seen += [d["id"] for d in page["documents"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(ids, reverse=True) and pages == 3
    failed = api.client.get("/v1/documents", headers=bearer(key), params={"state": "failed"}).json()
    assert [(d["id"], d["state"], d["error"]) for d in failed["documents"]] == [(ids[1], "failed", "test")]
    bad = api.client.get("/v1/documents", headers=bearer(key), params={"state": "lost"})
    assert bad.status_code == 422 and bad.json()["detail"]


def _raw_request(port: int, head: bytes, body_parts: list[bytes]) -> bytes:
    """Send a hand-made HTTP request (lying headers allowed) and return what came back."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        try:
            for part in body_parts:
                sock.sendall(part)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: what it answered is still in the socket
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    return answer


def _multipart(payload: bytes, boundary: str = "tfboundary") -> tuple[bytes, bytes]:
    start = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.pdf\"\r\n"
             "Content-Type: application/pdf\r\n\r\n").encode()
    return start + payload, f"\r\n--{boundary}--\r\n".encode()


def test_oversized_uploads_are_refused_while_reading_and_nothing_is_stored(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings
) -> None:
    key = tenant_with_key(conn, "acme")
    auth = f"Authorization: Bearer {key}\r\n".encode()
    content_type = b"Content-Type: multipart/form-data; boundary=tfboundary\r\n"
    cap = settings.max_upload_bytes
    start, end = _multipart(b"%PDF-1.7\n" + b"0" * 1000)

    # 1. No Content-Length at all (chunked), and far more than the cap: cut off at the cap.
    chunk = b"%PDF-1.7\n" + b"0" * 65536
    chunked = [b"%x\r\n%s\r\n" % (len(start), start)] + [b"%x\r\n%s\r\n" % (len(chunk), chunk)] * 40
    answer = _raw_request(api.port, b"POST /v1/documents HTTP/1.1\r\nHost: x\r\n" + auth + content_type
                          + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n", chunked)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    assert b"larger than the limit" in answer

    # 2. A Content-Length that claims little while the body goes on: only the claimed bytes are
    #    read, and the rest is not taken for a body (the server refuses it as a malformed request).
    payload = b"%PDF-1.7\n" + b"0" * (cap * 3)
    lying_start, _ = _multipart(payload)
    answer = _raw_request(api.port, b"POST /v1/documents HTTP/1.1\r\nHost: x\r\n" + auth + content_type
                          + b"Content-Length: 4000\r\nConnection: close\r\n\r\n", [lying_start[i:i + 65536]
                          for i in range(0, len(lying_start), 65536)])
    assert answer.startswith(b"HTTP/1.1 400"), answer[:300]
    #    The claimed bytes alone are a multipart body cut short: refused as such.
    answer = _raw_request(api.port, b"POST /v1/documents HTTP/1.1\r\nHost: x\r\n" + auth + content_type
                          + b"Content-Length: 4000\r\nConnection: close\r\n\r\n", [lying_start[:4000]])
    assert answer.startswith(b"HTTP/1.1 400"), answer[:300]
    assert b"ended early" in answer

    # 3. A Content-Length over the cap: refused before a byte of the body is read.
    answer = _raw_request(api.port, b"POST /v1/documents HTTP/1.1\r\nHost: x\r\n" + auth + content_type
                          + f"Content-Length: {cap * 10}\r\nConnection: close\r\n\r\n".encode(), [start])
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]

    # 4. An honest upload one byte over the cap, through an ordinary client.
    over = api.client.post("/v1/documents", headers=bearer(key),
                           files={"file": ("over.pdf", b"%PDF-1.7\n" + b"0" * (cap - 8), "application/pdf")})
    assert over.status_code == 413 and "limit" in over.json()["detail"]

    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)
    assert stored_objects(settings) == [] and spooled_files(settings) == []
    # The server is still fine.
    assert api.client.get("/v1/documents", headers=bearer(key)).status_code == 200


def test_files_that_are_not_pdfs_or_empty_are_refused_and_nothing_is_stored(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings
) -> None:
    key = tenant_with_key(conn, "acme")
    html = api.client.post("/v1/documents", headers=bearer(key),
                           files={"file": ("page.pdf", b"<html>" + b"x" * 5000 + b"</html>", "application/pdf")})
    assert html.status_code == 415 and "not a PDF" in html.json()["detail"]
    empty = api.client.post("/v1/documents", headers=bearer(key), files={"file": ("e.pdf", b"", "application/pdf")})
    assert empty.status_code == 400 and "empty" in empty.json()["detail"]
    no_file = api.client.post("/v1/documents", headers=bearer(key), files={"priority": (None, "1")})
    assert no_file.status_code == 400 and "no 'file' part" in no_file.json()["detail"]
    # `curl -F pdf=@x.pdf`: the review was told "the form field 'pdf' is over 4096 bytes"
    for body in (b"%PDF-1.7", b"%PDF-1.7" + b"x" * 10_000):
        misnamed = api.client.post("/v1/documents", headers=bearer(key), files={"pdf": ("x.pdf", body)})
        assert misnamed.status_code == 400 and misnamed.json()["detail"] == (
            "the form sent a file in a part named 'pdf': send the PDF in a part named 'file' "
            "(curl -F file=@tender.pdf)")
    as_json = api.client.post("/v1/documents", headers=bearer(key), json={"file": "%PDF-"})
    assert as_json.status_code == 415 and "multipart/form-data" in as_json.json()["detail"]
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)
    assert stored_objects(settings) == [] and spooled_files(settings) == []


def test_a_tenant_without_credits_is_refused_with_402_and_nothing_is_stored(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    from tenderflow.tenants.credits import set_balance

    key = tenant_with_key(conn, "poor", credits=1)
    set_balance(conn, "poor", 0)
    refused = upload(api, key, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    assert refused.status_code == 402, refused.text
    assert "credit" in refused.json()["detail"]
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)
    assert spooled_files(settings) == []


def test_openapi_documents_every_route(api: RunningApi) -> None:
    schema = api.client.get("/openapi.json").json()
    for path in ("/v1/documents", "/v1/documents/{document_id}", "/v1/documents/{document_id}/text",
                 "/v1/documents/{document_id}/fields", "/v1/documents/{document_id}/reprocess",
                 "/v1/worker/claim", "/v1/worker/heartbeat", "/v1/worker/jobs/{job_id}/input",
                 "/v1/worker/jobs/{job_id}/complete", "/v1/worker/jobs/{job_id}/fail", "/v1/worker/stop",
                 "/metrics", "/healthz"):
        assert path in schema["paths"], path
    assert "/dashboard" not in schema["paths"]
    assert api.client.get("/docs").status_code == 200
    assert api.client.get("/healthz").json() == {"status": "ok"}


def test_a_nul_in_the_file_name_is_a_400_and_nothing_is_stored(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Review D10: a NUL in the multipart filename gave a 500, and the object stayed in storage."""
    key = tenant_with_key(conn, "acme")
    pdf = text_pdf(tmp_path / "t.pdf", [TENDER_PAGE])
    for name in (b"evil\x00name.pdf", b"\x1b[2J\x1b[31mRED.pdf"):
        body = (b"--tfb\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name + b"\"\r\n"
                b"Content-Type: application/pdf\r\n\r\n" + pdf.read_bytes() + b"\r\n--tfb--\r\n")
        answer = api.client.post("/v1/documents", content=body, headers={
            **bearer(key), "Content-Type": "multipart/form-data; boundary=tfb"})
        assert answer.status_code == 400 and "control character" in answer.json()["detail"]
    assert stored_objects(settings) == []
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)


def test_n3_bidirectional_controls_and_other_format_characters_leave_displayed_names(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """Review security-2, N3: U+202E passed through file names, so 'a\u202eexe.pdf' read 'afdp.exe'
    in the dashboard and the CLI; a zero-width space hid in them too."""
    from tenderflow.cli.output import safe, tsv_cell

    key = tenant_with_key(conn, "acme")
    names = {}
    for number, name in enumerate(("a\u202eexe.pdf", "zero\u200bwidth\u2066.pdf", "\u202e\u202c")):
        pdf = text_pdf(tmp_path / f"t{number}.pdf", [TENDER_PAGE, [f"Notice {number}"]])
        with pdf.open("rb") as handle:
            answer = api.client.post("/v1/documents", headers=bearer(key),
                                     files={"file": (name, handle, "application/pdf")})
        assert answer.status_code == 201, answer.text
        names[name] = api.client.get(f"/v1/documents/{answer.json()['id']}", headers=bearer(key)).json()["filename"]
    assert names == {"a\u202eexe.pdf": "aexe.pdf", "zero\u200bwidth\u2066.pdf": "zerowidth.pdf",
                     "\u202e\u202c": "upload.pdf"}
    # A path a watch recorded as it found it is shown by the CLI with its format characters as escapes.
    assert safe("a\u202eexe.pdf").plain == "a\\u202eexe.pdf" and tsv_cell("x\u200by") == "x\\u200by"


def test_an_upload_refused_in_its_transaction_leaves_no_object(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Review D10: the object was stored before the transaction, and kept when the transaction failed."""
    key = tenant_with_key(conn, "acme")
    conn.execute("""CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
                    $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$""")
    conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON document_versions FOR EACH ROW EXECUTE FUNCTION refuse()")
    refused = upload(api, key, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    assert refused.status_code == 500 and "nothing was changed" in refused.json()["detail"]
    assert "refused by the test" not in refused.text
    assert stored_objects(settings) == []
    conn.execute("DROP TRIGGER refuse ON document_versions")
    assert upload(api, key, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE])).status_code == 201
    assert len(stored_objects(settings)) == 1


def test_a_tenant_never_sees_the_operators_paths_buckets_or_endpoints(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Review D14: job errors and storage errors showed file paths, bucket and endpoint names."""
    key = tenant_with_key(conn, "acme")
    document_id = upload(api, key, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE])).json()["id"]
    conn.execute("UPDATE document_versions SET state = 'failed', finished_at = now(), error = %s "
                 "WHERE document_id = %s",
                 ("cannot read s3://acme-bucket/tenants/acme/pdf/ab.pdf at https://minio.internal:9000 "
                  "(copy in /var/lib/tenderflow/cache/pdf/ab.pdf): page 3 is encrypted", document_id))
    shown = api.client.get(f"/v1/documents/{document_id}", headers=bearer(key)).json()
    assert shown["error"] == ("cannot read <internal> at <internal> (copy in <internal>): page 3 is encrypted")
    listed = api.client.get("/v1/documents", headers=bearer(key)).json()["documents"]
    assert "acme-bucket" not in str(listed) and "/var/lib" not in str(listed)
    text = api.client.get(f"/v1/documents/{document_id}/text", headers=bearer(key))
    assert text.status_code == 409 and "minio" not in text.text and "page 3 is encrypted" in text.text
    assert "retry-after" not in text.headers, "a failed document does not get ready by waiting"
    storage_root = Path(settings.resolved_storage_url.removeprefix("file://"))
    moved = storage_root.rename(tmp_path / "objects-away")
    storage_root.write_text("a file where the storage folder should be")  # every put fails, even as root
    try:
        refused = upload(api, key, text_pdf(tmp_path / "u.pdf", [["Another tender"]]))
    finally:
        storage_root.unlink()
        moved.rename(storage_root)
    assert refused.status_code == 503, refused.text
    assert str(storage_root) not in refused.text and "try again later" in refused.json()["detail"]


def test_uploads_over_the_tenants_rate_are_refused_with_429_before_the_body_is_read(
    database_url: str, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """D7: no request rate limit: a tenant could send failing uploads without end. Every upload
    request counts, refused or not; past the limit the answer is 429 with Retry-After."""
    settings = api_settings(database_url, tmp_path, tenant_uploads_per_minute=2)
    key = tenant_with_key(conn, "acme")
    with serve_in_thread(settings) as api:
        not_a_pdf = tmp_path / "notes.txt"
        not_a_pdf.write_bytes(b"plain text")
        assert upload(api, key, not_a_pdf).status_code == 415  # refused, and counted
        assert upload(api, key, text_pdf(tmp_path / "a.pdf", [TENDER_PAGE])).status_code == 201
        refused = upload(api, key, text_pdf(tmp_path / "b.pdf", [TENDER_PAGE, ["second page"]]))
        assert refused.status_code == 429, refused.text
        assert "2 uploads it may send per minute" in refused.json()["detail"]
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert len(stored_objects(settings)) == 1 and spooled_files(settings) == []
        # Another tenant has its own count; a tenant's own limit replaces the default.
        other = tenant_with_key(conn, "other")
        assert upload(api, other, tmp_path / "b.pdf").status_code == 201
        from tenderflow.tenants.limits import set_limits

        set_limits(conn, "acme", uploads_per_minute=0)  # no limit
        assert upload(api, key, tmp_path / "b.pdf").status_code == 201


def test_uploads_past_the_tenants_storage_quota_are_refused_with_413_and_leave_nothing(
    database_url: str, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """D7: no storage quota: failed uploads of up to 100 MiB each were kept for free. A tenant's
    stored bytes, failed documents included, may not pass its quota."""
    first = text_pdf(tmp_path / "a.pdf", [TENDER_PAGE])
    second = text_pdf(tmp_path / "b.pdf", [TENDER_PAGE, ["a second page"]])
    settings = api_settings(database_url, tmp_path, tenant_max_stored_bytes=first.stat().st_size + 100)
    key = tenant_with_key(conn, "acme")
    with serve_in_thread(settings) as api:
        assert upload(api, key, first).status_code == 201
        conn.execute("UPDATE document_versions SET state = 'failed', finished_at = now(), error = 'bad'")
        refused = upload(api, key, second)
        assert refused.status_code == 413, refused.text
        assert "quota" in refused.json()["detail"] and "tenderflow tenants limits acme" in refused.json()["detail"]
        assert len(stored_objects(settings)) == 1
        assert conn.execute("SELECT count(*) FROM documents").fetchone() == (1,)
        assert upload(api, key, first).status_code == 200  # the same bytes again take no more room
        from tenderflow.tenants.limits import set_limits

        set_limits(conn, "acme", max_stored_bytes=10_000_000)
        assert upload(api, key, second).status_code == 201


def test_every_request_is_logged_with_a_request_id_that_ties_an_upload_to_its_document(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 12: the API wrote no access log, and nothing tied an upload to its jobs. Now one line per
    request (4xx a warning), the id sent back as X-Request-ID, and the upload's line names the
    document (whose jobs log its id)."""
    configure_logging(json=True, level="INFO")
    try:
        key = tenant_with_key(conn, "acme")
        with text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]).open("rb") as handle:
            created = api.client.post("/v1/documents", headers={**bearer(key), "X-Request-ID": "upload-42"},
                                      files={"file": ("t.pdf", handle, "application/pdf")})
        assert created.status_code == 201 and created.headers["x-request-id"] == "upload-42"
        refused = api.client.get("/v1/documents/999999?cursor=secret", headers=bearer(key))
        assert refused.status_code == 404 and len(refused.headers["x-request-id"]) == 16  # ours, made up
        logging.getLogger("psycopg.pool").warning("a library's line")
    finally:
        configure_logging(level="WARNING")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    uploaded = [line for line in lines if line.get("event") == "document.uploaded"]
    assert [(u["request_id"], u["document_id"], u["tenant"]) for u in uploaded] == [
        ("upload-42", created.json()["id"], "acme")]
    requests = {line["request_id"]: line for line in lines if line.get("event") == "http.request"}
    assert requests["upload-42"]["status"] == 201 and requests["upload-42"]["level"] == "info"
    missing = requests[refused.headers["x-request-id"]]
    assert (missing["status"], missing["level"], missing["path"]) == (404, "warning", "/v1/documents/999999")
    assert "secret" not in json.dumps(lines)  # no query string in the log
    [library] = [line for line in lines if line.get("event") == "a library's line"]
    assert (library["logger"], library["level"]) == ("psycopg.pool", "warning")


def test_a_document_no_live_worker_can_move_on_says_so(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """Issue 12: the HTTP quick-start's documents stayed `queued` for ever, with no word of why
    (`serve` runs no worker). The upload's answer and the document say which pool has no live worker,
    until a worker of that pool (here a remote one, saying hello through its heartbeat) is alive."""
    key = tenant_with_key(conn, "acme")
    created = upload(api, key, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]))
    assert created.status_code == 201, created.text
    document = f"/v1/documents/{created.json()['id']}"
    assert "no live worker serves the ocr pool" in created.json()["hint"]
    assert "no live worker serves the ocr pool" in api.client.get(document, headers=bearer(key)).json()["hint"]

    # A live worker of another pool does not serve this document's next step.
    extract_token = create_token(conn, "llm-box", ["extract"]).raw
    extract_worker = RemoteQueueClient(api.url, extract_token, instance="a")
    extract_worker.heartbeat(WorkerHello(host="llm-box", pid=1, pool="extract", threads=1), [])
    extract_worker.close()
    assert "the ocr pool" in api.client.get(document, headers=bearer(key)).json()["hint"]

    ocr_token = create_token(conn, "scanner-pc", ["ocr"]).raw
    ocr_worker = RemoteQueueClient(api.url, ocr_token, instance="b")
    ocr_worker.heartbeat(WorkerHello(host="scanner-pc", pid=2, pool="ocr", threads=1), [])
    ocr_worker.close()
    assert api.client.get(document, headers=bearer(key)).json()["hint"] is None
    second = upload(api, key, text_pdf(tmp_path / "second.pdf", [TENDER_PAGE, ["Annex"]]))
    assert second.status_code == 201 and second.json()["hint"] is None


def test_a_request_that_does_not_fit_its_route_is_answered_422_in_plain_words(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """Issue 12: a bad choice was answered with pydantic's error objects (type, loc, msg, input, ctx,
    url); now one sentence naming the allowed choices, and the same per field."""
    key = tenant_with_key(conn, "acme")
    document_id = upload(api, key, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])).json()["id"]
    bad = api.client.post(f"/v1/documents/{document_id}/reprocess", headers=bearer(key), json={"start_from": "pages"})
    assert bad.status_code == 422
    assert bad.json() == {
        "detail": "start_from (body): must be one of: ocr, extract (got 'pages')",
        "errors": [{"field": "start_from", "source": "body", "problem": "must be one of: ocr, extract (got 'pages')"}],
    }
    listed = api.client.get("/v1/documents", headers=bearer(key), params={"state": "lost", "limit": 0})
    assert listed.status_code == 422
    assert listed.json()["detail"] == ("state (query): must be one of: queued, ocr, extracting, done, failed "
                                       "(got 'lost'); limit (query): should be greater than or equal to 1")
    garbled = api.client.post(f"/v1/documents/{document_id}/reprocess", headers={
        **bearer(key), "Content-Type": "application/json"}, content=b'{"start_from": ')
    assert garbled.status_code == 422 and garbled.json()["detail"].startswith("the body (body): is not valid JSON")
    # The OpenAPI document describes the 422 answers as they are sent.
    answer = api.client.get("/openapi.json").json()["components"]["schemas"]["HTTPValidationError"]
    assert set(answer["properties"]) == {"detail", "errors"}
