"""Every exception tenderflow raises on purpose, in one tree.

    TenderflowError
    ├── ConfigurationError          settings that cannot work (bad URL, missing binary)
    ├── MigrationError              pending, edited or unknown migrations
    ├── EnqueueError                a job that must not be written (bad payload, unknown type, …)
    ├── JobNotFoundError            no job with that id
    ├── JobStateError               the transition asked for does not start from the job's state
    ├── LeaseLostError              this worker no longer owns the job (reclaimed, cancelled)
    ├── JobError                    raised BY handlers to choose the outcome of an attempt
    │   ├── RetryableError          try again later (optionally after `retry_after` seconds)
    │   └── PermanentError          never retry: the input is bad (encrypted PDF, not a PDF, …)
    ├── StorageError                an object could not be stored or read
    ├── UploadRejectedError         the file is refused before anything is written
    ├── DocumentNotFoundError       no document with that id (for this tenant)
    ├── InsufficientCreditsError    the tenant cannot pay for the work asked for
    └── ExtractionError             the LLM answer cannot be used (refusal, schema-invalid)

Handlers raise RetryableError / PermanentError; any other exception counts as retryable, with its
text stored as the job's last error.
"""

from __future__ import annotations


class TenderflowError(Exception):
    """Base of every error tenderflow raises on purpose."""


class ConfigurationError(TenderflowError):
    """Settings that cannot work."""


class MigrationError(TenderflowError):
    """Migrations are pending, edited after being applied, or unknown to this version."""


class EnqueueError(TenderflowError):
    """A job was refused at enqueue; nothing was written."""


class JobNotFoundError(TenderflowError):
    """No job has this id."""


class JobStateError(TenderflowError):
    """The job is not in a state the requested transition starts from."""


class LeaseLostError(TenderflowError):
    """This worker's claim on the job is no longer valid (reclaimed or cancelled)."""


class JobError(TenderflowError):
    """Raised by a handler to choose how the attempt ends."""


class RetryableError(JobError):
    """The attempt failed for a reason that may pass; retry after backoff or `retry_after` seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(JobError):
    """The attempt failed for a reason that will not pass; the job fails at once."""


class StorageError(TenderflowError):
    """An object could not be stored or read."""


class UploadRejectedError(TenderflowError):
    """A file was refused before anything was written (not a PDF, empty, too large)."""


class DocumentNotFoundError(TenderflowError):
    """No document has this id (for the tenant asking)."""


class InsufficientCreditsError(TenderflowError):
    """The tenant's balance cannot cover the reservation."""


class ExtractionError(TenderflowError):
    """The extraction backend's answer cannot be used (refusal, schema-invalid, out of retries)."""


class TenantNotFoundError(TenderflowError):
    """No tenant has this name."""


class TenantExistsError(TenderflowError):
    """A tenant with this name already exists."""
