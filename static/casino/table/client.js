/* One live table's client: one state object fed by its WebSocket's frames, small render functions per region.
 * A page may hold several (the table page one, /multi/ up to four): every element is looked up inside the
 * table's own root through `find`, never by a global id (docs/table-client.md). */
import { cents, fill, formatMoney } from "../format.js";
import { Board, outcomes, violations } from "./board.js";
import { cardElement } from "./cards.js";
import { Countdown } from "./countdown.js";
import { Live } from "./live.js";
import { Reveal } from "./reveal.js";
import { askMarks, drawAsk, drawRoads, drawStats, previewAsk, shoeStats } from "./roads.js";
import { play, setSound, soundOn } from "./sound.js";

const RANK = { betting: 1, closed: 2, dealing: 3, result: 4, settled: 5, cancelled: 6 };
const NO_ASK = { big_eye_boy: null, small_road: null, cockroach_pig: null };
/* A new shoe's roads, as tables.engine.roads.roads([]) gives them. */
const EMPTY_ROADS = {
  bead_plate: [],
  big_road: [],
  leading_ties: 0,
  big_eye_boy: [],
  small_road: [],
  cockroach_pig: [],
  ask: { banker: NO_ASK, player: NO_ASK },
};

/* An element the page does not show (a compact table has no shoe panel, no "My bets"): writes to it go nowhere. */
function stub(cache, id) {
  if (!cache[id]) cache[id] = document.createElement(/^(undo|clear|repeat|double|confirm|sound|ask-|copy-)/.test(id) ? "button" : "div");
  return cache[id];
}

/** One table on a page. `root`: the table's element (its data-round-state, data-round-id, data-connected are
 * the hooks); `config`: what the server rendered (see table_board); `options`:
 *  - find(name): the element of that name inside the table (default: document.getElementById);
 *  - mode(): the betting mode when the page shares one choice (default: the table's own radio buttons);
 *  - balance(): the player's balance in cents when the page shares one (default: this table's);
 *  - onBalance(value): a balance the server sent (a snapshot, a confirm, a settlement). */
export class TableClient {
  constructor(root, config, options = {}) {
    Object.assign(this, createTable(root, config, options));
  }
}

