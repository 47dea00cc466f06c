/* The table's WebSocket: heartbeat, a visible reconnecting state, reconnection with a fresh snapshot, and
 * frames put in order by their sequence numbers (order.js). */
import { FrameOrder } from "./order.js";

const PING_EVERY_MS = 5000;
const SILENCE_LIMIT_MS = 12000;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 5000];
// Close codes of docs/api.md: the session signed out (or its password changed), and too many open sockets.
const CLOSE_SIGNED_OUT = 4401;
const CLOSE_TOO_MANY_SOCKETS = 4430;
const TOO_MANY_SOCKETS_RETRY_MS = 30000;

export class Live {
  constructor(url, { onFrame, onUp, onDown }) {
    Object.assign(this, { url, onFrame, onUp, onDown });
    this.socket = null;
    this.attempt = 0;
    this.heard = 0;
    this.up = false;
    this.timer = null;
    this.order = new FrameOrder();
    setInterval(() => this.heartbeat(), PING_EVERY_MS);
    this.leaving = false;
    window.addEventListener("beforeunload", () => (this.leaving = true));
    window.addEventListener("pageshow", () => (this.leaving = false)); // back from the back-forward cache
    window.addEventListener("offline", () => this.drop());
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && !this.up) this.reconnectNow();
    });
  }

  connect() {
    clearTimeout(this.timer);
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.heard = Date.now();
    };
    socket.onmessage = (message) => {
      if (socket !== this.socket) return;
      this.heard = Date.now();
      const frame = JSON.parse(message.data);
      const verdict = this.order.decide(frame);
      if (verdict === "drop") return;
      if (verdict === "resync") {
        this.send({ type: "snapshot" });
        return;
      }
      if (frame.type === "snapshot" && !this.up) {
        this.up = true;
        this.onUp();
      }
      this.onFrame(frame);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      if (event.code === CLOSE_SIGNED_OUT) {
        // The page was drawn for a session that has ended: draw it again as it now is (signed out, or still
        // signed in after this session's own password change). Not when the page is already going elsewhere
        // (its own Log out or the reality check's Leave closed the socket): that navigation goes on.
        if (!this.leaving) window.location.reload();
        return;
      }
      this.down();
      const wait =
        event.code === CLOSE_TOO_MANY_SOCKETS
          ? TOO_MANY_SOCKETS_RETRY_MS
          : BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), navigator.onLine === false ? 1000 : wait);
    };
  }

  send(frame) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  down() {
    if (this.up) {
      this.up = false;
      this.onDown();
    } else if (this.attempt === 0) {
      this.onDown();
    }
  }

  /** The network went away, or the server fell silent: show it at once and start over. */
  drop() {
    const socket = this.socket;
    this.down();
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      try {
        socket.close();
      } catch (error) {
        /* already closed */
      }
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), 1000);
  }

  reconnectNow() {
    if (this.up && this.socket && this.socket.readyState === WebSocket.OPEN) return;
    this.attempt = 0;
    this.drop();
    clearTimeout(this.timer);
    this.connect();
  }

  heartbeat() {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.heard > SILENCE_LIMIT_MS) {
      this.drop();
      return;
    }
    this.send({ type: "ping" });
  }
}
