"""The EU's standard contract notice in each of the EU's official languages, in both of its formats: the
standard form F02 (TED until late 2023) and eForms (TED since): how many of the notice's fields the offline
extractor reads right, against the label reader it replaced (`tenderflow.extraction.rules.RulesBackend`,
the form's labels in English, German and French) on the same pages, in one run.

    .venv/bin/python -m bench.standard_forms

The notices are tests/support/ted_forms.py (F02: the form's official labels in each language, as a TED PDF
prints them) and tests/support/eforms_notices.py (eForms: the labels of the eForms SDK's translation files,
one field a line as the TED viewer prints them), with the same made-up values, scored on the same 12 fields
(and eForms on two more it prints: the questions deadline, BT-13, and the submission URL, BT-18).
They measure whether the extractor knows the standard's wording in every language, not how it does on real
documents (bench/extraction_quality.py does that): a notice that follows the form is the easy case, and a
language where it misses fields here misses them on real notices too. Each value is checked as the pipeline
keeps it (`extract_fields`: validated, grounded). Prints a table per form (per language the fields read
right by each, the fields the extractor missed) and ends with one JSON line: its top-level counts are form
F02's (as before eForms was added), every form's are under "forms". 'F02_full' is F02 with the two fields
every such notice prints after the time limit, the tender's binding period ('Duration in months: 6') and the
opening of tenders (another date and time): the contract's duration and the deadline must not be taken from
them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from tenderflow.extraction import ExtractionBackend, Page, extract_fields
from tenderflow.extraction.offline import OfflineBackend
from tenderflow.extraction.rules import RulesBackend
from tenderflow.extraction.schema import TenderFields
from tests.support import eforms_notices, ted_forms

Notice = Callable[[str], str]
Scorer = Callable[[str, TenderFields], dict[str, bool]]

FORMS: dict[str, tuple[str, Notice, Scorer]] = {
    "F02": ("TED form F02", ted_forms.notice, ted_forms.scored),
    "F02_full": ("TED form F02 with IV.2.6 (binding period) and IV.2.7 (opening)",
                 partial(ted_forms.notice, full=True), ted_forms.scored),
    "eforms": ("eForms contract notice", eforms_notices.notice, eforms_notices.scored),
}


def _scored(backend: ExtractionBackend, notice: Notice, scorer: Scorer, language: str) -> dict[str, bool]:
    result = extract_fields([Page(1, notice(language))], backend)
    return scorer(language, result.fields)


def _form(title: str, notice: Notice, scorer: Scorer, offline: ExtractionBackend,
          label_reader: ExtractionBackend) -> dict[str, Any]:
    """Scores one form in every language, prints its table and returns its totals."""
    per_language: dict[str, dict[str, object]] = {}
    rows: list[str] = []
    for language in ted_forms.FORMS:
        ours = _scored(offline, notice, scorer, language)
        theirs = _scored(label_reader, notice, scorer, language)
        missed = sorted(name for name, right in ours.items() if not right)
        per_language[language] = {"extractor": sum(ours.values()), "label_reader": sum(theirs.values()),
                                  "fields": len(ours), "missed": missed}
        rows.append(f"  {language:8} {sum(ours.values()):9} {sum(theirs.values()):6}  {', '.join(missed) or '-'}")
    counts = "/".join(str(count) for count in sorted({int(str(entry["fields"])) for entry in per_language.values()}))
    print(f"{title} in the EU's languages: fields read right (of {counts} each)")
    print(f"  {'language':8} {'extractor':>9} {'labels':>6}  missed by the extractor")
    print("\n".join(rows))
    fields = sum(int(str(entry["fields"])) for entry in per_language.values())
    ours_total = sum(int(str(entry["extractor"])) for entry in per_language.values())
    theirs_total = sum(int(str(entry["label_reader"])) for entry in per_language.values())
    print(f"  {'all':8} {ours_total:9} {theirs_total:6}  of {fields} "
          f"(extractor {ours_total / fields:.3f}, label reader {theirs_total / fields:.3f})")
    return {"languages": len(per_language), "fields": fields, "extractor": ours_total,
            "label_reader": theirs_total, "extractor_share": round(ours_total / fields, 4),
            "label_reader_share": round(theirs_total / fields, 4), "per_language": per_language}


def main() -> None:
    started = time.monotonic()
    offline, label_reader = OfflineBackend(), RulesBackend()
    forms: dict[str, dict[str, Any]] = {}
    for key, (title, notice, scorer) in FORMS.items():
        if forms:
            print()
        forms[key] = _form(title, notice, scorer, offline, label_reader)
    print(f"{time.monotonic() - started:.1f} s")
    print(json.dumps({"bench": "standard_forms", **forms["F02"], "forms": forms},
                     ensure_ascii=False, separators=(",", ":")))


if __name__ == "__main__":
    main()
