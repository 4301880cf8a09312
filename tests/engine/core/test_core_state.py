"""One path for every action: `apply`, the Recorder and replay's `apply_actions` accept and
reject exactly the same, the compact state hash is pinned, and every game's replay still stops
at the first divergence."""

from __future__ import annotations

import copy
import hashlib
import json
import struct
from typing import Any

import pytest

from engine.core.actions import Action
from engine.core.bots import RandomBot, play_match
from engine.core.errors import DeckRejected, IllegalAction, ReplayDiverged, ReplayRejected
from engine.core.game import get_game, new_match
from engine.core.prng import Prng
from engine.core.state import GameState, field_copier, pack_ints, pack_prng
from engine.core.transcript import Recorder, Transcript, replay

GAMES = ("metax", "metaversus", "metamasters")

#: state_hash() of the first decision of a match (the ruleset's starter decks, seed 1), per
#: ruleset: a change here means the state encoding, the shuffle or the setup changed, and every
#: recorded transcript with it (the first ruleset of each game keeps engine 1.1.0's values)
PINNED_START = {
    (
        "metax",
        "metax/2018.06-1",
    ): "227dba9dfa3ee50ff9410667817884e2db1ce33e5ffb3c240b95caf69b0ac44d",
    (
        "metax",
        "metax/2018.06-2",
    ): "1ea5e104e805702e74769456f13e1dc9a776f3da025f90d9f81536311d078282",
    (
        "metaversus",
        "wish-guide-1",
    ): "c9bbd9e572b3f8daf1ac3ae8a1f9c3eb9282b337097daf95f85e89a3c87641e4",
    (
        "metaversus",
        "wish-guide-2",
    ): "2521ca7b85a014be8a3d602711ad8bb819fe7a2fb600e3d6020948f47e78d682",
    (
        "metamasters",
        "metamasters-1.0",
    ): "c35e5c324ef27861e5b610194a1fe9f537cbabf5265bd98feef0cb3f33170f10",
    (
        "metamasters",
        "metamasters-1.0-2",
    ): "a074ce5c921be77e58016e2d0b713727949c9378ca3a0973279d98c41e8ae9cf",
}


def _outcome(state: GameState, run: Any) -> tuple[str, str]:
    """("ok", hash after) or ("rejected", rule); a rejection must leave the state unchanged."""
    before = state.state_hash()
    try:
        run()
    except IllegalAction as exc:
        assert state.state_hash() == before, "a rejected action changed the state"
        return "rejected", exc.rule
    return "ok", state.state_hash()


def _candidates(game: str) -> list[list[Any]]:
    """Transcript actions of a few random matches, plus malformed and unknown ones."""
    g = get_game(game)
    seen: dict[str, list[Any]] = {}
    for seed in range(1, 4):
        _, t = play_match(g, g.starter_decks, seed, (RandomBot(seed), RandomBot(seed + 7)))
        for raw in t.actions:
            seen.setdefault(json.dumps(raw), raw)
    pool = list(seen.values())
    extra: list[list[Any]] = [["no_such_action"], ["no_such_action", 1]]
    for raw in pool[:40]:
        extra.append([*raw, 0])  # one argument too many
        if len(raw) > 1:
            extra.append(raw[:-1])  # one too few
            extra.append([raw[0], *([999] * (len(raw) - 1))])  # out of range
    return pool + extra


def _recorder_at(state: GameState) -> Recorder:
    """A Recorder whose state is `state` (to apply actions the way play_match does)."""
    rec = Recorder.__new__(Recorder)
    rec.state = state
    rec.transcript = Transcript(state.game, "", "", "", 0, [{}, {}], {}, checkpoint_every=1 << 30)
    return rec


@pytest.mark.parametrize("game", GAMES)
def test_no_game_has_a_second_apply_path(game: str) -> None:
    cls = get_game(game).state_class
    assert cls.apply is GameState.apply
    assert cls.apply_actions is GameState.apply_actions


