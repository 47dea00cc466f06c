/* One table's bet slip: the chips put down (pending) and the stakes placed (confirmed), the controls that change
 * them (chips, spots, Undo / Clear / Repeat / Double), the close policy for chips that missed Confirm, and Confirm
 * itself: one Idempotency-Key per batch, kept until a definitive answer (docs/table-client.md, "Confirm, sent
 * once"). The stakes themselves live on the board (board.js); the round and the bets placed in state.js. */
import { fill, formatMoney } from "../format.js";
import { violations } from "./board.js";
import { setDisabled, setText } from "./render.js";
import { play } from "./sound.js";
import { inDoubt } from "./state.js";
import { keySent } from "./wallet.js";

/** `t`: the table (client.js): `$`, `find`, `root`, `config`, `options`, `S`, `board`, `render`, `live`. */
export function createBetSlip(t) {
  const { $, S, root, config, options, signedIn } = t;
  let confirming = false;
  const modeInputs = [...root.querySelectorAll("input[name=mode]")];

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

  function sumConfirmed() {
    return Object.values(t.board.confirmed).reduce((a, b) => a + b, 0);
  }

  function renderControls() {
    if (!signedIn) return;
    const board = t.board;
    const open = canBet();
    const pending = board.hasPending();
    const held = open && inDoubt(S); // a batch awaiting its answer: only Confirm (the retry) may touch it
    setText($("stake-total"), formatMoney((board.pendingTotal() + sumConfirmed()) / 100));
    setDisabled($("undo"), !open || !pending || held);
    setDisabled($("clear"), !open || !pending || held);
    setDisabled($("repeat"), !open || !board.lastBets.length || held);
    setDisabled($("double"), !open || !(board.lastBets.length || pending || sumConfirmed()) || held);
    setDisabled($("confirm"), !open || !pending || confirming);
    $("chips").querySelectorAll(".chip").forEach((chip) => setDisabled(chip, !open || held));
  }

  function currentMode() {
    if (options.mode) return options.mode();
    const checked = modeInputs.find((input) => input.checked);
    return checked ? checked.value : "traditional";
  }

  /** The close policy: pending chips are never placed by themselves; they wait, visibly, for the next round. */
  function keepUnplaced() {
    const board = t.board;
    if (!board.hasPending()) return;
    if (inDoubt(S)) {
      // Betting closed before an answer: whether the batch was placed is the server's to say (My bets), so its
      // chips are not offered again as "not placed".
      S.batch = null;
      board.clear();
      t.render.notice(gettext("Betting closed before the server answered your last Confirm: see “My bets this round” for what was placed."), "warn");
      t.live.send({ type: "snapshot" });
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
    const chips = S.unplaced.filter((b) => t.board.available.has(b.type));
    S.unplaced = null;
    const el = $("unplaced");
    if (chips.length && t.board.put(chips)) {
      el.textContent = gettext("Your unplaced chips are back on the table: press Confirm to place them.");
      el.hidden = false;
    } else {
      el.hidden = true;
    }
  }

  async function confirmBets() {
    const board = t.board;
    const { explain, notice, renderMyBets, renderPersonalLimits, setBalance } = t.render;
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
    const body = inDoubt(S) && S.batch.roundId === roundId ? S.batch.body : { mode: currentMode(), bets: board.pendingBets() };
    const fingerprint = JSON.stringify([roundId, body]);
    if (!S.batch || S.batch.fingerprint !== fingerprint) {
      S.batch = { key: window.Casino.uuid(), fingerprint, body, roundId, doubt: false };
      keySent(S.batch.key); // its wallet.changed comes back to this page too: the answer says it all
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

  /** The chips' low-time warning (the countdown's onLow): Confirm pulses while chips are pending. */
  function warnLow() {
    if (t.board.hasPending()) {
      $("confirm").classList.add("urgent");
      play("warn");
    }
  }

  /** The slip's controls: the chip rack, a click on a spot, Undo / Clear / Repeat / Double / Confirm, the mode. */
  function wire() {
    if (!signedIn) return;
    const board = t.board;
    if (t.find("chips")) board.drawRack($("chips"));
    $("board").addEventListener("click", (event) => {
      const spot = event.target.closest(".spot");
      if (spot && inDoubt(S)) {
        t.render.notice(gettext("Your last Confirm is still unanswered: press Confirm again before adding chips."), "error");
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

  return { balanceCents, canBet, renderControls, keepUnplaced, restoreUnplaced, confirmBets, warnLow, wire };
}
