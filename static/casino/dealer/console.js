/* The dealer's console (/dealer/tables/<id>/): one table's state kept current, the scanner and the card picker,
 * and the dealer's and supervisor's buttons (REST under /api/dealer/tables/<id>/, docs/api.md "Dealer's
 * console"). The state is read again on every frame of the table's public socket and every few seconds
 * besides; the presence socket tells the server the console is attended. */
import { fill, ltr } from "../format.js";
import { Live } from "../table/live.js";
import { Presence } from "./presence.js";
import { cardFace, draw } from "./render.js";
import { Scanner } from "./scanner.js";
import { refusal, slotName } from "./words.js";

const POLL_MS = 3000;
// A read of the state gives up after this long: each scan waits for the read after it (the next card's slot is
// named from it), and a read that hung held every scan queued behind it. A card's POST has no such limit:
// abandoning one that reached the server, and scanning the card again, would deal it twice.
const READ_TIMEOUT_MS = 5000;
const config = JSON.parse(document.getElementById("dealer-config").textContent);
const root = document.getElementById("console");
const el = (id) => document.getElementById(id);
const view = { el, root, me: config.user_id, supervisor: config.supervisor };
let state = JSON.parse(document.getElementById("dealer-state").textContent);
let offsetMs = 0;
let asked = 0;
let applied = 0;

function show(next) {
  state = next;
  const at = Date.parse(next.server_time || "");
  if (Number.isFinite(at)) offsetMs = at - Date.now();
  draw(state, view);
  tick();
  if (typeof up !== "undefined") connection();
}

/** Read the state again; a reply older than one already drawn is dropped. */
async function refresh() {
  const mine = ++asked;
  let reply;
  try {
    reply = await window.Casino.api("GET", config.api, undefined, undefined, { timeoutMs: READ_TIMEOUT_MS });
  } catch (error) {
    return;
  }
  if (!reply.ok || mine < applied) return;
  applied = mine;
  show(reply.data);
}

let soon = null;
function refreshSoon() {
  clearTimeout(soon);
  soon = setTimeout(refresh, 80);
}

function tick() {
  const round = state.round;
  const running = round && round.state === "betting" && round.closes_at && state.table.status !== "paused";
  const left = running ? Math.max(0, Date.parse(round.closes_at) - (Date.now() + offsetMs)) : 0;
  const text = running ? String(Math.ceil(left / 1000)) : "";
  if (el("dc-countdown").textContent !== text) el("dc-countdown").textContent = text;
}

// ── what the dealer is told ─────────────────────────────────────────────────

function notice(text, kind = "") {
  el("dc-notice").textContent = text || "";
  el("dc-notice").className = "dc-notice " + kind;
}

function rescan(problem) {
  el("dc-rescan-why").textContent = refusal(problem.code);
  el("dc-rescan-detail").textContent = problem.detail || "";
  el("dc-rescan").dataset.code = problem.code || "";
  el("dc-rescan").hidden = false;
  root.dataset.rescan = problem.code || "1";
}

function clearRescan() {
  el("dc-rescan").hidden = true;
  delete root.dataset.rescan;
}

async function post(path, body, headers) {
  try {
    return await window.Casino.api("POST", config.api + path, body, headers);
  } catch (error) {
    return { ok: false, status: 0, data: { code: "network", detail: "" } };
  }
}

// ── scans: one at a time, in the order they came; a refusal drops the ones queued behind it ──
//
// Each scan gets an idempotency key when it is taken, kept until the server answers it: an answer lost on the way
// (a dropped connection, a proxy's 502) is sent again with the same key, so the server answers the first answer
// and deals nothing twice, and the dealer is never asked to scan a card again that may already be dealt.

const RESEND_MS = [300, 600, 1200, 2500, 4000];
const queue = [];
let scanning = false;

function scan(code) {
  queue.push({ card: code, key: window.Casino.uuid() });
  if (!scanning) nextScan();
}

const lost = (reply) => reply.status === 0 || reply.status === 502 || reply.status === 503 || reply.status === 504;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(item) {
  for (let attempt = 0; ; attempt += 1) {
    const reply = await post("cards/", { card: item.card }, { "Idempotency-Key": item.key });
    if (!lost(reply)) return reply;
    root.dataset.resending = String(attempt + 1);
    el("dc-scan-last").textContent = fill(gettext("No answer for %(card)s: sending it again…"), {
      card: ltr(cardFace(item.card)),
    });
    await pause(RESEND_MS[Math.min(attempt, RESEND_MS.length - 1)]);
  }
}

