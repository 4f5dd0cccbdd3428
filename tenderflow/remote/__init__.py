"""Remote pull workers: run the stages' compute (tenderflow.stages) on machines that cannot reach the
database. Nothing here imports database code (the import contract remote-no-db in pyproject.toml).

    protocol   the JSON messages and paths both sides share
    client     the HTTP client (retries sorted by what the failure means)
    worker     the worker: long-poll claims, compute, heartbeats, results; graceful SIGTERM

`tenderflow worker --remote URL --token TOKEN --pool ocr` runs one.
"""
