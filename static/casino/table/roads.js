/* The scoreboard: the five roads as SVG grids, the ask-road buttons and preview, shoe statistics.
 *
 * Input is the server's roads JSON exactly as tables/engine/roads.py `roads()` returns it. Every drawn cell is
 * an SVG element with class "cell" and data-col data-row data-winner|data-color (Big Road: data-ties) inside
 * svg[data-road=<name>] (in its g.cells, in the JSON's order). A road is built as one string the first time;
 * after that only the cells it gains are added (see updateRoad). Styles, geometry included: cards-roads.css.
 */

import { fill } from "../format.js";

const ROWS = 6;
const U = 20; // one cell in SVG user units (CSS decides its size on screen)
const H = U * ROWS;
const DERIVED = ["big_eye_boy", "small_road", "cockroach_pig"];
const MIN_COLS = { bead_plate: 12, big_road: 24, big_eye_boy: 24, small_road: 24, cockroach_pig: 24 };
const SECTION_CLASS = {
  bead_plate: "road-bead",
  big_road: "road-big",
  big_eye_boy: "road-eye",
  small_road: "road-small",
  cockroach_pig: "road-roach",
};
const NAMES = ["bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"];
const PREVIEW_MS = 2500;
const previewTimers = new WeakMap();

/* Colour classes (CSS maps them to --banker/--player/--tie); the attribute is the fallback without CSS. */
const HEX = { banker: "#d33c3c", player: "#2f6fd6", tie: "#2c9c54", red: "#d33c3c", blue: "#2f6fd6" };
const KEY = { banker: "b", player: "p", tie: "t", red: "b", blue: "p" };

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function roadTitle(name) {
  switch (name) {
    case "bead_plate": return gettext("Bead plate");
    case "big_road": return gettext("Big road");
    case "big_eye_boy": return gettext("Big eye boy");
    case "small_road": return gettext("Small road");
    default: return gettext("Cockroach pig");
  }
}

function labels() {
  return {
    banker: gettext("Banker"),
    player: gettext("Player"),
    tie: gettext("Tie"),
    banker_pair: gettext("Banker pair"),
    player_pair: gettext("Player pair"),
    natural: gettext("Natural"),
    round: gettext("Round %(number)s"),
    totals: gettext("Banker %(banker)s – Player %(player)s"),
    ties: gettext("Ties: %(count)s"),
  };
}

/* ---- the engine's placement rule, ported from tables/engine/roads.py (for the ask preview) ---- */

/** Grid positions [col, row] for a sequence of marks, Big Road style (streaks down, dragon tails right). */
export function place(keys) {
  const taken = new Set();
  const at = (c, r) => c * ROWS + r;
  const out = [];
  let startCol = -1;
  let previous = null;
  let col = 0;
  let row = 0;
  let turned = false;
  for (const key of keys) {
    if (key !== previous) {
      col = startCol + 1;
      while (taken.has(at(col, 0))) col += 1;
      startCol = col;
      row = 0;
      turned = false;
    } else if (!turned && row + 1 < ROWS && !taken.has(at(col, row + 1))) {
      row += 1;
    } else {
      turned = true;
      col += 1;
      while (taken.has(at(col, row))) col += 1;
    }
    taken.add(at(col, row));
    out.push([col, row]);
    previous = key;
  }
  return out;
}

/* ---- SVG strings ----
 * A shape carries only its position (cx/cy, d, a digit's transform) and classes; radius, colour and stroke come
 * from cards-roads.css (.roads .bd, .rg, .pair, …), a third less markup than presentation attributes on every
 * shape. Measured and rejected: <use> of shared <symbol>s (half the markup, twice the style work: every <use>
 * clones its symbol) and cells placed by transform="translate()" (a paint property node per cell). */

const gridCache = new Map();

/* Interior grid lines, drawn far enough right to fill any scroll box (the SVG is at least 100% wide). */
function gridPath(cols) {
  const n = Math.max(cols, 240);
  let d = gridCache.get(n);
  if (!d) {
    d = "";
    for (let c = 1; c < n; c++) d += `M${c * U} 0V${H}`;
    for (let r = 1; r < ROWS; r++) d += `M0 ${r * U}H${n * U}`;
    gridCache.set(n, d);
  }
  return d;
}

