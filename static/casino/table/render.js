/* One table's DOM updates: the stage (phase, cards, result, badges, the player's net), "My bets", the notices and
 * the live region, the shoe and the roads. Each function redraws one region from the state (state.js) or a frame;
 * none decides what a frame means (frames.js) or what a spot won (the server's `outcomes`). */
import { cents, fill, formatMoney } from "../format.js";
import { cardElement } from "./cards.js";
import { drawAsk, drawRoads, drawStats, shoeStats } from "./roads.js";
import { play } from "./sound.js";
import { stakesOn } from "./state.js";

/* Write only what differs: an unchanged text or flag is then no DOM mutation (no style or layout to redo). */
export function setText(el, text) {
  text = String(text);
  if (el.textContent !== text) el.textContent = text;
}

export function setDisabled(el, disabled) {
  if (el.disabled !== disabled) el.disabled = disabled;
}

const PHASES = () => ({
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
  live_shuffle: gettext("The dealer is shuffling a new shoe"),
});

/** The render functions of one table. `t`: the table (client.js): `$`, `S`, `board`, `reveal`, `names`,
 * `signedIn`, `options`. */
export function createRenderer(t) {
  const { $, S, names, signedIn } = t;

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
        if (t.board.isPersonal(problem)) {
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

  /** What players are told of a close: fixed words (the operator's reason never reaches them). */
  function closedText(frame) {
    return frame.opens_at
      ? fill(gettext("The table is closed. It opens at %(time)s UTC."), { time: frame.opens_at })
      : gettext("The table is closed.");
  }

  function setBalance(value) {
    if (!signedIn || value === undefined || value === null) return;
    S.balance = cents(value);
    S.balanceSets += 1; // wallet.js: a read of /api/wallet/ begun before this may be older
    $("balance").textContent = formatMoney(value);
    if (t.options.onBalance) t.options.onBalance(value);
  }

  /** The player's personal maximum, next to the table's limits (hidden when they have none). */
  function renderPersonalLimits(limits) {
    t.board.setPersonalLimits(limits);
    const max = t.board.personalMax();
    $("personal-limits").hidden = max === null;
    if (max !== null) setText($("personal-max"), formatMoney(max));
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

  function setPhase(key) {
    const text = PHASES()[key];
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
    t.reveal.reset(); // REVEAL
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
    t.board.clearOutcomes();
  }

  function showCard(entry, animate) {
    const container = $(entry.hand + "-cards");
    if (container.querySelector(`[data-position="${entry.position}"]`)) return false;
    const el = cardElement(entry.card, { third: entry.position >= 5, hidden: gettext("Face-down card") });
    el.dataset.position = entry.position;
    container.appendChild(el);
    // REVEAL: the total waits for the turn (reveal.js); a snapshot's cards are face-up at once
    if (animate) t.reveal.deal(el, entry, { last: Boolean(entry.last) });
    else t.reveal.show(el, entry);
    return true;
  }

  /** The result on the stage: score, winning hands, badges, and each spot marked as the server's `outcomes` say. */
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
    if (f.lucky_six) badges.push(["lucky_six", names.lucky_six]);
    $("badges").innerHTML = "";
    for (const [flag, label] of badges) {
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.dataset.flag = flag;
      badge.textContent = label;
      $("badges").appendChild(badge);
    }
    result.hidden = false;
    t.board.setOutcomes(round.outcomes);
    setPhase("result");
  }

  /** The player's own result: net win or loss over this round's bets (the payouts the server sent). */
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

  /** "While you were away, round 12 ended: Banker wins 6 – 4. Your bets returned 5.00 net." */
  function awayText(last, lastBets) {
    let text = fill(gettext("While you were away, round %(number)s ended: %(result)s."), {
      number: last.number,
      result: scoreText(last),
    });
    const mine = (lastBets || []).filter((b) => b.payout !== null && b.payout !== undefined);
    if (mine.length) {
      const net = mine.reduce((a, b) => a + cents(b.payout) - cents(b.amount), 0);
      text +=
        " " +
        (net >= 0
          ? fill(gettext("Your bets returned %(amount)s net."), { amount: formatMoney(net / 100) })
          : fill(gettext("Your bets lost %(amount)s net."), { amount: formatMoney(-net / 100) }));
    }
    return text;
  }

  /* ── shoe, roads ───────────────────────────────────────────────────────── */

  function renderShoe(shoe, roundNumber) {
    if (!shoe) return;
    S.shoe = Object.assign(S.shoe || {}, shoe);
    setText($("shoe-label"), fill(gettext("Shoe %(number)s"), { number: S.shoe.number }));
    if (S.shoe.cards_left !== null) {
      setText($("cards-left"), fill(gettext("%(count)s cards left"), { count: S.shoe.cards_left }));
    }
    // A live dealer's shoe has no seed and no commitment: it is recorded card by card with scan times instead.
    const live = Boolean(S.shoe.live);
    $("commitment-row").hidden = live;
    $("shoe-fair").hidden = live;
    $("shoe-live").hidden = !live;
    const commitment = S.shoe.commitment || "";
    const code = $("commitment");
    setText(code, commitment ? commitment.slice(0, 10) + "…" + commitment.slice(-6) : "");
    if (code.title !== commitment) code.title = commitment;
    if (roundNumber) renderRoundLabel(roundNumber);
  }

  function renderRoundLabel(number) {
    setText($("round-label"), number ? fill(gettext("Round %(number)s"), { number }) : "–");
  }

  function renderPreviousShoe(previous) {
    if (!previous || !previous.server_seed) {
      if (previous) $("previous-seed-row").hidden = true; // a live dealer's shoe: no seed to reveal
      return;
    }
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

  /* ── pause and cancel: what happened, to the player's own bets, and why ─────── */

  /** The stop notice: who or what stopped play, what happened to the round and to the player's bets. It stays
   * until play resumes (a pause) or the next round closes (a cancel on an open table). */
  function renderStop() {
    const st = S.stop;
    if (!st) return;
    if (st.roundId !== null) {
      const now = stakesOn(S, st.roundId, signedIn);
      if (now !== null) st.mine = now;
    }
    const parts = [];
    if (S.paused) {
      parts.push(
        st.cause === "fault"
          ? gettext("The table was paused because of a technical fault.")
          : S.pauseNotice === "supervisor" // a live table: the dealer called, or went silent
            ? gettext("Paused: the supervisor is on the way.")
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
          supervisor: fill(gettext("Round %(number)s was voided by the supervisor."), number),
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

  return {
    announce,
    handsSpoken,
    notice,
    explain,
    closedReason,
    closedText,
    setBalance,
    renderPersonalLimits,
    renderMyBets,
    setPhase,
    scoreText,
    clearStage,
    showCard,
    showResult,
    showNet,
    awayText,
    renderShoe,
    renderRoundLabel,
    renderPreviousShoe,
    renderRoads,
    renderStop,
    endStop,
  };
}
