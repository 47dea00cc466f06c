/* The table chat panel (templates/tables/_chat.html; docs/table-client.md, "Table chat"; docs/api.md, "Table chat").
 *
 * It rides on the table page's own socket (window.casinoTable.live, made by main.js): chat frames
 * (chat.message, chat.deleted, and error frames about a chat.send) are taken here before the table's client
 * sees them; a snapshot's `chat` (the recent messages) is merged in and the snapshot goes on to the table.
 * Every message is written with textContent only: whatever a player typed is shown as text, never as markup.
 * The panel can be hidden; the choice is remembered in localStorage ("casino.chat.hidden"). Below 900 px the chat
 * is a side tab (layout.js): while another tab is chosen, new messages are counted on the chat's tab. */

const HIDDEN_KEY = "casino.chat.hidden";
const KEEP = 100; // messages kept on the page

const panel = document.getElementById("chat");
const list = document.getElementById("chat-list");
const empty = document.getElementById("chat-empty");
const body = document.getElementById("chat-body");
const toggle = document.getElementById("chat-toggle");
const form = document.getElementById("chat-form");
const input = document.getElementById("chat-input");
const errorLine = document.getElementById("chat-error");
const me = panel.dataset.userId ? Number(panel.dataset.userId) : null;
const maxChars = Number(panel.dataset.maxChars) || 200;
const historyMs = (Number(panel.dataset.historyMinutes) || 30) * 60 * 1000;
const lang = document.documentElement.lang || undefined;
const clock = new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit" });
const fill = (text, values) => text.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

let unread = 0;
let lastSent = "";

/* ── the phone's chat tab ────────────────────────────────────────────────── */

const tab = document.getElementById("tab-chat");
const tabCount = document.getElementById("chat-tab-count");
let tabUnread = 0;

/** Whether the chat is a side tab that is not chosen (a phone or small tablet showing My bets or Shoe). */
function behindTab() {
  return Boolean(tab) && tab.offsetParent !== null && tab.getAttribute("aria-selected") !== "true";
}

function renderTabCount() {
  if (!tabCount) return;
  tabCount.hidden = tabUnread === 0;
  tabCount.textContent = tabUnread ? fill(gettext("%(count)s new"), { count: tabUnread }) : "";
}

if (tab) {
  // Chosen by a click, a key (layout.js) or anything else: the messages are in view, nothing is unread.
  new MutationObserver(() => {
    if (tab.getAttribute("aria-selected") === "true" && tabUnread) {
      tabUnread = 0;
      renderTabCount();
    }
  }).observe(tab, { attributes: true, attributeFilter: ["aria-selected"] });
}

/* ── hide / show ─────────────────────────────────────────────────────────── */

function storedHidden() {
  try {
    return localStorage.getItem(HIDDEN_KEY) === "1";
  } catch (error) {
    return false;
  }
}

function setHidden(hidden, remember) {
  body.hidden = hidden;
  panel.dataset.hidden = hidden ? "1" : "0";
  toggle.setAttribute("aria-expanded", hidden ? "false" : "true");
  if (!hidden) unread = 0;
  renderToggle();
  if (!hidden) scrollToEnd();
  if (remember) {
    try {
      localStorage.setItem(HIDDEN_KEY, hidden ? "1" : "0");
    } catch (error) {
      /* private mode: not remembered */
    }
  }
}

function renderToggle() {
  if (!body.hidden) toggle.textContent = gettext("Hide chat");
  else if (unread) toggle.textContent = fill(gettext("Show chat (%(count)s new)"), { count: unread });
  else toggle.textContent = gettext("Show chat");
}

toggle.addEventListener("click", () => setHidden(!body.hidden, true));

/* ── messages ────────────────────────────────────────────────────────────── */

function nearEnd() {
  return list.scrollHeight - list.scrollTop - list.clientHeight < 40;
}

function scrollToEnd() {
  list.scrollTop = list.scrollHeight;
}

