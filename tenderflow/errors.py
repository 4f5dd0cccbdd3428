"""Every exception tenderflow raises on purpose, in one tree, each with the HTTP status the API
answers it with (`http_status`; the API's error handler reads it, nothing else maps errors).

    TenderflowError                      500  base                                 (here)
    ├── ConfigurationError               500  settings that cannot work (bad URL, missing binary)
    ├── MigrationError                   503  pending, edited or unknown migrations
    ├── EnqueueError                     400  a job that must not be written (bad payload, unknown type)
    ├── JobNotFoundError                 404  no job with that id
    ├── JobStateError                    409  the transition asked for does not start from the job's state
    ├── LeaseLostError                   409  this worker no longer owns the job (reclaimed, cancelled)
    ├── JobError                         500  raised BY handlers to choose the outcome of an attempt
    │   ├── RetryableError               503  try again later (optionally after `retry_after` seconds)
    │   │   └── ExtractionUnavailableError    429 / 5xx / network, out of retries    (extraction.backend)
    │   ├── PermanentError               422  never retry: the input is bad (encrypted PDF, not a PDF)
    │   │   └── ExtractionRefused/Truncated/Schema/RequestError                       (extraction.backend)
    │   └── AttemptFailedError           503  raised by a COMMIT step that recorded a failed attempt:
    │                                         its writes stand, the job retries (a webhook's receiver said 500)
    ├── StorageError                     503  an object could not be stored or read
    ├── UploadRejectedError              400  the file is refused before anything is written
    │   └── PackageRejectedError         400  a ZIP package refused whole (a bomb, a path leaving it,
    │                                         encrypted, corrupt, no document in it)  (tenders.packages)
    ├── SearchQueryError                 400  a search query or filter cannot be used   (pipeline.search)
    ├── ResultRejectedError              422  a remote worker's result does not hold against what the server knows
    ├── DocumentNotFoundError            404  no document with that id (for this tenant)
    ├── TenderError                      400  a tender cannot be changed as asked (unknown kind or field)
    ├── TenderNotFoundError              404  no tender with that id (for this tenant)
    ├── ProposalNotFoundError            404  no tender proposal with that id (for this tenant)
    ├── ProposalStateError               409  the proposal is not in a state the decision starts from
    ├── ReprocessRefusedError            409  the document failed for its own content: processing it again fails again
    ├── NotReadableYetError              409  no finished version to make a PDF of       (pipeline.pdfs)
    ├── WordsNotKeptError                409  OCRed before word boxes were kept: reprocess (pipeline.pdfs)
    ├── InsufficientCreditsError         402  the tenant cannot pay for the work asked for
    ├── StorageQuotaExceededError        413  the upload would take the tenant past its stored bytes
    ├── RateLimitedError                 429  the tenant asked more often than it may; `retry_after` seconds to wait
    │   ├── UploadRateLimitedError            more uploads this minute than its limit
    │   └── PingRateLimitedError              as many webhook pings under way, or sent this minute, as it may
    ├── ExtractionError                  502  the LLM answer cannot be used (also one of the two above)
    ├── TenantNotFoundError              404  no tenant with that name
    ├── TenantExistsError                409  a tenant with that name exists
    ├── WebhookError                     400  a webhook endpoint that cannot be made or changed as asked
    │   └── WebhookUrlError              400  a webhook URL that is refused: not http(s), or a private address
    ├── WebhookNotFoundError             404  no webhook endpoint or delivery with that id (for this tenant)
    ├── WatchError                       400  a watched folder or S3 prefix that cannot be watched
    │   └── WatchForbiddenError          403  a tenant's watch outside the operator's TENDERFLOW_WATCH_ROOTS
    ├── WatchNotFoundError               404  no watch with that id (for this tenant)
    ├── ScheduleError                    400  a schedule that cannot be made (unknown or unschedulable type, bad timing)
    ├── ScheduleNotFoundError            404  no schedule with that name
    ├── ApiKeyNotFoundError              404  no API key with that id                (tenants.keys)
    ├── WorkerTokenError                 400  a worker token cannot be made or found  (api.worker_tokens)
    ├── KeyFileError                     400  an answer key cannot be used             (evaluation.keys)
    ├── ToolError                        500  poppler or tesseract failed              (pdf.tools)
    │   ├── ToolTimeoutError                  it ran past its time limit (process group killed)
    │   └── ToolOutputTooLargeError           it printed more than the output cap
    └── RemoteWorkerError                502  the API a remote worker talks to said no (remote.client)
        ├── ServerUnavailableError / WorkerTokenRefusedError
        ├── ResultRefusedError               the server refused a result (422): fail that job for good
        │   └── ResultTooLargeError          over the server's TENDERFLOW_MAX_RESULT_BYTES (413)
        └── RemoteProtocolError

Outside the tree on purpose: `pdf.languages.LanguageError` is a ValueError (a bad argument, turned
into UploadRejectedError at the edge); the API's `LoginRequiredError` is a redirect, not an error.

Handlers raise RetryableError / PermanentError; any other exception counts as retryable, with its
text stored as the job's last error.
"""

