"""`python -m tenderflow` runs the CLI (the supervisor starts its worker children this way)."""

from tenderflow.cli import run

run()
