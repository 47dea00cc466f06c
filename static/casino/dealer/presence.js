/* The console's presence socket (ws/dealer/tables/<id>/): open while the console is on screen, so the server
 * knows the table is attended; a ping every few seconds, and a reconnection with backoff if it drops. */

// Every 2 s, well inside the server's 5 s grace: each ping says "attended" again, so a second console of the
// same table closing (which marks the console lost) is answered by this one before the grace runs out.
const PING_EVERY_MS = 2000;
const BACKOFF_MS = [500, 1000, 2000, 4000, 5000];
const CLOSE_NOT_DEALER = 4403;

export class Presence {
  constructor(url, { onChange }) {
    this.url = url;
    this.onChange = onChange;
    this.socket = null;
    this.attempt = 0;
    this.up = false;
    setInterval(() => this.send({ type: "ping" }), PING_EVERY_MS);
    window.addEventListener("online", () => this.up || this.connect());
  }

  connect() {
    clearTimeout(this.timer);
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onmessage = () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.set(true);
    };
    socket.onclose = (event) => {
      if (socket !== this.socket) return;
      this.set(false);
      if (event.code === CLOSE_NOT_DEALER) return; // signed out or no longer a dealer: the page's own requests say so
      const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), wait);
    };
  }

  set(up) {
    if (this.up === up) return;
    this.up = up;
    this.onChange(up);
  }

  send(frame) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }
}
