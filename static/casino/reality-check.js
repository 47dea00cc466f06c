/* The player's reality check (accounts.limits, set on the profile): once `data-every` minutes have passed since the
 * later of the session's start (`data-since`, the latest sign-in) and the player's last answer, at `data-due`, a
 * dialog says how long they have been playing, what they staked since and the net result (`data-totals-url`, read
 * afresh each time), with their bet record, "Keep playing" and "Leave" (signs out). The server's `data-now`
 * corrects this browser's clock.
 *
 * The server holds bets from `data-due` until the player answers (403 `reality_check_due`): "Keep playing" posts
 * the answer (`data-answer-url`, POST /api/account/reality-check/), which says when the next check is due. The
 * dialog stays until then: Escape does not dismiss it, and a dialog the browser closes anyway opens again.
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
  let due = Date.parse(dialog.dataset.due);
  if (!(every > 0) || Number.isNaN(since) || Number.isNaN(skew) || Number.isNaN(due)) return;
  const text = dialog.querySelector("[data-reality-text]");
  const totals = dialog.querySelector("[data-reality-totals]");
  const keepPlaying = dialog.querySelector("[data-reality-continue]");
  const failed = dialog.querySelector("[data-reality-error]");
  let answered = true; // nothing to answer until the dialog shows
  let timer = 0;

  function now() {
    return Date.now() + skew;
  }

  function hold(on) {
    if (on) document.documentElement.dataset.bettingHold = "reality-check";
    else delete document.documentElement.dataset.bettingHold;
    document.dispatchEvent(new Event("casino:betting-hold"));
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = window.setTimeout(show, Math.max(1000, due - now()));
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
    answered = false;
    failed.hidden = true;
    if (!dialog.open) {
      hold(true);
      await readTotals();
      if (!dialog.open && !answered) dialog.showModal();
    }
  }

  function finish(nextDue) {
    answered = true;
    dialog.close();
    if (!Number.isNaN(nextDue)) {
      due = nextDue;
      schedule();
    }
  }

  keepPlaying.addEventListener("click", async () => {
    keepPlaying.disabled = true;
    failed.hidden = true;
    try {
      const answer = await window.Casino.api("POST", dialog.dataset.answerUrl);
      if (answer.ok) finish(Date.parse(answer.data.due_at));
      // Answered in another tab meanwhile, or the check was turned off: nothing is waiting here either.
      else if (answer.data && answer.data.code === "reality_check_not_due") finish(Date.parse(answer.data.due_at || ""));
      else failed.hidden = false;
    } catch (error) {
      failed.hidden = false; // the dialog stays: bets are held until the answer gets through
    } finally {
      keepPlaying.disabled = false;
    }
  });

  dialog.addEventListener("cancel", (event) => event.preventDefault()); // Escape: the check waits for an answer
  dialog.addEventListener("close", () => {
    if (answered) hold(false);
    else dialog.showModal(); // the browser closed it anyway (a repeated Escape): it stays until answered
  });
  schedule();
})();
