"""The web app's pages (collection, deck builder, play, market, audit), served by the API
process itself from the package (`api/web/`, built from `web/` by esbuild): same origin, no
CDN, a strict Content-Security-Policy, working without internet."""

from __future__ import annotations

import hashlib
import html
from functools import cache
from importlib.resources import files
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

#: where the built scripts and styles are served
ASSETS_URL = "/assets"
#: the app's own paths (the page decides what to show from the path); none is an API route
PAGE_PATHS = ("/", "/collection", "/deck-builder", "/play", "/market", "/audit")


def web_dir() -> Path:
    """The folder of the built web app inside the installed package."""
    return Path(str(files("api") / "web"))


@cache
def asset_version() -> str:
    """A short hash of the built assets (cache-busting query of their URLs)."""
    digest = hashlib.sha256()
    for name in ("app.js", "app.css"):
        digest.update((web_dir() / name).read_bytes())
    return digest.hexdigest()[:12]


def origin_of(url: str) -> str:
    """scheme://host[:port] of `url`."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def content_security_policy(rpc_url: str | None) -> str:
    """Scripts, styles and images from this origin only; requests to this origin and to the
    chain RPC the pages may call (the audit page checks a result against the chain itself);
    nothing framed."""
    connect = f"'self' {origin_of(rpc_url)}" if rpc_url else "'self'"
    return "; ".join(
        (
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            f"connect-src {connect}",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )


def render_page(rpc_url: str | None, chain_id: int) -> str:
    """index.html with the asset version and where the chain answers."""
    template = (web_dir() / "index.html").read_text(encoding="utf-8")
    return (
        template.replace("{{version}}", asset_version())
        .replace("{{rpc_url}}", html.escape(rpc_url or "", quote=True))
        .replace("{{chain_id}}", str(chain_id))
    )


def install(app: FastAPI) -> None:
    """Serve the built assets and the app's pages on `app`."""
    app.mount(ASSETS_URL, StaticFiles(directory=web_dir()), name="web-assets")

    async def page(request: Request) -> HTMLResponse:
        ctx = request.app.state.ctx
        rpc_url, chain_id = ctx.settings.resolved_web_rpc_url, ctx.chain.addresses.chain_id
        return HTMLResponse(
            render_page(rpc_url, chain_id),
            headers={
                "Content-Security-Policy": content_security_policy(rpc_url),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
                "Cache-Control": "no-cache",
            },
        )

    for path in PAGE_PATHS:
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)
