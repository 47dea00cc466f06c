/* The card reveal: each dealt card lands face-down, turns, and only then counts (its hand's total is written when
 * the turn ends). The round's last card (card.dealt `last`) may be squeezed: the player drags it, or holds it, to
 * peel it back. Nothing here holds the round up: the server deals on its own clock (`deal_interval_ms`, from
 * round.opened or the snapshot), every card is timed to have turned before the next frame is due, and a frame
 * that comes earlier (the next card, the result) finishes every pending turn at once. With
 * `prefers-reduced-motion: reduce` a card is face-up, and counted, the moment it lands. Styles: cards-roads.css.
 *
 *   const reveal = new Reveal({ onTurned(entry), onTurn(entry) });
 *   reveal.setInterval(ms); reveal.deal(el, entry, { last }); reveal.after(fn); reveal.finish(); reveal.reset();
 */

const DEFAULT_INTERVAL = 800; // the table's default deal_interval_ms (tables.models.Table)
const HOLD_MS = 150; // face-down before an ordinary card turns, at most
const TURN_MS = 450; // an ordinary turn, at most
const LAST_TURN_MS = 700; // the last card's slower turn, at most
const HOLD_TO_PEEL_MS = 1200; // holding (no drag) peels the whole card in this time
const reducedMotion = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

export function prefersReducedMotion() {
  return Boolean(reducedMotion && reducedMotion.matches);
}

/** The schedule of one card, in ms from its arrival, for a deal interval of `interval` ms:
 * `{hold, turn, due}`: it starts turning at `hold`, has turned at `hold + turn`, and `due` (≤ 90 % of the interval)
 * is when it must have turned. The last card waits longer face-down (the squeeze window) and turns slower. */
export function schedule(interval, last) {
  const d = Math.max(0, Number(interval) || 0);
  const due = Math.round(d * 0.9);
  if (!last) {
    const turn = Math.min(TURN_MS, Math.round(d * 0.5));
    return { hold: Math.min(HOLD_MS, Math.round(d * 0.15)), turn, due };
  }
  const turn = Math.min(LAST_TURN_MS, Math.round(d * 0.4));
  return { hold: Math.max(0, due - turn), turn, due };
}

export class Reveal {
  constructor({ onTurned = () => {}, onTurn = () => {}, squeezeLabel = "", squeeze = true } = {}) {
    this.onTurned = onTurned; // entry: the card has turned, count it
    this.onTurn = onTurn; // entry: the card starts turning (the sound cue)
    this.squeezeLabel = squeezeLabel;
    this.squeezeOn = squeeze;
    this.interval = DEFAULT_INTERVAL;
    this.pending = []; // cards dealt, not yet turned: {el, entry, timers, squeeze}
    this.waiting = []; // callbacks for when every card has turned
  }

  /** The round's deal interval in ms (round.opened's or the snapshot's deal_interval_ms). */
  setInterval(ms) {
    if (Number.isFinite(Number(ms)) && ms !== null) this.interval = Number(ms);
  }

  /** A card that is already on the table (a snapshot): face-up at once, no animation. */
  show(el, entry) {
    el.classList.add("flipped");
    el.dataset.revealed = "1";
    labelFace(el);
    this.onTurned(entry);
  }

  /** A card just dealt: `el` is in the page, face-down. It turns on the schedule (or is squeezed), then counts. */
  deal(el, entry, { last = false } = {}) {
    this.finish(); // a new card: every earlier one has turned by now, whatever its schedule
    if (prefersReducedMotion() || this.interval <= 0) {
      this.show(el, entry);
      this.onTurn(entry);
      this.flush();
      return;
    }
    const card = { el, entry, timers: [], squeeze: null };
    this.pending.push(card);
    const plan = schedule(this.interval, last);
    el.style.setProperty("--turn-ms", plan.turn + "ms");
    if (last && this.squeezeOn) this.offerSqueeze(card);
    // Drawn face-down in a frame of its own, turned in a later one (the transition needs a face-down start).
    card.timers.push(setTimeout(() => this.turn(card, plan.turn), Math.max(plan.hold, 32)));
  }

  /** Start `card`'s turn, taking `ms`; it counts when the turn ends. */
  turn(card, ms) {
    if (!this.pending.includes(card) || card.turning) return;
    card.turning = true;
    this.endSqueeze(card);
    card.el.style.setProperty("--turn-ms", ms + "ms");
    card.el.classList.add("flipped");
    this.onTurn(card.entry);
    card.timers.push(setTimeout(() => this.done(card), ms));
  }

  /** `card` has turned: it counts now. */
  done(card) {
    const i = this.pending.indexOf(card);
    if (i < 0) return;
    this.pending.splice(i, 1);
    card.timers.forEach(clearTimeout);
    this.endSqueeze(card);
    card.el.classList.add("flipped");
    card.el.dataset.revealed = "1";
    labelFace(card.el);
    this.onTurned(card.entry);
    if (!this.pending.length) this.flush();
  }

