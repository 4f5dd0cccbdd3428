"""Tenants and money: who the customers are, how they authenticate, what their work costs.

    tenants   the tenants table: names, credits, each tenant's cap on running jobs
    keys      API keys (`tfk_…`), stored hashed; `verify_api_key` is what the HTTP API calls
    credits   the ledger: reserve ahead of each step, charge the actual cost when it is done (or what a
              document refused for its own content cost), refund when the service fails it
    limits    uploads per minute and stored bytes per tenant
    cli       `tenderflow tenants …` and `tenderflow keys …`

Fairness between tenants is the queue's: its claim takes work round robin across tenants with
queued jobs (at equal priority) and never runs more of a tenant's jobs than its cap.
"""
