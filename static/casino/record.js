/* The bet record: GET /api/bets/ with filters, newest first, "More" follows the next page. */
(function () {
  "use strict";
  const { formatMoney, api } = window.Casino;
  const form = document.getElementById("record-filters");
  const body = document.querySelector("#record tbody");
  const more = document.getElementById("more");
  let next = null;

  function row(bet) {
    const tr = document.createElement("tr");
    tr.dataset.betId = bet.id;
    const cells = [
      new Date(bet.placed_at).toLocaleString("en-US"),
      bet.table_name || bet.table || "",
      bet.round_number !== undefined ? "#" + bet.round_number : bet.round || "",
      bet.type,
      bet.mode,
      formatMoney(bet.amount),
      bet.status,
      bet.payout === null || bet.payout === undefined ? "–" : formatMoney(bet.payout),
    ];
    cells.forEach((text) => {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    });
    return tr;
  }

  async function load(url, append) {
    const { ok, data } = await api("GET", url);
    if (!append) body.innerHTML = "";
    if (!ok) {
      const tr = document.createElement("tr");
      tr.textContent = data.detail || data.code;
      body.appendChild(tr);
      return;
    }
    (data.results || []).forEach((bet) => body.appendChild(row(bet)));
    next = data.next;
    more.hidden = !next;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = new URLSearchParams();
    new FormData(form).forEach((value, key) => value && params.set(key, value));
    load("/api/bets/?" + params.toString(), false);
  });
  more.addEventListener("click", () => next && load(next, true));
  load("/api/bets/", false);
})();
