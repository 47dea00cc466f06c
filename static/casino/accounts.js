/* The signed-in player's sound preference, kept on their profile (data-sound on <body>).
 * Loaded synchronously from the header, so it runs before any page module: the tables' sound module reads
 * localStorage "casino.sound", which starts every page as the profile says. A "casino:sound" event
 * ({ detail: { on } }) on the document saves a change made at a table to the profile.
 * On a page that shows the live wallet balance (#balance, the table page), the header's balance follows it. */
(function () {
  "use strict";
  const KEY = "casino.sound";
  const script = document.currentScript;
  const body = document.body;
  if (!body || !body.dataset.sound) return;
  try {
    localStorage.setItem(KEY, body.dataset.sound === "on" ? "on" : "off");
  } catch (error) {
    /* storage refused (private mode): the tables fall back to silence */
  }

  function cookie(name) {
    const match = document.cookie.split("; ").find((c) => c.startsWith(name + "="));
    return match ? decodeURIComponent(match.split("=")[1]) : "";
  }

  document.addEventListener("DOMContentLoaded", () => {
    const live = document.getElementById("balance");
    const shown = document.querySelector("[data-header-balance] bdi");
    if (!live || !shown) return;
    const follow = () => {
      const text = live.textContent.trim();
      if (/^[0-9,]+\.[0-9]{2}$/.test(text)) shown.textContent = text;
    };
    new MutationObserver(follow).observe(live, { childList: true, characterData: true, subtree: true });
    follow();
  });

  document.addEventListener("casino:sound", (event) => {
    const on = Boolean(event.detail && event.detail.on);
    body.dataset.sound = on ? "on" : "off";
    fetch(script.dataset.soundUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": cookie("csrftoken"), Accept: "application/json" },
      body: new URLSearchParams({ sound: on ? "on" : "off" }),
    }).catch(() => {
      /* offline: the choice still holds on this device */
    });
  });
})();
