"""Everything a reader may read of a live match is the same whatever the cards hidden from them.

For each game, Hypothesis plays random matches and, every few actions, takes a second state
the reader cannot tell from the real one (`Game.determinize`: the opponent's hand, deck and
face-down cards dealt anew, instance ids included, deck orders and unrevealed setup choices
too) and checks that the reader's observation, legal moves, refusals of random moves and log
entries are the same in both; that two actions the reader cannot tell apart afterwards have
the same log entry for them; and that every id a reader is shown is their own instance id or
a place. The canary tests at the end plant a leak and check that these checks catch it.

By default a few dozen matches per game run; set METALEDGER_SLOW_TESTS=1 for hundreds.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core.actions import Action
from engine.core.bots import GreedyBot, RandomBot
from engine.core.errors import IllegalAction
from engine.core.game import Game, get_game, new_match
from engine.core.prng import Prng
from engine.core.projection import parse_place
from engine.core.state import GameState
from engine.metamasters.cards import CARDS as MM_CARDS
from engine.metamasters.encoding import _CARD_ARGS as MM_CARD_ARGS
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.moves import ACTION_ARITY
from engine.metaversus.encoding import WishState
from engine.metax.cards import CARDS as MX_CARDS
from engine.metax.encoding import _CARD_ARGS as MX_CARD_ARGS
from engine.metax.encoding import MetaXState
from engine.metax.moves import _DISPATCH

SLOW = os.environ.get("METALEDGER_SLOW_TESTS") == "1"
PROFILE = settings(
    max_examples=300 if SLOW else 25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
MATCH = {
    "seed": st.integers(0, 2**64 - 1),
    "bots": st.integers(0, 2**32),
    "every": st.integers(2, 9),
}

#: every action kind of each game, for random moves
KINDS = {
    "metax": sorted(_DISPATCH),
    "metamasters": sorted(ACTION_ARITY),
    "metaversus": [
        "play", "wish", "buy", "skill", "next", "select", "decline", "gain", "ban", "noban",
        "choose", "pick",
    ],
}  # fmt: skip
#: for each game and action kind, the positions of the arguments that name a card
CARD_ARGS: dict[str, dict[str, tuple[int, ...]]] = {
    "metax": MX_CARD_ARGS,
    "metamasters": MM_CARD_ARGS,
    "metaversus": {},
}
#: card numbers by kind (MetaX) and by kind and subtype (MetaMasters), to re-deal a card as
#: another of its kind
MX_BY_KIND = {k: [c for c, x in enumerate(MX_CARDS.kind) if x == k] for k in set(MX_CARDS.kind)}
MM_BY_KIND: dict[tuple[int, Any], list[int]] = {}
for _c in MM_CARDS:
    MM_BY_KIND.setdefault((_c.kind, _c.subtype), []).append(_c.index)
#: arguments no reader should ever get a crash from
JUNK: list[Any] = [None, True, 1.5, "", "x", "9.actor.0", "0.actor.99", "0.hand.0", [1], {}, 2**70]


def dumps(data: Any) -> str:
    """Canonical JSON text, to compare reads."""
    return json.dumps(data, sort_keys=True)


# --- what a reader may read ------------------------------------------------------------------


def reads(state: GameState, viewer: int | None) -> str:
    """The observation and legal moves of `viewer`, as one text."""
    return dumps({"observation": state.observation(viewer), "moves": state.legal_moves(viewer)})


def outcome(state: GameState, move: Any, viewer: int) -> str:
    """What `viewer` reads when it sends `move`: the refusal, or its own and a spectator's log
    entry (the other player's entry may name that player's own cards, which were re-dealt)."""
    s = state.clone()
    try:
        _, entries = s.apply_move(move, viewer)
    except IllegalAction as exc:
        return dumps(["refused", exc.rule, exc.message])
    return dumps(["applied", entries[viewer], entries[2]])


def random_moves(state: GameState, viewer: int, prng: Prng, n: int) -> Iterator[Any]:
    """Moves a client might send: legal ones, legal ones with an argument changed, and
    arbitrary kinds with arguments from the reader's ids, small ints and junk."""
    legal = [m["action"] for m in state.legal_moves(viewer)]
    pool: list[Any] = [a for m in legal for a in m[1:]]
    pool += [id_ for id_ in _ids(state.observation(viewer)) if id_ is not None]
    pool += [prng.below(160) - 2 for _ in range(6)] + JUNK
    kinds = KINDS[state.game]
    for _ in range(n):
        r = prng.below(4)
        if r == 0 and legal:
            yield legal[prng.below(len(legal))]
        elif r == 1 and legal:
            move = list(legal[prng.below(len(legal))])
            if len(move) > 1:
                move[1 + prng.below(len(move) - 1)] = pool[prng.below(len(pool))]
            yield move
        else:
            args = [pool[prng.below(len(pool))] for _ in range(prng.below(4))]
            yield [kinds[prng.below(len(kinds))], *args]


