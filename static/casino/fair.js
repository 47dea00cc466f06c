/* Provably fair shoes, algorithm v1, recomputed in the browser with Web Crypto (docs/provably-fair.md; the
 * server's implementation is tables/engine/fair.py and tables/engine/shoe.py, and a browser test checks that
 * both give the same shoes). No library: SHA-256 and HMAC-SHA256 come from crypto.subtle.
 *
 *   commitment = SHA-256(seed bytes)
 *   block(i)   = HMAC-SHA256(key = seed bytes, "baccarat/v1/" + label + "/" + i as 8 bytes big-endian)
 *   words      = the blocks, read as consecutive 32-bit big-endian numbers
 *   below(n)   = the next word w with w < 2^32 - (2^32 mod n), as w mod n (rejection sampling)
 *   order      = Fisher–Yates over d decks (S H D C, A..K), i from 52d-1 down to 1, j = below(i + 1)
 *   burn       = order[0]; it burns its points (10 for a ten or a picture card)
 *   behind cut = low + below_cut(high - low + 1), the range clamped to [6, 52d - 17]
 */

import { fill, ltr } from "./format.js";

const gettext = globalThis.gettext || ((text) => text);

export const ALGORITHM = "v1";
const MIN_SEED_BYTES = 16;
const WORD = 2 ** 32;
const RANKS = "A23456789TJQK";
const SUITS = "SHDC";
const encoder = new TextEncoder();

