/* The betting board: spots, the chip rack, pending and confirmed stakes, Undo/Clear/Repeat/Double, limit checks. */
import { amount, cents, chipLabel, fill, formatMoney } from "../format.js";

const CHIP_COLOURS = {
  1: ["#f1f1f1", "#3b6fd1", "#1b1b1b"],
  5: ["#c8202f", "#ffffff", "#ffffff"],
  10: ["#1f5fbf", "#ffffff", "#ffffff"],
  25: ["#1d8a45", "#ffffff", "#ffffff"],
  100: ["#1b1b1b", "#e0b341", "#ffffff"],
  500: ["#6b2fa3", "#ffffff", "#ffffff"],
  1000: ["#e8a317", "#1b1b1b", "#1b1b1b"],
  5000: ["#8a4b16", "#ffffff", "#ffffff"],
  10000: ["#e25598", "#ffffff", "#ffffff"],
  25000: ["#138a8a", "#ffffff", "#ffffff"],
  100000: ["#c9a227", "#6b2fa3", "#1b1b1b"],
};
const DENOMINATIONS = Object.keys(CHIP_COLOURS).map(Number);




/** Odds as a screen reader should say them: "0.95:1" → "0.95 to 1", "1:1 – 30:1" → "1 to 1 – 30 to 1". */
export function spokenOdds(text) {
  return String(text || "").replace(/(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)/g, (_m, a, b) => fill(gettext("%(a)s to %(b)s"), { a, b }));
}

/** A spot's terms in words, its description for a screen reader ("pays 0.95 to 1, limits 1.00 – 5,000.00, your
 * bet 25.00, to confirm 5.00"): its name holds the visible texts only (WCAG 2.5.3, label in name). */
export function spotTerms(parts) {
  const out = [];
  if (parts.pays) out.push(fill(gettext("pays %(odds)s"), { odds: spokenOdds(parts.pays) }));
  out.push(parts.limits ? fill(gettext("limits %(limits)s"), { limits: parts.limits }) : gettext("Not offered"));
  if (parts.confirmed) out.push(fill(gettext("your bet %(amount)s"), { amount: parts.confirmed }));
  if (parts.pending) out.push(fill(gettext("to confirm %(amount)s"), { amount: parts.pending }));
  return out.join(", ");
}

/* Write only what differs: an unchanged text or attribute is then no DOM mutation, so no style or layout to redo. */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** A casino chip drawn in SVG: body, edge inserts, inlay, value. */
/** Slide a spot's error bubble sideways so it never leaves the screen: spots at the board's edges
 * would otherwise push half of it past the phone's edge. */
function keepOnScreen(bubble) {
  bubble.style.setProperty("--shift", "0px");
  const box = bubble.getBoundingClientRect();
  const margin = 6;
  const width = document.documentElement.clientWidth;
  let shift = 0;
  if (box.right > width - margin) shift = width - margin - box.right;
  if (box.left + shift < margin) shift = margin - box.left;
  bubble.style.setProperty("--shift", `${Math.round(shift)}px`);
}

/** A chip rack as a radio group (WAI-ARIA radio group pattern): one tab stop, the chosen chip (a roving
 * tabindex); a click, or an arrow key (wrapping, as native radios do), chooses; Home and End jump to the ends.
 * The rack is drawn left to right in every language (dir="ltr"), so Left is always the smaller chip.
 * `chosen(button)` is told of each choice. The buttons carry role="radio", aria-checked and tabindex. */