def _ids(obs: dict[str, Any]) -> list[Any]:
    """Every card id an observation shows (see docs/engine.md, "What a reader sees")."""
    out: list[Any] = []
    if obs["game"] == "metax":
        for side in obs["players"]:
            for zone in ("hand", "discard", "in_play"):
                out += [e[0] for e in side[zone] or ()]
            for c in side["characters"]:
                if c is not None:
                    out += [c["id"], *(e[0] for e in c["damage"])]
        for a in obs["attacks"]:
            out += [a["lead"], a["card"], *a["links"], a["defender"], a["defense_card"]]
    elif obs["game"] == "metamasters":
        for side in obs["players"]:
            out += [h["id"] for h in side.get("hand", ())]
            for slot in side["actors"] + side["specials"]:
                if slot is not None:
                    out += [slot["id"], *(x["id"] for x in slot.get("links", ()))]
        if obs["attack"] is not None:
            out += [obs["attack"]["attacker"], obs["attack"]["target"]]
    return out


def check_ids(state: GameState, viewer: int | None) -> None:
    """Every id `viewer` is shown is its own instance id or a place where a card is seen."""
    owner = getattr(state, "owner", ())
    ids = _ids(state.observation(viewer))
    cards = CARD_ARGS[state.game]
    for move in state.legal_moves(viewer):
        kind, *args = move["action"]
        ids += [a for i, a in enumerate(args) if i in cards.get(kind, ()) and a != -1]
    for id_ in ids:
        if isinstance(id_, int) and state.game != "metaversus":
            assert owner[id_] == viewer, f"{state.game}: instance {id_} shown to {viewer}"
        elif isinstance(id_, str):
            where = parse_place(id_)
            assert where is not None and state.card_at(where) >= 0, id_  # type: ignore[attr-defined]


# --- the checks --------------------------------------------------------------------------------


def check_state(state: GameState, prng: Prng) -> int:
    """Check every reader of `state` against states they cannot tell from it; return how many
    of those states differ from the real one (so a test can tell it compared something)."""
    g = get_game(state.game)
    changed = 0
    for viewer in (0, 1):
        other = g.determinize(state, viewer, prng)
        changed += other.state_hash() != state.state_hash()
        assert reads(other, viewer) == reads(state, viewer), (state.game, viewer)
        check_ids(state, viewer)
        if viewer == state.current_player:
            legal = state.legal_actions()
            moves = [m["action"] for m in state.legal_moves(viewer)]
            assert [state.resolve(m, viewer) for m in moves] == legal
            for move in random_moves(state, viewer, prng, 6):
                assert outcome(other, move, viewer) == outcome(state, move, viewer), move
    crowd = g.determinize(g.determinize(state, 0, prng), 1, prng)
    assert reads(crowd, None) == reads(state, None), (state.game, "spectator")
    check_ids(state, None)
    check_alike_actions(state)
    return changed


def check_alike_actions(state: GameState) -> None:
    """Two actions of the player to act that another reader cannot tell apart (they differ only
    in cards hidden from that reader, and the table looks the same afterwards) have the same
    entry for that reader; every card id in an entry is the reader's own or a place."""
    actor = state.current_player
    actions = state.legal_actions()
    cards = CARD_ARGS[state.game]
    owner = getattr(state, "owner", ())
    for reader in (1 - actor, None):
        entry_of: dict[str, tuple[str, Action]] = {}
        for action in actions:
            entry = state.project(action, reader)
            if entry["action"] is not None:
                kind, *args = entry["action"]
                for i in cards.get(kind, ()):
                    if i < len(args) and isinstance(args[i], int) and args[i] >= 0:
                        assert owner[args[i]] == reader, (state.game, reader, action, entry)
            after = state.clone()
            after.apply(action)
            key = dumps([as_seen(state, action, reader), after.observation(reader)])
            first = entry_of.setdefault(key, (dumps(entry), action))
            assert first[0] == dumps(entry), (state.game, reader, first[1], action, first[0], entry)