function grid(cols) {
  return `<path class="grid" d="${gridPath(cols)}" fill="none" stroke="rgba(255,255,255,.12)" stroke-width="1" vector-effect="non-scaling-stroke"/>`;
}

const dot = (who, cx, cy) => `<circle class="f${KEY[who]} pair" cx="${cx}" cy="${cy}"/>`;

function pairs(cell, x, y) {
  let s = "";
  if (cell.banker_pair) s += dot("banker", x + 4, y + 4);
  if (cell.player_pair) s += dot("player", x + 16, y + 16);
  return s;
}

/* Digits 0–9 as stroked paths in a 6 × 10 box: far cheaper to lay out than SVG <text>, and the same everywhere. */
const DIGIT = [
  "M3 0C1 0 0 2.2 0 5S1 10 3 10S6 7.8 6 5S5 0 3 0Z",
  "M0.9 2.2L3.6 0V10",
  "M0.3 2.4C0.7 0.8 1.8 0 3.1 0C4.8 0 5.8 1.1 5.8 2.7C5.8 4.3 4.9 5.5 0.1 10H6",
  "M0.4 1.1C1 0.4 1.9 0 3 0C4.6 0 5.6 1 5.6 2.5S4.5 4.8 2.6 4.8C4.7 4.8 6 5.8 6 7.4S4.7 10 3 10C1.8 10 0.8 9.5 0.2 8.7",
  "M4.5 10V0L0 7.1H6",
  "M5.6 0H1.1L0.6 4.5C1.3 4 2.1 3.8 3 3.8C4.9 3.8 6 5 6 6.9S4.7 10 2.9 10C1.7 10 0.8 9.6 0.1 8.8",
  "M5.1 0.6C4.5 0.2 3.8 0 3.2 0C1.1 0 0 2.4 0 5.6C0 8.6 1.2 10 3 10C4.8 10 6 8.7 6 6.8C6 4.9 4.8 3.7 3.1 3.7C1.5 3.7 0.3 4.7 0 6.3",
  "M0 0H6L2.2 10",
  "M3 4.7C1.5 4.7 0.5 3.8 0.5 2.4S1.5 0 3 0S5.5 1 5.5 2.4S4.5 4.7 3 4.7ZM3 4.7C1.2 4.7 0 5.8 0 7.3S1.2 10 3 10S6 8.8 6 7.3S4.8 4.7 3 4.7Z",
  "M0.9 9.4C1.5 9.8 2.2 10 2.8 10C4.9 10 6 7.6 6 4.4C6 1.4 4.8 0 3 0C1.2 0 0 1.3 0 3.2C0 5.1 1.2 6.3 2.9 6.3C4.5 6.3 5.7 5.3 6 3.7",
];

/* The bead plate's digits are one path over all its discs (.roads .digits), each digit's points placed and scaled
 * into its cell here: 81 beads are then 81 elements, not 243 (a disc, a digit with its own transform, a group). */
const DIGIT_OPS = DIGIT.map((d) =>
  [...d.matchAll(/([A-Z])([^A-Z]*)/g)].map(([, op, args]) => [op, args.trim() ? args.trim().split(/[\s,]+/).map(Number) : []]),
);
const DIGIT_H = 8.6; // a bead's total: 8.6 units tall, centred in its cell
const round3 = (v) => Math.round(v * 1000) / 1000;

/** A single-digit total as path data in the cell at (x, y) ("" for anything else). */
function digitPath(value, x, y) {
  const str = String(value ?? "");
  if (!/^[0-9]$/.test(str)) return "";
  const k = DIGIT_H / 10, tx = x + 10 - 3 * k, ty = y + 10 - 5 * k;
  let d = "";
  for (const [op, args] of DIGIT_OPS[str]) {
    d += op;
    if (op === "H") d += round3(tx + k * args[0]);
    else if (op === "V") d += round3(ty + k * args[0]);
    else for (let i = 0; i < args.length; i += 2) d += (i ? " " : "") + round3(tx + k * args[i]) + " " + round3(ty + k * args[i + 1]);
  }
  return d;
}

