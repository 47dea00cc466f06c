/* The countdown: a ring and seconds synchronised to server_time, and what screen readers hear (10 s, 5 s). */
import { fill } from "../format.js";

export class Countdown {
  constructor({ clock, number, ring, announce, onLow }) {
    Object.assign(this, { clock, number, ring, announce, onLow });
    this.closesAt = null;
    this.seconds = 15;
    this.offsetMs = 0;
    this.said = new Set();
    setInterval(() => this.tick(), 200);
  }

  /** The server's clock minus ours, from any frame's server_time. */
  sync(serverTime) {
    const at = Date.parse(serverTime || "");
    if (Number.isFinite(at)) this.offsetMs = at - Date.now();
  }

  start(closesAt, seconds) {
    if (this.closesAt !== closesAt) this.said = new Set();
    this.closesAt = closesAt;
    if (seconds) this.seconds = seconds;
    this.tick();
  }

  stop() {
    this.closesAt = null;
    this.tick();
  }

  left() {
    if (!this.closesAt) return 0;
    return Math.max(0, Date.parse(this.closesAt) - (Date.now() + this.offsetMs));
  }

  tick() {
    const running = Boolean(this.closesAt);
    const left = this.left();
    const whole = Math.ceil(left / 1000);
    const text = running ? String(whole) : "";
    if (this.number.textContent !== text) this.number.textContent = text;
    const share = running ? Math.min(1, left / (this.seconds * 1000)) : 0;
    this.ring.style.strokeDashoffset = String(100 - share * 100);
    this.clock.classList.toggle("idle", !running);
    this.clock.classList.toggle("low", running && whole <= 5 && whole > 3);
    this.clock.classList.toggle("last", running && whole <= 3);
    if (!running) return;
    for (const mark of [10, 5]) {
      if (whole === mark && !this.said.has(mark)) {
        this.said.add(mark);
        this.announce(fill(gettext("%(seconds)s seconds left to bet"), { seconds: mark }));
        if (mark === 5) this.onLow();
      }
    }
  }
}