def as_seen(state: GameState, action: Action, reader: int | None) -> list[Any]:
    """What `reader` can know of an action before it happens, by the rules: a card it cannot
    see is None (the opponent's hand, a deck), a WISH setup choice is secret as a whole."""
    if isinstance(state, WishState):
        if action.kind in ("ban", "noban"):
            return ["ban or not"]
        if action.kind in ("choose", "pick"):
            return [action.kind, None]
        return action.to_json()
    assert isinstance(state, MetaXState | MetaMastersState)
    cards = CARD_ARGS[state.game].get(action.kind, ())
    return [
        action.kind,
        *(
            None
            if i in cards and a >= 0 and state.owner[a] != reader and state.place(a) is None
            else a
            for i, a in enumerate(action.args)
        ),
    ]


def check_entry(state: GameState, action: Action, prng: Prng) -> bool:
    """The other player's entry of `action` (about to be applied) is the same in a state where
    the actor's hidden cards are re-dealt, but for those the action shows, whenever the table
    then looks the same to that player. Returns whether there was something to compare."""
    reader = 1 - state.current_player
    after = state.clone()
    after.apply(action)
    other = redeal_actor(state, after, action, prng)
    other_after = other.clone()
    try:
        other_after.apply(action)
    except IllegalAction:
        return False
    if dumps(other_after.observation(reader)) != dumps(after.observation(reader)):
        return False
    assert dumps(other.project(action, reader)) == dumps(state.project(action, reader)), action
    return True


def redeal_actor(state: GameState, after: GameState, action: Action, prng: Prng) -> GameState:
    """`state` with the acting player's hidden cards dealt anew in place (each as another card
    of its kind) and a new PRNG, but for the cards `action` shows the other player."""
    actor = state.current_player
    reader = 1 - actor
    other = state.clone()
    if isinstance(other, MetaXState):
        assert isinstance(after, MetaXState)
        kind = MX_CARDS.kind
        cards = other.cards[:]
        for i in (*other.hands[actor], *other.decks[actor], *other.vps[reader]):
            if not (i in action.args and after.place(i) is not None):
                same = MX_BY_KIND[kind[cards[i]]]
                cards[i] = same[prng.below(len(same))]
        other.cards = cards
        other.prng = Prng(prng.next_u64())
    elif isinstance(other, MetaMastersState):
        assert isinstance(after, MetaMastersState)
        cid = list(other.cid)
        hidden = [*other.hand[actor], *other.deck[actor]]
        hidden += [i for i in (*other.actors[actor], *other.specials[actor]) if i >= 0]
        for i in hidden:
            if not other._sees(i, reader) and not (i in action.args and after._sees(i, reader)):
                c = MM_CARDS[cid[i]]
                same = MM_BY_KIND[c.kind, c.subtype]
                cid[i] = same[prng.below(len(same))]
        other.cid = tuple(cid)
        other.prng = Prng(prng.next_u64())
    else:
        assert isinstance(other, WishState)
        shown = action.args[0] if action.kind in ("play", "select") and action.args else -1
        pool = other.hand[actor] + other.deck[actor]
        prng.shuffle(pool)
        held = len(other.hand[actor])
        if shown in pool and shown not in pool[:held]:
            j = pool.index(shown)
            pool[0], pool[j] = pool[j], pool[0]
        other.hand[actor], other.deck[actor] = pool[:held], pool[held:]
        other.rng = Prng(prng.next_u64())
    return other


def play_and_check(game: str, seed: int, bots: int, every: int) -> tuple[int, int]:
    """Play a random match, checking every `every`-th state and every real action of the
    opponent; returns (states that differed, entries compared)."""
    g = get_game(game)
    state = new_match(game, g.starter_decks, seed)
    players = (RandomBot(bots), RandomBot(bots + 1))
    prng = Prng(seed ^ bots)
    changed = compared = n = 0
    while not state.is_over:
        action = players[state.current_player].choose(state)
        if n % every == 0:
            changed += check_state(state, prng)
            compared += check_entry(state, action, prng)
        state.apply(action)
        n += 1
    return changed, compared


# --- one property test per game ------------------------------------------------------------------


@PROFILE
@given(**MATCH)
def test_metax_reads_do_not_depend_on_hidden_cards(seed: int, bots: int, every: int) -> None:
    changed, compared = play_and_check("metax", seed, bots, every)
    assert changed > 0 and compared > 0


@pytest.mark.slow
@PROFILE
@given(**MATCH)
def test_metamasters_reads_do_not_depend_on_hidden_cards(seed: int, bots: int, every: int) -> None:
    changed, compared = play_and_check("metamasters", seed, bots, every)
    assert changed > 0 and compared > 0