/* A total that is not one digit (none in baccarat), as <text> in the cell. */
function totalText(value, x, y) {
  const str = String(value ?? "");
  if (str === "" || /^[0-9]$/.test(str)) return "";
  return `<text class="num-text" x="${x + 10}" y="${y + 10.5}" fill="#fff" font-size="${DIGIT_H}" font-weight="700" text-anchor="middle" dominant-baseline="central">${esc(str)}</text>`;
}

/* A bead's disc in the cell at (x, y); attrs: a cell's data attributes when the disc alone is the cell. */
function beadDisc(winner, x, y, attrs = "") {
  return `<circle class="f${KEY[winner]} bd${attrs ? ` cell" ${attrs}` : `"`} cx="${x + 10}" cy="${y + 10}"/>`;
}

const beadTotal = (c) => (c.winner === "banker" ? c.banker_total : c.player_total);

function beadTitle(cell, L) {
  if (!cell) return "";
  const parts = [fill(L.round, { number: cell.index + 1 })];
  const known = cell.banker_total !== null && cell.banker_total !== undefined && cell.player_total !== null && cell.player_total !== undefined;
  if (!known || cell.winner === "tie") parts.push(L[cell.winner]);
  if (known) parts.push(fill(L.totals, { banker: cell.banker_total, player: cell.player_total }));
  if (cell.banker_pair) parts.push(L.banker_pair);
  if (cell.player_pair) parts.push(L.player_pair);
  if (cell.natural) parts.push(L.natural);
  return parts.join(" · ");
}

function beadCell(c) {
  const x = c.col * U, y = c.row * U;
  const attrs = `data-col="${c.col}" data-row="${c.row}" data-winner="${c.winner}"`;
  const inside = totalText(beadTotal(c), x, y) + pairs(c, x, y);
  if (!inside) return beadDisc(c.winner, x, y, attrs); // the disc alone is the cell (its digit is in the road's path)
  return `<g class="cell" ${attrs}>` + beadDisc(c.winner, x, y) + inside + `</g>`;
}

const beadDigit = (c) => digitPath(beadTotal(c), c.col * U, c.row * U);

/* The Big Road's ring in the cell at (x, y); attrs: a cell's data attributes when the ring alone is the cell. */
function bigRing(who, x, y, attrs = "") {
  return `<circle class="s${KEY[who]} rg${attrs ? ` cell" ${attrs}` : `"`} cx="${x + 10}" cy="${y + 10}"/>`;
}

function bigCell(c) {
  const x = c.col * U, y = c.row * U;
  const ties = c.ties || 0;
  const attrs = `data-col="${c.col}" data-row="${c.row}" data-winner="${c.winner}" data-ties="${ties}"`;
  if (!ties && !c.banker_pair && !c.player_pair) return bigRing(c.winner, x, y, attrs); // the ring alone is the cell
  let s = `<g class="cell" ${attrs}>` + bigRing(c.winner, x, y);
  if (ties > 0) {
    s += `<path class="st ts" d="M${x + 16.5} ${y + 3.5}L${x + 3.5} ${y + 16.5}"/>`;
    if (ties > 1) s += `<text class="tn" x="${x + 10}" y="${y + 10.5}">${ties}</text>`;
  }
  return s + pairs(c, x, y) + `</g>`;
}

/* A derived road's mark in the cell at (x, y); attrs: a cell's data attributes (the shape itself is the cell). */
function derivedShape(name, color, x, y, attrs = "") {
  const k = KEY[color];
  const cell = attrs ? ` cell" ${attrs}` : `"`;
  if (name === "big_eye_boy") return `<circle class="s${k} ey${cell} cx="${x + 10}" cy="${y + 10}"/>`;
  if (name === "small_road") return `<circle class="f${k} sm${cell} cx="${x + 10}" cy="${y + 10}"/>`;
  return `<path class="s${k} rc${cell} d="M${x + 4.5} ${y + 15.5}L${x + 15.5} ${y + 4.5}"/>`;
}

