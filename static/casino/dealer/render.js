/* Draws the console from its state (GET /api/dealer/tables/<id>/, docs/api.md "Dealer's console"): the card
 * expected next, the cards with their totals, the shoe, the dealer on shift, a supervisor call and the pause.
 * The root's data-* attributes are the hooks tests read (round-id, round-state, waiting-for, next, cards,
 * paused, cut-card, on-shift). */
import { fill, ltr } from "../format.js";
import { slotName, stateName, winnerName } from "./words.js";

const SUIT = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const FINISHED = new Set(["result", "settled", "cancelled"]);

export function cardFace(code) {
  const rank = code[0] === "T" ? "10" : code[0];
  return rank + (SUIT[code[1]] || "");
}

function setText(el, text) {
  const value = text === null || text === undefined ? "" : String(text);
  if (el.textContent !== value) el.textContent = value;
}

function setData(el, name, value) {
  const text = value === null || value === undefined ? "" : String(value);
  if (el.dataset[name] !== text) el.dataset[name] = text;
}

/** Why the supervisor was called, in the dealer's language: the casino's own calls by their kind (their reason is
 * the server's English), the dealer's by what they typed. */
function callReason(call) {
  if (call.kind === "silent") return gettext("no card scanned in time");
  if (call.kind === "console") return gettext("the dealer's console disconnected mid-round");
  if (!call.reason || call.reason === "dealer called") return gettext("no reason given"); // the server's default
  return call.reason;
}

/** What the big panel says: what the dealer does next. */
function expectation(state) {
  const { table, shoe, round } = state;
  const paused = table.status === "paused" || (round && round.state === "paused");
  if (table.status === "closed") return { label: "", big: gettext("Table closed"), hint: "" };
  if (paused) return { label: gettext("Paused"), big: gettext("Wait for the supervisor"), hint: "" };
  if (!shoe) return { label: "", big: gettext("Waiting for the shoe"), hint: "" };
  if (shoe.waiting_for === "burn_card") {
    return { label: gettext("New shoe"), big: gettext("Scan the burn card"), hint: gettext("Show it, then scan it.") };
  }
  if (shoe.waiting_for === "burn_confirm") {
    const count = shoe.burn_count;
    return {
      label: fill(gettext("Burn card %(card)s"), { card: ltr(cardFace(shoe.burn_card || "")) }),
      big: fill(ngettext("Burn %(count)s card", "Burn %(count)s cards", count), { count }),
      hint: gettext("Burn them face down, then confirm."),
      burn: true,
    };
  }
  if (!round) return { label: "", big: gettext("The next round opens shortly"), hint: "" };
  if (round.state === "betting") {
    return { label: gettext("Betting open"), big: gettext("Wait for the close"), hint: gettext("Cards are refused until betting closes.") };
  }
  if (round.next) {
    return { label: gettext("Next"), big: slotName(round.next.slot), hint: "", next: round.next };
  }
  if (round.state === "cancelled") return { label: gettext("Round cancelled"), big: gettext("The next round opens shortly"), hint: "" };
  if (round.winner) return { label: gettext("Hand complete"), big: winnerName(round.winner), hint: gettext("The next round opens shortly") };
  if (FINISHED.has(round.state) || round.state === "dealing") {
    return { label: gettext("Hand complete"), big: gettext("Showing the result"), hint: "" };
  }
  return { label: "", big: stateName(round.state), hint: "" };
}

function drawCards(list, cards) {
  const key = cards.map((c) => c.card).join(" ");
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(
    ...cards.map((entry) => {
      const li = document.createElement("li");
      li.className = "dc-card suit-" + entry.card[1];
      li.dataset.card = entry.card;
      li.dataset.slot = entry.slot || "";
      const face = document.createElement("span");
      face.className = "dc-face";
      face.textContent = cardFace(entry.card);
      const slot = document.createElement("span");
      slot.className = "dc-slot";
      slot.textContent = entry.slot || "";
      li.append(face, slot);
      return li;
    }),
  );
}

