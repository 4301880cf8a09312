"""Every card with an effect carries its printed text, the text names the effect's numbers,
docs/cards.md is generated from the catalogues (and is not stale), and an older ruleset's
catalogue hash is recomputed from today's catalogue, equal to what its transcripts pinned."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import cards_markdown, game_names, get_game
from engine.core.card_texts import effect_numbers, has_effect, text_numbers
from engine.core.catalogue import catalogue_hash_as_of
from engine.metaversus.cards import CATALOGUE as WISH_CATALOGUE

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "cards.md"
V1 = ROOT / "tests" / "fixtures" / "v1" / "transcripts"


def _printed(card: dict[str, object]) -> str:
    skill = card.get("skill")
    text = card.get("text") or (skill.get("text") if isinstance(skill, dict) else "")
    return str(text or "")


@pytest.mark.parametrize("game", game_names())
def test_every_card_with_an_effect_has_a_text_naming_its_numbers(game: str) -> None:
    cards = [dict(c) for c in get_game(game).cards if has_effect(c)]
    assert cards
    for card in cards:
        text = _printed(card)
        assert text.strip(), f"{card['id']} has an effect and no text"
        missing = effect_numbers(card) - text_numbers(text)
        assert not missing, f"{card['id']}: the text {text!r} does not name {sorted(missing)}"


def test_every_wish_card_but_the_packs_has_its_own_text() -> None:
    for card in get_game("metaversus").cards:
        if card["kind"] != "character_pack":
            assert card.get("text"), card["id"]


def test_the_number_check_catches_a_text_that_says_another_amount() -> None:
    card = {"id": "x", "effect": [{"op": "draw", "n": 2}], "plus": {"stars": 1, "effect": []}}
    assert effect_numbers(card) == {1, 2}
    assert effect_numbers(card) - text_numbers("Draw 3 cards. X+ (spend 1 Wishing Star).") == {2}
    assert not effect_numbers(card) - text_numbers("Draw two cards. X+ (spend a Wishing Star).")


def test_docs_cards_md_is_generated_from_the_catalogues() -> None:
    expected = cards_markdown([get_game(name) for name in game_names()])
    assert DOC.read_text(encoding="utf-8") == expected, (
        "docs/cards.md is stale: run `metaledger engine cards --markdown > docs/cards.md`"
    )
    for name in game_names():
        for card in get_game(name).cards:
            if has_effect(card):
                assert f"| `{card['id']}` " in expected


def test_the_cli_prints_the_cards_markdown() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "engine", "cards", "--markdown"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == DOC.read_text(encoding="utf-8")
    refused = subprocess.run(
        [sys.executable, "-m", "ledger.cli", "engine", "cards"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert refused.returncode == 2 and refused.stderr.startswith("error: ")


def _v1_hashes() -> dict[tuple[str, str], set[str]]:
    out: dict[tuple[str, str], set[str]] = {}
    for path in sorted(V1.glob("*.json")):
        t = json.loads(path.read_text())
        out.setdefault((t["game"], t["ruleset_version"]), set()).add(t["catalogue_hash"])
    return out


def test_the_first_rulesets_catalogue_hashes_are_recomputed_equal_to_the_v1_transcripts() -> None:
    pinned = _v1_hashes()
    assert {game for game, _ in pinned} == set(game_names())
    for (game, version), hashes in pinned.items():
        assert get_game(game).ruleset(version).catalogue_hash in hashes
        assert len(hashes) == 1
    # WISH's texts came after ruleset wish-guide-1: its hash is today's catalogue without them
    (wish_v1,) = pinned[("metaversus", "wish-guide-1")]
    assert WISH_CATALOGUE.hash != wish_v1
    assert catalogue_hash_as_of(WISH_CATALOGUE.data, "wish-guide-1", ("text",)) == wish_v1
    assert catalogue_hash_as_of(WISH_CATALOGUE.data, "wish-guide-1", ()) != wish_v1
