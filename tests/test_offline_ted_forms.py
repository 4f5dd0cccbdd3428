"""The offline extractor on the EU's contract notice in each of the EU's official languages, on the standard
form F02 (TED until 2023) and in eForms (TED since): every field the notice states is read, in every language,
from the official labels (tests/support/ted_forms.py, tests/support/eforms_notices.py), not from one language's
or one document's wording.
"""

from __future__ import annotations

from functools import partial

import pytest

from tenderflow.extraction import extract_fields
from tenderflow.extraction.offline import OfflineBackend
from tests.support import eforms_notices, ted_forms
from tests.support.offline_readers import pages

_NOTICES = {"F02": ted_forms.notice, "F02 full": partial(ted_forms.notice, full=True), "eForms": eforms_notices.notice}
_READ = {"F02": ted_forms.read_values, "F02 full": ted_forms.read_values, "eForms": eforms_notices.read_values}
"""eForms is read on two more fields than F02: the questions deadline (BT-13) and the submission URL (BT-18)."""
_EXPECTED = {
    "F02": ted_forms.expected_values, "F02 full": ted_forms.expected_values, "eForms": eforms_notices.expected_values,
}
"""'F02 full' adds the binding period (IV.2.6, 'Duration in months: 6') and the opening of tenders (IV.2.7) that
every F02 notice prints after the time limit: neither is the contract's duration or the deadline."""


@pytest.mark.parametrize(("form", "language"), [(form, language) for form in _NOTICES for language in ted_forms.FORMS])
def test_every_field_of_the_notice_is_read_in_every_eu_language(form: str, language: str) -> None:
    result = extract_fields(pages(_NOTICES[form](language)), OfflineBackend())
    read = _READ[form](result.fields)
    place = read.pop("place_of_performance")
    assert read == _EXPECTED[form](language)
    assert ted_forms.right_place(language, place), place


def test_a_field_read_wrong_or_not_at_all_is_scored_so() -> None:
    result = extract_fields(pages(ted_forms.notice("en")), OfflineBackend())
    assert all(ted_forms.scored("en", result.fields).values())
    wrong = result.fields.model_copy(update={"title": None, "reference_number": result.fields.title})
    assert {name for name, right in ted_forms.scored("en", wrong).items() if not right} == {
        "title", "reference_number"}

