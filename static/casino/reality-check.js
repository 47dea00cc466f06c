/* The player's reality check (accounts.limits, set on the profile): every `data-every` minutes from the start of
 * the session (`data-since`, the latest sign-in), a dialog says how long they have been playing, what they staked
 * since and the net result (`data-totals-url`, read afresh each time), with their bet record, "Keep playing" and
 * "Leave" (signs out). The server's `data-now` corrects this browser's clock.
 *
 * While it is open, betting is held: `<html data-betting-hold>` is set and a `casino:betting-hold` event tells
 * the table clients (static/casino/table/betslip.js, canBet) to redraw their controls, disabled, until the player
 * answers. */
(function () {
  "use strict";
  const dialog = document.getElementById("reality-check");
  if (!dialog || typeof dialog.showModal !== "function") return;
  const every = Number(dialog.dataset.every) * 60000;
  const since = Date.parse(dialog.dataset.since);
  const skew = Date.parse(dialog.dataset.now) - Date.now();
  if (!(every > 0) || Number.isNaN(since) || Number.isNaN(skew)) return;
  const text = dialog.querySelector("[data-reality-text]");
  const totals = dialog.querySelector("[data-reality-totals]");

  function now() {
    return Date.now() + skew;
  }

  function hold(on) {
    if (on) document.documentElement.dataset.bettingHold = "reality-check";
    else delete document.documentElement.dataset.bettingHold;
    document.dispatchEvent(new Event("casino:betting-hold"));
  }

  function schedule() {
    const played = now() - since;
    const next = (Math.floor(played / every) + 1) * every;
    window.setTimeout(show, Math.max(1000, next - played));
  }

  async function readTotals() {
    try {
      const answer = await fetch(dialog.dataset.totalsUrl, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!answer.ok) throw new Error(String(answer.status));
      const body = await answer.json();
      dialog.querySelector("[data-reality-staked]").textContent = body.staked;
      dialog.querySelector("[data-reality-net]").textContent = body.net;
      dialog.querySelector("[data-reality-pending]").textContent = body.pending;
      dialog.querySelectorAll("[data-reality-open]").forEach((el) => (el.hidden = !body.open));
      totals.hidden = false;
    } catch (error) {
      totals.hidden = true; // the time played is still shown
    }
  }

  async function show() {
    const minutes = Math.round((now() - since) / 60000);
    text.textContent = text.dataset.template.replace("##", String(minutes));
    if (!dialog.open) {
      hold(true);
      await readTotals();
      dialog.showModal();
    } else {
      readTotals();
    }
    schedule();
  }

  dialog.addEventListener("close", () => hold(false));
  schedule();
})();