@pytest.mark.parametrize("game", GAMES)
def test_apply_actions_accepts_and_rejects_exactly_what_apply_does(game: str) -> None:
    g = get_game(game)
    pool = _candidates(game)
    pick = Prng(99)
    _, t = play_match(g, g.starter_decks, 21, (RandomBot(5), RandomBot(6)))
    state = new_match(game, g.starter_decks, 21)
    checked = 0
    for index, raw in enumerate([*t.actions, ["after_the_end"]]):
        tried = [raw] + [pool[pick.below(len(pool))] for _ in range(6 if index % 3 == 0 else 1)]
        for cand in tried:
            a, b, c = state.clone(), state.clone(), state.clone()
            via_apply = _outcome(
                a, lambda a=a, cand=cand: a.apply(Action(cand[0], tuple(cand[1:])))
            )
            via_replay = _outcome(b, lambda b=b, cand=cand: b.apply_actions([cand], 0, 1))
            recorder = _recorder_at(c)
            via_recorder = _outcome(
                c, lambda rec=recorder, cand=cand: rec.apply(Action(cand[0], tuple(cand[1:])))
            )
            assert via_apply == via_replay == via_recorder, (index, cand)
            checked += 1
        if index < len(t.actions):
            state.apply(Action(raw[0], tuple(raw[1:])))
    assert checked > len(t.actions)


@pytest.mark.parametrize("game", GAMES)
def test_apply_actions_names_the_index_and_applies_the_ones_before(game: str) -> None:
    g = get_game(game)
    _, t = play_match(g, g.starter_decks, 4, (RandomBot(1), RandomBot(2)))
    actions = [list(a) for a in t.actions[:10]] + [["no_such_action"]]
    state = new_match(game, g.starter_decks, 4)
    ref = new_match(game, g.starter_decks, 4)
    for raw in actions[:10]:
        ref.apply(Action(raw[0], tuple(raw[1:])))
    with pytest.raises(ReplayRejected) as err:
        state.apply_actions(actions, 0, len(actions))
    assert err.value.index == 10 and "no_such_action" in err.value.message
    assert state.state_hash() == ref.state_hash()
    # a range that starts later and ends past the actions names the same index
    again = new_match(game, g.starter_decks, 4)
    again.apply_actions(actions, 0, 4)
    with pytest.raises(ReplayRejected) as err:
        again.apply_actions(actions, 4, len(actions) + 5)
    assert err.value.index == 10 and again.state_hash() == ref.state_hash()


@pytest.mark.parametrize("game", GAMES)
def test_every_game_replay_stops_at_the_first_divergence(game: str) -> None:
    g = get_game(game)
    _, t = play_match(g, g.starter_decks, 8, (RandomBot(3), RandomBot(4)), every=16)
    data = t.to_json()
    assert replay(copy.deepcopy(data)).final_hash == t.final_hash
    tampered = copy.deepcopy(data)
    tampered["checkpoints"]["hashes"][2] = "0" * 64
    with pytest.raises(ReplayDiverged) as diverged:
        replay(tampered)
    assert diverged.value.index == 48
    illegal = copy.deepcopy(data)
    illegal["actions"][20] = ["no_such_action", 1]
    with pytest.raises(ReplayRejected) as rejected:
        replay(illegal)
    assert rejected.value.index == 20 and rejected.value.rule.startswith(game + ".")


def test_every_ruleset_has_a_pinned_start() -> None:
    assert set(PINNED_START) == {(g, r.version) for g in GAMES for r in get_game(g).rulesets}


@pytest.mark.parametrize(("game", "ruleset"), sorted(PINNED_START))
def test_state_hash_is_pinned_and_is_the_sha256_of_hash_bytes(game: str, ruleset: str) -> None:
    g = get_game(game)
    state = new_match(game, g.ruleset(ruleset).starter_decks, 1, ruleset=ruleset)
    assert state.rev == g.ruleset(ruleset).revision
    assert state.state_hash() == hashlib.sha256(state.hash_bytes()).hexdigest()
    assert state.state_hash() == PINNED_START[(game, ruleset)]
    assert state.clone().hash_bytes() == state.hash_bytes()
    restored = g.state_class.from_json(json.loads(json.dumps(state.to_json())))
    assert restored.hash_bytes() == state.hash_bytes()


@pytest.mark.parametrize("game", GAMES)
def test_distinct_states_of_a_match_hash_differently(game: str) -> None:
    g = get_game(game)
    state = new_match(game, g.starter_decks, 2)
    _, t = play_match(g, g.starter_decks, 2, (RandomBot(9), RandomBot(10)))
    by_hash: dict[str, str] = {}
    for raw in t.actions:
        state.apply(Action(raw[0], tuple(raw[1:])))
        canonical = json.dumps(state.to_json(), sort_keys=True)
        assert by_hash.setdefault(state.state_hash(), canonical) == canonical
    assert len(by_hash) > len(t.actions) // 2