export function chipRadios(rack, chosen) {
  const select = (button) => {
    rack.querySelectorAll(".chip").forEach((c) => {
      c.setAttribute("aria-checked", String(c === button));
      c.tabIndex = c === button ? 0 : -1;
    });
    chosen(button);
  };
  rack.addEventListener("click", (event) => {
    const button = event.target.closest(".chip");
    if (button) select(button);
  });
  rack.addEventListener("keydown", (event) => {
    const chips = [...rack.querySelectorAll(".chip:not(:disabled)")];
    const at = chips.indexOf(event.target.closest(".chip"));
    if (at < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    let next = null;
    if (step) next = chips[(at + step + chips.length) % chips.length];
    else if (event.key === "Home") next = chips[0];
    else if (event.key === "End") next = chips[chips.length - 1];
    if (!next) return;
    event.preventDefault();
    select(next);
    next.focus();
  });
}

export function chipSVG(valueCents, extraClass = "") {
  const units = valueCents / 100;
  const colour = DENOMINATIONS.filter((d) => d <= Math.max(units, 1)).pop();
  const [body, stripe, ink] = CHIP_COLOURS[colour];
  const label = chipLabel(units);
  // At least 12 px on the phone's rack, where a chip is 2.35rem (37.6 px): 12.8 units of the 40-unit chip.
  // "100K" still fits inside the edge inserts.
  const size = label.length > 4 ? 7.5 : 12.8;
  return (
    `<svg viewBox="0 0 40 40" class="chip-svg ${extraClass}" aria-hidden="true">` +
    `<circle cx="20" cy="20" r="19" fill="${body}" stroke="rgba(0,0,0,.35)" stroke-width="1"/>` +
    `<circle class="edge" cx="20" cy="20" r="16.5" fill="none" stroke="${stripe}" stroke-width="5" stroke-dasharray="6.5 6.45"/>` +
    `<circle cx="20" cy="20" r="12.5" fill="${body}" stroke="${stripe}" stroke-opacity=".7" stroke-width="1"/>` +
    `<text x="20" y="20" dy=".36em" text-anchor="middle" font-family="system-ui,sans-serif" font-weight="800" ` +
    `font-size="${size}" fill="${ink}">${label}</text></svg>`
  );
}

/** Why a set of stakes may not be placed, as the server would say it (engine's validate_bets, same order).
 * `personalMax`: the player's personal maximum (a string, or null): it caps each type's round total, Player and
 * Banker included, and only ever lowers the table's maximum; a refusal by it carries `personal: true`. */
export function violations(pending, confirmed, spots, available, pbLimit, personalMax = null) {
  const out = [];
  const types = Object.keys(pending).filter((type) => pending[type] > 0);
  for (const type of types) {
    const spot = spots[type];
    if (!spot || !spot.offered || !available.has(type)) out.push({ bet_type: type, code: "bet_unavailable" });
  }
  if (out.length) return out;
  for (const type of types) {
    const total = (confirmed[type] || 0) + pending[type];
    // With a difference limit, that difference is Player's and Banker's binding maximum (checked below).
    const capped = !(pbLimit !== null && (type === "player" || type === "banker"));
    const personal = personalMax !== null && personalMax !== undefined ? cents(personalMax) : null;
    if (total < cents(spots[type].min)) out.push({ bet_type: type, code: "below_min", limit: spots[type].min });
    else if (personal !== null && (!capped || personal < cents(spots[type].max)) && total > personal) {
      out.push({ bet_type: type, code: "above_max", limit: personalMax, personal: true });
    } else if (capped && total > cents(spots[type].max)) out.push({ bet_type: type, code: "above_max", limit: spots[type].max });
  }
  if (pbLimit !== null && (pending.player || pending.banker)) {
    const before = Math.abs((confirmed.banker || 0) - (confirmed.player || 0));
    const banker = (confirmed.banker || 0) + (pending.banker || 0);
    const player = (confirmed.player || 0) + (pending.player || 0);
    const diff = Math.abs(banker - player);
    if (diff > cents(pbLimit) && diff > before) {
      out.push({ bet_type: pending.banker ? "banker" : "player", code: "pb_difference_limit", limit: pbLimit });
    }
  }
  return out;
}

export class Board {
  constructor(root, config, hooks) {
    this.root = root;
    this.config = config;
    this.hooks = hooks; // { balance(): cents | null, changed(), names }
    this.spots = Object.fromEntries(config.spots.map((s) => [s.type, s]));
    this.buttons = Object.fromEntries([...root.querySelectorAll(".spot")].map((el) => [el.dataset.type, el]));
    this.chip = 0;
    this.history = []; // batches of [{type, cents}] in the order they were put down (Undo takes the last)
    this.confirmed = {}; // type → cents confirmed this round
    this.lastBets = []; // [{type, cents}] confirmed in the previous round (Repeat / Double)
    this.available = new Set();
    this.open = false;
    this.mode = "traditional";
    this.outcomes = null; // what each spot did in the round shown: the server's {type: {traditional, no_commission}}
    this.nameSpots();
  }

  /** Each spot's accessible name and description, redone whenever one of its parts changes. The name is its
   * visible texts in their order, each apart ("Banker, 0.95:1, 1.00 – 5,000.00, 25, +25.00": the chip on the
   * felt shows its value too), so a screen reader never runs them together and the name holds everything the
   * spot shows (WCAG 2.5.3, label in name; speech input can say what it sees); the description says them in
   * words (a visually hidden span, .spot-terms). */
  nameSpots() {
    for (const [type, button] of Object.entries(this.buttons)) {
      const text = (selector) => {
        const el = button.querySelector(selector);
        return el ? el.textContent.trim() : "";
      };
      const spot = this.spots[type];
      const shown = [];
      const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        const words = node.textContent.trim();
        if (!words || el.closest(".visually-hidden")) continue;
        if (el.checkVisibility ? !el.checkVisibility() : !el.getClientRects().length) continue;
        shown.push(words);
      }
      const label = shown.join(", ");
      if (button.getAttribute("aria-label") !== label) button.setAttribute("aria-label", label);
      let terms = button.querySelector(".spot-terms");
      if (!terms) {
        terms = document.createElement("span");
        terms.className = "spot-terms visually-hidden";
        const why = button.querySelector(".why");
        terms.id = why && why.id ? why.id.replace(/^why-/, "terms-") : `terms-${type}`;
        button.appendChild(terms);
        button.setAttribute("aria-describedby", terms.id);
      }
      setText(
        terms,
        spotTerms({
          pays: text(".pays"),
          limits: spot && spot.offered ? text(".limits") : "",
          confirmed: text(".stake.confirmed"),
          pending: text(".stake.pending").replace(/^\+/, ""),
        }),
      );
    }
  }

  /* ── reads ─────────────────────────────────────────────────────────── */

  pending() {
    const out = {};
    for (const batch of this.history) for (const { type, cents: c } of batch) out[type] = (out[type] || 0) + c;
    return out;
  }

  pendingTotal() {
    return Object.values(this.pending()).reduce((a, b) => a + b, 0);
  }

  hasPending() {
    return this.history.length > 0;
  }

  pendingBets() {
    return Object.entries(this.pending()).map(([type, c]) => ({ type, amount: amount(c) }));
  }

  /* ── the rack ──────────────────────────────────────────────────────── */

  drawRack(rack) {
    const values = this.config.chips.map((v) => Math.round(Number(v) * 100));
    const saved = Number(localStorage.getItem("casino.chip")) || 0;
    this.chip = values.includes(saved) ? saved : values[Math.min(1, values.length - 1)];
    rack.innerHTML = values
      .map(
        (v) =>
          `<button type="button" class="chip" role="radio" data-value="${v / 100}" aria-checked="${v === this.chip}" ` +
          `tabindex="${v === this.chip ? 0 : -1}" aria-label="${formatMoney(v / 100)}">${chipSVG(v)}</button>`,
      )
      .join("");
    chipRadios(rack, (button) => {
      this.chip = Math.round(Number(button.dataset.value) * 100);
      localStorage.setItem("casino.chip", String(this.chip));
    });
  }

  /* ── changes ───────────────────────────────────────────────────────── */

  /** Put a batch down if it keeps within the limits and the balance; otherwise say why next to the spot. */
  put(batch) {
    if (!this.open || !batch.length) return false;
    const next = this.pending();
    for (const { type, cents: c } of batch) next[type] = (next[type] || 0) + c;
    const problems = violations(next, this.confirmed, this.spots, this.available, this.config.pb_difference_limit, this.personalMax())
      .filter((v) => v.code !== "below_min");
    const balance = this.hooks.balance();
    const total = Object.values(next).reduce((a, b) => a + b, 0);
    if (!problems.length && balance !== null && total > balance) {
      problems.push({ bet_type: batch[batch.length - 1].type, code: "insufficient_funds" });
    }
    this.clearErrors();
    if (problems.length) {
      problems.forEach((p) => this.showError(p.bet_type, this.hooks.explain(p)));
      return false;
    }
    this.history.push(batch);
    this.render();
    return true;
  }

  add(type) {
    return this.put([{ type, cents: this.chip }]);
  }

  undo() {
    this.history.pop();
    this.clearErrors();
    this.render();
  }

  clear() {
    this.history = [];
    this.clearErrors();
    this.render();
  }

  repeat() {
    return this.put(this.lastBets.filter((b) => this.available.has(b.type)).map((b) => ({ ...b })));
  }

  /** Double what is on the table this round; with nothing on it yet, last round's bets twice over. */
  double() {
    const on = { ...this.confirmed };
    for (const [type, c] of Object.entries(this.pending())) on[type] = (on[type] || 0) + c;
    let batch = Object.entries(on).map(([type, c]) => ({ type, cents: c }));
    if (!batch.length) batch = this.lastBets.map((b) => ({ type: b.type, cents: b.cents * 2 }));
    return this.put(batch.filter((b) => this.available.has(b.type)));
  }

  /** Pending stakes the server accepted become confirmed. */
  confirm(bets) {
    this.history = [];
    bets.forEach((bet) => (this.confirmed[bet.type] = (this.confirmed[bet.type] || 0) + cents(bet.amount)));
    this.render();
  }

  /** Confirmed stakes of this round as the server knows them (a snapshot). */
  setConfirmed(bets) {
    this.confirmed = {};
    bets.filter((b) => b.status !== "refunded").forEach((b) => (this.confirmed[b.type] = (this.confirmed[b.type] || 0) + cents(b.amount)));
    this.render();
  }

  /** A new round: this round's confirmed bets are what Repeat and Double use next. Returns the chips carried over. */
  newRound(previousBets) {
    if (previousBets) this.lastBets = previousBets;
    this.confirmed = {};
    this.clearErrors();
    this.clearOutcomes();
    this.render();
  }

  /** Betting opens (with the bet types this round offers) or closes. */
  setOpen(open, betTypes, shoeRound) {
    const was = this.open;
    this.open = open;
    if (betTypes) this.available = new Set(betTypes);
    this.root.classList.toggle("closed", !open);
    for (const [type, button] of Object.entries(this.buttons)) {
      const spot = this.spots[type];
      const offered = spot.offered && (!betTypes || this.available.has(type) || !this.available.size);
      const unavailable = spot.offered && this.available.size > 0 && !this.available.has(type);
      button.classList.toggle("unavailable", unavailable || !spot.offered); // no mutation when unchanged
      const disabled = !this.hooks.signedIn || !open || !offered || unavailable;
      if (button.disabled !== disabled) button.disabled = disabled;
      const why = button.querySelector(".why");
      if (unavailable) setText(why, this.hooks.closedReason(spot, shoeRound));
      else if (why.dataset.kind === "closed") why.textContent = "";
      const kind = unavailable ? "closed" : "";
      if (why.dataset.kind !== kind) why.dataset.kind = kind;
    }
    this.nameSpots();
    // Stakes and stacks do not depend on it: only the controls may change, and only when betting opened or closed.
    if (open !== was) this.hooks.changed();
  }

  /** The player's personal maximum (a string such as "100.00") or null. */
  personalMax() {
    const limits = this.config.personal_limits;
    return limits && limits.max_stake !== undefined ? limits.max_stake : null;
  }

  /** The player's personal limits as the snapshot carries them (`{max_stake}` or null): they apply at once. */
  setPersonalLimits(limits) {
    this.config.personal_limits = limits || null;
  }

  /** Whether a refusal (the board's own or the server's above_max) was measured against the personal maximum.
   * The board knows the round's own limits, so for a player who has a personal maximum, a server's above_max
   * below the table's maximum (or on Player/Banker under a difference limit, which have none) is the personal
   * one, even when staff lowered it after the last snapshot. */
  isPersonal(problem) {
    if (problem.personal) return true;
    const personal = this.personalMax();
    const spot = problem.bet_type && this.spots[problem.bet_type];
    if (problem.code !== "above_max" || personal === null || !spot || problem.limit === undefined || problem.limit === null) return false;
    const capped = !(this.config.pb_difference_limit !== null && (spot.type === "player" || spot.type === "banker"));
    return !capped || cents(problem.limit) < cents(spot.max);
  }

  /** The round's own limits (round.opened, snapshot): what the server will check this round. */
  setLimits(limits) {
    if (!limits) return;
    const pb = limits.pb_difference;
    this.config.pb_difference_limit = pb;
    for (const spot of this.config.spots) {
      const limit = limits.per_type[spot.type];
      spot.offered = Boolean(limit);
      const label = this.buttons[spot.type] && this.buttons[spot.type].querySelector(".limits");
      if (!limit) {
        if (label) setText(label, gettext("Not offered"));
        continue;
      }
      spot.min = limit.min;
      // With a difference limit, that difference is the most Player or Banker can take alone.
      spot.max = pb !== null && (spot.type === "player" || spot.type === "banker") ? pb : limit.max;
      if (label) setText(label, formatMoney(spot.min) + " – " + formatMoney(spot.max));
    }
    this.nameSpots();
  }

  /** The round's own paytable (round.opened, snapshot): `pays` is `{type: {traditional, no_commission}}`, the
   * labels the server wrote from the odds this round pays (tables.engine.payout_labels). A page open across an
   * operator's change thus never shows the old odds. */
  setPays(pays) {
    if (!pays) return;
    for (const spot of this.config.spots) if (pays[spot.type]) spot.pays = pays[spot.type];
    this.setMode(this.mode);
  }

  setMode(mode) {
    this.mode = mode;
    for (const spot of this.config.spots) {
      const el = this.root.querySelector(`[data-pays-for="${spot.type}"]`);
      if (el) setText(el, spot.pays[mode]);
    }
    this.nameSpots();
    if (this.outcomes) this.setOutcomes(this.outcomes);
  }

  /* ── drawing ───────────────────────────────────────────────────────── */

  render() {
    const pending = this.pending();
    for (const type of Object.keys(this.buttons)) {
      const p = pending[type] || 0;
      const c = this.confirmed[type] || 0;
      const button = this.buttons[type];
      const stack = button.querySelector(".stack");
      const key = c + "/" + p;
      if (stack.dataset.key !== key) {
        stack.dataset.key = key;
        stack.innerHTML = (c ? chipSVG(c, "confirmed-chip") : "") + (p ? chipSVG(p, "pending-chip") : "");
      }
      setText(button.querySelector(".stake.confirmed"), c ? formatMoney(c / 100) : "");
      setText(button.querySelector(".stake.pending"), p ? "+" + formatMoney(p / 100) : "");
      button.classList.toggle("has-pending", p > 0);
    }
    this.nameSpots();
    this.hooks.changed();
  }

  setTotals(totals) {
    for (const type of Object.keys(this.buttons)) {
      const el = this.buttons[type].querySelector(".total");
      const entry = totals && totals[type];
      setText(el, entry ? this.hooks.totalLabel(entry) : "");
    }
    this.nameSpots();
  }

  showError(type, message) {
    const button = this.buttons[type];
    if (!button) return;
    const why = button.querySelector(".why");
    why.textContent = message;
    why.dataset.kind = "error";
    button.classList.add("has-error");
    keepOnScreen(why);
    this.nameSpots();
  }

  clearErrors() {
    for (const button of Object.values(this.buttons)) {
      const why = button.querySelector(".why");
      if (why.dataset.kind === "error") {
        why.textContent = "";
        why.dataset.kind = "";
      }
      button.classList.remove("has-error");
    }
    this.nameSpots();
  }

  /** What each spot did in the round shown, as the server says it (`outcomes` of round.result and the snapshot:
   * `{type: {traditional, no_commission}}` → "won" | "lost" | "push", written by the engine's settlement rules),
   * marked in the betting mode the player is in (setMode marks them again). The page has no rules of its own. */
  setOutcomes(outcomes) {
    this.outcomes = outcomes || null;
    for (const [type, button] of Object.entries(this.buttons)) {
      const outcome = this.outcomes && this.outcomes[type] ? this.outcomes[type][this.mode] : undefined;
      if (outcome) {
        if (button.dataset.outcome !== outcome) button.dataset.outcome = outcome;
      } else if (button.dataset.outcome !== undefined) delete button.dataset.outcome;
    }
  }

  clearOutcomes() {
    this.setOutcomes(null);
  }
}
