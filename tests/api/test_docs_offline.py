"""/docs and /redoc load every script and style from this server (the installed
`fastapi-offline` package), none from a CDN: they work on a machine without internet."""

from __future__ import annotations

import re

import httpx
import pytest

pytestmark = pytest.mark.chain


@pytest.mark.parametrize(
    ("page", "assets"),
    [
        ("/docs", ["/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css"]),
        ("/redoc", ["/docs-assets/redoc.standalone.js"]),
    ],
)
def test_docs_pages_use_only_local_assets(
    client: httpx.Client, page: str, assets: list[str]
) -> None:
    html = client.get(page)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    referenced = re.findall(r'(?:src|href)="([^"]+)"', html.text) + re.findall(
        r"url: '([^']+)'", html.text
    )
    assert not [u for u in referenced if u.startswith(("http://", "https://", "//"))], referenced
    assert "cdn" not in html.text.lower()
    for asset in assets:
        assert asset in html.text
        served = client.get(asset)
        assert served.status_code == 200 and len(served.content) > 100_000, asset
    assert client.get("/openapi.json").status_code == 200


def test_the_assets_come_from_an_installed_package() -> None:
    from api.docs import assets_dir

    folder = assets_dir()
    assert "site-packages" in str(folder) or "dist-packages" in str(folder)
    assert {"swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js"} <= {
        p.name for p in folder.iterdir()
    }
