"""The one settings object, read from the environment (prefix TENDERFLOW_) at the entry point.

Nothing else in tenderflow reads the environment: the CLI or the API builds a `Settings` once and
passes it (or the parts a function needs) down.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_data_dir() -> Path:
    """Where the embedded PostgreSQL and file storage live when nothing else is configured."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("tenderflow", appauthor=False))


def default_model_cache_dir() -> Path:
    """Where decoded models are kept: the user's cache folder, shared by every data folder on the machine."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("tenderflow", appauthor=False)) / "models"


class Settings(BaseSettings):
    """Every knob of tenderflow. Environment: TENDERFLOW_<NAME> (DATABASE_URL is also honoured)."""

    model_config = SettingsConfigDict(env_prefix="TENDERFLOW_", extra="ignore")

    # --- database -------------------------------------------------------------------------------
    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("TENDERFLOW_DATABASE_URL", "DATABASE_URL"),
        description="PostgreSQL URL. Unset: an embedded PostgreSQL in data_dir is started or reused.",
    )
    data_dir: Path = Field(default_factory=default_data_dir, description="Embedded database and files.")
    model_cache_dir: Path = Field(
        default_factory=default_model_cache_dir,
        description="Decoded models (the language identifier's): written by the first worker on the machine, "
        "read by the others in a tenth of the time; losing it costs only that time.")
    pool_min_size: int = Field(1, ge=0, description="Connections a CLI command or the API server keeps open.")
    pool_max_size: int = Field(
        20, ge=1, description="Connections a CLI command or the API server opens at most (a local worker opens "
        "its --threads plus 6).")

    # --- queue ----------------------------------------------------------------------------------
    lease_seconds: float = Field(30.0, gt=0, description="A claim's lease; heartbeats renew it.")
    heartbeat_seconds: float = Field(10.0, gt=0, description="How often a worker renews its leases.")
    poll_seconds: float = Field(1.0, gt=0, description="Polling backstop when no NOTIFY arrives.")
    max_attempts: int = Field(5, gt=0, description="Default attempts per job.")
    backoff_base_seconds: float = Field(
        2.0, gt=0, description="Wait before a failed job's second attempt; doubled after each (with jitter).")
    backoff_cap_seconds: float = Field(600.0, gt=0, description="The longest wait between two attempts of a job.")
    tenant_max_running: int = Field(
        0, ge=0, description="Default cap on a tenant's running jobs across all pools (0 = no cap)."
    )
    retention_days: float = Field(14.0, gt=0, description="Finished jobs older than this are pruned.")
    document_retention_days: int = Field(
        0, ge=0, le=36_500, description="Documents older than this many days are deleted, hourly, for tenants without "
        "their own period (`tenants limits --retention-days`); 0 = kept for ever.")
    shutdown_grace_seconds: float = Field(
        30.0, ge=0, description="On SIGTERM, how long a worker lets its running jobs finish before it hands them "
        "back to the queue.")
    worker_dead_after_seconds: float = Field(60.0, gt=0, description="A worker silent this long is dead.")
    notify: bool = Field(
        True, description="LISTEN/NOTIFY wake-ups, so a job starts within milliseconds of its enqueue (polling "
        "every poll_seconds runs anyway).")

    # --- storage --------------------------------------------------------------------------------
    storage_url: str | None = Field(
        default=None, description="s3://bucket/prefix or file:///path. Unset: file storage in data_dir."
    )
    s3_endpoint_url: str | None = Field(default=None, description="For MinIO, R2, … (AWS: leave unset).")
    s3_region: str | None = Field(default=None, description="The bucket's region (unset: boto3's own lookup).")

    # --- uploads and OCR ------------------------------------------------------------------------
    max_upload_bytes: int = Field(100 * 1024 * 1024, gt=0, description="The largest PDF an upload takes.")
    max_result_bytes: int = Field(
        64 * 1024 * 1024, gt=0,
        description="The largest result a remote worker may post (a 2,000-page plan with its text layer is ~20 MB).")
    tenant_uploads_per_minute: int = Field(
        60, ge=0, description="Uploads a tenant may send per minute over the API, refused or not (0 = no limit; "
        "`tenderflow tenants limits` sets a tenant's own).")
    tenant_max_stored_bytes: int = Field(
        10 * 1024**3, ge=0, description="Bytes of PDFs a tenant may have stored, failed documents included (0 = no "
        "limit; `tenderflow tenants limits` sets a tenant's own).")
    storage_sweep_grace_seconds: float = Field(
        3600.0, gt=0, description="An object no document refers to is deleted by the storage sweep once it is "
        "this old (uploads store the object just before their transaction).")
    storage_sweep_seconds: float = Field(
        3600.0, gt=0, description="How often the API server sweeps objects no document refers to.")
    package_max_bytes: int = Field(
        1024**3, gt=0, description="The largest ZIP package an upload into a tender takes (each PDF in it is "
        "capped by max_upload_bytes).")
    package_max_entries: int = Field(1000, gt=0, description="Entries (files and folders) a ZIP package may hold.")
    package_max_unpacked_bytes: int = Field(
        2 * 1024**3, gt=0, description="What a ZIP package's files may unpack to in all.")
    package_max_ratio: float = Field(
        100.0, gt=1, description="How far an entry of a ZIP package may be compressed (unpacked / packed) before "
        "it is taken for a zip bomb (entries under 1 MiB unpacked are not counted).")
    max_pages: int = Field(2000, gt=0, description="Pages per document, checked before rendering.")
    max_page_pixels: int = Field(
        200_000_000, gt=0, description="Pixels per rendered page (width x height at ocr_dpi)."
    )
    ocr_dpi: int = Field(300, ge=50, le=1200, description="Resolution scanned pages are rendered at for OCR "
                         "(a scan of lower resolution is read at its own).")
    ocr_languages: str = Field(
        "eng", pattern=r"^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$",
        description="Tesseract languages, e.g. eng+deu+fra: for documents whose language is neither asked for "
                    "nor detected (and for every such document when ocr_detect_languages is off).",
    )
    ocr_detect_languages: bool = Field(
        True, description="Detect each document's language (text layer, or a quick first pass over a scan) "
                          "unless its upload or its tenant names languages.",
    )
    ocr_batch_pages: int = Field(4, gt=0, description="At most this many pages per OCR job: a long document's; a "
                                 "short one is cut finer, two jobs per live OCR worker thread.")
    tool_timeout_seconds: float = Field(120.0, gt=0, description="Per pdftoppm/pdftotext/tesseract run.")
    tool_memory_bytes: int = Field(2 * 1024**3, gt=0, description="Address-space limit per tool run.")

    # --- extraction -----------------------------------------------------------------------------
    llm_base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint. Unset (and no key): the offline rules."
    )
    llm_api_key: str | None = Field(
        default=None, description="The endpoint's API key (set alone: OpenAI's own endpoint). Shown masked.")
    llm_model: str = Field("gpt-4o-mini", description="The model extraction asks for.")
    llm_timeout_seconds: float = Field(120.0, gt=0, description="The longest one LLM request may take.")
    llm_max_retries: int = Field(
        5, ge=0, description="Retries of one LLM request (429, 5xx, timeouts) before the job itself is retried.")
    llm_chunk_chars: int = Field(24_000, gt=1000, description="Text per LLM call for long documents.")
    llm_max_output_tokens: int | None = Field(
        None, gt=0, description="The longest answer one LLM call may write (unset: the server's default); an "
        "answer cut off keeps the values it held before the cut.")
    extraction: Literal["rules", "openai", "hybrid"] | None = Field(
        None, description="Which extractor reads the fields: the offline rules, the LLM alone, or hybrid (the rules "
        "first, the LLM only for the fields they left empty or are unsure of). Unset: hybrid when an LLM is "
        "configured, else the rules.")
    llm_excerpt_chars: int = Field(
        6000, gt=500, description="Hybrid extraction: the most page text sent to the LLM per document (the lines "
        "that can hold the fields the rules left open).")

    # --- money ----------------------------------------------------------------------------------
    price_per_page: int = Field(1, ge=0, description="Credits per page OCRed.")
    price_per_1k_tokens: int = Field(1, ge=0, description="Credits per 1,000 LLM tokens.")
    price_per_document: int = Field(1, ge=0, description="Flat credits per document.")

    # --- HTTP -----------------------------------------------------------------------------------
    admin_token: str | None = Field(
        default=None, description="Operator login for /dashboard and /metrics; at least 24 characters.")
    public_url: str | None = Field(
        default=None, description="The API's address as users reach it (https://… behind a TLS proxy): with "
        "https, the session cookie is Secure even when the proxy speaks plain HTTP to the API.")
    forwarded_allow_ips: str = Field(
        default="127.0.0.1", description="Proxies whose X-Forwarded-Proto/For headers the API trusts "
        "(comma-separated addresses, or * for any): only these may say the request came over https.")
    log_json: bool | None = Field(default=None, description="JSON logs (default: when not a TTY).")

    # --- exports --------------------------------------------------------------------------------
    ocds_ocid_prefix: str = Field(
        default="ocds-unregistered", pattern=r"^[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]$",
        description="The ocid prefix of OCDS exports (ocid = prefix-<document id>): register yours with the "
        "Open Contracting Partnership (ocds- and six characters) before publishing the data.")
    ocds_publisher_name: str = Field(
        default="tenderflow", min_length=1, description="The publisher named in OCDS release packages.")

    # --- the API server (tenderflow serve) ------------------------------------------------------
    api_host: str = Field(default="127.0.0.1", description="Address `tenderflow serve` listens on.")
    api_port: int = Field(default=8000, ge=1, le=65535, description="Port `tenderflow serve` listens on.")
    api_threads: int = Field(
        default=100, ge=8, description="Threads for the API's sync endpoints; each waiting remote claim holds one."
    )
    claim_wait_seconds: float = Field(
        default=25.0, ge=0, le=30, description="Longest a remote worker's claim is held open while no job is ready."
    )
    maintenance_seconds: float = Field(
        default=5.0, gt=0, description="How often the API server and each local worker reclaim expired leases, "
        "fire due schedules and prune old jobs."
    )
    dashboard_session_hours: float = Field(default=12.0, gt=0, description="Operator login lifetime.")
    dashboard_refresh_seconds: int = Field(default=10, ge=0, description="Dashboard auto-refresh (0 = off).")

    # --- webhooks ------------------------------------------------------------------------------
    webhook_timeout_seconds: float = Field(
        10.0, gt=0, le=300, description="The longest one webhook POST may take, from the DNS lookup to the "
        "answer's last byte kept; past it the attempt failed (timed out).")
    webhook_max_attempts: int = Field(
        8, ge=1, le=50, description="Attempts per delivery before it fails for good (`webhooks redeliver` "
        "sends it again).")
    webhook_backoff_base_seconds: float = Field(
        30.0, gt=0, description="Wait after a delivery's first failed attempt; doubled after each (with jitter).")
    webhook_backoff_cap_seconds: float = Field(
        3600.0, gt=0, description="The longest wait between two attempts of a delivery.")
    webhook_disable_after_failures: int = Field(
        50, ge=0, description="Failed attempts in a row (no delivery between them) after which an endpoint is "
        "disabled and its pending deliveries cancelled (0 = never).")
    webhook_allow_networks: str = Field(
        "", description="Networks webhooks may reach although they are private, loopback or link-local, as "
        "comma-separated CIDRs (10.0.0.0/8,127.0.0.1/32); every other such address is refused.")

    # --- watched folders and S3 prefixes --------------------------------------------------------
    watch_roots: str = Field(
        "", description="Where tenants may create watches over the API: comma-separated folders and s3:// "
        "prefixes, {tenant} standing for the tenant's name (/srv/inbox/{tenant},s3://inbox/{tenant}/). "
        "Empty: only the operator (`tenderflow watch`) creates watches.")
    watch_settle_seconds: float = Field(
        10.0, ge=0, description="A watched file is taken once unchanged for this long (size and modification "
        "time), so a file still being written is not taken half-way.")
    watch_files_per_poll: int = Field(
        100, ge=1, description="Files one poll of a watch uploads at most; the rest wait for its next poll.")

    @model_validator(mode="after")
    def _extraction_has_an_llm(self) -> Settings:
        if self.extraction in ("openai", "hybrid") and not (self.llm_base_url or self.llm_api_key):
            raise ValueError(f"TENDERFLOW_EXTRACTION={self.extraction} needs an LLM: set TENDERFLOW_LLM_BASE_URL "
                             "(an OpenAI-compatible endpoint) or TENDERFLOW_LLM_API_KEY (OpenAI's own)")
        return self

    @property
    def extraction_backend(self) -> Literal["rules", "openai", "hybrid"]:
        """`extraction` when set; else 'hybrid' when an endpoint or key is configured, else the offline
        'rules' extractor."""
        if self.extraction is not None:
            return self.extraction
        return "hybrid" if (self.llm_base_url or self.llm_api_key) else "rules"

    @property
    def uses_llm(self) -> bool:
        """Whether extraction calls an LLM (and so costs tokens)."""
        return self.extraction_backend != "rules"

    @property
    def resolved_storage_url(self) -> str:
        return self.storage_url or (self.data_dir / "objects").as_uri()


def settings_reference() -> str:
    """docs/configuration.md: every setting, its environment variable, default and meaning, from
    the fields of `Settings` (`make docs-config` writes it; tests/test_docs.py holds it current)."""

    def default_of(name: str) -> str:
        field = Settings.model_fields[name]
        if field.default_factory is not None:
            return {"data_dir": "the platform's data folder (`~/.local/share/tenderflow` on Linux)",
                    "model_cache_dir": "the platform's cache folder's `models` (`~/.cache/tenderflow/models` on Linux)",
                    }.get(name, "–")
        value = field.default
        if value is None:
            return "unset"
        if value == "":
            return "empty"
        return f"`{value}`"

    def variables_of(name: str) -> str:
        alias = Settings.model_fields[name].validation_alias
        names = list(getattr(alias, "choices", [])) or [f"TENDERFLOW_{name.upper()}"]
        return " / ".join(f"`{variable}`" for variable in names)

    rows = [f"| {variables_of(name)} | {default_of(name)} | {(field.description or '').replace('|', '/')} |"
            for name, field in Settings.model_fields.items()]
    return "\n".join([
        "# Configuration",
        "",
        "<!-- Written by `make docs-config` from tenderflow/config.py (Settings); tests/test_docs.py checks it. -->",
        "",
        "One settings object, read from the environment (prefix `TENDERFLOW_`; `DATABASE_URL` is honoured too).",
        "The defaults need nothing: an embedded PostgreSQL, file storage in the data folder, the offline",
        "extractor. `tenderflow config` prints every setting in effect, where it came from and what it means",
        "(secrets masked); `tenderflow doctor` checks what they point to.",
        "",
        "With `DATABASE_URL` set to a server of your own, run `tenderflow db migrate` once (and after each",
        "upgrade): every other command refuses a database that is behind, saying so.",
        "",
        "| variable | default | what it does |",
        "|---|---|---|",
        *rows,
        "",
        "Traces: the standard `OTEL_*` variables (`OTEL_EXPORTER_OTLP_ENDPOINT` and the rest) turn on",
        "OpenTelemetry traces over OTLP/HTTP; unset, there are none (see [Operating](operations.md#traces)).",
        "",
    ])
