"""Reading an uploaded PDF out of a multipart/form-data body, with the size cap enforced WHILE reading.

FastAPI's `UploadFile` would spool the whole body before the endpoint runs, whatever its size, and
Content-Length is the client's word. Here the body is parsed as it arrives: the file part goes to a
temporary file, and the upload is refused (413) as soon as more than `max_bytes` have arrived, so a
client that lies about Content-Length, or sends a chunked body with none, can fill neither memory
nor disk. A part that does not start like a PDF is refused (415) after its first KiB.

A body sent as `Content-Type: application/pdf` (curl --data-binary, most HTTP clients' simplest
call) is the PDF itself: it streams to the temporary file under the same cap and the same sniff,
its name taken from a `Content-Disposition: …; filename="…"` header, else the caller's default.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from fastapi import HTTPException, status
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from tenderflow.pipeline.uploads import PDF_MAGIC, SNIFF_BYTES
from tenderflow.texts import control_character

FILE_FIELD = "file"
# Room for the multipart framing and small form fields around the file, beyond the file's cap.
FORM_OVERHEAD_BYTES = 64 * 1024
_MAX_FILENAME_CHARS = 500


MAX_FORM_FIELD_BYTES = 4096
_SEND_AS_FILE = f"send the PDF in a part named '{FILE_FIELD}' (curl -F {FILE_FIELD}=@tender.pdf)"


@dataclass(frozen=True)
class SpooledUpload:
    path: Path
    filename: str
    size: int
    fields: dict[str, str] = field(default_factory=dict)
    """The form's other (small) fields, e.g. the dashboard's tenant and CSRF token."""


def too_large(max_bytes: int) -> HTTPException:
    return HTTPException(
        status.HTTP_413_CONTENT_TOO_LARGE,
        detail=f"upload is larger than the limit of {max_bytes:,} bytes (TENDERFLOW_MAX_UPLOAD_BYTES)",
    )


def _bad_request(detail: str) -> HTTPException:
    return HTTPException(status.HTTP_400_BAD_REQUEST, detail=detail)


class _FilePartWriter:
    """multipart callbacks: the `file` part's bytes go to `sink`, counted; other parts are skipped."""

    def __init__(self, sink: IO[bytes], max_bytes: int, *, zip_too: bool = False) -> None:
        self.sink = sink
        self.max_bytes = max_bytes
        self.zip_too = zip_too
        self.size = 0
        self.filename: str | None = None
        self.file_parts = 0
        self.finished = False
        self._head = b""
        self._sniffed = False
        self._header_field = b""
        self._header_value = b""
        self._in_file = False
        self._disposition: bytes | None = None
        self.fields: dict[str, str] = {}
        self._field_name: str | None = None
        self._field_value = b""

    def on_part_begin(self) -> None:
        self._disposition = None
        self._in_file = False
        self._field_name = None
        self._field_value = b""

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        if self._header_field.strip().lower() == b"content-disposition":
            self._disposition = self._header_value
        self._header_field = b""
        self._header_value = b""

    def on_headers_finished(self) -> None:
        if self._disposition is None:
            raise _bad_request("a multipart part has no Content-Disposition header")
        _, options = parse_options_header(self._disposition)
        if options.get(b"name") != FILE_FIELD.encode():
            self._field_name = options.get(b"name", b"").decode("utf-8", "replace")
            if b"filename" in options:  # a file, under another name: the first mistake an integrator makes
                raise _bad_request(f"the form sent a file in a part named {self._field_name!r}: {_SEND_AS_FILE}")
            return
        self.file_parts += 1
        if self.file_parts > 1:
            raise _bad_request(f"send exactly one '{FILE_FIELD}' part")
        self._in_file = True
        self.filename = clean_filename(options.get(b"filename", b"") or b"")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if not self._in_file:
            if self._field_name is not None:
                self._field_value += data[start:end]
                if len(self._field_value) > MAX_FORM_FIELD_BYTES:
                    raise _bad_request(f"the form field {self._field_name!r} is over {MAX_FORM_FIELD_BYTES} bytes; "
                                       f"{_SEND_AS_FILE}")
            return
        chunk = data[start:end]
        self.size += len(chunk)
        if self.size > self.max_bytes:
            raise too_large(self.max_bytes)
        if not self._sniffed:
            self._head += chunk[:SNIFF_BYTES]
            if len(self._head) >= SNIFF_BYTES:
                self._sniff()
        self.sink.write(chunk)

    def on_part_end(self) -> None:
        if self._in_file and not self._sniffed:
            self._sniff()
        if self._field_name:
            value = self._field_value.decode("utf-8", "replace")
            if control_character(value) is not None:  # the API's one rule for text (tenderflow.texts)
                raise _bad_request(f"the form field {self._field_name!r} contains a NUL or another control character")
            self.fields[self._field_name] = value
        self._in_file = False
        self._field_name = None

    def on_end(self) -> None:
        self.finished = True

    def _sniff(self) -> None:
        self._sniffed = True
        if self.size and not _accepted(self._head, zip_too=self.zip_too):
            raise _not_a_pdf(zip_too=self.zip_too)


def clean_filename(raw_name: bytes) -> str:
    """The file name a client sent, as stored: its last path segment, at most 500 characters;
    'upload.pdf' when none. Raises HTTPException 400 for control characters (review D10)."""
    name = raw_name.decode("utf-8", "replace")
    if control_character(name) is not None:
        raise _bad_request("the file name contains a NUL or another control character")
    return name.replace("\\", "/").rsplit("/", 1)[-1][:_MAX_FILENAME_CHARS] or "upload.pdf"