function derivedCell(name, c) {
  return derivedShape(name, c.color, c.col * U, c.row * U, `data-col="${c.col}" data-row="${c.row}" data-color="${c.color}"`);
}

function cellMarkup(name, c) {
  if (name === "bead_plate") return beadCell(c);
  if (name === "big_road") return bigCell(c);
  return derivedCell(name, c);
}

/* What a cell looks like, as a string: equal keys draw the same. */
function cellKey(name, c) {
  if (name === "bead_plate") {
    return `${c.col},${c.row},${c.winner},${c.banker_total},${c.player_total},${+!!c.banker_pair}${+!!c.player_pair}${+!!c.natural},${c.index}`;
  }
  if (name === "big_road") return `${c.col},${c.row},${c.winner},${c.ties || 0},${+!!c.banker_pair}${+!!c.player_pair}`;
  return `${c.col},${c.row},${c.color}`;
}

function bigTitle(cell, L) {
  if (!cell) return "";
  let title = L[cell.winner];
  if (cell.ties) title += " · " + fill(L.ties, { count: cell.ties });
  if (cell.banker_pair) title += " · " + L.banker_pair;
  if (cell.player_pair) title += " · " + L.player_pair;
  return title;
}

/* Tooltips are made on first hover (a <title> per cell would double the elements to build and lay out). */
function addTitle(event) {
  const cell = event.target.closest && event.target.closest(".cell");
  if (!cell || cell.querySelector("title")) return;
  const svg = cell.closest("svg[data-road]");
  const roads = this.__roadsData;
  if (!svg || !roads) return;
  const name = svg.dataset.road;
  const col = Number(cell.dataset.col), row = Number(cell.dataset.row);
  let text = "";
  if (name === "bead_plate") {
    text = beadTitle(roads.bead_plate[col * ROWS + row], labels());
  } else if (name === "big_road") {
    text = bigTitle(roads.big_road.find((c) => c.col === col && c.row === row), labels());
  }
  if (!text) return;
  const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
  title.textContent = text;
  cell.prepend(title);
}

function columnsFor(name, cells) {
  let max = -1;
  for (const c of cells) if (c.col > max) max = c.col;
  if (name === "bead_plate") max = Math.max(max, Math.floor(cells.length / ROWS) - 1);
  return Math.max(MIN_COLS[name], max + 2); // one empty column on the right: where the next result goes
}

function cellsMarkup(name, cells, from = 0) {
  let body = "";
  for (let i = from; i < cells.length; i++) body += cellMarkup(name, cells[i]);
  return body;
}

/* The cells sit in one <g class="cells"> after the grid, in the order of the roads JSON (cell i is its i-th child);
 * the bead plate's digits follow in one path. */
function svgFor(name, cells, cols) {
  return (
    `<svg data-road="${name}" viewBox="${viewBox(cols)}" preserveAspectRatio="xMinYMin slice" style="--cols:${cols}" ` +
    `role="img" aria-label="${esc(roadTitle(name))}" font-family="system-ui, 'Segoe UI', Roboto, Arial, sans-serif">` +
    grid(cols) + `<g class="cells">` + cellsMarkup(name, cells) + `</g>` +
    (name === "bead_plate" ? `<path class="digits" d="${cells.map(beadDigit).join("")}"/>` : "") + `</svg>`
  );
}

/* The SVG is --cols cells wide (CSS); its viewBox is wider than any road, "slice" scaling it by the height alone: one
 * cell is one --c on screen whatever the width, so a road that grows a column changes its width and nothing else
 * (a new viewBox would lay out every cell again). Same picture as a viewBox of exactly --cols cells, "meet". */
const VIEW_COLS = 480;
const viewBox = (cols) => `0 0 ${Math.max(cols, VIEW_COLS) * U} ${H}`;

function setColumns(svg, cols) {
  const box = viewBox(cols);
  svg.style.setProperty("--cols", String(cols));
  if (svg.getAttribute("viewBox") !== box) svg.setAttribute("viewBox", box);
}

