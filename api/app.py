"""The FastAPI app factory. `uvicorn api.app:app` serves it with the settings from the environment."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy import Engine
from starlette.types import ASGIApp, Receive, Scope, Send

from api import docs, pages, problems
from api.hotroute import HotPath
from api.limits import InputLimitsMiddleware
from api.metrics import MetricsMiddleware
from api.routes import (
    audit,
    auth,
    catalogue,
    decks,
    events,
    matches,
    metadata,
    offers,
    play,
    system,
    wallet_events,
)
from api.sse import keepalive_ticks
from api.timeouts import TimeoutSweeper
from ledger.catalogue.service import sync_card_designs
from ledger.chain.client import ChainClient
from ledger.db import get_engine, keep_connection, run_unit
from ledger.db.migrations import require_latest
from ledger.errors import Conflict
from ledger.protocol.untrusted import restore_recursion_limit
from ledger.runtime.context import Context
from ledger.settings import Settings, get_settings

DESCRIPTION = """Players prove deck ownership at a pinned block, play matches on the shared rules
engine against a person or a bot, and receive operator-signed EIP-712 results.

Every error is an RFC 9457 `application/problem+json` body."""


def _prepare_database(engine: Engine) -> None:
    """Check that the schema is the latest (ConfigurationError saying how to fix it otherwise),
    then store the card designs."""
    require_latest(engine)
    try:
        run_unit(engine, sync_card_designs)
    except Conflict:  # another API process stored them at the same moment
        run_unit(engine, sync_card_designs)


#: the routers of the hot routes (api.hotroute): the play loop's, the deck registration
_HOT_ROUTERS = (matches.hot, decks.hot)


class MetaLedgerApp(FastAPI):
    """FastAPI whose ASGI entry serves the hot routes (the play loop's, `routes/matches.hot`,
    and the deck registration, `routes/decks.hot`) by their lean path (`api.hotroute.HotPath`),
    every other request by the full stack."""

    def build_middleware_stack(self) -> ASGIApp:
        """The full stack behind the hot routes' lean path."""
        hot = [route for router in _HOT_ROUTERS for route in router.routes]
        return HotPath(self, super().build_middleware_stack(), hot)  # type: ignore[arg-type]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An HTTP request goes straight to the stack (as Starlette's entry does) when FastAPI's
        native telemetry was off when the stack was built, at the first request: FastAPI asks
        OpenTelemetry's providers again on every request (environment look-ups, ≈ 20 µs) to
        find out whether it is on. Telemetry is configured before the API serves; anything
        else, or a telemetry that was on, takes FastAPI's entry."""
        stack = self.middleware_stack
        if scope["type"] == "http" and isinstance(stack, HotPath) and stack.enabled:
            if self.root_path:
                scope["root_path"] = self.root_path
            scope["app"] = self
            await stack(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, *, chain: ChainClient | None = None) -> FastAPI:
    """Build the app; the chain client, database engine and signer are set up at startup."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        s = settings or get_settings()
        engine = get_engine(s.resolved_database_url)
        ctx = Context.create(s, engine, chain)
        # the hot routes' units run on this (the event loop's) thread: one connection kept
        kept = keep_connection(engine)
        try:
            _prepare_database(engine)
            app.state.ctx = ctx
            sweeper = TimeoutSweeper(ctx).start()
            ctx.events.start()
            ticker = asyncio.create_task(keepalive_ticks(ctx))
            # everything loaded so far (catalogues, compiled effects, routes) lives as long as
            # the process: keep it out of the cyclic GC's generations so collections stay short
            gc.collect()
            gc.freeze()
            try:
                yield
            finally:
                ticker.cancel()
                ctx.events.stop()
                sweeper.stop()
        finally:
            if kept is not None:
                kept.release()
            if chain is None:
                ctx.chain.close()

    restore_recursion_limit()
    app = MetaLedgerApp(
        title="MetaLedger API",
        version="1.0.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    docs.install(app, "MetaLedger API")
    pages.install(app)
    problems.install(app)
    app.add_middleware(InputLimitsMiddleware, settings=settings or get_settings())
    app.add_middleware(MetricsMiddleware)  # outermost: it also counts refused requests
    for module in (
        system,
        auth,
        catalogue,
        wallet_events,
        metadata,
        decks,
        matches,
        events,
        play,
        offers,
        audit,
    ):
        app.include_router(module.router)
    # the hot routes (api.hotroute: the play loop's, the deck registration) first: a request
    # is matched against the routes in order, and no other route's path and method are theirs
    before = len(app.router.routes)
    for router in _HOT_ROUTERS:
        app.include_router(router)
    hot = app.router.routes[before:]
    del app.router.routes[before:]
    app.router.routes[:0] = hot
    app.include_router(audit.checks)
    return app


app = create_app()
