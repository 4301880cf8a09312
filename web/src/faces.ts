// Card faces: each card's SVG (`GET /cards/{id}.svg`, the id as 64 hex digits), as a lazy-loaded
// image from this origin (the page's CSP allows same-origin images only).

import { h } from "./dom";

/** The same-origin path of a card's face from its token id (0x-hex or decimal). */
export function facePath(tokenId: string): string {
  const hex = BigInt(tokenId).toString(16).padStart(64, "0");
  return `/cards/${hex}.svg`;
}

/** A card's face, loaded when it scrolls into view; `size` is the shown width in px. */
export function cardFace(tokenId: string, name: string, size = 120): HTMLImageElement {
  return h("img", {
    class: "face",
    src: facePath(tokenId),
    alt: name,
    width: size,
    height: Math.round((size * 420) / 300),
    loading: "lazy",
    decoding: "async",
  });
}
