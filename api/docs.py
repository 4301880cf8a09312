"""The /docs (Swagger UI) and /redoc pages, with their scripts and styles served by this app
from the installed `fastapi-offline` package: no CDN, no source checkout needed."""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

#: where the assets are served
ASSETS_URL = "/docs-assets"


def assets_dir() -> Path:
    """The folder of the installed Swagger UI and Redoc distribution files."""
    return Path(str(files("fastapi_offline") / "static"))


def install(app: FastAPI, title: str) -> None:
    """Serve the assets and the two pages on `app` (created with docs_url=None, redoc_url=None)."""
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    def page(path: str, name: str, render: Callable[..., HTMLResponse], **assets: str) -> None:
        """Serve `render`'s page titled `name` at `path`; `assets` are its asset files by the
        renderer's keyword, all of its URLs under the request's root path."""

        async def serve(request: Request) -> HTMLResponse:
            root = request.scope.get("root_path", "")
            urls = {key: f"{root}{ASSETS_URL}/{file}" for key, file in assets.items()}
            return render(openapi_url=f"{root}{openapi_url}", title=f"{title} - {name}", **urls)

        app.add_api_route(path, serve, methods=["GET"], include_in_schema=False)

    page(
        "/docs",
        "Swagger UI",
        get_swagger_ui_html,
        swagger_js_url="swagger-ui-bundle.js",
        swagger_css_url="swagger-ui.css",
        swagger_favicon_url="favicon.png",
    )
    page(
        "/redoc",
        "ReDoc",
        functools.partial(get_redoc_html, with_google_fonts=False),
        redoc_js_url="redoc.standalone.js",
        redoc_favicon_url="favicon.png",
    )