  /** Run `fn` once every card dealt so far has turned (now, if none is pending). The result banner waits here. */
  after(fn) {
    if (this.pending.length) this.waiting.push(fn);
    else fn();
  }

  flush() {
    const waiting = this.waiting.splice(0);
    waiting.forEach((fn) => fn());
  }

  /** Turn every pending card now, without animation (the next frame is here: the round does not wait). */
  finish() {
    for (const card of this.pending.slice()) {
      card.el.classList.add("no-anim");
      this.done(card);
      // the instant turn is painted; later turns animate again
      requestAnimationFrame(() => card.el.classList.remove("no-anim"));
    }
  }

  /** A new round or a redrawn stage: forget every pending card and callback (their elements are gone). */
  reset() {
    for (const card of this.pending) {
      card.timers.forEach(clearTimeout);
      this.endSqueeze(card);
    }
    this.pending = [];
    this.waiting = [];
  }

  /* ── the squeeze: drag or hold to peel; let go early and it falls back; peeled past half, it turns ── */

  offerSqueeze(card) {
    const el = card.el;
    // the peel: the face, uncovered from the bottom edge as far as --peel says, and the lifted edge's shadow
    const peel = document.createElement("div");
    peel.className = "card-peel";
    peel.setAttribute("aria-hidden", "true");
    peel.innerHTML = '<div class="card-face"></div><div class="card-fold"></div>';
    el.appendChild(peel);
    el.classList.add("squeeze");
    el.tabIndex = 0;
    el.setAttribute("role", "button");
    if (this.squeezeLabel) el.setAttribute("aria-label", this.squeezeLabel);
    const sq = { peel, progress: 0, down: null, raf: 0, listeners: [] };
    card.squeeze = sq;
    const set = (p) => {
      sq.progress = Math.max(0, Math.min(1, p));
      el.style.setProperty("--peel", sq.progress.toFixed(3));
      if (sq.progress >= 1) this.turnNow(card);
    };
    const size = () => Math.max(el.offsetWidth, el.offsetHeight) || 80;
    const on = (type, fn) => {
      el.addEventListener(type, fn);
      sq.listeners.push([type, fn]);
    };
    on("pointerdown", (event) => {
      if (event.button > 0) return;
      event.preventDefault();
      try {
        el.setPointerCapture(event.pointerId);
      } catch (error) {
        /* synthetic pointers have none to capture */
      }
      sq.down = { x: event.clientX, y: event.clientY, t: performance.now(), base: sq.progress, drag: 0, size: size() };
      el.classList.add("peeling");
      // holding still peels too, steadily
      const tick = (now) => {
        if (!sq.down) return;
        const held = (now - sq.down.t) / HOLD_TO_PEEL_MS;
        set(Math.max(sq.down.base + held, sq.down.drag));
        if (sq.down && this.pending.includes(card)) sq.raf = requestAnimationFrame(tick);
      };
      sq.raf = requestAnimationFrame(tick);
    });
    on("pointermove", (event) => {
      if (!sq.down) return;
      const dx = Math.abs(event.clientX - sq.down.x);
      const dy = Math.abs(event.clientY - sq.down.y);
      sq.down.drag = Math.max(sq.down.drag, (Math.max(dx, dy) / (sq.down.size * 0.8)) + sq.down.base);
      set(Math.max(sq.progress, sq.down.drag));
    });
    const release = () => {
      if (!sq.down) return;
      sq.down = null;
      cancelAnimationFrame(sq.raf);
      el.classList.remove("peeling");
      if (sq.progress >= 0.5) this.turnNow(card);
      else set(0); // falls back (a CSS transition), still face-down
    };
    on("pointerup", release);
    on("pointercancel", release);
    on("lostpointercapture", release);
    on("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        this.turnNow(card);
      }
    });
  }

  /** The player peeled it: it turns at once (a short turn from where the peel left it). */
  turnNow(card) {
    if (!this.pending.includes(card) || card.turning) return;
    card.timers.forEach(clearTimeout);
    card.timers = [];
    this.turn(card, Math.min(200, schedule(this.interval, true).turn));
  }

  endSqueeze(card) {
    const sq = card.squeeze;
    if (!sq) return;
    card.squeeze = null;
    cancelAnimationFrame(sq.raf);
    for (const [type, fn] of sq.listeners) card.el.removeEventListener(type, fn);
    sq.peel.remove();
    const el = card.el;
    el.classList.remove("squeeze", "peeling");
    el.style.removeProperty("--peel");
    el.removeAttribute("tabindex");
    el.setAttribute("role", "img");
  }
}

/** A face-down card is "a card, face down" to a screen reader; it is named by rank and suit once it has turned. */
function labelFace(el) {
  if (el.dataset.face) el.setAttribute("aria-label", el.dataset.face);
}
