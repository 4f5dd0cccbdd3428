"""Measuring extraction against answer keys: `tenderflow eval` (see keys.py for the key format,
scoring.py for how values match, run.py for how documents are read)."""
