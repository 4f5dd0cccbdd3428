"""One module per job type of the product (ocr, extract): a pure `run` step and a `commit` step."""

from __future__ import annotations

from tenderflow.config import Settings
from tenderflow.queue import JobTypes


def build_job_types(settings: Settings) -> JobTypes:
    """The product's job types with their handlers and end-of-job hooks."""
    job_types = JobTypes()
    return job_types