/* Bring one road up to `cells`: nothing when it already shows them; when what it shows is a prefix of them (at
 * most its last cell differing: a tie or pair added to the Big Road's last cell), replace that cell and append
 * the new ones; anything else (a new shoe, …) redraws the road. Returns whether anything changed. */
function updateRoad(box, cells) {
  const { name, scroll } = box;
  const keys = cells.map((c) => cellKey(name, c));
  const cols = columnsFor(name, cells);
  const drawn = box.drawn;
  if (!drawn || drawn.svg.parentNode !== scroll || !drawn.g || drawn.g.childElementCount !== drawn.keys.length) {
    scroll.innerHTML = svgFor(name, cells, cols);
    const svg = scroll.firstElementChild;
    const digits = svg.querySelector(":scope > .digits");
    box.drawn = { svg, g: svg.querySelector(":scope > .cells"), digits, digitParts: digits ? cells.map(beadDigit) : null, keys, cols };
    return true;
  }
  const old = drawn.keys;
  let same = 0;
  const n = Math.min(old.length, keys.length);
  while (same < n && old[same] === keys[same]) same += 1;
  let changed = false;
  if (same === old.length && same === keys.length) {
    // nothing new
  } else if (same > 0 && same >= old.length - 1) {
    const g = drawn.g;
    while (g.childElementCount > same) g.lastElementChild.remove();
    g.insertAdjacentHTML("beforeend", cellsMarkup(name, cells, same));
    changed = true;
  } else {
    drawn.g.innerHTML = cellsMarkup(name, cells);
    changed = true;
  }
  drawn.keys = keys;
  if (changed && drawn.digits) {
    drawn.digitParts.length = same; // the digits of the cells kept, then those of the cells drawn now
    for (let i = same; i < cells.length; i++) drawn.digitParts.push(beadDigit(cells[i]));
    drawn.digits.setAttribute("d", drawn.digitParts.join(""));
  }
  if (cols !== drawn.cols) {
    setColumns(drawn.svg, cols);
    if (Math.max(cols, 240) !== Math.max(drawn.cols, 240)) drawn.svg.firstElementChild.setAttribute("d", gridPath(cols));
    drawn.cols = cols;
    changed = true;
  }
  return changed;
}

/* Scroll the roads that changed to their newest column, at the next frame (with everything else the frame lays out). */
function scrollToEnd(container, boxes) {
  const pending = container.__roadsScroll || (container.__roadsScroll = new Set());
  const first = pending.size === 0;
  for (const box of boxes) pending.add(box.scroll);
  if (!first) return;
  requestAnimationFrame(() => {
    for (const scroll of pending) scroll.scrollLeft = scroll.scrollWidth;
    pending.clear();
  });
}

/** Draw the five roads into `container`. The first call builds the sections; later calls draw only what changed:
 * the cells a road gained (a road is redrawn whole only when what it shows is not the start of the new roads). */
export function drawRoads(container, roads) {
  container.classList.add("roads");
  container.__roadsData = roads;
  describeRoads(container, roads);
  if (!container.__roadsTitles) {
    container.addEventListener("pointerover", addTitle);
    container.__roadsTitles = true;
  }
  let boxes = container.__roadBoxes;
  if (!boxes || boxes.some((b) => !container.contains(b.scroll))) {
    let html = "";
    for (const name of NAMES) {
      html +=
        `<section class="road ${SECTION_CLASS[name]}" data-road-section="${name}">` +
        `<h3 class="road-title">${esc(roadTitle(name))}</h3><div class="road-scroll"></div></section>`;
    }
    container.innerHTML = html;
    boxes = [...container.querySelectorAll(".road-scroll")].map((scroll, i) => ({ name: NAMES[i], scroll, drawn: null }));
    container.__roadBoxes = boxes;
  }
  if (previewTimers.has(container)) clearPreview(container); // a result ends the ask preview, as a redraw did
  const changed = boxes.filter((box) => updateRoad(box, roads[box.name] || []));
  if (changed.length) scrollToEnd(container, changed);
}

/* ---- the roads in words (WCAG 1.1.1: a text alternative for the drawings) ---- */