def declared_length(content_length: str | None) -> int | None:
    if content_length is None:
        return None
    try:
        return int(content_length)
    except ValueError as exc:
        raise _bad_request("Content-Length is not a number") from exc


async def spool_pdf_upload(
    content_type: str | None, content_length: str | None, body: AsyncIterator[bytes], *,
    max_bytes: int, directory: Path | None = None, content_disposition: str | None = None,
    default_filename: str | None = None, zip_too: bool = False,
) -> SpooledUpload:
    """Read the body's `file` part (or, sent as application/pdf, the whole body) into a temporary
    file (the caller deletes it) and return it. `zip_too`: a ZIP package is taken as well (sent as
    application/zip, or as the `file` part), for a tender's upload.

    Raises HTTPException: 413 over the cap (declared or actual), 415 not a PDF, 400 a malformed or
    truncated body (e.g. shorter than its Content-Length said), no `file` part, or an empty file.
    The temporary file is removed when an exception leaves this function.
    """
    mime, options = parse_options_header(content_type or "")
    if mime == b"application/pdf" or (zip_too and mime in (b"application/zip", b"application/x-zip-compressed")):
        _, disposition = parse_options_header(content_disposition or "")
        filename = clean_filename(disposition.get(b"filename") or (default_filename or "").encode())
        return await _spool_raw_pdf(body, declared_length(content_length), filename,
                                    max_bytes=max_bytes, directory=directory, zip_too=zip_too)
    boundary = options.get(b"boundary")
    if mime != b"multipart/form-data" or not boundary:
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            detail=f"send the PDF as multipart/form-data with a '{FILE_FIELD}' part, or as the body with "
                   "Content-Type: application/pdf",
        )
    body_cap = max_bytes + FORM_OVERHEAD_BYTES
    declared = declared_length(content_length)
    if declared is not None and declared > body_cap:
        raise too_large(max_bytes)  # refused before reading a byte
    with _spool_file(directory) as (path, sink):
        writer = _FilePartWriter(sink, max_bytes, zip_too=zip_too)
        parser = MultipartParser(boundary, {
            "on_part_begin": writer.on_part_begin, "on_part_data": writer.on_part_data,
            "on_part_end": writer.on_part_end, "on_header_field": writer.on_header_field,
            "on_header_value": writer.on_header_value, "on_header_end": writer.on_header_end,
            "on_headers_finished": writer.on_headers_finished, "on_end": writer.on_end,
        })
        received = 0
        try:
            async for chunk in body:
                received += len(chunk)
                if received > body_cap:
                    raise too_large(max_bytes)
                # Writes go to the page cache in chunks of at most a socket read: short enough
                # to do on the event loop without stalling it.
                parser.write(chunk)
            parser.finalize()
        except MultipartParseError as exc:
            raise _bad_request(f"malformed multipart body: {exc}") from exc
        if not writer.finished:
            raise _bad_request("the multipart body ended early (truncated upload, or a wrong Content-Length)")
        if writer.file_parts == 0 or writer.filename is None:
            raise _bad_request(f"no '{FILE_FIELD}' part in the form: {_SEND_AS_FILE}")
        if writer.size == 0:
            raise _bad_request(f"{writer.filename}: the file is empty")
        return SpooledUpload(path, writer.filename, writer.size, writer.fields)


async def _spool_raw_pdf(
    body: AsyncIterator[bytes], declared: int | None, filename: str, *, max_bytes: int, directory: Path | None,
    zip_too: bool = False,
) -> SpooledUpload:
    if declared is not None and declared > max_bytes:
        raise too_large(max_bytes)  # refused before reading a byte
    with _spool_file(directory) as (path, sink):
        size, head = 0, b""
        async for chunk in body:
            size += len(chunk)
            if size > max_bytes:
                raise too_large(max_bytes)
            if len(head) < SNIFF_BYTES:
                head += chunk[:SNIFF_BYTES]
                if len(head) >= SNIFF_BYTES and not _accepted(head, zip_too=zip_too):
                    raise _not_a_pdf(zip_too=zip_too)
            sink.write(chunk)
        if size == 0:
            raise _bad_request(f"{filename}: the file is empty")
        if not _accepted(head, zip_too=zip_too):
            raise _not_a_pdf(zip_too=zip_too)
        if declared is not None and size != declared:
            raise _bad_request("the body ended early (truncated upload, or a wrong Content-Length)")
        return SpooledUpload(path, filename, size)


@contextlib.contextmanager
def _spool_file(directory: Path | None) -> Iterator[tuple[Path, IO[bytes]]]:
    """A new temporary file for an upload's bytes, open for writing: closed when the block ends, and
    removed when an exception (a refusal, a cancelled request) leaves it; kept for the caller when
    the block returns."""
    fd, name = tempfile.mkstemp(prefix="tenderflow-upload-", suffix=".pdf", dir=directory)
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as sink:
            yield path, sink
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def _accepted(head: bytes, *, zip_too: bool) -> bool:
    return PDF_MAGIC in head[:SNIFF_BYTES] or (zip_too and head[:4] in (b"PK\x03\x04", b"PK\x05\x06"))


def _not_a_pdf(*, zip_too: bool = False) -> HTTPException:
    if zip_too:
        return HTTPException(status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
                             detail="neither a PDF (no %PDF- header) nor a ZIP package; a tender takes PDFs and ZIPs")
    return HTTPException(status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
                         detail="not a PDF (no %PDF- header); only PDF files can be uploaded")


@contextlib.contextmanager
def removed_afterwards(path: Path) -> Iterator[Path]:
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)
