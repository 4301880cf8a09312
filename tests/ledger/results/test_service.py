"""The transcript a signed result carries is built from the stored match and its actions, and
replays on the engine to the same final state and winner."""

from __future__ import annotations

import os

from engine import CHECKPOINT_EVERY, RandomBot, get_game, play_match, replay
from ledger.db.models import Match, MatchSeat
from ledger.results.service import build_transcript


def test_the_stored_match_builds_a_transcript_that_replays() -> None:
    game = get_game("metax")
    decks = [dict(d) for d in game.starter_decks]
    seed = int.from_bytes(os.urandom(8), "big")
    state, played = play_match(game.name, game.starter_decks, seed, [RandomBot(1), RandomBot(2)])
    match = Match(
        id="0x" + os.urandom(32).hex(),
        game=game.name,
        ruleset_version=game.ruleset_version,
        catalogue_hash=game.catalogue_hash,
        options=dict(game.default_options),
        status="finished",
        created_by="0x" + "11" * 20,
        operator_commit="0x" + "22" * 32,
        seed=hex(seed),
        checkpoints=list(played.checkpoints),
    )
    seats = [
        MatchSeat(match_id=match.id, seat=i, address=f"0x{i:040x}", deck_hash="0x", cards=d)
        for i, d in enumerate(decks)
    ]
    transcript = build_transcript(match, seats, state, [list(a) for a in played.actions])
    assert transcript.checkpoint_every == CHECKPOINT_EVERY
    assert transcript.canonical_bytes() == played.canonical_bytes()
    outcome = replay(transcript.to_json())
    assert outcome.final_hash == state.state_hash() and outcome.winner == state.winner
