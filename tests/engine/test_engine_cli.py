"""`metaledger engine play | replay | scenario`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ledger.cli import app

runner = CliRunner()
SCENARIOS = Path(__file__).parent / "metax" / "scenarios"


def test_play_writes_a_transcript_that_replays(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    res = runner.invoke(
        app,
        [
            "engine",
            "play",
            "metax",
            "--seed",
            "7",
            "--bots",
            "random,greedy",
            "--transcript",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "winner: player" in res.output and "turn 1" in res.output and "P0" in res.output
    res = runner.invoke(app, ["engine", "replay", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert f"final hash: {data['final_hash']}" in res.output
    assert f"winner: player {data['winner']}" in res.output


def test_replay_reports_divergence_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    assert (
        runner.invoke(
            app, ["engine", "play", "metax", "--seed", "3", "--quiet", "--transcript", str(out)]
        ).exit_code
        == 0
    )
    data = json.loads(out.read_text())
    data["actions"][2] = ["play_character", 4242]
    out.write_text(json.dumps(data))
    res = runner.invoke(app, ["engine", "replay", str(out)])
    assert res.exit_code != 0
    assert "error:" in res.output and "action 2" in res.output and "Traceback" not in res.output
    data["final_hash"] = "0" * 64
    out.write_text("{not json")
    res = runner.invoke(app, ["engine", "replay", str(out)])
    assert res.exit_code != 0 and "not valid JSON" in res.output


def test_bad_input_is_one_line() -> None:
    for args in (
        ["engine", "play", "chess"],
        ["engine", "play", "metax", "--bots", "random"],
        ["engine", "play", "metax", "--bots", "random,genius"],
        ["engine", "replay", "/nonexistent/file.json"],
    ):
        res = runner.invoke(app, args)
        assert res.exit_code != 0, args
        assert "error:" in res.output and "Traceback" not in res.output, res.output


def test_scenario_command_pass_and_fail(tmp_path: Path) -> None:
    files = sorted(SCENARIOS.glob("*.json"))[:3]
    res = runner.invoke(app, ["engine", "scenario", *map(str, files)])
    assert res.exit_code == 0, res.output
    assert res.output.count("PASS") == 3
    broken = json.loads(files[0].read_text())
    broken["expect"] = {"turn": 999}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken))
    junk = tmp_path / "junk.json"
    junk.write_text("[]")
    res = runner.invoke(app, ["engine", "scenario", str(files[0]), str(bad), str(junk)])
    assert res.exit_code == 1
    assert "FAIL" in res.output and "turn: expected 999" in res.output and "ERROR" in res.output