const SUMMARY_LAST = 10;

/** The shoe's results so far in a sentence a screen reader can say: the current streak (ties do not break it),
 * then the last ten results, oldest first. "Banker: 3 wins in a row. Last 10, oldest first: Banker, Player, …" */
export function roadsSummary(roads) {
  const beads = (roads && roads.bead_plate) || [];
  if (!beads.length) return gettext("Scoreboard: no rounds yet in this shoe.");
  const L = labels();
  const decided = beads.filter((b) => b.winner !== "tie");
  const parts = [];
  if (decided.length) {
    const side = decided[decided.length - 1].winner;
    let streak = 0;
    for (let i = decided.length - 1; i >= 0 && decided[i].winner === side; i -= 1) streak += 1;
    parts.push(
      fill(ngettext("%(side)s: %(count)s win in a row.", "%(side)s: %(count)s wins in a row.", streak), {
        side: L[side],
        count: streak,
      }),
    );
  }
  const last = beads.slice(-SUMMARY_LAST).map((b) => L[b.winner]);
  parts.push(
    fill(ngettext("Last %(count)s result, oldest first: %(results)s.", "Last %(count)s results, oldest first: %(results)s.", last.length), {
      count: last.length,
      results: last.join(", "),
    }),
  );
  return parts.join(" ");
}

/** The drawings are hidden from assistive technology and the summary stands in for them: a visually hidden
 * paragraph just before the roads (id "<roads id>-summary"), rewritten only when its text changes. It is not a
 * live region: the round's result is announced once by the page's own live region. */
function describeRoads(container, roads) {
  if (container.getAttribute("aria-hidden") !== "true") container.setAttribute("aria-hidden", "true");
  let summary = container.__roadsSummary;
  if (!summary || !summary.isConnected) {
    summary = document.createElement("p");
    summary.className = "visually-hidden roads-summary";
    if (container.id) summary.id = container.id + "-summary";
    container.before(summary);
    container.__roadsSummary = summary;
  }
  const text = roadsSummary(roads);
  if (summary.textContent !== text) summary.textContent = text;
}

/* ---- ask road ---- */

/** The colours each derived road would add if the next result were `side` ("banker"/"player"); null: none.
 * The server works them out (the roads' `ask`, tables/engine/roads.py). */
export function askMarks(roads, side) {
  return roads.ask[side];
}

const ASK_GREY = "#9aa3a0";

function askIcon(name, color) {
  const hex = color ? HEX[color] : ASK_GREY;
  const cls = color ? KEY[color] : "n";
  let shape;
  if (name === "big_eye_boy") {
    shape = `<circle class="s${cls}" cx="10" cy="10" r="6.5" fill="none" stroke="${hex}" stroke-width="3"/>`;
  } else if (name === "small_road") {
    shape = color
      ? `<circle class="f${cls}" cx="10" cy="10" r="7.5" fill="${hex}"/>`
      : `<circle class="sn" cx="10" cy="10" r="6.5" fill="none" stroke="${hex}" stroke-width="2"/>`;
  } else {
    shape = `<path class="s${cls}" d="M4 16L16 4" stroke="${hex}" stroke-width="${color ? 3.6 : 2.4}" stroke-linecap="round"/>`;
  }
  return `<svg class="ask-mark" viewBox="0 0 20 20" data-ask-road="${name}" data-ask-color="${color || "none"}" focusable="false">${shape}</svg>`;
}

/** Put the three derived-road marks of the next `side` result into an ask `button` (its span.ask-label stays). */
export function drawAsk(button, roads, side) {
  const marks = askMarks(roads, side);
  let span = button.querySelector(":scope > .ask-marks");
  if (!span) {
    span = document.createElement("span");
    span.className = "ask-marks";
    button.appendChild(span);
  }
  span.setAttribute("aria-hidden", "true");
  const html = DERIVED.map((name) => askIcon(name, marks[name])).join("");
  if (span.__html !== html || !span.firstChild) {
    span.innerHTML = html;
    span.__html = html;
  }
}

