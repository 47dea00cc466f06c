/* One table's state: the round on screen, the player's bets and balance, what stopped play, and the transitions
 * the frames make to it. No DOM here: render.js draws it, frames.js decides which frame changes what. */
import { cents } from "../format.js";

export const RANK = { betting: 1, closed: 2, dealing: 3, result: 4, settled: 5, cancelled: 6 };
const NO_ASK = { big_eye_boy: null, small_road: null, cockroach_pig: null };
/* A new shoe's roads, as tables.engine.roads.roads([]) gives them. */
export const EMPTY_ROADS = {
  bead_plate: [],
  big_road: [],
  leading_ties: 0,
  big_eye_boy: [],
  small_road: [],
  cockroach_pig: [],
  ask: { banker: NO_ASK, player: NO_ASK },
};

export function createState() {
  return {
    round: null, // {id, number, state, closes_at, bet_types, cards: [...], winner, player_total, banker_total, flags, outcomes}
    paused: false,
    pauseNotice: null, // the paused table's public notice code ("supervisor": a live dealer called the supervisor)
    live: null, // a live dealer's table (dealer.js): {on, url, status}
    tableClosed: false,
    shoe: null,
    roads: null,
    balance: null, // cents
    balanceSets: 0, // how many balances the server has sent so far (wallet.js)
    myBets: [], // this round's confirmed bets, as the server sent them
    settled: new Set(), // rounds whose personal settlement was shown
    unplaced: null, // pending chips that missed the close, put back when the next round opens
    // What stopped play, kept on screen for as long as it matters (renderStop): {kind: "cancelled" | "paused" |
    // "table", cause: "operator" | "paused" | "fault" | null, roundId, number, mine: cents of the player's bets on it}
    stop: null,
    // The pending batch's Idempotency-Key: one per batch (round, mode, stakes), kept across retries until a
    // definitive answer, so a retry after a lost answer never places the bets twice. {key, fingerprint, doubt}
    batch: null,
    countdown: null, // the Countdown (client.js)
  };
}

export function rank(round) {
  const state = round.state === "paused" ? round.paused_from : round.state;
  return RANK[state] || 0;
}

/** Is ``incoming`` older than what the page already shows? (Then it must not be drawn over it.) */
export function older(incoming, shown) {
  if (!shown || !incoming) return false;
  if (incoming.id !== shown.id) return incoming.id < shown.id;
  if (rank(incoming) !== rank(shown)) return rank(incoming) < rank(shown);
  return incoming.cards.length < shown.cards.length;
}

/** Bets as chips for the board ({type, cents}), the refunded ones left out. */
export function asChips(bets) {
  return bets.filter((b) => b.status !== "refunded").map((b) => ({ type: b.type, cents: cents(b.amount) }));
}

/** ``round.opened``: the new round (betting) and what is carried over: the chips of the last round's bets for
 * Repeat (none after a cancelled round), or null when there were none. The last round's bets leave. */
export function openRound(S, frame) {
  const carried = S.round && S.round.state === "cancelled" ? [] : asChips(S.myBets);
  S.myBets = [];
  S.batch = null;
  S.round = {
    id: frame.round_id,
    number: frame.number,
    state: "betting",
    closes_at: frame.closes_at,
    betting_seconds: frame.betting_seconds,
    bet_types: frame.bet_types,
    cards: [],
  };
  return carried.length ? carried : null;
}

/** ``round.result``: the round's winner, totals, flags and the outcomes the server gave each spot. */
export function roundResult(S, frame) {
  Object.assign(S.round, {
    winner: frame.winner,
    player_total: frame.player_total,
    banker_total: frame.banker_total,
    flags: frame.flags,
    outcomes: frame.outcomes || null,
  });
}

/** ``round.settled``: the player's bets as the server settled them (a bet not yet known is added). */
export function settleBets(S, bets) {
  const byId = Object.fromEntries(bets.map((b) => [b.id, b]));
  S.myBets = S.myBets.map((b) => byId[b.id] || b);
  for (const bet of bets) if (!S.myBets.some((b) => b.id === bet.id)) S.myBets.push(bet);
}

/** The player's stakes on round `roundId` in cents (all of them: a cancel refunds every one), or null when the
 * page no longer holds that round's bets. */
export function stakesOn(S, roundId, signedIn) {
  if (!signedIn || !S.round || S.round.id !== roundId) return null;
  return S.myBets.reduce((a, b) => a + cents(b.amount), 0);
}

/** Remember what stopped play (a frame or a snapshot). */
export function stop(S, kind, cause, round, signedIn) {
  const mine = round ? stakesOn(S, round.id, signedIn) : null;
  S.stop = { kind, cause: cause || null, roundId: round ? round.id : null, number: round ? round.number : null, mine };
}

/** Was the pending batch sent without an answer saying whether it was placed? */
export function inDoubt(S) {
  return Boolean(S.batch && S.batch.doubt);
}
