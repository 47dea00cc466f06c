/* The console's words: what a slot, a round state and a refusal are called, in the page's language (Django's
 * JavaScriptCatalog gettext; literal strings so makemessages finds them). */
import { fill } from "../format.js";

export function slotName(slot) {
  switch (slot) {
    case "P1":
      return gettext("Player 1");
    case "B1":
      return gettext("Banker 1");
    case "P2":
      return gettext("Player 2");
    case "B2":
      return gettext("Banker 2");
    case "P3":
      return gettext("Player 3");
    case "B3":
      return gettext("Banker 3");
    default:
      return slot || "";
  }
}

export function stateName(state) {
  switch (state) {
    case "betting":
      return gettext("Betting open");
    case "closed":
      return gettext("Betting closed");
    case "dealing":
      return gettext("Dealing");
    case "result":
      return gettext("Result");
    case "settled":
      return gettext("Settled");
    case "paused":
      return gettext("Paused");
    case "cancelled":
      return gettext("Cancelled");
    default:
      return state || "–";
  }
}

export function winnerName(winner) {
  if (winner === "player") return gettext("Player wins");
  if (winner === "banker") return gettext("Banker wins");
  if (winner === "tie") return gettext("Tie");
  return "";
}

/** Why a scan or a step was refused, in the dealer's language (the server's own detail is shown beside it). */
export function refusal(code) {
  switch (code) {
    case "rescan":
      return gettext("The scanner's code is not a card.");
    case "card_impossible":
      return gettext("This shoe cannot hold another copy of that card.");
    case "shoe_empty":
      return gettext("The shoe has no cards left.");
    case "betting_open":
      return gettext("Betting is still open: deal when the window closes.");
    case "hand_complete":
      return gettext("The hand is complete: no more cards for this round.");
    case "paused":
      return gettext("Paused: wait for the supervisor.");
    case "no_round":
      return gettext("No round is waiting for cards.");
    case "no_shoe":
      return gettext("There is no shoe at this table yet.");
    case "burn_pending":
      return gettext("Burn the new shoe first.");
    case "burn_done":
      return gettext("The burn card was already scanned.");
    case "round_dealing":
      return gettext("A round is being dealt: take the shift once it has its result.");
    case "not_on_shift":
      return gettext("You are not the dealer on shift: take the shift first.");
    case "not_dealer":
    case "not_supervisor":
      return gettext("Your account may not do this.");
    case "reason_required":
      return gettext("Say why.");
    case "wrong_position":
    case "round_changed":
      return gettext("That card is not the one the round is waiting for: nothing was dealt.");
    case "position_taken":
    case "idempotency_conflict":
      return gettext("That place in the deal already has another card: nothing was dealt.");
    case "own_round":
      return gettext("You dealt this round: another supervisor answers it.");
    case "own_call":
      return gettext("You called the supervisor: someone else answers the call.");
    case "round_has_result":
      return gettext("The round has its result: it is settled as dealt.");
    case "network":
      return gettext("The server could not be reached: nothing was dealt.");
    default:
      return fill(gettext("Refused (%(code)s)."), { code });
  }
}
