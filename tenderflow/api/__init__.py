"""The HTTP side of tenderflow: the tenants' API, the remote workers' endpoints, the operators'
dashboard and /metrics, in one FastAPI application (`tenderflow.api.app.create_app`), served by
`tenderflow serve`. Nothing is imported here, so the CLI's start-up does not pay for FastAPI.
"""
