"""`metaledger engine ...` commands: play a bot match, replay a transcript, run scenarios, print
the card texts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

from ledger.cli.options import command_group

app = command_group(no_args_is_help=True)


def _fail(message: str) -> NoReturn:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(2)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        _fail(f"cannot read {path}: {exc.strerror or exc}")
    except json.JSONDecodeError as exc:
        _fail(f"{path} is not valid JSON: {exc}")


@app.command("play")
def play(
    game: str = typer.Argument("metax", help="metax, metamasters or metaversus"),
    seed: int = typer.Option(7, help="match seed (non-negative integer)"),
    bots: str = typer.Option(
        "random,greedy", help="two bots for players 0 and 1: random or greedy"
    ),
    transcript: Path | None = typer.Option(
        None, "--transcript", help="write the transcript JSON here"
    ),
    quiet: bool = typer.Option(False, "--quiet", help="print only the result"),
) -> None:
    """Play a bot-vs-bot match with the game's starter decks and print a turn-by-turn log."""
    from engine import Action, EngineError, Recorder, get_game, make_bot

    names = [b.strip() for b in bots.split(",")]
    if len(names) != 2:
        _fail("--bots takes two names, e.g. random,greedy")
    if seed < 0:
        _fail("--seed must be non-negative")
    console = Console(highlight=False)
    try:
        g = get_game(game)
        players = [make_bot(names[0], g, seed * 2 + 1), make_bot(names[1], g, seed * 2 + 2)]
        rec = Recorder(g.name, g.starter_decks, seed, None)
        state = rec.state
        last_turn: Any = None
        while not state.is_over:
            if len(rec.transcript.actions) > 100_000:
                _fail("match did not end within 100000 actions")
            turn = getattr(state, "turn", None)
            if turn != last_turn and not quiet:
                title = "setup" if turn == 0 else f"turn {turn}"
                console.print(f"[bold]— {title} —[/bold] {_summary(g.scenario_view(state))}")
                last_turn = turn
            player = state.current_player
            action: Action = players[player].choose(state)
            label = state.label(action)
            rec.apply(action)
            if not quiet:
                console.print(f"  [cyan]P{player}[/cyan] ({names[player]}): {label}")
        t = rec.finish()
    except EngineError as exc:
        _fail(str(exc))
    winner = "draw" if t.winner is None else f"player {t.winner} ({names[t.winner]})"
    console.print(f"[bold green]winner: {winner}[/bold green] after {len(t.actions)} actions")
    console.print(f"final hash: {t.final_hash}")
    if transcript is not None:
        try:
            transcript.write_text(json.dumps(t.to_json(), indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {transcript}: {exc.strerror or exc}")
        console.print(f"transcript written to {transcript}")


def _summary(view: dict[str, Any]) -> str:
    """A short score line from a game's scenario view (whichever of vp/hp/mp it has)."""
    players = view.get("players")
    if not isinstance(players, list):
        return ""
    parts = []
    for i, side in enumerate(players):
        if isinstance(side, dict):
            stats = ", ".join(
                f"{k.upper()} {side[k]}" for k in ("vp", "hp", "mp") if isinstance(side.get(k), int)
            )
            if stats:
                parts.append(f"P{i}: {stats}")
    return f"[dim]({'; '.join(parts)})[/dim]" if parts else ""


@app.command("cards")
def cards(
    markdown: bool = typer.Option(False, "--markdown", help="print docs/cards.md"),
) -> None:
    """Every card with an effect, its printed text beside its compiled effect (docs/cards.md)."""
    from engine import cards_markdown, game_names, get_game

    if not markdown:
        _fail("say --markdown (the one output this command has)")
    typer.echo(cards_markdown([get_game(name) for name in game_names()]), nl=False)


@app.command("replay")
def replay(file: Path = typer.Argument(..., help="a transcript JSON file")) -> None:
    """Replay and verify a transcript: every action, every checkpoint, the final hash."""
    from engine import EngineError
    from engine import replay as run_replay

    data = _read_json(file)
    try:
        result = run_replay(data)
    except EngineError as exc:
        _fail(f"{file}: {exc}")
    winner = "draw" if result.winner is None else f"player {result.winner}"
    if not result.over:
        winner = "none (match not over)"
    typer.echo(
        f"verified {result.actions} actions; winner: {winner}; final hash: {result.final_hash}"
    )


@app.command("scenario")
def scenario(files: list[Path] = typer.Argument(..., help="scenario JSON files")) -> None:
    """Run scenario files; print PASS/FAIL per file; exit non-zero if any fails."""
    from engine import EngineError, run_scenario

    failed = 0
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            result = run_scenario(data, path.name)
        except (OSError, json.JSONDecodeError, EngineError) as exc:
            failed += 1
            typer.secho(f"ERROR {path}: {exc}", fg=typer.colors.RED)
            continue
        if result.passed:
            typer.secho(f"PASS {path}", fg=typer.colors.GREEN)
        else:
            failed += 1
            typer.secho(f"FAIL {path}", fg=typer.colors.RED)
            for f in result.failures:
                typer.echo(f"  - {f}")
    typer.echo(f"{len(files) - failed} passed, {failed} failed")
    if failed:
        sys.exit(1)
