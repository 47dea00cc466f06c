/* One table's WebSocket frames (docs/api.md): which frame changes what. Each handler updates the state (state.js)
 * and asks render.js and the bet slip (betslip.js) to redraw what changed; the order of events is kept here (a
 * stale snapshot is never drawn over a newer event, a frame of another round is ignored). */
import { asChips, EMPTY_ROADS, older, openRound, RANK, rank, roundResult, settleBets, stop } from "./state.js";
import { play } from "./sound.js";

/** `t`: the table (client.js): `root`, `S`, `board`, `reveal`, `render`, `slip`, `live`, `signedIn`.
 * Returns `handle(frame)` and `setRoundState` (the connection's changes redraw through it too). */
export function createFrames(t) {
  const { $, S, root, signedIn } = t;
  const r = t.render;

  function setRoundState(state) {
    S.round.state = state;
    if (root.dataset.roundState !== state) root.dataset.roundState = state;
    const open = state === "betting" && !S.paused;
    t.board.setOpen(open && signedIn, S.round.bet_types, S.round.number);
    if (state === "betting" && !S.paused) S.countdown.start(S.round.closes_at, S.round.betting_seconds);
    else if (S.countdown.closesAt) S.countdown.stop(); // already stopped: nothing to redraw
    if (!open && signedIn) $("confirm").classList.remove("urgent");
    r.setPhase(S.paused ? "paused" : state === "settled" ? "result" : state);
    t.slip.renderControls();
  }

  /** Draw a whole round at once (from a snapshot): no animation, nothing missed. */
  function drawRound(round) {
    const same = S.round && S.round.id === round.id;
    S.round = Object.assign({}, round, { cards: round.cards.slice() });
    root.dataset.roundId = round.id;
    if (!same) r.clearStage();
    t.board.setLimits(round.limits);
    t.board.setPays(round.pays);
    for (const entry of S.round.cards) r.showCard(entry, false);
    r.renderRoundLabel(round.number);
    setRoundState(round.state === "paused" ? round.paused_from : round.state);
    if (round.winner) r.showResult(S.round);
  }

  function roundOpened(frame) {
    const previous = S.round;
    if (previous && frame.round_id <= previous.id) return;
    t.board.newRound(openRound(S, frame));
    r.renderMyBets();
    t.board.setTotals(null);
    r.clearStage();
    t.board.setLimits(frame.limits);
    t.board.setPays(frame.pays);
    t.reveal.setInterval(frame.deal_interval_ms); // REVEAL
    root.dataset.roundId = frame.round_id;
    r.renderRoundLabel(frame.number);
    setRoundState("betting");
    // A round cancelled on an open table is followed at once by the next: its notice stays until this one closes.
    if (S.stop && S.stop.kind === "cancelled" && !S.paused) {
      S.stop.until = frame.round_id;
      r.renderStop();
    } else {
      S.stop = null;
      r.notice("");
    }
    t.slip.restoreUnplaced();
    play("open");
    r.announce(gettext("Place your bets"));
  }

  /** Remember what stopped play (a frame or a snapshot) and say it. */
  function stopped(kind, cause, round) {
    stop(S, kind, cause, round, signedIn);
    r.renderStop();
  }

  function applySnapshot(snap) {
    S.countdown.sync(snap.server_time);
    const round = snap.round;
    if (round && S.round && older(round, S.round)) return; // an event already showed something newer
    const away = S.round && round && round.id > S.round.id ? S.round : null;
    S.paused = snap.table.status === "paused";
    S.pauseNotice = S.paused ? snap.table.status_notice || null : null;
    S.tableClosed = snap.table.status === "closed";
    t.dealer.table(snap.table); // LIVE DEALER: name, video
    r.setBalance(snap.balance);
    if (snap.table) t.reveal.setInterval(snap.table.deal_interval_ms); // REVEAL
    r.renderShoe(snap.shoe);
    r.renderPreviousShoe(snap.previous_shoe);
    t.dealer.shoe(snap.shoe); // LIVE DEALER: shuffling, cut card out
    r.renderRoads(snap.roads);
    if (signedIn) {
      if (snap.personal_limits !== undefined) r.renderPersonalLimits(snap.personal_limits);
      if (!S.round || !round || round.id !== S.round.id) {
        const last = snap.my_last_bets || [];
        if (last.length) t.board.lastBets = asChips(last);
      }
      S.myBets = snap.my_bets || [];
      t.board.setConfirmed(S.myBets);
      r.renderMyBets();
    }
    // Back from a disconnection past the close: pending chips follow the close policy, as on round.closed.
    if (round && S.round && (round.id !== S.round.id || round.state !== "betting")) t.slip.keepUnplaced();
    if (round) {
      drawRound(round);
      if (round.state === "betting" && !S.paused) t.slip.restoreUnplaced();
      t.board.setTotals(snap.bets_totals.totals);
      if (S.myBets.some((b) => b.payout !== null && b.payout !== undefined)) r.showNet(S.myBets);
    } else {
      r.setPhase("waiting");
      r.renderRoundLabel(null); // no round yet (a new table, a live dealer's first shoe being shuffled)
    }
    if (away && snap.last_round && snap.last_round.id === away.id && snap.last_round.winner) {
      const last = snap.last_round;
      r.notice(r.awayText(last, snap.my_last_bets), "warn");
      $("notice").dataset.away = String(last.id);
    }
    if (round && (round.state === "cancelled" || round.state === "paused" || S.paused)) {
      const kind = round.state === "cancelled" || round.state === "paused" ? round.state : "table";
      if (kind === "table" && ["settled", "cancelled"].includes(round.state)) r.clearStage();
      const known = S.stop && S.stop.roundId === (kind === "table" ? null : round.id) && S.stop.kind === kind;
      if (known) r.renderStop(); // the frame's cause stands; the snapshot brings the bets as recorded
      else if (kind !== "table" || S.paused) stopped(kind, round.cause, kind === "table" ? null : round);
    } else if (S.stop && S.stop.until === "next" && round && round.id !== S.stop.roundId) {
      S.stop.until = round.id; // the round after a void: the notice stays until it closes
      r.renderStop();
    } else if (S.stop && !S.stop.until) {
      r.endStop();
    }
    if (S.paused) r.setPhase("paused");
    else if (S.live.status && S.live.status.kind === "shuffling" && (!round || ["settled", "cancelled"].includes(round.state))) {
      r.setPhase("live_shuffle");
    }
    if (S.tableClosed && (!round || round.state === "settled" || round.state === "cancelled")) r.setPhase("table_closed");
  }

  const handlers = {
    snapshot: applySnapshot,
    pong: () => {},
    "round.opened": roundOpened,
    "round.closed": (frame) => {
      if (!S.round || frame.round_id !== S.round.id || rank(S.round) >= RANK.closed) return;
      t.slip.keepUnplaced();
      setRoundState("closed");
      if ($("notice").className.includes("ok")) r.notice("");
      if (S.stop && S.stop.until === frame.round_id) r.endStop();
      play("close");
      r.announce(gettext("No more bets"));
    },
    "bets.totals": (frame) => {
      if (S.round && frame.round_id === S.round.id) t.board.setTotals(frame.totals);
    },
    "card.dealt": (frame) => {
      if (!S.round || frame.round_id !== S.round.id) return;
      if (S.round.state === "betting") t.slip.keepUnplaced();
      if (S.round.state !== "dealing") setRoundState("dealing");
      const entry = { hand: frame.hand, card: frame.card, position: frame.position, totals: frame.totals, last: frame.last };
      if (r.showCard(entry, true)) S.round.cards.push(entry); // REVEAL: its sound plays as it turns
      if (S.shoe) r.renderShoe({ cards_left: frame.cards_left });
    },
    "round.result": (frame) => {
      if (!S.round || frame.round_id !== S.round.id) return;
      for (const entry of frame.cards) if (r.showCard(entry, true)) S.round.cards.push(entry);
      t.reveal.finish(); // REVEAL: every card has turned before the result shows (the round does not wait)
      play("result");
      roundResult(S, frame);
      setRoundState("result");
      r.showResult(S.round);
      r.renderRoads(frame.roads);
      r.announce(r.handsSpoken(S.round) + " " + $("result-text").textContent);
    },
    "round.settled": (frame) => {
      r.setBalance(frame.balance);
      if (!S.round || frame.round_id !== S.round.id) return;
      settleBets(S, frame.bets);
      r.renderMyBets();
      r.showNet(S.myBets);
    },
    "wallet.changed": (frame) => {
      if (signedIn) t.wallet.changed(frame); // bets or a settlement elsewhere: read the balance again
    },
    "round.cancelled": (frame) => {
      if (!S.round || frame.round_id !== S.round.id) return;
      t.slip.keepUnplaced();
      r.clearStage(); // a voided round's cards and any earlier result leave the stage
      setRoundState("cancelled");
      stopped("cancelled", frame.cause, S.round);
      t.live.send({ type: "snapshot" }); // the refunds as the server recorded them (my_bets, balance)
    },
    "table.paused": (frame) => {
      S.paused = true;
      S.pauseNotice = frame.notice || null; // "supervisor": a live dealer called the supervisor
      t.slip.keepUnplaced();
      const cause = frame.by === "fault" ? "fault" : "paused";
      const live = S.round && frame.round_id === S.round.id;
      if (live && frame.round_state === "paused") {
        stopped("paused", cause, S.round);
      } else if (live && frame.round_state === "cancelled") {
        if (!S.stop || S.stop.roundId !== S.round.id) stopped("cancelled", cause, S.round);
        else Object.assign(S.stop, { cause });
      } else {
        // Between rounds: the last round's result is history, not what the table shows now.
        if (!S.round || ["settled", "cancelled"].includes(S.round.state)) r.clearStage();
        stopped("table", cause, null);
      }
      if (S.round) setRoundState(S.round.state);
      r.setPhase("paused");
      r.renderStop();
    },
    "table.resumed": () => {
      S.paused = false;
      S.pauseNotice = null;
      if (S.stop && S.stop.kind === "cancelled" && S.stop.cause === "supervisor") {
        // A live table's supervisor voided the round: the pause, the void and the resume come in one moment, so the
        // notice that says what happened to the player's bets stays until the next round closes, as a cancel on an
        // open table does (after an operator's pause the player has read it while the table stood paused).
        S.stop.until = S.stop.until || "next";
        r.renderStop();
      } else {
        S.stop = null;
        r.notice(gettext("The table has resumed."), "ok");
      }
      t.live.send({ type: "snapshot" });
    },
    "table.closing": (frame) => {
      r.notice(
        frame.close_after === "shoe" ? gettext("This table closes at the end of this shoe.") : gettext("This table closes after this round."),
        "warn",
      );
    },
    "table.closed": (frame) => {
      S.tableClosed = true;
      t.slip.keepUnplaced();
      r.setPhase("table_closed");
      r.notice(r.closedText(frame), "warn");
    },
    "table.retired": (frame) => {
      S.tableClosed = true;
      r.setPhase("table_closed");
      r.notice(r.closedText(frame), "warn");
    },
    "table.reopened": () => {
      S.tableClosed = false;
      r.notice(gettext("The table is open."), "ok");
      t.live.send({ type: "snapshot" });
    },
    "shoe.shuffled": (frame) => {
      r.renderShoe({ number: frame.shoe_number, commitment: frame.commitment, cards_left: frame.cards_left });
      r.renderPreviousShoe(frame.previous_shoe);
      r.renderRoads(EMPTY_ROADS);
      r.setPhase("shuffle");
      t.dealer.status(null); // LIVE DEALER: the burn is done, the shoe is ready
    },
    // LIVE DEALER (dealer.js): a dealer shuffles a new shoe (again once its burn card is scanned), marks the cut
    // card out, hands the table to the next dealer.
    "shoe.shuffling": (frame) => {
      if (!S.shoe || S.shoe.number !== frame.shoe_number) r.renderRoads(EMPTY_ROADS);
      r.renderShoe({ number: frame.shoe_number, commitment: "", live: true, ready: false, cards_left: frame.cards_left });
      if (frame.previous_shoe !== undefined) r.renderPreviousShoe(frame.previous_shoe);
      if (!S.round || ["settled", "cancelled"].includes(S.round.state)) {
        r.clearStage();
        r.setPhase("live_shuffle");
      }
      t.dealer.shuffling(frame);
    },
    "shoe.cut_card": (frame) => {
      if (frame.cards_left !== undefined && S.shoe) r.renderShoe({ cards_left: frame.cards_left });
      t.dealer.cutCard();
    },
    "dealer.changed": (frame) => t.dealer.dealer(frame.dealer),
    error: (frame) => r.notice(r.explain(frame), "error"),
  };

  function handle(frame) {
    if (frame.server_time && frame.type !== "snapshot") S.countdown.sync(frame.server_time);
    const handler = handlers[frame.type];
    if (handler) handler(frame);
  }

  return { handle, setRoundState };
}