/** `el(id)`: the console's elements; `me`: the signed-in user's id; `supervisor`: may resume and void. */
export function draw(state, { el, root, me, supervisor }) {
  const { table, shoe, round, call } = state;
  const paused = table.status === "paused" || Boolean(round && round.state === "paused");
  const onShift = table.dealer_id === me;
  setData(root, "roundId", round ? round.id : "");
  setData(root, "roundState", round ? round.state : "");
  setData(root, "waitingFor", shoe ? shoe.waiting_for || "" : "no_shoe");
  setData(root, "next", round && round.next ? round.next.slot : "");
  setData(root, "cards", round ? round.cards.length : 0);
  setData(root, "paused", paused ? "1" : "0");
  setData(root, "cutCard", shoe && shoe.cut_card_out ? "1" : "0");
  setData(root, "onShift", onShift ? "1" : "0");
  setData(root, "tableStatus", table.status);

  setText(el("dc-table-name"), table.name);
  setText(el("dc-round-number"), round ? round.number : "–");
  setText(el("dc-round-state"), round ? stateName(paused ? "paused" : round.state) : "–");
  setText(el("dc-dealer"), table.dealer ? table.dealer.name : gettext("No dealer on shift"));

  const expect = expectation(state);
  setText(el("dc-expect-label"), expect.label);
  setText(el("dc-expect-big"), expect.big);
  el("dc-expect-big").classList.toggle("long", expect.big.length > 14);
  setText(el("dc-expect-hint"), expect.hint);
  el("dc-expect").dataset.hand = expect.next ? expect.next.hand : "";
  el("dc-burn").hidden = !expect.burn;

  const cards = round ? round.cards : [];
  drawCards(el("dc-player-cards"), cards.filter((c) => c.hand === "player"));
  drawCards(el("dc-banker-cards"), cards.filter((c) => c.hand === "banker"));
  const totals = round ? round.totals : { player: 0, banker: 0 };
  setText(el("dc-player-total"), totals.player);
  setText(el("dc-banker-total"), totals.banker);
  const winner = round && round.winner ? winnerName(round.winner) : "";
  el("dc-winner").hidden = !winner;
  setText(el("dc-winner"), winner);
  if (round) setData(el("dc-winner"), "winner", round.winner || "");

  setText(el("dc-shoe-number"), shoe ? shoe.number : "–");
  setText(el("dc-cards-left"), shoe ? shoe.cards_left : "–");
  setText(el("dc-round-in-shoe"), shoe ? shoe.round_in_shoe || "–" : "–");
  setText(el("dc-cut-card"), shoe && shoe.cut_card_out ? gettext("Out: last round of the shoe") : gettext("Not yet"));
  setText(
    el("dc-burn-info"),
    shoe && shoe.burn_card ? fill(gettext("%(card)s, %(count)s burned"), { card: ltr(cardFace(shoe.burn_card)), count: shoe.burn_count }) : "–",
  );

  el("dc-paused").hidden = !(paused && (table.status_notice === "supervisor" || call));
  el("dc-call").hidden = !call;
  if (call) {
    const who = call.called_by || gettext("the system");
    // The name and the reason are whatever was typed, in any script: each is isolated (FSI … PDI), so an English
    // reason inside a Persian sentence keeps its own order.
    const isolate = (text) => "\u2068" + text + "\u2069";
    setText(el("dc-call-text"), fill(gettext("by %(who)s: %(reason)s"), { who: isolate(who), reason: isolate(callReason(call)) }));
  }

  el("dc-shift").hidden = onShift;
  const ready = Boolean(shoe && !shoe.waiting_for);
  el("dc-cut").disabled = !ready || Boolean(shoe && shoe.cut_card_out);
  el("dc-supervisor").disabled = Boolean(call);
  if (supervisor) {
    el("dc-resume").disabled = !paused && !call;
    el("dc-void").disabled = !round || FINISHED.has(round.state);
  }
}