from __future__ import annotations

from typing import ClassVar


class TenderflowError(Exception):
    """Base of every error tenderflow raises on purpose."""

    http_status: ClassVar[int] = 500


class ConfigurationError(TenderflowError):
    """Settings that cannot work."""

    http_status: ClassVar[int] = 500


class MigrationError(TenderflowError):
    """Migrations are pending, edited after being applied, or unknown to this version."""

    http_status: ClassVar[int] = 503


class EnqueueError(TenderflowError):
    """A job was refused at enqueue; nothing was written."""

    http_status: ClassVar[int] = 400


class JobNotFoundError(TenderflowError):
    """No job has this id."""

    http_status: ClassVar[int] = 404


class JobStateError(TenderflowError):
    """The job is not in a state the requested transition starts from."""

    http_status: ClassVar[int] = 409


class LeaseLostError(TenderflowError):
    """This worker's claim on the job is no longer valid (reclaimed or cancelled)."""

    http_status: ClassVar[int] = 409


class JobError(TenderflowError):
    """Raised by a handler to choose how the attempt ends."""


class RetryableError(JobError):
    """The attempt failed for a reason that may pass; retry after backoff or `retry_after` seconds."""

    http_status: ClassVar[int] = 503

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(JobError):
    """The attempt failed for a reason that will not pass; the job fails at once."""

    http_status: ClassVar[int] = 422


class StorageError(TenderflowError):
    """An object could not be stored or read."""

    http_status: ClassVar[int] = 503


class UploadRejectedError(TenderflowError):
    """A file was refused before anything was written (not a PDF, empty, too large)."""

    http_status: ClassVar[int] = 400


class SearchQueryError(TenderflowError):
    """A search query or one of its filters cannot be used (empty, too long, a bad CPV prefix)."""

    http_status: ClassVar[int] = 400


class ResultRejectedError(TenderflowError):
    """A result posted by a remote worker fails the server's checks (pages against the stored PDF,
    quotes against the stored pages, bounded usage): it is written nowhere."""

    http_status: ClassVar[int] = 422


class DocumentNotFoundError(TenderflowError):
    """No document has this id (for the tenant asking)."""

    http_status: ClassVar[int] = 404


class ReprocessRefusedError(TenderflowError):
    """The document's newest version failed for its own content (encrypted, damaged): a new version
    reads the same PDF and fails the same way; a fixed file must be uploaded (or the refusal forced)."""

    http_status: ClassVar[int] = 409


class InsufficientCreditsError(TenderflowError):
    """The tenant's balance cannot cover the reservation."""

    http_status: ClassVar[int] = 402


class StorageQuotaExceededError(TenderflowError):
    """Storing the upload would take the tenant past its quota of stored bytes."""

    http_status: ClassVar[int] = 413


