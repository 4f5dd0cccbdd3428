"""The pipeline's stages as a remote worker sees them: what each one is, and its pure compute. No
database, no storage: this package sits below tenderflow.pipeline (whose commit steps enqueue its
job types) and tenderflow.handlers (which add `load_input`, `verify` and `commit` around each
compute), and imports neither, nor tenants, webhooks, the database or the migrations (the import
contracts in pyproject.toml).

    contract.py   the stage contract: job-type names, Pool, InputKind, Stage, the handler
                  protocols and the queue handlers made from them (StageJobHandler, ComputeHandler)
    results.py    what each stage's compute returns, as pydantic models (JSON only on the wire)
    compute.py    each stage's pure compute, the stages declared once (STAGES), POOLS and the
                  compute-only handlers a remote worker runs (compute_handlers)
"""