function createTable(root, config, options) {
  const stubs = {};
  const find = options.find || ((id) => document.getElementById(id));
  const $ = (id) => find(id) || stub(stubs, id);
  /* Write only what differs: an unchanged text or flag is then no DOM mutation (no style or layout to redo). */
  const setText = (el, text) => {
    text = String(text);
    if (el.textContent !== text) el.textContent = text;
  };
  const setDisabled = (el, disabled) => {
    if (el.disabled !== disabled) el.disabled = disabled;
  };
  const signedIn = config.signed_in;
  const names = config.bet_names;

  const S = {
    round: null, // {id, number, state, closes_at, bet_types, cards: [...], winner, player_total, banker_total, flags}
    paused: false,
    tableClosed: false,
    shoe: null,
    roads: null,
    balance: null, // cents
    myBets: [], // this round's confirmed bets, as the server sent them
    settled: new Set(), // rounds whose personal settlement was shown
    unplaced: null, // pending chips that missed the close, put back when the next round opens
    // What stopped play, kept on screen for as long as it matters (renderStop): {kind: "cancelled" | "paused" |
    // "table", cause: "operator" | "paused" | "fault" | null, roundId, number, mine: cents of the player's bets on it}
    stop: null,
    // The pending batch's Idempotency-Key: one per batch (round, mode, stakes), kept across retries until a
    // definitive answer, so a retry after a lost answer never places the bets twice. {key, fingerprint, doubt}
    batch: null,
  };

  /* ── small pieces ───────────────────────────────────────────────────────── */

  /** Say `text` through the polite live region. Each message is a new line in it (the last three are kept), so two
   * messages in quick succession (the result, then your net) are both read; nothing is repeated. */
  function announce(text) {
    const live = $("sr-live");
    if (!text) return;
    const line = document.createElement("p");
    line.textContent = text;
    live.appendChild(line);
    while (live.childElementCount > 3) live.firstElementChild.remove();
  }

  /** The hands as dealt, for the live region once the result is known: "Player: 10♦, K♠, total 0." */
  function handsSpoken(round) {
    return ["player", "banker"]
      .map((hand) => {
        const cards = [...$(hand + "-cards").querySelectorAll(".card")].map((el) => el.getAttribute("aria-label"));
        return fill(gettext("%(hand)s: %(cards)s, total %(total)s."), {
          hand: names[hand] || hand,
          cards: cards.join(", "),
          total: round[hand + "_total"],
        });
      })
      .join(" ");
  }

  function notice(text, kind = "") {
    const el = $("notice");
    el.textContent = text || "";
    el.className = "notice " + kind;
    delete el.dataset.stop;
  }

  /** A refusal in the player's words: the server's (docs/api.md, errors) or the board's own, same shape. */
  function explain(problem) {
    const name = problem.bet_type ? names[problem.bet_type] : "";
    const limit = problem.limit !== undefined && problem.limit !== null ? formatMoney(problem.limit) : "";
    switch (problem.code) {
      case "below_min":
        return fill(gettext("The minimum on %(bet)s is %(amount)s."), { bet: name, amount: limit });
      case "above_max":
        if (board.isPersonal(problem)) {
          return fill(gettext("Your personal maximum on %(bet)s is %(amount)s in a round."), { bet: name, amount: limit });
        }
        return fill(gettext("The maximum on %(bet)s is %(amount)s."), { bet: name, amount: limit });
      case "pb_difference_limit":
        return fill(gettext("Player and Banker stakes may differ by at most %(amount)s."), { amount: limit });
      case "insufficient_funds":
        return gettext("Your balance does not cover these bets.");
      case "bet_unavailable":
        return fill(gettext("%(bet)s is not open in this round."), { bet: name });
      case "betting_closed":
        return gettext("Betting has closed for this round.");
      case "invalid_amount":
        return gettext("That stake is not a valid amount.");
      case "throttled":
        return gettext("Too many requests; try again in a moment.");
      case "not_authenticated":
      case "authentication_failed":
        return gettext("Your session has ended; log in again to bet.");
      case "account_disabled":
        return gettext("This account is disabled.");
      default:
        return fill(gettext("The bets were refused (%(code)s). Nothing was charged."), { code: problem.code });
    }
  }

  function closedReason(spot, shoeRound) {
    if (spot.last_round && shoeRound > spot.last_round) {
      return fill(gettext("Closed after round %(round)s of the shoe"), { round: spot.last_round });
    }
    return gettext("Not open this round");
  }

  function setBalance(value) {
    if (!signedIn || value === undefined || value === null) return;
    S.balance = cents(value);
    $("balance").textContent = formatMoney(value);
    if (options.onBalance) options.onBalance(value);
  }

  /* ── the board ──────────────────────────────────────────────────────────── */

  const board = new Board($("board"), config, {
    signedIn,
    balance: balanceCents,
    explain,
    closedReason,
    totalLabel: (entry) =>
      fill(gettext("All: %(amount)s · %(players)s"), { amount: formatMoney(entry.amount), players: entry.players }),
    changed: () => renderControls(),
  });

  /** The player's personal maximum, next to the table's limits (hidden when they have none). */
  function renderPersonalLimits(limits) {
    board.setPersonalLimits(limits);
    const max = board.personalMax();
    $("personal-limits").hidden = max === null;
    if (max !== null) setText($("personal-max"), formatMoney(max));
  }

  function balanceCents() {
    return options.balance ? options.balance() : S.balance;
  }

  function canBet() {
    return (
      signedIn &&
      S.round &&
      S.round.state === "betting" &&
      !S.paused &&
      root.dataset.connected === "1" &&
      !document.documentElement.dataset.bettingHold // the reality check is waiting for an answer
    );
  }

  function renderControls() {
    if (!signedIn) return;
    const open = canBet();
    const pending = board.hasPending();
    const held = open && inDoubt(); // a batch awaiting its answer: only Confirm (the retry) may touch it
    setText($("stake-total"), formatMoney((board.pendingTotal() + sumConfirmed()) / 100));
    setDisabled($("undo"), !open || !pending || held);
    setDisabled($("clear"), !open || !pending || held);
    setDisabled($("repeat"), !open || !board.lastBets.length || held);
    setDisabled($("double"), !open || !(board.lastBets.length || pending || sumConfirmed()) || held);
    setDisabled($("confirm"), !open || !pending || confirming);
    $("chips").querySelectorAll(".chip").forEach((chip) => setDisabled(chip, !open || held));
  }

  /** Was the pending batch sent without an answer saying whether it was placed? */
  function inDoubt() {
    return Boolean(S.batch && S.batch.doubt);
  }

  function sumConfirmed() {
    return Object.values(board.confirmed).reduce((a, b) => a + b, 0);
  }

  const MODE_NAMES = { traditional: gettext("Traditional"), no_commission: gettext("No commission") };

  function renderMyBets() {
    if (!signedIn) return;
    const list = $("my-bets");
    list.innerHTML = "";
    for (const bet of S.myBets) {
      const li = document.createElement("li");
      li.dataset.betId = bet.id;
      li.dataset.type = bet.type;
      li.dataset.status = bet.status;
      const net = bet.payout !== null && bet.payout !== undefined ? cents(bet.payout) - cents(bet.amount) : null;
      const status = {
        open: gettext("Placed"),
        won: gettext("Won"),
        lost: gettext("Lost"),
        push: gettext("Push"),
        refunded: gettext("Refunded"),
      }[bet.status];
      li.innerHTML =
        '<span class="bet-name"></span><span class="bet-amount" dir="ltr"></span><span class="bet-net" dir="ltr"></span>';
      li.dataset.mode = bet.mode || "";
      // The mode changes only what a Banker bet pays, so it is named there (and nowhere it would be noise).
      const mode = bet.type === "banker" && MODE_NAMES[bet.mode] ? " (" + MODE_NAMES[bet.mode] + ")" : "";
      li.querySelector(".bet-name").textContent = (names[bet.type] || bet.type) + mode + " · ";
      const statusEl = document.createElement("span");
      statusEl.className = "bet-status";
      statusEl.textContent = status || bet.status;
      li.querySelector(".bet-name").appendChild(statusEl);
      li.querySelector(".bet-amount").textContent = formatMoney(bet.amount);
      li.querySelector(".bet-net").textContent =
        net === null || bet.status === "refunded" ? "" : (net > 0 ? "+" : net < 0 ? "−" : "") + formatMoney(Math.abs(net) / 100);
      list.appendChild(li);
    }
  }

  /* ── the stage: phase, cards, result ───────────────────────────────────── */

  /* REVEAL (reveal.js): a dealt card turns before it counts; its hand's total is written when the turn ends. */
  const reveal = new Reveal({
    onTurned: (entry) => setText($(entry.hand + "-total"), entry.totals[entry.hand]),
    onTurn: () => play("card"),
    squeezeLabel: gettext("Face-down card: drag or hold it to squeeze it open"),
  });

  function setPhase(key) {
    const text = {
      betting: gettext("Place your bets"),
      closed: gettext("No more bets"),
      dealing: gettext("Dealing"),
      result: "",
      settled: "",
      cancelled: gettext("Round cancelled, every bet refunded"),
      paused: gettext("Table paused"),
      table_closed: gettext("Table closed"),
      waiting: gettext("Waiting for the next round"),
      shuffle: gettext("Shuffling a new shoe"),
    }[key];
    const phase = $("phase");
    if (phase.dataset.phase !== key) phase.dataset.phase = key;
    setText(phase, text !== "" ? text : S.round && S.round.winner ? winnerText(S.round.winner) : "");
  }

  function winnerText(winner) {
    return { player: gettext("Player wins"), banker: gettext("Banker wins"), tie: gettext("Tie") }[winner];
  }

  /** A round's score, winner first ("Banker wins 6 – 4"): the higher total is always the winner's (a tie: equal). */
  function scoreText(round) {
    const [high, low] = [round.player_total, round.banker_total].sort((a, b) => b - a);
    return fill(gettext("%(winner)s %(high)s – %(low)s"), { winner: winnerText(round.winner), high, low });
  }

  function clearStage() {
    reveal.reset(); // REVEAL
    for (const hand of ["player", "banker"]) {
      $(hand + "-cards").innerHTML = "";
      $(hand + "-total").textContent = "";
      $(hand + "-hand").classList.remove("winner");
    }
    const result = $("result");
    result.hidden = true;
    delete result.dataset.winner;
    $("result-text").textContent = ""; // a refund shown later must never sit next to an earlier round's winner
    $("result-net").textContent = "";
    $("result-net").className = "net";
    $("badges").innerHTML = "";
    board.clearOutcomes();
  }

  function showCard(entry, animate) {
    const container = $(entry.hand + "-cards");
    if (container.querySelector(`[data-position="${entry.position}"]`)) return false;
    const el = cardElement(entry.card, { third: entry.position >= 5, hidden: gettext("Face-down card") });
    el.dataset.position = entry.position;
    container.appendChild(el);
    // REVEAL: the total waits for the turn (reveal.js); a snapshot's cards are face-up at once
    if (animate) reveal.deal(el, entry, { last: Boolean(entry.last) });
    else reveal.show(el, entry);
    return true;
  }

  function showResult(round) {
    const result = $("result");
    result.dataset.winner = round.winner;
    $("result-text").textContent = scoreText(round);
    $("player-total").textContent = round.player_total;
    $("banker-total").textContent = round.banker_total;
    for (const hand of ["player", "banker"]) $(hand + "-hand").classList.toggle("winner", round.winner === hand || round.winner === "tie");
    const f = round.flags;
    const badges = [];
    if (f.player_natural || f.banker_natural) badges.push(["natural", gettext("Natural")]);
    if (f.player_pair) badges.push(["player_pair", names.player_pair]);
    if (f.banker_pair) badges.push(["banker_pair", names.banker_pair]);
    if (f.perfect_pair) badges.push(["perfect_pair", names.perfect_pair]);
    if (round.winner === "banker" && round.banker_total === 6) badges.push(["lucky_six", names.lucky_six]);
    $("badges").innerHTML = "";
    for (const [flag, label] of badges) {
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.dataset.flag = flag;
      badge.textContent = label;
      $("badges").appendChild(badge);
    }
    result.hidden = false;
    board.setOutcomes(outcomes(round, config.bonus_margins));
    setPhase("result");
  }

  /** The player's own result: net win or loss over this round's bets. */
  function showNet(bets) {
    const settled = bets.filter((b) => b.payout !== null && b.payout !== undefined);
    if (!settled.length) return;
    const staked = settled.reduce((a, b) => a + cents(b.amount), 0);
    const back = settled.reduce((a, b) => a + cents(b.payout), 0);
    const net = back - staked;
    const el = $("result-net");
    if (settled.every((b) => b.status === "refunded")) {
      el.textContent = fill(gettext("Refunded %(amount)s"), { amount: formatMoney(staked / 100) });
      el.className = "net push";
    } else if (net > 0) {
      el.textContent = fill(gettext("You win %(amount)s"), { amount: formatMoney(net / 100) });
      el.className = "net won";
      play("win");
    } else if (net < 0) {
      el.textContent = fill(gettext("You lose %(amount)s"), { amount: formatMoney(-net / 100) });
      el.className = "net lost";
    } else {
      el.textContent = gettext("Stake returned");
      el.className = "net push";
    }
    el.dataset.net = String(net / 100);
    $("result").hidden = false;
    announce(el.textContent);
  }

  /* ── shoe, roads ───────────────────────────────────────────────────────── */

  function renderShoe(shoe, roundNumber) {
    if (!shoe) return;
    S.shoe = Object.assign(S.shoe || {}, shoe);
    setText($("shoe-label"), fill(gettext("Shoe %(number)s"), { number: S.shoe.number }));
    if (S.shoe.cards_left !== null) {
      setText($("cards-left"), fill(gettext("%(count)s cards left"), { count: S.shoe.cards_left }));
    }
    const code = $("commitment");
    setText(code, S.shoe.commitment.slice(0, 10) + "…" + S.shoe.commitment.slice(-6));
    if (code.title !== S.shoe.commitment) code.title = S.shoe.commitment;
    if (roundNumber) renderRoundLabel(roundNumber);
  }

  function renderRoundLabel(number) {
    setText($("round-label"), fill(gettext("Round %(number)s"), { number }));
  }

  function renderPreviousShoe(previous) {
    if (!previous) return;
    $("previous-seed-row").hidden = false;
    const code = $("revealed-seed");
    code.textContent = previous.server_seed.slice(0, 10) + "…" + previous.server_seed.slice(-6);
    code.title = previous.server_seed;
    code.dataset.full = previous.server_seed;
  }

  function renderRoads(roads) {
    S.roads = roads;
    drawRoads($("roads"), roads);
    drawStats($("stats"), shoeStats(roads));
    drawAsk($("ask-banker"), roads, "banker");
    drawAsk($("ask-player"), roads, "player");
  }

  /* ── rounds ────────────────────────────────────────────────────────────── */

  function rank(round) {
    const state = round.state === "paused" ? round.paused_from : round.state;
    return RANK[state] || 0;
  }

  /** Is ``incoming`` older than what the page already shows? (Then it must not be drawn over it.) */
  function older(incoming, shown) {
    if (!shown || !incoming) return false;
    if (incoming.id !== shown.id) return incoming.id < shown.id;
    if (rank(incoming) !== rank(shown)) return rank(incoming) < rank(shown);
    return incoming.cards.length < shown.cards.length;
  }

  function setRoundState(state) {
    S.round.state = state;
    if (root.dataset.roundState !== state) root.dataset.roundState = state;
    const open = state === "betting" && !S.paused;
    board.setOpen(open && signedIn, S.round.bet_types, S.round.number);
    if (state === "betting" && !S.paused) S.countdown.start(S.round.closes_at, S.round.betting_seconds);
    else if (S.countdown.closesAt) S.countdown.stop(); // already stopped: nothing to redraw
    if (!open && signedIn) $("confirm").classList.remove("urgent");
    setPhase(S.paused ? "paused" : state === "settled" ? "result" : state);
    renderControls();
  }

  /** Draw a whole round at once (from a snapshot): no animation, nothing missed. */
  function drawRound(round) {
    const same = S.round && S.round.id === round.id;
    S.round = Object.assign({}, round, { cards: round.cards.slice() });
    root.dataset.roundId = round.id;
    if (!same) clearStage();
    board.setLimits(round.limits);
    board.setPays(round.pays, round.bonus_margins);
    for (const entry of S.round.cards) showCard(entry, false);
    renderRoundLabel(round.number);
    setRoundState(round.state === "paused" ? round.paused_from : round.state);
    if (round.winner) showResult(S.round);
  }

  function openRound(frame) {
    const previous = S.round;
    if (previous && frame.round_id <= previous.id) return;
    const carried = S.round && S.round.state === "cancelled" ? [] : S.myBets.filter((b) => b.status !== "refunded");
    board.newRound(carried.length ? carried.map((b) => ({ type: b.type, cents: cents(b.amount) })) : null);
    S.myBets = [];
    renderMyBets();
    board.setTotals(null);
    clearStage();
    board.setLimits(frame.limits);
    board.setPays(frame.pays, frame.bonus_margins);
    S.batch = null;
    reveal.setInterval(frame.deal_interval_ms); // REVEAL
    S.round = {
      id: frame.round_id,
      number: frame.number,
      state: "betting",
      closes_at: frame.closes_at,
      betting_seconds: frame.betting_seconds,
      bet_types: frame.bet_types,
      cards: [],
    };
    root.dataset.roundId = frame.round_id;
    renderRoundLabel(frame.number);
    setRoundState("betting");
    // A round cancelled on an open table is followed at once by the next: its notice stays until this one closes.
    if (S.stop && S.stop.kind === "cancelled" && !S.paused) {
      S.stop.until = frame.round_id;
      renderStop();
    } else {
      S.stop = null;
      notice("");
    }
    restoreUnplaced();
    play("open");
    announce(gettext("Place your bets"));
  }

  /* ── pause and cancel: what happened, to the player's own bets, and why ─────── */

  /** The player's stakes on round `roundId` in cents (all of them: a cancel refunds every one), or null when the
   * page no longer holds that round's bets. */
  function stakesOn(roundId) {
    if (!signedIn || !S.round || S.round.id !== roundId) return null;
    return S.myBets.reduce((a, b) => a + cents(b.amount), 0);
  }

  /** Remember what stopped play (a frame or a snapshot) and say it. */
  function stopped(kind, cause, round) {
    const mine = round ? stakesOn(round.id) : null;
    S.stop = { kind, cause: cause || null, roundId: round ? round.id : null, number: round ? round.number : null, mine };
    renderStop();
  }

  /** The stop notice: who or what stopped play, what happened to the round and to the player's bets. It stays
   * until play resumes (a pause) or the next round closes (a cancel on an open table). */
  function renderStop() {
    const st = S.stop;
    if (!st) return;
    if (st.roundId !== null) {
      const now = stakesOn(st.roundId);
      if (now !== null) st.mine = now;
    }
    const parts = [];
    if (S.paused) {
      parts.push(
        st.cause === "fault"
          ? gettext("The table was paused because of a technical fault.")
          : st.cause === "paused" || st.cause === "operator"
            ? gettext("The table was paused by the operator.")
            : gettext("The table is paused."),
      );
    }
    const number = { number: st.number };
    if (st.kind === "cancelled") {
      parts.push(
        {
          operator: fill(gettext("Round %(number)s was cancelled by the operator."), number),
          paused: fill(gettext("Round %(number)s was cancelled because the table was paused before the cards were dealt."), number),
          fault: fill(gettext("Round %(number)s was cancelled because of a technical fault."), number),
        }[st.cause] || fill(gettext("Round %(number)s was cancelled."), number),
      );
      if (signedIn && st.mine !== null) {
        parts.push(
          st.mine > 0
            ? fill(gettext("Your bets on it were refunded: %(amount)s."), { amount: formatMoney(st.mine / 100) })
            : gettext("You had no bets on it."),
        );
      }
    } else if (st.kind === "paused") {
      parts.push(
        fill(gettext("Round %(number)s is paused while being dealt: its bets stay in play and are settled when it resumes, or refunded if it is cancelled."), number),
      );
      if (signedIn && st.mine) parts.push(fill(gettext("Your bets on it: %(amount)s."), { amount: formatMoney(st.mine / 100) }));
    }
    notice(parts.join(" "), "warn");
    $("notice").dataset.stop = st.kind;
  }

  /** Clear what stopped play from the notice (and only that: a later message stays). */
  function endStop() {
    if (S.stop && $("notice").dataset.stop) notice("");
    S.stop = null;
  }

  /** The close policy: pending chips are never placed by themselves; they wait, visibly, for the next round. */
  function keepUnplaced() {
    if (!board.hasPending()) return;
    if (inDoubt()) {
      // Betting closed before an answer: whether the batch was placed is the server's to say (My bets), so its
      // chips are not offered again as "not placed".
      S.batch = null;
      board.clear();
      notice(gettext("Betting closed before the server answered your last Confirm: see “My bets this round” for what was placed."), "warn");
      live.send({ type: "snapshot" });
      return;
    }
    S.unplaced = Object.entries(board.pending()).map(([type, c]) => ({ type, cents: c }));
    const total = S.unplaced.reduce((a, b) => a + b.cents, 0);
    board.clear();
    const el = $("unplaced");
    el.textContent = fill(
      gettext("Not placed: %(amount)s. Betting closed before Confirm, so nothing was charged. Your chips come back when the next round opens."),
      { amount: formatMoney(total / 100) },
    );
    el.hidden = false;
  }

  function restoreUnplaced() {
    if (!S.unplaced || !signedIn) return;
    const chips = S.unplaced.filter((b) => board.available.has(b.type));
    S.unplaced = null;
    const el = $("unplaced");
    if (chips.length && board.put(chips)) {
      el.textContent = gettext("Your unplaced chips are back on the table: press Confirm to place them.");
      el.hidden = false;
    } else {
      el.hidden = true;
    }
  }

  /* ── frames ────────────────────────────────────────────────────────────── */

  function applySnapshot(snap) {
    S.countdown.sync(snap.server_time);
    const round = snap.round;
    if (round && S.round && older(round, S.round)) return; // an event already showed something newer
    const away = S.round && round && round.id > S.round.id ? S.round : null;
    S.paused = snap.table.status === "paused";
    S.tableClosed = snap.table.status === "closed";
    setBalance(snap.balance);
    if (snap.table) reveal.setInterval(snap.table.deal_interval_ms); // REVEAL
    renderShoe(snap.shoe);
    renderPreviousShoe(snap.previous_shoe);
    renderRoads(snap.roads);
    if (signedIn) {
      if (snap.personal_limits !== undefined) renderPersonalLimits(snap.personal_limits);
      if (!S.round || !round || round.id !== S.round.id) {
        const last = snap.my_last_bets || [];
        if (last.length) board.lastBets = last.filter((b) => b.status !== "refunded").map((b) => ({ type: b.type, cents: cents(b.amount) }));
      }
      S.myBets = snap.my_bets || [];
      board.setConfirmed(S.myBets);
      renderMyBets();
    }
    // Back from a disconnection past the close: pending chips follow the close policy, as on round.closed.
    if (round && S.round && (round.id !== S.round.id || round.state !== "betting")) keepUnplaced();
    if (round) {
      drawRound(round);
      if (round.state === "betting" && !S.paused) restoreUnplaced();
      board.setTotals(snap.bets_totals.totals);
      if (S.myBets.some((b) => b.payout !== null && b.payout !== undefined)) showNet(S.myBets);
    } else {
      setPhase("waiting");
    }
    if (away && snap.last_round && snap.last_round.id === away.id && snap.last_round.winner) {
      const last = snap.last_round;
      let text = fill(gettext("While you were away, round %(number)s ended: %(result)s."), {
        number: last.number,
        result: scoreText(last),
      });
      const mine = (snap.my_last_bets || []).filter((b) => b.payout !== null && b.payout !== undefined);
      if (mine.length) {
        const net = mine.reduce((a, b) => a + cents(b.payout) - cents(b.amount), 0);
        text +=
          " " +
          (net >= 0
            ? fill(gettext("Your bets returned %(amount)s net."), { amount: formatMoney(net / 100) })
            : fill(gettext("Your bets lost %(amount)s net."), { amount: formatMoney(-net / 100) }));
      }
      notice(text, "warn");
      $("notice").dataset.away = String(last.id);
    }
    if (round && (round.state === "cancelled" || round.state === "paused" || S.paused)) {
      const kind = round.state === "cancelled" || round.state === "paused" ? round.state : "table";
      if (kind === "table" && ["settled", "cancelled"].includes(round.state)) clearStage();
      const known = S.stop && S.stop.roundId === (kind === "table" ? null : round.id) && S.stop.kind === kind;
      if (known) renderStop(); // the frame's cause stands; the snapshot brings the bets as recorded
      else if (kind !== "table" || S.paused) stopped(kind, round.cause, kind === "table" ? null : round);
    } else if (S.stop && !S.stop.until) {
      endStop();
    }
    if (S.paused) setPhase("paused");
    if (S.tableClosed && (!round || round.state === "settled" || round.state === "cancelled")) setPhase("table_closed");
  }

  /** What players are told of a close: fixed words (the operator's reason never reaches them). */
  function closedText(frame) {
    return frame.opens_at
      ? fill(gettext("The table is closed. It opens at %(time)s UTC."), { time: frame.opens_at })
      : gettext("The table is closed.");
  }

  const handlers = {
    snapshot: applySnapshot,
    pong: () => {},
    "round.opened": openRound,
    "round.closed": (frame) => {
      if (!S.round || frame.round_id !== S.round.id || rank(S.round) >= RANK.closed) return;
      keepUnplaced();
      setRoundState("closed");
      if ($("notice").className.includes("ok")) notice("");
      if (S.stop && S.stop.until === frame.round_id) endStop();
      play("close");
      announce(gettext("No more bets"));
    },
    "bets.totals": (frame) => {
      if (S.round && frame.round_id === S.round.id) board.setTotals(frame.totals);
    },
    "card.dealt": (frame) => {
      if (!S.round || frame.round_id !== S.round.id) return;
      if (S.round.state === "betting") keepUnplaced();
      if (S.round.state !== "dealing") setRoundState("dealing");
      const entry = { hand: frame.hand, card: frame.card, position: frame.position, totals: frame.totals, last: frame.last };
      if (showCard(entry, true)) S.round.cards.push(entry); // REVEAL: its sound plays as it turns
      if (S.shoe) renderShoe({ cards_left: frame.cards_left });
    },
    "round.result": (frame) => {
      if (!S.round || frame.round_id !== S.round.id) return;
      for (const entry of frame.cards) if (showCard(entry, true)) S.round.cards.push(entry);
      reveal.finish(); // REVEAL: every card has turned before the result shows (the round does not wait)
      play("result");
      Object.assign(S.round, {
        winner: frame.winner,
        player_total: frame.player_total,
        banker_total: frame.banker_total,
        flags: frame.flags,
      });
      setRoundState("result");
      showResult(S.round);
      renderRoads(frame.roads);
      announce(handsSpoken(S.round) + " " + $("result-text").textContent);
    },
    "round.settled": (frame) => {
      setBalance(frame.balance);
      if (!S.round || frame.round_id !== S.round.id) return;
      const byId = Object.fromEntries(frame.bets.map((b) => [b.id, b]));
      S.myBets = S.myBets.map((b) => byId[b.id] || b);
      for (const bet of frame.bets) if (!S.myBets.some((b) => b.id === bet.id)) S.myBets.push(bet);
      renderMyBets();
      showNet(S.myBets);
    },
    "round.cancelled": (frame) => {
      if (!S.round || frame.round_id !== S.round.id) return;
      keepUnplaced();
      clearStage(); // a voided round's cards and any earlier result leave the stage
      setRoundState("cancelled");
      stopped("cancelled", frame.cause, S.round);
      live.send({ type: "snapshot" }); // the refunds as the server recorded them (my_bets, balance)
    },
    "table.paused": (frame) => {
      S.paused = true;
      keepUnplaced();
      const cause = frame.by === "fault" ? "fault" : "paused";
      const live_ = S.round && frame.round_id === S.round.id;
      if (live_ && frame.round_state === "paused") {
        stopped("paused", cause, S.round);
      } else if (live_ && frame.round_state === "cancelled") {
        if (!S.stop || S.stop.roundId !== S.round.id) stopped("cancelled", cause, S.round);
        else Object.assign(S.stop, { cause });
      } else {
        // Between rounds: the last round's result is history, not what the table shows now.
        if (!S.round || ["settled", "cancelled"].includes(S.round.state)) clearStage();
        stopped("table", cause, null);
      }
      if (S.round) setRoundState(S.round.state);
      setPhase("paused");
      renderStop();
    },
    "table.resumed": () => {
      S.paused = false;
      S.stop = null;
      notice(gettext("The table has resumed."), "ok");
      live.send({ type: "snapshot" });
    },
    "table.closing": (frame) => {
      notice(
        frame.close_after === "shoe" ? gettext("This table closes at the end of this shoe.") : gettext("This table closes after this round."),
        "warn",
      );
    },
    "table.closed": (frame) => {
      S.tableClosed = true;
      keepUnplaced();
      setPhase("table_closed");
      notice(closedText(frame), "warn");
    },
    "table.retired": (frame) => {
      S.tableClosed = true;
      setPhase("table_closed");
      notice(closedText(frame), "warn");
    },
    "table.reopened": () => {
      S.tableClosed = false;
      notice(gettext("The table is open."), "ok");
      live.send({ type: "snapshot" });
    },
    "shoe.shuffled": (frame) => {
      renderShoe({ number: frame.shoe_number, commitment: frame.commitment, cards_left: frame.cards_left });
      renderPreviousShoe(frame.previous_shoe);
      renderRoads(EMPTY_ROADS);
      setPhase("shuffle");
    },
    error: (frame) => notice(explain(frame), "error"),
  };

  function handle(frame) {
    if (frame.server_time && frame.type !== "snapshot") S.countdown.sync(frame.server_time);
    const handler = handlers[frame.type];
    if (handler) handler(frame);
  }

  /* ── confirm ───────────────────────────────────────────────────────────── */

  let confirming = false;

  const modeInputs = [...root.querySelectorAll("input[name=mode]")];

  function currentMode() {
    if (options.mode) return options.mode();
    const checked = modeInputs.find((input) => input.checked);
    return checked ? checked.value : "traditional";
  }

  async function confirmBets() {
    if (!canBet() || !board.hasPending()) return;
    const pending = board.pending();
    const problems = violations(pending, board.confirmed, board.spots, board.available, config.pb_difference_limit, board.personalMax());
    board.clearErrors();
    const balance = balanceCents();
    if (balance !== null && board.pendingTotal() > balance) problems.push({ bet_type: Object.keys(pending)[0], code: "insufficient_funds" });
    if (problems.length) {
      problems.forEach((p) => board.showError(p.bet_type, explain(p)));
      notice(gettext("Some bets need changing before they can be placed."), "error");
      return;
    }
    confirming = true;
    renderControls();
    const roundId = S.round.id;
    // One key per pending batch: a retry of the same batch (after a lost answer) sends the same request with the
    // same key, and the server answers it with the first answer instead of placing the bets again (docs/api.md,
    // Idempotency). A batch in doubt is resent exactly as it was, even if the mode switch moved since.
    const body = inDoubt() && S.batch.roundId === roundId ? S.batch.body : { mode: currentMode(), bets: board.pendingBets() };
    const fingerprint = JSON.stringify([roundId, body]);
    if (!S.batch || S.batch.fingerprint !== fingerprint) {
      S.batch = { key: window.Casino.uuid(), fingerprint, body, roundId, doubt: false };
    }
    const batch = S.batch;
    let response;
    try {
      response = await window.Casino.api("POST", "/api/rounds/" + roundId + "/bets/", body, { "Idempotency-Key": batch.key });
    } catch (error) {
      response = { ok: false, status: 0, data: { code: "network" } };
    }
    confirming = false;
    // No answer, a server error or an answer that is not the API's: the bets may or may not be placed. The batch
    // and its key stay (the chips cannot change) until an answer says which.
    const unsure = !response.ok && (!response.status || response.status >= 500 || response.data.code === "bad_response");
    if (S.batch === batch) {
      batch.doubt = unsure;
      if (!unsure) S.batch = null;
    }
    if (!response.ok) {
      const data = response.data;
      if (unsure) {
        notice(gettext("No answer from the server: your bets may not have been placed. Press Confirm again; they are never placed twice."), "error");
      } else {
        const type = data.bet_type && board.buttons[data.bet_type] ? data.bet_type : Object.keys(pending)[0];
        // A personal maximum changed since the last snapshot: the refusal says what it is now.
        if (board.isPersonal(data)) renderPersonalLimits({ max_stake: data.limit });
        board.showError(type, explain(data));
        notice(explain(data), "error");
      }
      renderControls();
      return;
    }
    // A retry's answer repeats the first one: bets a snapshot already brought are not counted twice.
    const fresh = response.data.bets.filter((bet) => !S.myBets.some((b) => b.id === bet.id));
    board.confirm(S.round && S.round.id === roundId ? fresh : []);
    if (S.round && S.round.id === roundId) {
      S.myBets = S.myBets.concat(fresh);
      renderMyBets();
    }
    setBalance(response.data.balance);
    $("unplaced").hidden = true;
    $("confirm").classList.remove("urgent");
    notice(gettext("Bets confirmed"), "ok"); // #notice is role="status": read once, no second announcement
    play("chip");
  }

  /* ── wiring ────────────────────────────────────────────────────────────── */

  S.countdown = new Countdown({
    clock: $("clock"),
    number: $("countdown"),
    ring: $("ring-fill"),
    announce,
    onLow: () => {
      if (board.hasPending()) {
        $("confirm").classList.add("urgent");
        play("warn");
      }
    },
  });

  if (signedIn) {
    if (find("chips")) board.drawRack($("chips"));
    $("board").addEventListener("click", (event) => {
      const spot = event.target.closest(".spot");
      if (spot && inDoubt()) {
        notice(gettext("Your last Confirm is still unanswered: press Confirm again before adding chips."), "error");
        return;
      }
      if (spot && !spot.disabled && canBet() && board.add(spot.dataset.type)) play("chip");
    });
    $("undo").addEventListener("click", () => board.undo());
    $("clear").addEventListener("click", () => {
      board.clear();
      $("unplaced").hidden = true;
    });
    $("repeat").addEventListener("click", () => board.repeat());
    $("double").addEventListener("click", () => board.double());
    $("confirm").addEventListener("click", confirmBets);
    modeInputs.forEach((input) => input.addEventListener("change", () => board.setMode(input.value)));
    const saved = localStorage.getItem("casino.mode");
    const savedInput = modeInputs.find((input) => input.value === "no_commission");
    if (saved === "no_commission" && savedInput) savedInput.checked = true;
    board.setMode(currentMode());
    modeInputs.forEach((input) => input.addEventListener("change", () => localStorage.setItem("casino.mode", input.value)));
  }

  $("sound").setAttribute("aria-pressed", String(soundOn()));
  $("sound").addEventListener("click", () => {
    setSound(!soundOn());
    $("sound").setAttribute("aria-pressed", String(soundOn()));
    play("chip");
  });
  for (const side of ["banker", "player"]) {
    $("ask-" + side).addEventListener("click", () => S.roads && previewAsk($("roads"), S.roads, side));
  }
  async function copy(text, button) {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = gettext("Copied");
    } catch (error) {
      button.textContent = gettext("Select and copy");
    }
    setTimeout(() => (button.textContent = gettext("Copy")), 1500);
  }
  $("copy-commitment").addEventListener("click", (e) => S.shoe && copy(S.shoe.commitment, e.currentTarget));
  $("copy-seed").addEventListener("click", (e) => copy($("revealed-seed").dataset.full || "", e.currentTarget));

  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const live = new Live(`${scheme}://${location.host}/ws/tables/${config.table_id}/`, {
    onFrame: handle,
    onUp: () => {
      root.dataset.connected = "1";
      $("conn").hidden = true;
      renderControls();
    },
    onDown: () => {
      root.dataset.connected = "0";
      $("conn").hidden = false;
      board.setOpen(false, null, S.round && S.round.number);
      renderControls();
    },
  });
  live.connect();
  document.addEventListener("casino:betting-hold", () => renderControls()); // reality-check.js

  return { handle, state: S, board, askMarks, live, root, config, setBalance, canBet, renderControls };
}
