"""tenderflow's benchmarks and the chaos run: scripts run from the repository's root as modules
(`.venv/bin/python -m bench.chaos`), importing one another as `bench.*` and the tests' helpers as
`tests.support.*`."""
