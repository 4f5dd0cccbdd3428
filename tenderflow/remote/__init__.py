"""Remote pull workers: run the handlers' compute step on machines that cannot reach the database.

    protocol   the JSON messages and paths both sides share
    client     the HTTP client (retries sorted by what the failure means)
    handlers   compute-only handlers built from the remote machine's settings
    worker     the worker: long-poll claims, compute, heartbeats, results; graceful SIGTERM

`tenderflow worker --remote URL --token TOKEN --pool ocr` runs one.
"""