@PROFILE
@given(**MATCH)
def test_metaversus_reads_do_not_depend_on_hidden_cards(seed: int, bots: int, every: int) -> None:
    changed, compared = play_and_check("metaversus", seed, bots, every)
    assert changed > 0 and compared > 0


# --- the checks catch a planted leak ----------------------------------------------------------

SEEDS = range(1, 9)


def _leaks(game: str) -> bool:
    """Whether the checks above fail on some of a few seeded matches."""
    for seed in SEEDS:
        try:
            play_and_check(game, seed, seed, 2)
        except AssertionError:
            return True
    return False


def test_the_checks_pass_on_the_seeds_the_canaries_use() -> None:
    assert not any(_leaks(game) for game in ("metax", "metamasters", "metaversus"))


def test_a_label_naming_a_mulliganed_card_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MetaXState, "_public_label", MetaXState.label)
    assert _leaks("metax")


def test_an_observation_showing_the_opponent_hand_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    observation = MetaXState.observation

    def leaky(self: MetaXState, viewer: int | None) -> dict[str, Any]:
        obs = observation(self, viewer)
        if viewer is not None:
            obs["players"][1 - viewer]["hand_count"] = sorted(
                self.cards[i] for i in self.hands[1 - viewer]
            )
        return obs

    monkeypatch.setattr(MetaXState, "observation", leaky)
    assert _leaks("metax")


def test_a_label_naming_a_face_down_card_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MetaMastersState, "_sees", lambda self, iid, viewer: True)
    assert _leaks("metamasters")


def test_an_instance_id_on_a_face_down_card_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MetaMastersState, "public_id", lambda self, iid, viewer: iid)
    assert _leaks("metamasters")


def test_a_ban_shown_before_both_duelists_chose_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.metaversus import encoding

    monkeypatch.setattr(encoding, "_SECRET_CHOICES", {})
    assert _leaks("metaversus")


def test_a_refusal_that_names_a_hidden_card_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    resolve = MetaMastersState.resolve

    def leaky(self: MetaMastersState, move: Any, viewer: int) -> Action:
        action = resolve(self, move, viewer)
        for i in action.args:  # a rule message that says what the opponent's face-down card is
            if self.owner[i] != viewer and not self.faceup[i]:
                raise IllegalAction("metamasters.leak", MM_CARDS[self.cid[i]].id)
        return action

    monkeypatch.setattr(MetaMastersState, "resolve", leaky)
    assert _leaks("metamasters")


# --- the bot knows only what its player may know --------------------------------------------------


def _bot_states(game: str, seeds: range) -> Iterator[GameState]:
    """Every 2nd state with a choice of a few random matches."""
    g = get_game(game)
    for seed in seeds:
        state = new_match(game, g.starter_decks, seed)
        bots = (RandomBot(seed), RandomBot(seed + 1))
        n = 0
        while not state.is_over:
            if n % 2 == 0 and len(state.legal_actions()) > 1:
                yield state
            state.apply(bots[state.current_player].choose(state))
            n += 1


def _choices_that_change(g: Game, seeds: range) -> tuple[int, int]:
    """(states, states where the greedy bot chooses differently in a state its player cannot
    tell from the real one)."""
    prng = Prng(99)
    states = changed = 0
    for state in _bot_states(g.name, seeds):
        me = state.current_player
        other = get_game(g.name).determinize(state, me, prng)
        states += 1
        # compared as the player's moves: the two states may number the hidden instances apart
        choice = state.project(GreedyBot(g, 5).choose(state), me)["action"]
        changed += choice != other.project(GreedyBot(g, 5).choose(other), me)["action"]
    return states, changed


@pytest.mark.parametrize("game", ["metax", "metamasters", "metaversus"])
def test_greedy_choice_does_not_depend_on_hidden_cards(game: str) -> None:
    states, changed = _choices_that_change(get_game(game), range(1, 9))
    assert states > 200 and changed == 0


@pytest.mark.parametrize("game", ["metax", "metamasters"])
def test_a_bot_looking_ahead_on_the_real_state_is_caught(game: str) -> None:
    # the greedy bot before determinization: its lookahead saw the real draws and face-down cards
    g = dataclasses.replace(get_game(game), determinize=lambda s, viewer, prng: s.clone())
    states, changed = _choices_that_change(g, range(1, 9))
    assert changed > 0, f"{changed} of {states}"
