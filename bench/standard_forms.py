"""The EU's standard contract notice (TED form F02) in each of the EU's official languages: how many of the
form's fields the offline extractor reads right, against the label reader it replaced
(`tenderflow.extraction.rules.RulesBackend`, the form's labels in English, German and French) on the
same pages, in one run.

    .venv/bin/python -m bench.standard_forms

The notices are tests/support/ted_forms.py: the form's official labels in each language, as a TED PDF
prints them, with made-up values. They measure whether the extractor knows the standard's wording in
every language, not how it does on real documents (bench/extraction_quality.py does that): a notice
that follows the form is the easy case, and a language where it misses fields here misses them on real
notices too. Each value is checked as the pipeline keeps it (`extract_fields`: validated, grounded).
Prints per language the fields read right by each, the fields the extractor missed, and ends with one
JSON line.
"""

from __future__ import annotations

import json
import time

from tenderflow.extraction import ExtractionBackend, Page, extract_fields
from tenderflow.extraction.offline import OfflineBackend
from tenderflow.extraction.rules import RulesBackend
from tests.support import ted_forms


def _scored(backend: ExtractionBackend, language: str) -> dict[str, bool]:
    result = extract_fields([Page(1, ted_forms.notice(language))], backend)
    return ted_forms.scored(language, result.fields)


def main() -> None:
    started = time.monotonic()
    offline, label_reader = OfflineBackend(), RulesBackend()
    per_language: dict[str, dict[str, object]] = {}
    print("TED form F02 in the EU's languages: fields read right (of 12 each)")
    print(f"  {'language':8} {'extractor':>9} {'labels':>6}  missed by the extractor")
    for language in ted_forms.FORMS:
        ours, theirs = _scored(offline, language), _scored(label_reader, language)
        missed = sorted(name for name, right in ours.items() if not right)
        per_language[language] = {"extractor": sum(ours.values()), "label_reader": sum(theirs.values()),
                                  "fields": len(ours), "missed": missed}
        print(f"  {language:8} {sum(ours.values()):9} {sum(theirs.values()):6}  {', '.join(missed) or '-'}")
    fields = sum(int(str(entry["fields"])) for entry in per_language.values())
    ours_total = sum(int(str(entry["extractor"])) for entry in per_language.values())
    theirs_total = sum(int(str(entry["label_reader"])) for entry in per_language.values())
    print(f"  {'all':8} {ours_total:9} {theirs_total:6}  of {fields} "
          f"(extractor {ours_total / fields:.3f}, label reader {theirs_total / fields:.3f}); "
          f"{time.monotonic() - started:.1f} s")
    print(json.dumps({
        "bench": "standard_forms", "languages": len(per_language), "fields": fields,
        "extractor": ours_total, "label_reader": theirs_total,
        "extractor_share": round(ours_total / fields, 4), "label_reader_share": round(theirs_total / fields, 4),
        "per_language": per_language,
    }, ensure_ascii=False, separators=(",", ":")))


if __name__ == "__main__":
    main()
