"""Small integer constants shared by the MetaVersus WISH rules: phases, prompts, zones."""

from __future__ import annotations

#: phases of a match (SETUP while packs and market cards are being chosen)
SETUP, WISH, ACTION, BUY, COMBAT, OVER = 0, 1, 2, 3, 4, 5
PHASE_NAMES = ("setup", "wish", "action", "buy", "combat", "over")

#: prompt kinds on the decision stack: [kind, player, *args]
P_BAN = 0  # [P_BAN, player]: ban one character pack from your hand, or not
P_CHOOSE = 1  # [P_CHOOSE, player]: choose your character from your hand
P_PICK = 2  # [P_PICK, player, left]: choose a card type of your pack for the Market
P_HAND = 3  # [P_HAND, player, mode, may]: choose a card in your hand (an effect asks)
P_GAIN = 4  # [P_GAIN, player, max_cost]: choose a Market card to gain
P_SKILL = 5  # [P_SKILL, player]: cast a "may" passive skill that was triggered, or not
PROMPT_NAMES = ("ban", "choose", "pick", "hand", "gain", "skill")

#: P_HAND modes
MODE_REMOVE, MODE_DISCARD = 0, 1
MODE_NAMES = ("remove", "discard")

#: where a gained card goes
TO_PLAY, TO_HAND, TO_DISCARD, TO_DECK = 0, 1, 2, 3
DESTINATIONS = ("play", "hand", "discard", "deck")

#: the pile a Market slot restocks from
SRC_REQUIRED, SRC_NEUTRAL, SRC_P1, SRC_P2 = 0, 1, 2, 3
SOURCE_NAMES = ("required", "neutral", "p1", "p2")

#: character selection variants (match option "selection")
SELECTIONS = ("basic", "difficulty", "random", "free")

MAX_STARS = 3
HAND_SIZE = 5
