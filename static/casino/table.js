/* The table page: one WebSocket for the live game (API.md), REST for confirming bets. */
(function () {
  "use strict";
  const { formatMoney, api, uuid } = window.Casino;
  const root = document.getElementById("table");
  const tableId = root.dataset.tableId;
  const signedIn = root.dataset.signedIn === "1";
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

  const state = { round: null, offsetMs: 0, pending: {}, confirmed: [], socket: null, retry: 0 };

  function cardEl(code) {
    const el = document.createElement("span");
    const rank = code[0] === "T" ? "10" : code[0];
    el.className = "card suit-" + code[1];
    el.textContent = rank + SUITS[code[1]];
    el.dataset.card = code;
    return el;
  }

  function notice(text, kind) {
    const el = $("notice");
    el.textContent = text || "";
    el.className = kind || "";
  }

  function setBalance(value) {
    if (signedIn && value !== undefined && value !== null) $("balance").textContent = formatMoney(value);
  }

  function clearHands() {
    ["player-cards", "banker-cards"].forEach((id) => ($(id).innerHTML = ""));
    $("player-total").textContent = "";
    $("banker-total").textContent = "";
    $("result").textContent = "";
  }

  function showCard(hand, code, totals) {
    $(hand + "-cards").appendChild(cardEl(code));
    if (totals) {
      if (totals.player !== undefined) $("player-total").textContent = totals.player;
      if (totals.banker !== undefined) $("banker-total").textContent = totals.banker;
    }
  }

  function setRound(round) {
    state.round = round;
    const label = round ? "Round " + round.number + " · " + round.state : "Waiting for the next round";
    $("round-label").textContent = label;
    root.dataset.roundState = round ? round.state : "";
    const canBet = signedIn && round && round.state === "betting";
    if (signedIn) $("confirm").disabled = !canBet;
  }

  function tick() {
    const round = state.round;
    let text = "";
    if (round && round.state === "betting" && round.closes_at) {
      const left = Date.parse(round.closes_at) - (Date.now() + state.offsetMs);
      text = left > 0 ? Math.ceil(left / 1000) + "s" : "0s";
    }
    $("countdown").textContent = text;
  }
  setInterval(tick, 200);

  function syncClock(serverTime) {
    if (serverTime) state.offsetMs = Date.parse(serverTime) - Date.now();
  }

  function renderRoads(roads) {
    const plate = $("bead-plate");
    if (!roads || !roads.bead_plate) return;
    plate.innerHTML = "";
    const cells = roads.bead_plate.flat ? roads.bead_plate.flat(2) : roads.bead_plate;
    cells.forEach((cell) => {
      if (!cell) return;
      const winner = typeof cell === "string" ? cell : cell.winner || cell.result || "";
      const el = document.createElement("span");
      el.className = "bead " + winner;
      el.textContent = winner ? winner[0].toUpperCase() : "";
      plate.appendChild(el);
    });
  }

  function renderMyBets() {
    if (!signedIn) return;
    const list = $("my-bets");
    list.innerHTML = "";
    state.confirmed.forEach((bet) => {
      const li = document.createElement("li");
      li.dataset.betId = bet.id;
      const paid = bet.payout !== undefined && bet.payout !== null ? " → " + formatMoney(bet.payout) : "";
      li.textContent = bet.type + " " + formatMoney(bet.amount) + " · " + bet.status + paid;
      list.appendChild(li);
    });
  }

  function renderPending() {
    if (!signedIn) return;
    document.querySelectorAll("[data-stake-for]").forEach((el) => {
      const amount = state.pending[el.dataset.stakeFor];
      el.textContent = amount ? formatMoney(amount) : "";
    });
  }

  function renderTotals(totals) {
    document.querySelectorAll("[data-total-for]").forEach((el) => {
      const t = totals && totals[el.dataset.totalFor];
      el.textContent = t ? formatMoney(t.amount !== undefined ? t.amount : t) + (t.players ? " · " + t.players : "") : "";
    });
  }

  function showResult(event) {
    const winner = event.winner;
    const words = { player: "Player wins", banker: "Banker wins", tie: "Tie" };
    $("result").textContent =
      (words[winner] || winner) + " " + event.player_total + " – " + event.banker_total;
    $("result").dataset.winner = winner;
  }

  function applySnapshot(snap) {
    syncClock(snap.server_time);
    setBalance(snap.balance);
    clearHands();
    const round = snap.round || null;
    setRound(round);
    const cards = (round && round.cards) || snap.cards || [];
    cards.forEach((c) => showCard(c.hand, c.card, c.totals || c.running_totals));
    if (round && (round.player_total !== undefined && round.player_total !== null)) {
      $("player-total").textContent = round.player_total;
      $("banker-total").textContent = round.banker_total;
    }
    if (round && round.winner) showResult(round);
    state.confirmed = snap.my_bets || snap.bets || [];
    renderMyBets();
    renderRoads(snap.roads);
    if (snap.shoe) {
      $("shoe-info").textContent =
        "Shoe " + snap.shoe.number + " · cards left " + snap.shoe.cards_left + " · commitment " + snap.shoe.commitment;
    }
    if (snap.table && snap.table.status && snap.table.status !== "open") notice("Table " + snap.table.status, "warn");
  }

  const handlers = {
    snapshot: applySnapshot,
    "round.opened": (e) => {
      syncClock(e.server_time);
      clearHands();
      state.confirmed = [];
      state.pending = {};
      renderPending();
      renderMyBets();
      renderTotals(null);
      notice("");
      setRound({ id: e.round_id, number: e.number, state: "betting", closes_at: e.closes_at });
    },
    "round.closed": () => {
      if (state.round) setRound(Object.assign({}, state.round, { state: "closed" }));
      notice("No more bets");
    },
    "bets.totals": (e) => renderTotals(e.totals),
    "card.dealt": (e) => {
      if (state.round && state.round.state !== "dealing") setRound(Object.assign({}, state.round, { state: "dealing" }));
      showCard(e.hand, e.card, e.totals);
    },
    "round.result": (e) => {
      if (state.round) setRound(Object.assign({}, state.round, { state: "result" }));
      $("player-total").textContent = e.player_total;
      $("banker-total").textContent = e.banker_total;
      showResult(e);
      renderRoads(e.roads);
    },
    "round.settled": (e) => {
      setBalance(e.balance);
      const byId = {};
      (e.bets || []).forEach((b) => (byId[b.id] = b));
      state.confirmed = state.confirmed.map((b) => byId[b.id] || b);
      renderMyBets();
      notice("Settled: you got back " + formatMoney(e.total_won), "ok");
    },
    "round.cancelled": (e) => {
      notice("Round cancelled, all bets refunded: " + (e.reason || ""), "warn");
      if (state.round) setRound(Object.assign({}, state.round, { state: "cancelled" }));
    },
    "table.paused": (e) => notice("Table paused: " + (e.reason || ""), "warn"),
    "table.resumed": () => notice("Table resumed", "ok"),
    "shoe.shuffled": (e) => notice("New shoe " + e.shoe_number + " · burned " + e.burn_count, "ok"),
    error: (e) => notice(e.detail || e.code, "error"),
    pong: (e) => syncClock(e.server_time),
  };

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(scheme + "://" + location.host + "/ws/tables/" + tableId + "/");
    state.socket = socket;
    socket.onopen = () => {
      state.retry = 0;
      root.dataset.connected = "1";
    };
    socket.onmessage = (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch (e) {
        return;
      }
      const handler = handlers[event.type];
      if (handler) handler(event);
    };
    socket.onclose = () => {
      root.dataset.connected = "0";
      notice("Reconnecting…", "warn");
      state.retry = Math.min(state.retry + 1, 5);
      setTimeout(connect, 500 * state.retry);
    };
  }

  if (signedIn) {
    document.querySelectorAll(".spot").forEach((spot) =>
      spot.addEventListener("click", () => {
        const chip = document.querySelector("input[name=chip]:checked").value;
        const type = spot.dataset.type;
        state.pending[type] = ((Number(state.pending[type]) || 0) + Number(chip)).toFixed(2);
        renderPending();
      }),
    );
    $("clear").addEventListener("click", () => {
      state.pending = {};
      renderPending();
    });
    $("bet-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const bets = Object.entries(state.pending).map(([type, amount]) => ({ type, amount }));
      if (!state.round || !bets.length) return notice("Choose a bet spot first", "warn");
      const mode = document.querySelector("input[name=mode]:checked").value;
      $("confirm").disabled = true;
      const { ok, data } = await api(
        "POST",
        "/api/rounds/" + state.round.id + "/bets/",
        { mode, bets },
        { "Idempotency-Key": uuid() },
      );
      $("confirm").disabled = !(state.round && state.round.state === "betting");
      if (!ok) return notice(data.detail || data.code, "error");
      state.pending = {};
      state.confirmed = state.confirmed.concat(data.bets);
      renderPending();
      renderMyBets();
      setBalance(data.balance);
      notice("Bets confirmed", "ok");
    });
  }
  connect();
})();
