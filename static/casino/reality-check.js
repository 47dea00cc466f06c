/* The player's reality check (accounts.limits, set on the profile): every `data-every` minutes from the start of
 * the session (`data-since`, the latest sign-in), a dialog says how long they have been playing, with their bet
 * record and a way out. The server's `data-now` corrects this browser's clock. */
(function () {
  "use strict";
  const dialog = document.getElementById("reality-check");
  if (!dialog || typeof dialog.showModal !== "function") return;
  const every = Number(dialog.dataset.every) * 60000;
  const since = Date.parse(dialog.dataset.since);
  const skew = Date.parse(dialog.dataset.now) - Date.now();
  if (!(every > 0) || Number.isNaN(since) || Number.isNaN(skew)) return;
  const text = dialog.querySelector("[data-reality-text]");

  function now() {
    return Date.now() + skew;
  }

  function schedule() {
    const played = now() - since;
    const next = (Math.floor(played / every) + 1) * every;
    window.setTimeout(show, Math.max(1000, next - played));
  }

  function show() {
    const minutes = Math.round((now() - since) / 60000);
    text.textContent = text.dataset.template.replace("##", String(minutes));
    if (!dialog.open) dialog.showModal();
    schedule();
  }

  schedule();
})();