/** The seed's bytes from its hex digits; throws on anything but an even number (≥ 32) of hex digits. */
export function seedBytes(hex) {
  const text = String(hex || "").trim();
  if (!/^[0-9a-fA-F]*$/.test(text) || text.length % 2) throw new Error("not hex");
  if (text.length < MIN_SEED_BYTES * 2) throw new Error("too short");
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(text.substr(i * 2, 2), 16);
  return bytes;
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

function subtle() {
  if (!globalThis.crypto || !globalThis.crypto.subtle) throw new Error("no web crypto");
  return globalThis.crypto.subtle;
}

/** SHA-256 of the seed's bytes, as 64 lowercase hex digits. */
export async function commitment(seedHex) {
  return hex(await subtle().digest("SHA-256", seedBytes(seedHex)));
}

/** The random words of one label: HMAC-SHA256 in counter mode, computed a batch of blocks at a time. */
class Stream {
  constructor(key, label) {
    this.key = key;
    this.prefix = encoder.encode("baccarat/" + ALGORITHM + "/" + label + "/");
    this.counter = 0;
    this.words = [];
    this.position = 0;
  }

  static async open(seedHex, label) {
    const key = await subtle().importKey("raw", seedBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    return new Stream(key, label);
  }

  /** At least ``count`` unread words buffered (whole blocks, in counter order). */
  async reserve(count) {
    const missing = count - (this.words.length - this.position);
    if (missing <= 0) return;
    const blocks = Math.ceil(missing / 8);
    const signing = [];
    for (let i = 0; i < blocks; i += 1) {
      const message = new Uint8Array(this.prefix.length + 8);
      message.set(this.prefix);
      new DataView(message.buffer).setBigUint64(this.prefix.length, BigInt(this.counter + i), false);
      signing.push(subtle().sign("HMAC", this.key, message));
    }
    const done = await Promise.all(signing);
    this.counter += blocks;
    const words = this.words.slice(this.position);
    for (const block of done) {
      const view = new DataView(block);
      for (let k = 0; k < 32; k += 4) words.push(view.getUint32(k, false));
    }
    this.words = words;
    this.position = 0;
  }

  /** A uniform integer in [0, n), rejecting words at or above the largest multiple of n below 2^32. */
  async below(n) {
    if (!(n >= 1 && n <= WORD)) throw new Error("n out of range");
    const limit = WORD - (WORD % n);
    for (;;) {
      if (this.position >= this.words.length) await this.reserve(1);
      const word = this.words[this.position];
      this.position += 1;
      if (word < limit) return word % n;
    }
  }
}

/** One deck d times, suits S H D C, ranks A..K: "AS", "2S", … "KC". */
export function freshOrder(decks) {
  const order = [];
  for (let d = 0; d < decks; d += 1) for (const s of SUITS) for (const r of RANKS) order.push(r + s);
  return order;
}

function checkDecks(decks) {
  const n = Number(decks);
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Error("decks");
  return n;
}

/** The whole shoe in dealing order (index 0 is the burn card): tables.engine.fair.shuffled_cards. */
export async function shuffledCards(seedHex, decks) {
  const order = freshOrder(checkDecks(decks));
  const stream = await Stream.open(seedHex, "shuffle");
  await stream.reserve(order.length);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = await stream.below(i + 1);
    const card = order[i];
    order[i] = order[j];
    order[j] = card;
  }
  return order;
}

const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** A card code as players read it, isolated left to right: "TD" → "10♦" (anything else as it is). */
export function face(code) {
  const text = String(code || "");
  if (!/^[A2-9TJQK][SHDC]$/.test(text)) return ltr(text || "–");
  return ltr((text[0] === "T" ? "10" : text[0]) + SUIT_SIGNS[text[1]]);
}

/** Baccarat points of a card code: A 1, 2–9, a ten or picture 0. */
export function points(code) {
  const index = RANKS.indexOf(String(code)[0]);
  return index < 0 ? null : index >= 9 ? 0 : index + 1;
}

/** Cards burned face down after the shown burn card: its points, or 10 for a ten or picture card. */
export function burnCount(code) {
  return points(code) || 10;
}

/** The cut range made safe for a shoe of ``total`` cards (tables.engine.shoe.clamp_cut_range). */
export function clampCutRange(total, low, high) {
  const cap = total - 11 - 6;
  return [Math.min(Math.max(low, 6), cap), Math.min(Math.max(high, 6), cap)];
}

/** Cards behind the cut card (tables.engine.fair.cards_behind_cut after the clamp). */
export async function cardsBehindCut(seedHex, decks, low, high) {
  const [lo, hi] = clampCutRange(52 * checkDecks(decks), Number(low), Number(high));
  if (!(lo <= hi)) throw new Error("empty cut range");
  const stream = await Stream.open(seedHex, "cut");
  return lo + (await stream.below(hi - lo + 1));
}

/**
 * Recompute a finished shoe and compare it with what was dealt. ``shoe`` is the page's JSON for one shoe
 * (tables.selectors.fair.FinishedShoe.verification_data). Resolves to {ok, checks: [{ok, text}], problem}.
 */
export async function verifyShoe(shoe) {
  const checks = [];
  const fail = (text) => ({ ok: false, problem: text, checks });
  if (shoe.algorithm !== ALGORITHM) {
    return fail(fill(gettext("This shoe uses algorithm %(name)s, which this page cannot check."), { name: shoe.algorithm }));
  }
  try {
    seedBytes(shoe.seed);
  } catch (e) {
    return fail(gettext("The revealed seed is not a valid seed (at least 32 hexadecimal digits)."));
  }
  const computed = await commitment(shoe.seed);
  if (computed !== String(shoe.commitment).trim().toLowerCase()) {
    return fail(
      fill(gettext("The seed does not match the commitment: SHA-256 of the seed is %(computed)s, the commitment was %(published)s."), {
        computed: ltr(computed.slice(0, 16) + "…"),
        published: ltr(String(shoe.commitment).slice(0, 16) + "…"),
      }),
    );
  }
  checks.push({ ok: true, text: gettext("The seed matches the commitment.") });

  const order = await shuffledCards(shoe.seed, shoe.decks);
  if (shoe.burn_card !== order[0]) {
    return fail(fill(gettext("Burn card: the shoe showed %(dealt)s, the seed gives %(expected)s."), {
      dealt: face(shoe.burn_card), expected: face(order[0]),
    }));
  }
  if (Number(shoe.burn_count) !== burnCount(order[0])) {
    return fail(fill(gettext("Burn: %(dealt)s cards were burned, the seed's burn card burns %(expected)s."), {
      dealt: shoe.burn_count, expected: burnCount(order[0]),
    }));
  }
  checks.push({ ok: true, text: fill(gettext("Burn card %(card)s and %(count)s burned cards are the seed's."), {
    card: face(order[0]), count: shoe.burn_count,
  }) });

  let index = 1 + Number(shoe.burn_count);
  let dealt = 0;
  let cutRound = null;
  const cutIndex = shoe.behind_cut === null ? null : order.length - shoe.behind_cut;
  for (const round of shoe.rounds) {
    for (let k = 0; k < round.cards.length; k += 1) {
      const expected = index < order.length ? order[index] : null;
      if (round.cards[k] !== expected) {
        return fail(fill(gettext("Round %(round)s, card %(card)s: dealt %(dealt)s, the seed's shoe has %(expected)s."), {
          round: round.number, card: k + 1, dealt: face(round.cards[k]), expected: face(expected),
        }));
      }
      if (cutIndex !== null && index === cutIndex) cutRound = round.number;
      index += 1;
      dealt += 1;
    }
  }
  checks.push({ ok: true, text: fill(gettext("All %(count)s cards of %(rounds)s rounds are dealt in the seed's order."), {
    count: dealt, rounds: shoe.rounds.length,
  }) });

  if (cutIndex !== null) {
    const last = shoe.rounds.length ? shoe.rounds[shoe.rounds.length - 1].number : null;
    if (cutRound === null || cutRound !== last) {
      return fail(fill(gettext("Cut card: it lay %(behind)s cards from the end, so the shoe should have ended with the round in which it came out; it ended with round %(last)s."), {
        behind: shoe.behind_cut, last: last === null ? "–" : last,
      }));
    }
    const [low, high] = shoe.cut_range;
    const behind = await cardsBehindCut(shoe.seed, shoe.decks, low, high);
    if (behind === shoe.behind_cut) {
      checks.push({ ok: true, text: fill(gettext("Cut card: %(behind)s cards behind it, as the seed gives; the shoe ended with the round in which it came out."), { behind }) });
    } else {
      checks.push({ ok: null, text: fill(gettext("Cut card: %(behind)s cards behind it; the table's cut range has changed since this shoe, so its position is not checked against the seed."), { behind: shoe.behind_cut }) });
    }
  }
  return { ok: true, problem: null, checks };
}

// ── the page ──────────────────────────────────────────────────────────────────

function cardChip(code, extra) {
  const chip = document.createElement("span");
  chip.className = "pc" + ("HD".includes(code[1]) ? " red" : "") + (extra ? " " + extra : "");
  chip.title = code;
  chip.textContent = (code[0] === "T" ? "10" : code[0]) + SUIT_SIGNS[code[1]];
  return chip;
}

function span(className, text) {
  const el = document.createElement("span");
  el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

function handCards(shoeRound, hand, label) {
  const box = span("hand-cards " + hand.toLowerCase());
  const row = span("cardrow");
  row.dir = "ltr";
  shoeRound.cards.forEach((card, i) => {
    if (shoeRound.hands[i] === hand) row.append(cardChip(card));
  });
  box.append(span("hand-tag", label), row);
  return box;
}

/** The dealt rounds of a shoe, drawn the first time its list is opened. */
function drawRounds(list, shoe) {
  const player = gettext("Player");
  const banker = gettext("Banker");
  const winners = { player, banker, tie: gettext("Tie") };
  const rows = shoe.rounds.map((r) => {
    const li = document.createElement("li");
    li.className = "round" + (r.last ? " last" : "");
    li.dataset.round = r.number;
    const result = span("round-result");
    if (r.winner) result.append(span("win win-" + r.winner, winners[r.winner]));
    else result.append(gettext("Cancelled"));
    if (r.last) result.append(" ", span("cut-tag", gettext("Cut card")));
    // The two hands left to right, Player first, in every language (as on the table and the round's record): the
    // cards then read in the order they were dealt, also on a right-to-left page.
    const deal = span("round-deal");
    deal.dir = "ltr";
    deal.append(handCards(r, "P", player), handCards(r, "B", banker));
    li.append(span("round-no", fill(gettext("Round %(number)s"), { number: r.number })), deal, result);
    return li;
  });
  list.replaceChildren(...rows);
}

function line(text, state) {
  const p = document.createElement("p");
  p.className = "check-line " + (state === true ? "pass" : state === false ? "fail" : "note");
  p.textContent = text;
  return p;
}

function cryptoMissing() {
  return !globalThis.crypto || !globalThis.crypto.subtle;
}

const NO_CRYPTO = () => gettext("This browser cannot compute SHA-256 here (Web Crypto needs a secure HTTPS connection).");

async function onVerify(button, shoe) {
  const out = button.closest(".shoe").querySelector(".verify-result");
  out.replaceChildren(line(gettext("Checking…"), null));
  out.dataset.state = "running";
  button.disabled = true;
  try {
    if (cryptoMissing()) throw new Error("no web crypto");
    const result = await verifyShoe(shoe);
    const title = document.createElement("p");
    title.className = "verdict";
    title.textContent = result.ok ? gettext("Verified: this shoe is the one its commitment promised.") : gettext("Verification failed.");
    const items = result.checks.map((c) => line(c.text, c.ok));
    if (!result.ok) items.push(line(result.problem, false));
    out.replaceChildren(title, ...items);
    out.dataset.state = result.ok ? "pass" : "fail";
  } catch (e) {
    out.replaceChildren(line(cryptoMissing() ? NO_CRYPTO() : gettext("The check could not run in this browser."), false));
    out.dataset.state = "error";
  } finally {
    button.disabled = false;
  }
}

async function onCheck(form) {
  const out = document.getElementById("check-result");
  const data = new FormData(form);
  const seed = String(data.get("seed") || "").trim();
  const published = String(data.get("commitment") || "").trim().toLowerCase();
  const decks = Number(data.get("decks"));
  const low = parseInt(String(data.get("cut_low")), 10);
  const high = parseInt(String(data.get("cut_high")), 10);
  out.dataset.state = "";
  if (cryptoMissing()) {
    out.replaceChildren(line(NO_CRYPTO(), false));
    return;
  }
  try {
    seedBytes(seed);
  } catch (e) {
    out.replaceChildren(line(gettext("A seed is at least 32 hexadecimal digits (0–9, a–f), an even number of them."), false));
    out.dataset.state = "error";
    return;
  }
  if (published && !/^[0-9a-f]{64}$/.test(published)) {
    out.replaceChildren(line(gettext("A commitment is 64 hexadecimal digits."), false));
    out.dataset.state = "error";
    return;
  }
  if (!(low >= 0 && high >= low)) {
    out.replaceChildren(line(gettext("The cut range needs a lowest number not above the highest."), false));
    out.dataset.state = "error";
    return;
  }
  const computed = await commitment(seed);
  const order = await shuffledCards(seed, decks);
  const behind = await cardsBehindCut(seed, decks, low, high);
  const parts = [];
  const hash = document.createElement("p");
  hash.className = "check-line note";
  hash.append(gettext("SHA-256 of the seed:") + " ");
  const code = document.createElement("code");
  code.className = "hex";
  code.dir = "ltr";
  code.textContent = computed;
  hash.append(code);
  parts.push(hash);
  if (published) {
    const same = published === computed;
    parts.push(line(same ? gettext("The seed matches the commitment.") : gettext("The seed does not match this commitment."), same));
    out.dataset.state = same ? "pass" : "fail";
  }
  const burned = burnCount(order[0]);
  const cutIndex = order.length - behind;
  parts.push(line(fill(gettext("Burn card %(card)s burns %(count)s cards; the first round starts with card %(first)s. The cut card lies before card %(cut)s, with %(behind)s cards behind it."), {
    card: face(order[0]), count: burned, first: burned + 2, cut: cutIndex + 1, behind,
  }), null));
  const list = document.createElement("ol");
  list.className = "order cardrow";
  list.dir = "ltr";
  order.forEach((card, i) => {
    const li = document.createElement("li");
    if (i === cutIndex) li.append(Object.assign(document.createElement("span"), { className: "cut-mark", textContent: gettext("Cut card") }));
    li.append(cardChip(card, i === 0 ? "burn" : i <= burned ? "burned" : ""));
    list.append(li);
  });
  parts.push(list);
  out.replaceChildren(...parts);
}

function init() {
  const root = document.getElementById("fair");
  if (!root) return;
  const source = document.getElementById("fair-data");
  const shoes = new Map((source ? JSON.parse(source.textContent) : []).map((s) => [String(s.id), s]));
  root.addEventListener("click", (event) => {
    const button = event.target.closest("button.verify");
    if (button && shoes.has(button.dataset.shoeId)) onVerify(button, shoes.get(button.dataset.shoeId));
  });
  root.addEventListener(
    "toggle",
    (event) => {
      const list = event.target.querySelector && event.target.querySelector("ol.rounds");
      if (event.target.open && list && !list.childElementCount && shoes.has(list.dataset.shoeId)) {
        drawRounds(list, shoes.get(list.dataset.shoeId));
      }
    },
    true, // toggle does not bubble
  );
  const form = document.getElementById("check-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onCheck(form).catch(() => {
      document.getElementById("check-result").replaceChildren(line(gettext("The check could not run in this browser."), false));
    });
  });
  root.dataset.ready = "1";
}

init();