class RateLimitedError(TenderflowError):
    """The tenant asked for something more often than it may; `retry_after` seconds until it may
    again (the API sends it as Retry-After)."""

    http_status: ClassVar[int] = 429

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UploadRateLimitedError(RateLimitedError):
    """The tenant sent more uploads in the last minute than its limit; `retry_after` seconds until
    the next one is accepted."""


class PingRateLimitedError(RateLimitedError):
    """The tenant has as many webhook pings under way, or sent this minute, as it may (review
    security-2, D-N2); `retry_after` seconds until the next one may go."""


class ExtractionError(TenderflowError):
    """The extraction backend's answer cannot be used (refusal, schema-invalid, out of retries)."""

    http_status: ClassVar[int] = 502


class TenantNotFoundError(TenderflowError):
    """No tenant has this name."""

    http_status: ClassVar[int] = 404


class TenantExistsError(TenderflowError):
    """A tenant with this name already exists."""

    http_status: ClassVar[int] = 409


class AttemptFailedError(JobError):
    """Raised by a handler's COMMIT step that has written the record of an attempt that failed (a
    webhook receiver that answered 500, or did not answer): unlike any other error of a commit step,
    its writes stand, and the job is retried after `retry_after` seconds (the backoff when None) or,
    when `permanent`, ends failed at once (with its end-of-job hooks)."""

    http_status: ClassVar[int] = 503

    def __init__(self, message: str, *, retry_after: float | None = None, permanent: bool = False) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.permanent = permanent


class WebhookError(TenderflowError):
    """A webhook endpoint cannot be made, changed or redelivered as asked (an unknown event type,
    too many endpoints, a delivery still in flight)."""

    http_status: ClassVar[int] = 400


class WebhookUrlError(WebhookError):
    """A webhook URL is refused: not http(s), unparsable, with credentials in it, or pointing at a
    private, loopback or link-local address the operator has not allowed. The message says which."""

    http_status: ClassVar[int] = 400


class WebhookNotFoundError(TenderflowError):
    """No webhook endpoint or delivery has this id (for the tenant asking)."""

    http_status: ClassVar[int] = 404


class WatchError(TenderflowError):
    """A folder or S3 prefix cannot be watched as asked (not absolute, missing, bad timing)."""

    http_status: ClassVar[int] = 400


class WatchForbiddenError(WatchError):
    """A tenant asked (over the API) to watch a place outside the roots the operator opened to it."""

    http_status: ClassVar[int] = 403


class WatchNotFoundError(TenderflowError):
    """No watch has this id (for the tenant asking)."""

    http_status: ClassVar[int] = 404


class ScheduleError(TenderflowError, ValueError):
    """A schedule cannot be made or changed as asked (unknown or unschedulable job type, bad
    payload, neither or both of an interval and a cron expression). Also a ValueError: the queue's
    `Scheduler.upsert` has always refused a bad schedule with one."""

    http_status: ClassVar[int] = 400


class ScheduleNotFoundError(TenderflowError):
    """No schedule has this name."""

    http_status: ClassVar[int] = 404


class PackageRejectedError(UploadRejectedError):
    """A ZIP package is refused whole, before anything of it is stored: too many entries, too large
    or too compressed once unpacked (a zip bomb), an entry whose path leaves the package, encrypted,
    corrupt, or holding no document tenderflow can read. The message says which entry and why."""

    http_status: ClassVar[int] = 400


class TenderError(TenderflowError):
    """A tender cannot be made or changed as asked (an unknown document kind or field, a document
    that is not one of its members)."""

    http_status: ClassVar[int] = 400


class TenderNotFoundError(TenderflowError):
    """No tender has this id (for the tenant asking)."""

    http_status: ClassVar[int] = 404


class ProposalNotFoundError(TenderflowError):
    """No tender proposal has this id (for the tenant asking)."""

    http_status: ClassVar[int] = 404


class ProposalStateError(TenderflowError):
    """The proposal is not in a state the decision starts from (accepting a rejected one, undoing
    one never accepted)."""

    http_status: ClassVar[int] = 409
