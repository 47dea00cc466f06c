/* The live lobby: one tile per table, kept up to date by the ws/lobby/ stream (docs/lobby.md).
 *
 * The page's first render and #lobby-config's snapshot come from the same selector as the stream; the stream's
 * snapshot replaces every tile, and each `table` frame carries only the fields of one tile that changed.
 * Countdowns run against the server's clock (every frame's server_time), as on the table page. */
import { fill, formatMoney } from "./format.js";
import { Live } from "./table/live.js";
import { drawRoads } from "./table/roads.js";

const config = JSON.parse(document.getElementById("lobby-config").textContent);
const grid = document.getElementById("lobby");
const conn = document.getElementById("lobby-conn");
const template = document.getElementById("lobby-tile");
const tiles = new Map(); // table id → { el, data }
let offsetMs = 0; // the server's clock minus ours
let lastSnapshotAt = ""; // server_time of the snapshot shown (an older one never replaces a newer one)

const field = (el, name) => el.querySelector(`[data-field="${name}"]`);
const setText = (node, text) => {
  if (node && node.textContent !== text) node.textContent = text;
};
const serverNow = () => Date.now() + offsetMs;

function sync(serverTime) {
  const at = Date.parse(serverTime || "");
  if (Number.isFinite(at)) offsetMs = at - Date.now();
}

function tileElement(id) {
  let entry = tiles.get(id);
  if (entry) return entry;
  let el = grid.querySelector(`.tile[data-table-id="${id}"]`);
  if (!el) {
    el = template.content.firstElementChild.cloneNode(true);
    el.dataset.tableId = String(id);
    el.href = `/tables/${id}/`;
    grid.append(el);
  }
  entry = { el, data: {} };
  tiles.set(id, entry);
  return entry;
}

function stateText(round) {
  if (!round) return "";
  if ((round.state === "result" || round.state === "settled") && round.winner) return config.winner_names[round.winner] || round.winner;
  return config.state_names[round.state] || round.state;
}

function drawRound(el, round) {
  el.dataset.roundState = round ? round.state : "";
  el.dataset.roundId = round ? String(round.id) : "";
  setText(field(el, "round-number"), round ? fill(gettext("Round %(number)s"), { number: round.number }) : "");
  setText(field(el, "state"), stateText(round));
  const score = field(el, "score");
  const shown = round && round.winner && (round.state === "result" || round.state === "settled");
  // Winner first, next to "Banker wins": "6 : 4" never reads as a Banker loss (each number keeps its hand's colour).
  let html = "";
  if (shown) {
    const p = `<span class="score-p">${Number(round.player_total)}</span>`;
    const b = `<span class="score-b">${Number(round.banker_total)}</span>`;
    html = round.winner === "banker" ? `${b} : ${p}` : `${p} : ${b}`;
  }
  if (score.innerHTML !== html) score.innerHTML = html;
  field(el, "state-box").dataset.winner = shown ? round.winner : "";
  tickTile(el, round);
}

function drawTile(entry, data) {
  const { el } = entry;
  const old = entry.data;
  entry.data = data;
  if (data.name !== old.name) setText(field(el, "name"), data.name);
  if (data.variant !== old.variant) setText(field(el, "variant"), data.variant);
  if (data.decks !== old.decks) {
    setText(field(el, "decks"), fill(ngettext("%(decks)s deck", "%(decks)s decks", data.decks), { decks: data.decks }));
  }
  if (data.players !== old.players) setText(field(el, "players"), String(data.players));
  const { limits, stats } = data;
  setText(field(el, "limits"), limits.min ? `${formatMoney(limits.min)} – ${formatMoney(limits.max)}` : "");
  for (const side of ["banker", "player", "tie"]) setText(field(el, `${side}_pct`), `${stats[`${side}_pct`]}%`);
  if (data.status !== old.status || data.status_reason !== old.status_reason) {
    el.dataset.status = data.status;
    el.dataset.notice = data.status_notice || "";
    el.classList.toggle("inactive", data.status !== "open");
    // status_reason is the server's public message for the status ("Closing after this round"), never an operator's note.
    field(el, "status-box").hidden = data.status === "open" && !data.status_reason;
    const statusName = config.status_names[data.status] || data.status;
    setText(field(el, "status"), statusName);
    setText(field(el, "reason"), data.status_reason && data.status_reason !== statusName ? data.status_reason : "");
  }
  if (JSON.stringify(data.round) !== JSON.stringify(old.round)) drawRound(el, data.round);
  if (data.roads !== old.roads) drawRoads(field(el, "roads"), data.roads);
}

function applySnapshot(frame) {
  if (lastSnapshotAt && frame.server_time < lastSnapshotAt) return;
  lastSnapshotAt = frame.server_time;
  const seen = new Set();
  for (const data of frame.tables) {
    seen.add(data.id);
    const entry = tileElement(data.id);
    drawTile(entry, data);
    grid.append(entry.el); // table order
  }
  for (const [id, entry] of tiles) {
    if (!seen.has(id)) {
      entry.el.remove();
      tiles.delete(id);
    }
  }
  const empty = document.getElementById("lobby-empty");
  if (empty) empty.hidden = seen.size > 0;
}

function applyUpdate(frame) {
  const entry = tiles.get(frame.table_id);
  if (!entry) return; // a table we have not seen: the server sends a fresh snapshot when tables change
  drawTile(entry, { ...entry.data, ...frame.changes });
}

/* ---- countdowns: every betting tile, a few times a second ---- */

function tickTile(el, round) {
  const countdown = field(el, "countdown");
  const bar = field(el, "bar");
  if (!round || round.state !== "betting") {
    setText(countdown, "");
    el.classList.remove("betting", "low");
    bar.style.transform = "scaleX(0)";
    return;
  }
  const closes = Date.parse(round.closes_at);
  const opens = Date.parse(round.opens_at);
  const left = Math.max(0, closes - serverNow());
  const whole = Math.ceil(left / 1000);
  setText(countdown, String(whole));
  el.classList.add("betting");
  el.classList.toggle("low", whole <= 5);
  bar.style.transform = `scaleX(${Math.min(1, left / Math.max(1, closes - opens)).toFixed(3)})`;
}

setInterval(() => {
  for (const { el, data } of tiles.values()) if (data.round && data.round.state === "betting") tickTile(el, data.round);
}, 250);

/* ---- the stream ---- */

function handle(frame) {
  sync(frame.server_time);
  if (frame.type === "snapshot") applySnapshot(frame);
  else if (frame.type === "table") applyUpdate(frame);
}

function connected(up) {
  grid.dataset.connected = up ? "1" : "0";
  conn.dataset.connected = up ? "1" : "0";
  setText(conn, up ? gettext("Live") : gettext("Reconnecting…"));
}

const scheme = location.protocol === "https:" ? "wss" : "ws";
const live = new Live(`${scheme}://${location.host}/ws/lobby/`, {
  onFrame: handle,
  onUp: () => connected(true),
  onDown: () => {
    lastSnapshotAt = ""; // the next connection's snapshot is the truth, whatever its clock says
    connected(false);
  },
});

handle(config.snapshot);
live.connect();
window.casinoLobby = { handle, tiles };
