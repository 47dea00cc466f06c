/* Shared helpers for the player's pages: CSRF, JSON requests, the language menu. Money is written by
 * format.js's formatMoney (ES modules import it). */
(function () {
  "use strict";
  function cookie(name) {
    const match = document.cookie.split("; ").find((c) => c.startsWith(name + "="));
    return match ? decodeURIComponent(match.split("=")[1]) : "";
  }

  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".replace(/[xy]/g, (c) => {
      const r = (crypto.getRandomValues(new Uint8Array(1))[0] % 16) | 0;
      return (c === "x" ? r : (r & 0x3) | 0x8).toString(16);
    });
  }

  // options.timeoutMs: give up (the promise rejects) after that long; only for a request that is safe to lose.
  async function api(method, url, body, headers, options) {
    const timeoutMs = options && options.timeoutMs;
    const response = await fetch(url, {
      method,
      signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined,
      credentials: "same-origin",
      headers: Object.assign(
        { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": cookie("csrftoken") },
        headers || {},
      ),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = { code: "bad_response", detail: "The server answered with something that is not JSON." };
    }
    return { ok: response.ok, status: response.status, data };
  }

  window.Casino = { api, uuid };

  // A menu that applies itself (the language): a choice picked with the mouse or by touch applies at once, but the
  // arrow keys, which change a closed menu's value one step at a time, do not reload the page under the keyboard;
  // Enter, or leaving the menu, applies the choice (WCAG 3.2.2, on input).
  for (const select of document.querySelectorAll("select[data-submit-on-change]")) {
    const initial = select.value;
    let keyed = false;
    const apply = () => {
      if (select.value !== initial) select.form.submit();
    };
    select.addEventListener("pointerdown", () => (keyed = false));
    select.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        apply();
      } else if (event.key !== "Tab" && event.key !== "Shift") keyed = true;
    });
    select.addEventListener("change", () => {
      if (!keyed) apply();
    });
    select.addEventListener("blur", () => {
      if (keyed) apply();
    });
  }
})();
