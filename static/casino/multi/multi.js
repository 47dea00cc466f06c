/* The multi-table page (/multi/): one TableClient per table, each over its own root and WebSocket; the page
 * shares one chip rack, one betting mode, one balance and the sound switch (docs/table-client.md). */
import { cents, formatMoney } from "../format.js";
import { chipRadios, chipSVG } from "../table/board.js";
import { TableClient } from "../table/client.js";
import { play, setSound, soundOn } from "../table/sound.js";

const page = document.getElementById("multi");
const signedIn = page.dataset.signedIn === "1";
const max = Number(page.dataset.max);
const STORE = "casino.multi";

/* ── the choice of tables: in the URL, remembered in localStorage ─────── */

const shown = page.dataset.tables ? page.dataset.tables.split(",") : [];
const params = new URLSearchParams(location.search);
const offered = new Set([...document.querySelectorAll("#picker-form input[name=t]")].map((input) => input.value));
if (!params.has("t")) {
  let saved = [];
  try {
    saved = JSON.parse(localStorage.getItem(STORE) || "[]").map(String).filter((id) => offered.has(id)).slice(0, max);
  } catch (error) {
    saved = [];
  }
  if (saved.length && saved.join(",") !== shown.join(",")) {
    location.replace("?" + saved.map((id) => "t=" + encodeURIComponent(id)).join("&"));
  } else if (shown.length) {
    history.replaceState(null, "", "?" + shown.map((id) => "t=" + id).join("&"));
  }
}
if (shown.length) localStorage.setItem(STORE, JSON.stringify(shown));

const boxes = [...document.querySelectorAll("#picker-form input[name=t]")];
function limitPicks() {
  const full = boxes.filter((box) => box.checked).length >= max;
  for (const box of boxes) box.disabled = full && !box.checked;
}
boxes.forEach((box) => box.addEventListener("change", limitPicks));
limitPicks();

/* ── one balance for the page ──────────────────────────────────────────── */

let balance = null; // cents
let asked = 0;
let refreshTimer = null;
const balanceEl = document.getElementById("balance");

function showBalance() {
  if (balanceEl && balance !== null) balanceEl.textContent = formatMoney(balance / 100);
}

/* Frames from several sockets and confirm answers can arrive out of order; after each, the wallet itself has
 * the last word (the newest answer wins). */
async function refreshBalance() {
  const mine = ++asked;
  let response;
  try {
    response = await window.Casino.api("GET", "/api/wallet/");
  } catch (error) {
    return;
  }
  if (mine !== asked || !response.ok) return;
  balance = cents(response.data.balance);
  showBalance();
}

function onBalance(value) {
  balance = cents(value);
  showBalance();
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refreshBalance, 300);
}

/* ── the tables ────────────────────────────────────────────────────────── */

const modeInputs = [...document.querySelectorAll("#rack input[name=mode]")];
if (localStorage.getItem("casino.mode") === "no_commission" && modeInputs.length) {
  modeInputs.find((input) => input.value === "no_commission").checked = true;
}
const mode = () => (modeInputs.find((input) => input.checked) || { value: "traditional" }).value;

const clients = {};
for (const root of document.querySelectorAll("#multi-grid > .mt")) {
  const config = JSON.parse(document.getElementById(root.dataset.config).textContent);
  clients[config.table_id] = new TableClient(root, config, {
    find: (name) => root.querySelector(`[data-el="${name}"]`),
    mode,
    balance: () => balance,
    onBalance,
  });
}
const all = Object.values(clients);

modeInputs.forEach((input) =>
  input.addEventListener("change", () => {
    localStorage.setItem("casino.mode", input.value);
    all.forEach((client) => client.board.setMode(input.value));
  }),
);

/* ── the shared chip rack ──────────────────────────────────────────────── */

const rack = document.getElementById("chips");
if (signedIn && rack) {
  const values = JSON.parse(document.getElementById("multi-chips").textContent).map((v) => Math.round(Number(v) * 100));
  const saved = Number(localStorage.getItem("casino.chip")) || 0;
  let chip = values.includes(saved) ? saved : values[Math.min(1, values.length - 1)];
  rack.innerHTML = values
    .map(
      (v) =>
        `<button type="button" class="chip" role="radio" data-value="${v / 100}" aria-checked="${v === chip}" ` +
        `tabindex="${v === chip ? 0 : -1}" aria-label="${formatMoney(v / 100)}">${chipSVG(v)}</button>`,
    )
    .join("");
  const choose = (value) => {
    chip = value;
    all.forEach((client) => (client.board.chip = value));
  };
  choose(chip);
  chipRadios(rack, (button) => {
    choose(Math.round(Number(button.dataset.value) * 100));
    localStorage.setItem("casino.chip", String(chip));
  });
  // While the reality check waits for an answer, the shared rack is disabled with each table's controls.
  document.addEventListener("casino:betting-hold", () => {
    const held = Boolean(document.documentElement.dataset.bettingHold);
    rack.querySelectorAll(".chip").forEach((c) => (c.disabled = held));
  });
}

/* ── sound ─────────────────────────────────────────────────────────────── */

const sound = document.getElementById("sound");
sound.setAttribute("aria-pressed", String(soundOn()));
sound.addEventListener("click", () => {
  setSound(!soundOn());
  sound.setAttribute("aria-pressed", String(soundOn()));
  play("chip");
});

window.casinoMulti = { clients, balance: () => balance, refreshBalance };
