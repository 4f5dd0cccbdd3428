"""`tenderflow serve`: the API under uvicorn, in this process (sync endpoints on its thread pool)."""

from __future__ import annotations

from types import FrameType
from typing import Any

import structlog
import uvicorn

from tenderflow.config import Settings

log = structlog.get_logger("tenderflow.api")


class ApiServer(uvicorn.Server):
    """uvicorn, but a stop signal first ends the claims held open for remote workers: otherwise
    the graceful shutdown would wait for every long-poll to run out."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        app: Any = self.config.loaded_app
        # loaded_app may be wrapped in uvicorn's middleware; the FastAPI app is at the end of the chain.
        while app is not None and not hasattr(app, "state"):
            app = getattr(app, "app", None)
        services = getattr(getattr(app, "state", None), "services", None)
        if services is not None:
            services.begin_shutdown()
        super().handle_exit(sig, frame)


def serve(settings: Settings, *, host: str, port: int) -> int:
    """Run the API with uvicorn until SIGTERM/SIGINT; returns the exit code.

    The services (the database pool, migrations checked, the storage) are opened first, outside
    uvicorn: a database that does not answer or is not migrated raises its TenderflowError here, one
    line on stderr and exit 1 like every command, instead of uvicorn's lifespan traceback and exit 3.
    """
    from tenderflow.api.app import create_app
    from tenderflow.api.services import open_services

    services = open_services(settings)
    try:
        config = uvicorn.Config(
            create_app(settings, opened=services), host=host, port=port, proxy_headers=True, log_config=None,
            forwarded_allow_ips=settings.forwarded_allow_ips,
            timeout_graceful_shutdown=10, access_log=False,
        )
        server = ApiServer(config)
        log.info("api.starting", host=host, port=port, docs=f"http://{host}:{port}/docs")
        server.run()
    finally:
        services.close()  # the lifespan's end closed them already, unless uvicorn never started it
    log.info("api.stopped")
    return 0 if server.started else 1
