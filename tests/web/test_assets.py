"""The committed web assets (api/web) are what `node web/build.mjs` builds from web/ now, and
they ship in the package the API serves them from."""

from __future__ import annotations

import subprocess
from pathlib import Path

from api.pages import web_dir

REPO = Path(__file__).resolve().parents[2]
BUILT = ("app.js", "app.css", "index.html")


def test_the_committed_assets_are_not_stale(tmp_path: Path) -> None:
    subprocess.run(
        ["node", str(REPO / "web" / "build.mjs"), str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=120,
    )
    stale = [n for n in BUILT if (tmp_path / n).read_bytes() != (web_dir() / n).read_bytes()]
    assert not stale, f"{stale} differ from web/: run `node web/build.mjs` and commit api/web"


def test_the_app_script_has_no_remote_url_to_load() -> None:
    page = (web_dir() / "index.html").read_text()
    assert "http://" not in page and "https://" not in page
    assert 'src="/assets/app.js' in page and 'href="/assets/app.css' in page