function item(message) {
  const li = document.createElement("li");
  li.dataset.chatId = String(message.id);
  li.dataset.time = message.time;
  if (me !== null && message.author_id === me) li.classList.add("mine");
  const author = document.createElement("span");
  author.className = "chat-author";
  author.dir = "auto";
  author.textContent = message.author;
  const time = document.createElement("time");
  time.className = "chat-time";
  time.dateTime = message.time;
  time.textContent = clock.format(new Date(message.time));
  const text = document.createElement("span");
  text.className = "chat-text";
  text.dir = "auto";
  text.textContent = message.text;
  li.append(time, author, text);
  return li;
}

function prune() {
  const oldest = Date.now() - historyMs;
  for (const li of [...list.children]) {
    if (list.children.length > KEEP || Date.parse(li.dataset.time) < oldest) li.remove();
  }
  empty.hidden = list.children.length > 0;
}

function add(message, counted) {
  if (list.querySelector(`[data-chat-id="${Number(message.id)}"]`)) return;
  const stick = nearEnd();
  // In id order (a message of the history may arrive after a newer live one).
  const after = [...list.children].find((li) => Number(li.dataset.chatId) > message.id);
  list.insertBefore(item(message), after || null);
  if (counted && body.hidden) {
    unread += 1;
    renderToggle();
  }
  if (counted && behindTab()) {
    tabUnread += 1;
    renderTabCount();
  }
  prune();
  if (stick) scrollToEnd();
}

function merge(messages) {
  // The snapshot's recent messages: add those missing; drop those it no longer has (deleted while away).
  if (!Array.isArray(messages)) return;
  const ids = new Set(messages.map((m) => m.id));
  const newest = messages.length ? Math.max(...ids) : 0;
  for (const li of [...list.children]) {
    const id = Number(li.dataset.chatId);
    if (id <= newest && !ids.has(id)) li.remove();
  }
  for (const message of messages) add(message, false);
  prune();
  scrollToEnd();
}

function remove(id) {
  const li = list.querySelector(`[data-chat-id="${Number(id)}"]`);
  if (li) li.remove();
  prune();
}

/* ── sending ─────────────────────────────────────────────────────────────── */

const REFUSALS = {
  not_authenticated: () => gettext("Log in to chat."),
  chat_empty: () => gettext("Write something first."),
  chat_too_long: () => fill(gettext("A message is at most %(count)s characters."), { count: maxChars }),
  chat_rate_limited: () => gettext("You are sending messages too fast. Wait a few seconds."),
  chat_muted: () => gettext("You cannot write in the chat for now."),
  rate_limited: () => gettext("You are sending messages too fast. Wait a few seconds."),
};

function refused(frame) {
  const explain = REFUSALS[frame.code];
  errorLine.textContent = explain ? explain() : gettext("Your account cannot write in the chat now.");
  errorLine.dataset.code = frame.code || "";
  if (input && !input.value && lastSent) input.value = lastSent;
}

let live = null;

if (form) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    errorLine.textContent = "";
    errorLine.dataset.code = "";
    if (!text) {
      refused({ code: "chat_empty" });
      return;
    }
    if (text.length > maxChars) {
      refused({ code: "chat_too_long" });
      return;
    }
    if (!live || !live.up) {
      errorLine.textContent = gettext("Not connected; try again in a moment.");
      return;
    }
    lastSent = text;
    live.send({ type: "chat.send", text });
    input.value = "";
  });
}

/* ── frames ──────────────────────────────────────────────────────────────── */

/** True when the frame is the chat's alone (the table's client does not see it). */
function take(frame) {
  switch (frame.type) {
    case "chat.message":
      add(frame, true);
      return true;
    case "chat.deleted":
      remove(frame.id);
      return true;
    case "snapshot":
      merge(frame.chat);
      return false;
    case "error":
      if (frame.frame !== "chat.send") return false;
      refused(frame);
      return true;
    default:
      return false;
  }
}

function attach() {
  const table = window.casinoTable;
  if (!table || !table.live) return false;
  live = table.live;
  const inner = live.onFrame;
  live.onFrame = (frame) => {
    if (!take(frame)) inner(frame);
  };
  if (live.up) live.send({ type: "snapshot" }); // its first snapshot came before this script: ask for the chat
  return true;
}

setHidden(storedHidden(), false);
prune();
if (!attach()) window.addEventListener("DOMContentLoaded", attach, { once: true });
window.casinoChat = { take };
