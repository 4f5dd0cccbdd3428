-- Priority between tenants is the operator's, per tenant; a job's own priority orders only its
-- tenant's jobs (review D5: a tenant uploading at priority 32767 jumped every other tenant).
-- A tenant may now have a priority without a cap of its own: max_running NULL = the workers' default.
ALTER TABLE job_tenant_limits
    ALTER COLUMN max_running DROP NOT NULL,
    ADD COLUMN priority integer NOT NULL DEFAULT 0 CHECK (priority BETWEEN -1000 AND 1000);
