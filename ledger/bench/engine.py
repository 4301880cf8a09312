"""The engine benchmark: random-vs-random matches of any registered game on one core."""

from __future__ import annotations

import resource
import statistics
import time
from typing import Any

from engine import (
    Action,
    EngineError,
    RandomBot,
    Transcript,
    canonical_json,
    get_game,
    play_match,
    replay,
)
from ledger.errors import MetaLedgerError

#: matches whose mid-game state size is sampled
_STATE_SAMPLES = 50
#: transcripts kept for the replay phase (bounds the memory the benchmark itself uses)
_KEEP = 1000


def run(game: str = "metax", seconds: float = 10.0) -> dict[str, Any]:
    """Play random matches for about `seconds` (replays get up to the same budget); return figures."""
    if seconds <= 0:
        raise MetaLedgerError("seconds must be positive")
    try:
        g = get_game(game)
    except EngineError as exc:
        raise MetaLedgerError(str(exc)) from exc
    decks = g.starter_decks
    transcripts: list[Transcript] = []
    actions = 0
    seed = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds / 2
    while True:
        seed += 1
        bots = (RandomBot(seed * 2 + 1), RandomBot(seed * 2 + 2))
        _, t = play_match(g, decks, seed, bots)
        if len(transcripts) < _KEEP:
            transcripts.append(t)
        actions += len(t.actions)
        if time.perf_counter() >= deadline:
            break
    play_elapsed = time.perf_counter() - start
    matches = seed
    play_cpu = time.process_time() - cpu_start

    start = time.perf_counter()
    cpu_start = time.process_time()
    replayed = 0
    deadline = start + seconds / 2
    # replay the kept transcripts (cycling through them) for the same time budget
    while True:
        replay(transcripts[replayed % len(transcripts)])
        replayed += 1
        if time.perf_counter() >= deadline:
            break
    replay_elapsed = time.perf_counter() - start
    replay_cpu = time.process_time() - cpu_start

    sizes = [_mid_state_bytes(t) for t in transcripts[:_STATE_SAMPLES]]
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "game": g.name,
        "seconds": round(play_elapsed + replay_elapsed, 3),
        "matches": matches,
        "matches_per_s": round(matches / play_elapsed, 1),
        "actions_per_s": round(actions / play_elapsed, 1),
        "mean_actions_per_match": round(actions / matches, 1),
        "replayed_matches": replayed,
        "replay_matches_per_s": round(replayed / replay_elapsed, 1),
        # the same rates over this process's CPU time (less sensitive to a busy machine)
        "cpu_matches_per_s": round(matches / max(play_cpu, 1e-9), 1),
        "cpu_replay_matches_per_s": round(replayed / max(replay_cpu, 1e-9), 1),
        "state_bytes": int(statistics.median(sizes)),
        "peak_rss_mb": round(peak_kb / 1024, 1),
    }


def _mid_state_bytes(t: Transcript) -> int:
    """Size of the canonical JSON of the state halfway through a recorded match."""
    g = get_game(t.game)
    state = g.new_match((t.decks[0], t.decks[1]), t.seed, t.options, t.ruleset_version)
    for raw in t.actions[: len(t.actions) // 2]:
        state.apply(Action(raw[0], tuple(raw[1:])))
    return len(canonical_json(state.to_json()))
