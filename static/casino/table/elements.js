/* One table's elements, found once by name through the page's `find` (docs/table-client.md, "Elements").
 * Every name the client writes to is listed here: REQUIRED on every page, SIGNED_IN on a signed-in player's page,
 * OPTIONAL where a page may leave it out (a compact table has no shoe panel, no "My bets", no ask buttons, no
 * Double). A missing optional element is a detached stand-in, so writes to it go nowhere; a missing required one
 * stops the client at start-up with its name, never later and never silently. */

/** On every table page, signed in or not. */
export const REQUIRED = [
  "board",
  "phase",
  "player-hand",
  "player-cards",
  "player-total",
  "banker-hand",
  "banker-cards",
  "banker-total",
  "clock",
  "countdown",
  "ring-fill",
  "result",
  "result-text",
  "result-net",
  "badges",
  "notice",
  "sr-live",
  "conn",
  "round-label",
  "cards-left",
  "roads",
];

/** Only a signed-in player's page has them (the bet slip); a signed-out page never touches them. */
export const SIGNED_IN = ["undo", "clear", "repeat", "confirm", "stake-total", "unplaced"];

/** What a page may leave out (the table page has them all; /multi/ none of them). */
export const OPTIONAL = [
  "balance",
  "personal-limits",
  "personal-max",
  "double",
  "chips",
  "my-bets",
  "shoe-label",
  "commitment",
  "copy-commitment",
  "previous-seed-row",
  "revealed-seed",
  "copy-seed",
  "stats",
  "ask-banker",
  "ask-player",
  "sound",
  // A live dealer's table (dealer.js): the dealer's name, the video box over which the cards are shown, the shoe.
  "stage",
  "dealer",
  "dealer-name",
  "video-box",
  "video",
  "video-dealer",
  "video-dealer-name",
  "video-notice",
  "shoe-status",
  "commitment-row",
  "shoe-fair",
  "shoe-live",
];

const BUTTONS = new Set(["undo", "clear", "repeat", "double", "confirm", "sound", "ask-banker", "ask-player", "copy-commitment", "copy-seed"]);

/** `$(name)`: the table's element of that name. Throws at once (with every missing name) when a required element
 * is missing, and later for a name no list holds (a new element must be listed before it is used). */
export function tableElements(find, signedIn) {
  const required = signedIn ? REQUIRED.concat(SIGNED_IN) : REQUIRED;
  const missing = required.filter((name) => !find(name));
  if (missing.length) {
    throw new Error("Table client: the page lacks required element(s): " + missing.map((n) => "#" + n).join(", "));
  }
  const optional = new Set(signedIn ? OPTIONAL : OPTIONAL.concat(SIGNED_IN));
  const standIns = {};
  return function $(name) {
    const el = find(name);
    if (el) return el;
    if (!optional.has(name)) throw new Error(`Table client: no element "${name}" (not on the page, nor listed as optional)`);
    if (!standIns[name]) standIns[name] = document.createElement(BUTTONS.has(name) ? "button" : "div");
    return standIns[name];
  };
}
