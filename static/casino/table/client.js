/* One live table's client: it puts the table's parts together and wires the page. A page may hold several (the
 * table page one, /multi/ up to four): every element is looked up inside the table's own root through `find`,
 * never by a global id (docs/table-client.md). The parts, one job each:
 *   elements.js  the table's elements by name: which a page must have, which it may leave out
 *   state.js     the round, the player's bets and balance, what stopped play, and their transitions
 *   frames.js    the WebSocket frames: which frame changes what, in what order
 *   render.js    the DOM: stage, result, my bets, notices, shoe, roads
 *   betslip.js   pending and confirmed stakes, Undo / Clear / Repeat / Double, Confirm (one key per batch)
 *   dealer.js    a live dealer's table: the dealer's name, the video (video.js), the shoe being shuffled
 *   wallet.js    the balance when it moved elsewhere (another device, another table) */
import { fill, formatMoney } from "../format.js";
import { createBetSlip } from "./betslip.js";
import { createDealer } from "./dealer.js";
import { Board } from "./board.js";
import { Countdown } from "./countdown.js";
import { tableElements } from "./elements.js";
import { createFrames } from "./frames.js";
import { Live } from "./live.js";
import { createRenderer, setText } from "./render.js";
import { Reveal } from "./reveal.js";
import { askMarks, previewAsk } from "./roads.js";
import { play, setSound, soundOn } from "./sound.js";
import { createState } from "./state.js";
import { createWalletFollower } from "./wallet.js";

/** One table on a page. `root`: the table's element (its data-round-state, data-round-id, data-connected are
 * the hooks); `config`: what the server rendered (see table_board); `options`:
 *  - find(name): the element of that name inside the table (default: document.getElementById);
 *  - mode(): the betting mode when the page shares one choice (default: the table's own radio buttons);
 *  - balance(): the player's balance in cents when the page shares one (default: this table's);
 *  - onBalance(value): a balance the server sent (a snapshot, a confirm, a settlement).
 * Throws at once, naming them, when the page lacks an element the table needs (elements.js). */
export class TableClient {
  constructor(root, config, options = {}) {
    Object.assign(this, createTable(root, config, options));
  }
}

function createTable(root, config, options) {
  const find = options.find || ((id) => document.getElementById(id));
  const signedIn = config.signed_in;
  // `t`: the table's parts, shared by the modules (each reads the others' through it when it runs).
  const t = { root, config, options, find, signedIn, names: config.bet_names, $: tableElements(find, signedIn), S: createState() };
  const { $, S } = t;
  t.render = createRenderer(t);
  t.slip = createBetSlip(t);
  t.wallet = createWalletFollower(t);

  t.board = new Board($("board"), config, {
    signedIn,
    balance: t.slip.balanceCents,
    explain: t.render.explain,
    closedReason: t.render.closedReason,
    totalLabel: (entry) =>
      fill(gettext("All: %(amount)s · %(players)s"), { amount: formatMoney(entry.amount), players: entry.players }),
    changed: () => t.slip.renderControls(),
  });

  /* REVEAL (reveal.js): a dealt card turns before it counts; its hand's total is written when the turn ends. */
  t.reveal = new Reveal({
    onTurned: (entry) => setText($(entry.hand + "-total"), entry.totals[entry.hand]),
    onTurn: () => play("card"),
    squeezeLabel: gettext("Face-down card: drag or hold it to squeeze it open"),
  });

  t.dealer = createDealer(t); // LIVE DEALER: name, video, the dealer's shoe

  const frames = createFrames(t);

  S.countdown = new Countdown({
    clock: $("clock"),
    number: $("countdown"),
    ring: $("ring-fill"),
    announce: t.render.announce,
    onLow: t.slip.warnLow,
  });

  t.slip.wire();

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
  t.live = new Live(`${scheme}://${location.host}/ws/tables/${config.table_id}/`, {
    onFrame: frames.handle,
    onUp: () => {
      root.dataset.connected = "1";
      $("conn").hidden = true;
      t.slip.renderControls();
    },
    onDown: () => {
      root.dataset.connected = "0";
      $("conn").hidden = false;
      t.board.setOpen(false, null, S.round && S.round.number);
      t.slip.renderControls();
    },
  });
  t.live.connect();
  document.addEventListener("casino:betting-hold", () => t.slip.renderControls()); // reality-check.js

  return {
    handle: frames.handle,
    state: S,
    board: t.board,
    askMarks,
    live: t.live,
    root,
    config,
    setBalance: t.render.setBalance,
    canBet: t.slip.canBet,
    renderControls: t.slip.renderControls,
  };
}