def test_packing_is_little_endian_fixed_width_and_refuses_overflow() -> None:
    assert pack_ints([1, -1]) == b"\x01" + b"\x00" * 7 + b"\xff" * 8
    assert pack_ints([]) == b""
    assert pack_prng([1, 2, 3, 2**64 - 1]) == (
        b"\x01" + b"\x00" * 7 + b"\x02" + b"\x00" * 7 + b"\x03" + b"\x00" * 7 + b"\xff" * 8
    )
    with pytest.raises(struct.error):
        pack_ints([2**63])


@pytest.mark.parametrize("game", GAMES)
def test_the_remembered_decks_do_not_change_a_verdict(game: str) -> None:
    g = get_game(game)
    d0, d1 = g.starter_decks
    opts = {**g.default_options}
    new_match(game, (d0, d1), 1)  # remembered as the last legal pair
    card = sorted(d0)[0]
    for value in (True, float(d0[card]), d0[card] + 1):
        lookalike = {**d0, card: value}
        if g.check_deck(lookalike, {**opts, "seat": 0} if game == "metamasters" else opts):
            with pytest.raises(DeckRejected):
                new_match(game, (lookalike, d1), 1)
        else:
            new_match(game, (lookalike, d1), 1)
        new_match(game, (d0, d1), 1)


def test_the_remembered_options_do_not_let_a_lookalike_option_through() -> None:
    g = get_game("metaversus")
    new_match("metaversus", g.starter_decks, 1, {"max_rounds": 1})
    with pytest.raises(DeckRejected):
        new_match("metaversus", g.starter_decks, 1, {"max_rounds": True})


#: the per-match card tables no action changes, which a clone shares
_CARD_TABLES = {"metax": {"cards", "owner", "static"}, "metamasters": {"cid", "owner"}}


def _slots(cls: type) -> set[str]:
    return {name for c in cls.__mro__ for name in getattr(c, "__slots__", ())}


@pytest.mark.parametrize("game", GAMES)
def test_a_clone_sets_every_field_and_shares_no_list(game: str) -> None:
    g = get_game(game)
    state = new_match(game, g.starter_decks, 3)
    _, t = play_match(g, g.starter_decks, 3, (RandomBot(1), RandomBot(2)))
    for raw in t.actions[: len(t.actions) // 2]:
        state.apply(Action(raw[0], tuple(raw[1:])))
    copied = state.clone()
    fields = _slots(type(state))
    shared = _CARD_TABLES.get(game, set())
    assert {"over", "rev", "win"} < fields
    assert [name for name in sorted(fields) if not hasattr(copied, name)] == []
    assert copied.hash_bytes() == state.hash_bytes()
    for name in sorted(fields):
        value, copy_value = getattr(state, name), getattr(copied, name)
        if name in shared:  # a card table no action changes
            assert copy_value is value, name
        elif isinstance(value, list) and value:
            assert copy_value is not value, name
            for inner, copy_inner in zip(value, copy_value, strict=True):
                if isinstance(inner, list):
                    assert copy_inner is not inner, name


@pytest.mark.parametrize("game", GAMES)
def test_the_field_copier_of_a_state_names_every_slot_once(game: str) -> None:
    state_class = get_game(game).state_class
    assert state_class.clone.fields == _slots(state_class)  # type: ignore[attr-defined]


def test_a_field_copier_copies_each_field_by_its_kind() -> None:
    class Prng:
        def clone(self) -> str:
            return "cloned"

    class Box:
        __slots__ = ("a", "b", "c", "d", "e")

    def copy_e(box: Box, copy: Box) -> None:
        copy.e = box.e * 2

    copy = field_copier(shared="a", copied="b", paired="c", cloned="d", by_hand="e", then=copy_e)
    box = Box()
    box.a, box.b, box.c, box.d, box.e = [1], [2], [[3], [4]], Prng(), "e"
    c = copy(box)
    assert type(c) is Box and c.a is box.a and c.d == "cloned" and c.e == "ee"
    assert c.b == [2] and c.b is not box.b
    assert c.c == [[3], [4]] and c.c[0] is not box.c[0] and c.c[1] is not box.c[1]
    assert copy.fields == {"a", "b", "c", "d", "e"}  # type: ignore[attr-defined]
    assert not hasattr(field_copier(shared="a")(box), "b")
    with pytest.raises(ValueError, match="identifiers"):
        field_copier(shared="a", copied="a")
    with pytest.raises(ValueError, match="identifiers"):
        field_copier(shared="x=1")
    with pytest.raises(ValueError, match="both or neither"):
        field_copier(shared="a", by_hand="e")
