"""Card faces: an SVG image of a card drawn from its catalogue entry (the rulebooks ship no card
art). Each game has its own frame; the face shows the card's name, kind, stats and text.

Every piece of catalogue text is XML-escaped, and the SVG has no script, no style sheet, no
external reference and no event attribute, so it renders under `default-src 'none'`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 300, 420
#: catalogue fields that are not stats: identity, printed text, compiled effects, pile bookkeeping
_NOT_STATS = frozenset(
    {
        "id",
        "name",
        "kind",
        "text",
        "effect",
        "plus",
        "effect_kind",
        "condition",
        "target",
        "set",
        "subtitle",
        "pile",
        "count",
        "basic",
        "character",
    }
)


@dataclass(frozen=True)
class Frame:
    """The colours of one game's card frame."""

    border: str
    background: str
    banner: str
    ink: str
    accent: str


FRAMES: dict[str, Frame] = {
    "metax": Frame("#7a1010", "#1c1c24", "#b8860b", "#f5f0e1", "#e8c547"),
    "metamasters": Frame("#123a6b", "#0d1b2a", "#7f9cc0", "#eef3fa", "#9fd3ff"),
    "metaversus": Frame("#3d1f5c", "#160f22", "#2e8b57", "#f1eafa", "#b9f2c9"),
}
_DEFAULT_FRAME = Frame("#444444", "#111111", "#888888", "#ffffff", "#cccccc")


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def card_stats(card: dict[str, Any]) -> dict[str, Any]:
    """The card's printed numbers and traits (flat: `stats: {strength: 7}` becomes `strength`)."""
    stats: dict[str, Any] = {}
    for key, value in card.items():
        if key in _NOT_STATS:
            continue
        if isinstance(value, dict):
            stats.update({str(k): v for k, v in value.items() if _scalar(v)})
        elif isinstance(value, list) and all(_scalar(v) for v in value):
            stats[key] = ", ".join(str(v) for v in value)
        elif _scalar(value):
            stats[key] = value
    return stats


def _text(x: int, y: int, content: str, size: int, fill: str, weight: str = "normal") -> str:
    return (
        f'<text x="{x}" y="{y}" font-family="sans-serif" font-size="{size}" '
        f'font-weight="{weight}" fill="{fill}">{escape(content)}</text>'
    )


def card_face(
    game: str, game_title: str, card_id: str, name: str, kind: str, card: dict[str, Any]
) -> str:
    """The SVG face of one card."""
    frame = FRAMES.get(game, _DEFAULT_FRAME)
    subtitle = " · ".join(str(card[k]) for k in ("subtitle", "trait", "type") if card.get(k))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(name, {chr(34): "&quot;"})}">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="16" fill="{frame.border}"/>',
        f'<rect x="10" y="10" width="{WIDTH - 20}" height="{HEIGHT - 20}" rx="10" '
        f'fill="{frame.background}"/>',
        f'<rect x="18" y="18" width="{WIDTH - 36}" height="44" rx="6" fill="{frame.banner}"/>',
        _text(28, 47, name[:30], 19, frame.ink, "bold"),
        _text(
            24,
            82,
            ((kind or "card").upper() + (f" — {subtitle}" if subtitle else ""))[:44],
            12,
            frame.accent,
        ),
    ]
    y = 108
    stats = card_stats(card)
    for key, value in list(stats.items())[:6]:
        parts.append(_text(28, y, f"{key}: {value}"[:40], 13, frame.ink))
        y += 18
    parts.append(f'<line x1="24" y1="{y}" x2="{WIDTH - 24}" y2="{y}" stroke="{frame.accent}"/>')
    y += 22
    text = str(card.get("text") or "")
    for line in textwrap.wrap(text, 38)[:10]:
        parts.append(_text(24, y, line, 12, frame.ink))
        y += 16
    parts.append(_text(24, HEIGHT - 26, f"{game_title} · {card_id}"[:44], 11, frame.accent))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