/** Blink, for 2.5 s, where the next `side` win would go in each road (calling again restarts it). */
export function previewAsk(container, roads, side) {
  clearPreview(container);
  const svg = (name) => container.querySelector(`svg[data-road="${name}"]`);
  const mark = (target, col, row, shape) => {
    if (!target) return;
    ensureColumns(target, col + 1);
    target.insertAdjacentHTML(
      "beforeend",
      `<g class="preview" data-preview-col="${col}" data-preview-row="${row}">${shape}</g>`,
    );
  };

  const beads = roads.bead_plate;
  const n = beads.length;
  const bx = Math.floor(n / ROWS), by = n % ROWS;
  mark(svg("bead_plate"), bx, by, beadDisc(side, bx * U, by * U));

  const winners = roads.big_road.map((c) => c.winner);
  const [bc, br] = place([...winners, side]).pop();
  mark(svg("big_road"), bc, br, bigRing(side, bc * U, br * U));

  const marks = askMarks(roads, side);
  for (const name of DERIVED) {
    const color = marks[name];
    if (!color) continue;
    const colours = roads[name].map((c) => c.color);
    const [c, r] = place([...colours, color]).pop();
    mark(svg(name), c, r, derivedShape(name, color, c * U, r * U));
  }

  for (const target of container.querySelectorAll(".road-scroll")) {
    const p = target.querySelector(".preview");
    if (p) target.scrollLeft = target.scrollWidth;
  }
  previewTimers.set(container, setTimeout(() => clearPreview(container), PREVIEW_MS));
}

function ensureColumns(svgEl, cols) {
  const current = Number(svgEl.style.getPropertyValue("--cols")) || 0;
  if (cols <= current) return;
  setColumns(svgEl, cols);
}

function clearPreview(container) {
  const timer = previewTimers.get(container);
  if (timer) clearTimeout(timer);
  previewTimers.delete(container);
  for (const el of container.querySelectorAll(".preview")) el.remove();
  for (const { drawn } of container.__roadBoxes || []) {
    // a preview may have widened a road: back to the columns its cells need
    if (drawn && drawn.svg.style.getPropertyValue("--cols") !== String(drawn.cols)) setColumns(drawn.svg, drawn.cols);
  }
}

/* ---- shoe statistics ---- */

/** Counts over the shoe's bead plate. */
export function shoeStats(roads) {
  const s = { rounds: 0, banker: 0, player: 0, tie: 0, player_pair: 0, banker_pair: 0, natural: 0 };
  for (const b of roads.bead_plate) {
    s.rounds += 1;
    if (b.winner in s) s[b.winner] += 1;
    if (b.player_pair) s.player_pair += 1;
    if (b.banker_pair) s.banker_pair += 1;
    if (b.natural) s.natural += 1;
  }
  return s;
}

/** Fill `el` with one item per statistic: [data-stat=key] with label, count and (main bets) percentage. */
export function drawStats(el, stats) {
  const label = {
    rounds: gettext("Rounds"),
    banker: gettext("Banker"),
    player: gettext("Player"),
    tie: gettext("Tie"),
    banker_pair: gettext("Banker pair"),
    player_pair: gettext("Player pair"),
    natural: gettext("Natural"),
  };
  const rounds = Number(stats.rounds) || 0;
  const pct = (n) => (rounds ? ((100 * (Number(n) || 0)) / rounds).toFixed(1) : "0.0") + "%";
  let html = "";
  for (const key of ["banker", "player", "tie", "banker_pair", "player_pair", "natural", "rounds"]) {
    const count = Number(stats[key]) || 0;
    const main = key === "banker" || key === "player" || key === "tie";
    html +=
      `<div class="stat stat-${key}" data-stat="${key}">` +
      `<span class="stat-dot" aria-hidden="true"></span>` +
      `<span class="stat-label">${esc(label[key])}</span> ` +
      `<span class="stat-count">${count}</span>` +
      (main ? ` <span class="stat-pct">${pct(count)}</span>` : "") +
      `</div>`;
  }
  el.classList.add("shoe-stats");
  if (el.__html !== html || !el.firstChild) {
    el.innerHTML = html;
    el.__html = html;
  }
}
