"""Webhooks: a tenant's endpoints are told when its documents are done or failed.

    endpoints   register, list, change, disable/enable, rotate the secret, remove
    deliveries  events and their deliveries (jobs on the queue), the attempts' log, redelivery, ping
    addresses   the URL's form and the addresses a webhook may reach (no SSRF)
    transport   one POST: to an allowed address only, within one deadline, no redirect followed
    signing     Tenderflow-Signature: HMAC-SHA256 over "<timestamp>.<body>"

The pipeline emits events in the transaction that makes a version done or failed
(tenderflow.pipeline.commits, through tenderflow.pipeline.announce); the `webhook.deliver` job type
(tenderflow.handlers.webhooks) sends them. This package sits beside tenants, below the pipeline: it
knows no document, only ids.
"""
