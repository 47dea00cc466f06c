/* Playing cards drawn as inline SVG (face and back), with a CSS 3D flip. Styles: cards-roads.css.
 *
 * cardElement("TD") → <div class="card" data-card="TD" role="img" aria-label="10♦"> face-down;
 * cardElement("TD", { hidden: "Face-down card" }) names it "Face-down card" until reveal.js turns it (the name
 * "10♦" waits in data-face), so a screen reader does not hear the card before it has turned.
 * flip(el) turns it face-up once it has been drawn face-down (class "flipped"); the table's reveal (when it turns,
 * the squeeze) is reveal.js. Codes: rank A23456789TJQK + suit SHDC.
 */

const RANKS = "A23456789TJQK";
const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = "#c8102e";
const BLACK = "#111";

/* Suits as paths in a 100 × 100 box (no font glyphs, so they look the same on every system). */
const circle = (cx, cy, r) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0z`;
const SUIT_PATH = {
  H: "M50 94C34 78 2 58 2 30C2 14 14 4 28 4C38 4 46 10 50 20C54 10 62 4 72 4C86 4 98 14 98 30C98 58 66 78 50 94z",
  D: "M50 2L88 50L50 98L12 50z",
  S:
    "M50 2C62 20 96 40 96 62C96 78 84 86 72 86C62 86 56 81 53 75C54 86 58 92 67 98H33C42 92 46 86 47 75" +
    "C44 81 38 86 28 86C16 86 4 78 4 62C4 40 38 20 50 2z",
  C:
    circle(50, 27, 21) + circle(25, 60, 21) + circle(75, 60, 21) + circle(50, 52, 12) +
    "M46 58C46 78 42 88 33 98H67C58 88 54 78 54 58z",
};

export function rankLabel(code) {
  const rank = String(code)[0];
  return rank === "T" ? "10" : rank;
}

/** Baccarat value of a card: A = 1, 2–9 face value, 10/J/Q/K = 0. */
export function cardValue(code) {
  const rank = String(code)[0];
  const i = RANKS.indexOf(rank);
  if (i < 0) return 0;
  return i >= 9 ? 0 : i + 1;
}

const suitShape = (suit, x, y, size) =>
  `<path transform="translate(${x} ${y}) scale(${size / 100})" d="${SUIT_PATH[suit]}"/>`;

const faceCache = new Map();

function faceSVG(code) {
  let svg = faceCache.get(code);
  if (svg) return svg;
  const suit = code[1];
  const rank = rankLabel(code);
  const color = suit === "H" || suit === "D" ? RED : BLACK;
  const rankText =
    rank === "10"
      ? `<text x="8" y="15.5" font-size="13.5" textLength="13" lengthAdjust="spacingAndGlyphs">10</text>`
      : `<text x="8" y="15.5" font-size="15">${rank}</text>`;
  const corner = `${rankText}${suitShape(suit, 3.5, 19, 9)}`;
  svg =
    `<svg viewBox="0 0 60 84" aria-hidden="true" focusable="false">` +
    `<rect x=".5" y=".5" width="59" height="83" rx="5" fill="#fff" stroke="#cfcfcf"/>` +
    `<g fill="${color}" font-family="Arial, 'Helvetica Neue', 'Liberation Sans', 'DejaVu Sans', sans-serif" font-weight="700" text-anchor="middle">` +
    corner +
    `<g transform="rotate(180 30 42)">${corner}</g>` +
    suitShape(suit, 14, 26, 32) +
    `</g></svg>`;
  faceCache.set(code, svg);
  return svg;
}

let backCache = "";

function backSVG() {
  if (backCache) return backCache;
  // Gold lattice clipped by hand to the inner panel (no ids, so any number of cards can share the markup).
  const [x0, y0, x1, y1] = [7, 7, 53, 77];
  let d = "";
  for (let c = x0 + y0; c <= x1 + y1; c += 6) {
    const a = Math.max(x0, c - y1), b = Math.min(x1, c - y0);
    if (a < b) d += `M${a} ${c - a}L${b} ${c - b}`;
  }
  for (let c = x0 - y1; c <= x1 - y0; c += 6) {
    const a = Math.max(x0, y0 + c), b = Math.min(x1, y1 + c);
    if (a < b) d += `M${a} ${a - c}L${b} ${b - c}`;
  }
  backCache =
    `<svg viewBox="0 0 60 84" aria-hidden="true" focusable="false">` +
    `<rect x=".5" y=".5" width="59" height="83" rx="5" fill="#6d0f1c" stroke="#3d060e"/>` +
    `<rect x="4" y="4" width="52" height="76" rx="3" fill="#8a1426" stroke="#d4af37" stroke-width="1.2"/>` +
    `<path d="${d}" stroke="#d4af37" stroke-opacity=".45" stroke-width=".7" fill="none"/>` +
    `<path d="M30 28L42 42L30 56L18 42z" fill="#6d0f1c" stroke="#d4af37" stroke-width="1.2"/>` +
    `<path d="M30 35L36 42L30 49L24 42z" fill="#d4af37"/>` +
    `</svg>`;
  return backCache;
}

/* A card's face and back are SVG images (data: URLs) painted as CSS backgrounds, one rule per face in a style sheet of
 * their own: a dealt card is four <div>s to insert, style and lay out, not some twenty SVG elements (nor two <img>s
 * that would fetch their data: URL again for every copy). The same drawing, each image made once. */
const svgURL = (svg) =>
  `url("data:image/svg+xml,${encodeURIComponent(svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" '))}")`;

const INNER = `<div class="card-inner"><div class="card-face"></div><div class="card-back"></div></div>`;
let faceSheet = null;
const faced = new Set();

/** The style rule that paints `code`'s face (added the first time it is needed). */
function ensureFace(code) {
  if (faced.has(code)) return;
  if (!faceSheet) {
    const style = document.createElement("style");
    style.dataset.cardFaces = "";
    document.head.appendChild(style);
    faceSheet = style.sheet;
    faceSheet.insertRule(`.card[data-card] .card-back { background-image: ${svgURL(backSVG())}; }`, 0);
  }
  faced.add(code);
  const rule = `.card[data-card="${CSS.escape(code)}"] .card-face { background-image: ${svgURL(faceSVG(code))}; }`;
  faceSheet.insertRule(rule, faceSheet.cssRules.length);
}

/* While the page is idle, a suit at a time, every face gets its rule and is styled once out of sight: its image is
 * then made (the data: URL read, the SVG parsed), so a dealt card never waits for that. */
function prepareFaces() {
  const codes = [];
  for (const suit of "SHDC") for (const rank of RANKS) codes.push(rank + suit);
  const later = (fn) =>
    typeof requestIdleCallback === "function" ? requestIdleCallback(fn) : setTimeout(() => fn({ timeRemaining: () => 10 }), 200);
  const step = (deadline) => {
    if (deadline.timeRemaining() < 8 || !document.body) return later(step);
    const box = document.createElement("div");
    box.setAttribute("aria-hidden", "true");
    box.style.cssText = "position:fixed;top:0;left:-1000px;visibility:hidden;pointer-events:none;contain:strict;width:1px;height:1px";
    for (const code of codes.splice(0, RANKS.length)) {
      ensureFace(code);
      const card = document.createElement("div");
      card.className = "card";
      card.dataset.card = code;
      card.innerHTML = INNER;
      box.appendChild(card);
    }
    document.body.appendChild(box);
    box.firstChild.offsetWidth; // style and lay out, here at idle
    box.remove();
    if (codes.length) later(step);
  };
  later(step);
}
if (typeof document !== "undefined") prepareFaces();

let innerTemplate = null;

/** A face-down card element; add class "flipped" (or call flip()) to show its face. */
export function cardElement(code, { third = false, hidden = "" } = {}) {
  const el = document.createElement("div");
  el.className = third ? "card third" : "card";
  el.dataset.card = code;
  el.setAttribute("role", "img");
  const face = rankLabel(code) + SUIT_SYMBOL[code[1]];
  el.dataset.face = face;
  el.setAttribute("aria-label", hidden || face);
  ensureFace(code);
  if (!innerTemplate) {
    const holder = document.createElement("div");
    holder.innerHTML = INNER;
    innerTemplate = holder.firstChild;
  }
  el.appendChild(innerTemplate.cloneNode(true));
  return el;
}

/** Turn a card face-up with the flip animation. The card is first drawn face-down in a frame of its own and turned
 * in the next one, so the transition runs without forcing a synchronous layout to style the face-down state. */
export function flip(el) {
  requestAnimationFrame(() => requestAnimationFrame(() => el.classList.add("flipped")));
}
