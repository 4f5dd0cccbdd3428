"""The buyer and where to submit: buyer name, e-mail, phone, address, submission URL."""

from __future__ import annotations

from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.schema import Sourced


def buyer_name(document: Document) -> Sourced[str] | None:
    return None


def buyer_email(document: Document) -> Sourced[str] | None:
    return None


def buyer_phone(document: Document) -> Sourced[str] | None:
    return None


def buyer_address(document: Document) -> Sourced[str] | None:
    return None


def submission_url(document: Document) -> Sourced[str] | None:
    return None
