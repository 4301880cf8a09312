"""The web app's assets are built, not committed: building the package runs esbuild
(`node web/build.mjs`, web/ -> api/web/) before the package data is collected, so every wheel
ships the pages it serves. The metadata is in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUILD_SCRIPT = ROOT / "web" / "build.mjs"
BUILT = ("app.js", "app.css", "index.html")


def build_web_app() -> None:
    """Build api/web/ from web/ (a source tree without web/ must carry the built assets)."""
    if BUILD_SCRIPT.exists():
        node = shutil.which("node")
        if node is None:
            raise SystemExit("error: building the web app needs Node.js 20 (`node` not found)")
        subprocess.run([node, str(BUILD_SCRIPT)], cwd=ROOT, check=True, timeout=300)
    missing = [n for n in BUILT if not (ROOT / "api" / "web" / n).is_file()]
    if missing:
        raise SystemExit(f"error: api/web/ lacks {missing}: build it with `node web/build.mjs`")


class BuildPyWithWebApp(build_py):
    """build_py that builds the web app first (not for editable installs: `make install` builds
    it in place)."""

    def run(self) -> None:
        """Build the assets, then collect the package and its data."""
        if not self.editable_mode:
            build_web_app()
            self.__dict__.pop("data_files", None)  # collect the fresh files
        super().run()


setup(cmdclass={"build_py": BuildPyWithWebApp})
