"""The MetaX catalogue: a validated data file with every card the rulebook names."""

from __future__ import annotations

import json
from importlib import resources

from engine.core.catalogue import catalogue_hash
from engine.core.game import get_game
from engine.metax.cards import CARDS, CATALOGUE, ops_in_use


def test_catalogue_size_and_hash() -> None:
    g = get_game("metax")
    assert len(g.cards) >= 45
    data = json.loads(
        resources.files("engine.metax").joinpath("catalogue.json").read_text(encoding="utf-8")
    )
    assert g.catalogue_hash == catalogue_hash(data)


def test_every_card_the_rulebook_names() -> None:
    names = {(c["name"], c.get("subtitle")) for c in CATALOGUE.cards}
    titles = {c["name"] for c in CATALOGUE.cards}
    for title in (
        "Darkseid",
        "Blackfire",
        "Batman",
        "Catwoman",
        "Atrocitus",
        "Solomon Grundy",
        "Towering Titan",
        "Evil Parade",
        "Microscopic Victory",
    ):
        assert title in titles, title
    assert any(t.startswith("Armin") for t in titles)
    assert ("Mikasa Ackermann", "Lethal Force") in names
    assert ("Superman", "Man of Steel") in names and ("Superman", "Kal-El") in names
    for card_id in ("U92-JL", "U82-AT", "C40-BM", "U94-JL", "U99-AT"):
        assert card_id in CARDS.cid


def test_named_battle_cards_match_the_rulebook() -> None:
    by_id = {c["id"]: c for c in CATALOGUE.cards}
    s3 = ["strength", "intelligence", "special"]
    assert (by_id["U92-JL"]["rank"], sorted(by_id["U92-JL"]["stats"])) == (1, sorted(s3))
    assert (by_id["U82-AT"]["rank"], sorted(by_id["U82-AT"]["stats"])) == (
        1,
        ["intelligence", "strength"],
    )
    for card_id, rank in (("C40-BM", 1), ("U94-JL", 4), ("U99-AT", 7)):
        assert by_id[card_id]["rank"] == rank and sorted(by_id[card_id]["stats"]) == sorted(s3)
        assert CARDS.basic[CARDS.cid[card_id]], (
            f"{card_id} is a Basic Battle Card (no printed effect)"
        )
    assert not CARDS.basic[CARDS.cid["U92-JL"]]


def test_at_least_fifteen_effect_operations_in_use() -> None:
    ops = ops_in_use()
    assert len(ops) >= 15, sorted(ops)
    assert any(op.startswith("python:") for op in ops)


def test_characters_have_one_of_three_effect_kinds() -> None:
    for c in CATALOGUE.cards:
        if c["kind"] == "character":
            assert c["effect_kind"] in ("played", "push", "continuous")
