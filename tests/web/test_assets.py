"""The web assets (api/web, git-ignored) are built from web/ by `node web/build.mjs` (which
`make install` and the wheel's build step run): the build produces a self-contained bundle, the
stylesheet and the page, and the installed package serves what it built."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from api.pages import web_dir

REPO = Path(__file__).resolve().parents[2]
BUILT = ("app.js", "app.css", "index.html")


def test_the_build_produces_the_assets_from_web(tmp_path: Path) -> None:
    subprocess.run(
        ["node", str(REPO / "web" / "build.mjs"), str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(BUILT)
    script = (tmp_path / "app.js").read_text(encoding="utf-8")
    # one bundle: no module left to fetch (no bare or relative import), viem inside it
    assert not re.search(r"""\bimport\s*(?:[\w*{}\s,]+from\s*)?["']""", script)
    assert "eth_signTypedData_v4" in script and "eip6963:requestProvider" in script
    assert (tmp_path / "app.css").read_bytes() == (REPO / "web/src/app.css").read_bytes()
    assert (tmp_path / "index.html").read_bytes() == (REPO / "web/index.html").read_bytes()
    # what the API serves is this build (make install ran it from the same sources)
    served = (web_dir() / "app.js").read_text(encoding="utf-8")
    assert served == script, "api/web is older than web/: run `make install` (or `make web`)"


def test_the_assets_are_not_in_git() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "api/web"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    assert tracked == ""
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "api/web/app.js"], cwd=REPO, capture_output=True
    )
    assert ignored.returncode == 0


def test_the_app_script_has_no_remote_url_to_load() -> None:
    page = (web_dir() / "index.html").read_text()
    assert "http://" not in page and "https://" not in page
    assert 'src="/assets/app.js' in page and 'href="/assets/app.css' in page
