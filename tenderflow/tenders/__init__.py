"""Tenders: a tenant's record that groups documents (the notice, specifications, forms, addenda) and
holds their fields merged, with provenance, a change history, proposals, packages and a calendar.

    kinds.py       what a member is (addendum, notice, specification, form, other), its number and date
    references.py  reference numbers folded for matching
    merging.py     the merge: precedence by kind and date, conflicts, history (pure)
    matching.py    proposals made from reference numbers
    records.py     tenders in the database: members, merges, revisions, events, reads
    proposals.py   a person's decisions on proposals: accept, reject, undo
    packages.py    ZIP packages unpacked safely; office members' text
    uploads.py     files and packages uploaded into a tender (the upload transaction rule)
    zones.py       a buyer's country to its time zone
    calendar.py    the iCalendar feed of deadlines and its tokens
    export.py      tenders as CSV, XLSX, JSON Lines and OCDS (an ocid per tender, a release per revision)
    search.py      search at tender level

This package sits above the pipeline (it uploads through tenderflow.pipeline.uploads and reads the
documents' fields) and below the handlers, the API and the CLI (docs/architecture.md, "Layers").
"""