async function nextScan() {
  const item = queue.shift();
  if (item === undefined) {
    scanning = false;
    return;
  }
  scanning = true;
  const reply = await send(item);
  delete root.dataset.resending;
  if (reply.ok) {
    clearRescan();
    const dealt = reply.data.dealt;
    const burn = reply.data.burn;
    if (dealt) {
      const slot = state.round && state.round.next ? slotName(state.round.next.slot) : dealt.hand;
      el("dc-scan-last").textContent = fill(gettext("Dealt %(card)s to %(slot)s"), { card: ltr(cardFace(dealt.card)), slot });
    } else if (burn) {
      el("dc-scan-last").textContent = fill(gettext("Burn card %(card)s"), { card: ltr(cardFace(burn.card)) });
    }
    await refresh();
  } else {
    queue.length = 0;
    el("dc-scan-last").textContent = item.card;
    rescan(reply.data || { code: "network" });
  }
  nextScan();
}

// ── the buttons ─────────────────────────────────────────────────────────────

async function step(path, body, done) {
  const reply = await post(path, body);
  if (reply.ok) {
    notice(done, "ok");
    clearRescan();
  } else {
    const problem = reply.data || { code: "network" };
    notice(refusal(problem.code) + (problem.detail ? " " + problem.detail : ""), "error");
  }
  await refresh();
}

/** Ask for a reason in the console's dialog; null when cancelled. */
function askReason(title, required) {
  const dialog = el("dc-reason");
  const input = el("dc-reason-input");
  el("dc-reason-title").textContent = title;
  el("dc-reason-optional").hidden = required;
  el("dc-reason-error").hidden = true;
  input.required = required;
  input.value = "";
  return new Promise((resolve) => {
    const form = el("dc-reason-form");
    const submitted = (event) => {
      const cancel = event.submitter && event.submitter.value === "cancel";
      if (!cancel && required && !input.value.trim()) {
        event.preventDefault();
        el("dc-reason-error").hidden = false;
        input.focus();
        return;
      }
      form.removeEventListener("submit", submitted);
      resolve(cancel ? null : input.value.trim());
    };
    form.addEventListener("submit", submitted);
    dialog.addEventListener("cancel", () => resolve(null), { once: true });
    dialog.showModal();
    input.focus();
  });
}

el("dc-shift").addEventListener("click", async () => {
  await step("shift/", undefined, gettext("You are on shift."));
  if (!up.presence) presence.connect(); // the console's socket is the dealer on shift's (or a supervisor's) only
});
el("dc-burn").addEventListener("click", () => step("burn/", undefined, gettext("The shoe is ready.")));
el("dc-cut").addEventListener("click", () =>
  step("cut-card/", undefined, gettext("Cut card out: this round is the last of the shoe.")),
);
el("dc-supervisor").addEventListener("click", async () => {
  const reason = await askReason(gettext("Call supervisor"), false);
  if (reason !== null) await step("supervisor/", { reason }, gettext("The supervisor is called."));
});
if (config.supervisor) {
  el("dc-resume").addEventListener("click", async () => {
    const reason = await askReason(gettext("Resume"), true);
    if (reason) await step("resume/", { reason }, gettext("Resumed."));
  });
  el("dc-void").addEventListener("click", async () => {
    const reason = await askReason(gettext("Void round"), true);
    // The void names its round: a repeat (a lost answer, a second click) never touches the next round.
    const round = state.round;
    if (reason && round) await step("void/", { reason, round_id: round.id }, gettext("The round is void and every stake refunded."));
  });
}
for (const button of el("dc-picker").querySelectorAll("button[data-card]")) {
  button.addEventListener("click", () => scan(button.dataset.card));
}

const scanner = new Scanner(el("dc-scan-input"), scan);

// ── the sockets, and the poll besides ───────────────────────────────────────

const scheme = location.protocol === "https:" ? "wss" : "ws";
const up = { table: false, presence: false };
function connection() {
  // Before the shift is taken the presence socket is refused (it is the dealer on shift's): only the table's counts.
  const attending = state.table.dealer_id === config.user_id || config.supervisor;
  const both = up.table && (up.presence || !attending);
  root.dataset.connected = both ? "1" : "0";
  el("dc-conn").hidden = both;
  el("dc-conn").textContent = gettext("Reconnecting…");
}
const live = new Live(`${scheme}://${location.host}${config.socket}`, {
  onFrame: (frame) => {
    if (frame.type !== "pong" && !String(frame.type).startsWith("chat")) refreshSoon();
  },
  onUp: () => {
    up.table = true;
    connection();
    refreshSoon();
  },
  onDown: () => {
    up.table = false;
    connection();
  },
});
const presence = new Presence(`${scheme}://${location.host}${config.presence}`, {
  onChange: (isUp) => {
    up.presence = isUp;
    connection();
  },
});

show(state);
live.connect();
// The presence socket is the dealer on shift's (or a supervisor's): a dealer who has not taken the shift yet
// opens it when taking it (the button above).
if (state.table.dealer_id === config.user_id || config.supervisor) presence.connect();
setInterval(refresh, POLL_MS);
setInterval(tick, 250);
scanner.focus();
