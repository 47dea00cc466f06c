/* The table page's layout helpers (docs/table-client.md, "Layout"): nothing here knows about rounds or bets.
 *
 * - The Scoreboard's toggle (phones): folded, the panel shows the bead plate and the Big Road; open, all five
 *   roads, the statistics and the ask buttons (`data-expanded` on the panel).
 * - Side tabs: below 900 px the other side panels (My bets, Shoe, and any panel added later with a tab) are
 *   tabs under the dock. The chosen tab's panel (its aria-controls) carries `data-active`; the CSS hides the other
 *   `[data-panel]` panels below 900 px and shows them all on wider screens. Arrow keys, Home and End move between
 *   tabs (the WAI-ARIA tabs pattern).
 * - The dock: on a phone the notices, chips and buttons are fixed to the bottom of the screen; `--dock-h` on the
 *   page holds its height, so the page can scroll its last line above it. */

const side = document.getElementById("side");
const tabs = side ? [...side.querySelectorAll('.side-tabs [role="tab"]')] : [];

function select(tab, focus) {
  for (const other of tabs) {
    const chosen = other === tab;
    other.setAttribute("aria-selected", String(chosen));
    other.tabIndex = chosen ? 0 : -1;
    const panel = document.getElementById(other.getAttribute("aria-controls"));
    if (panel) panel.toggleAttribute("data-active", chosen);
  }
  if (focus) tab.focus();
}

for (const tab of tabs) {
  tab.addEventListener("click", () => select(tab, false));
  tab.addEventListener("keydown", (event) => {
    const i = tabs.indexOf(tab);
    const rtl = getComputedStyle(tab).direction === "rtl";
    const step = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1 }[event.key];
    let next = null;
    if (step) next = tabs[(i + step + tabs.length) % tabs.length];
    else if (event.key === "Home") next = tabs[0];
    else if (event.key === "End") next = tabs[tabs.length - 1];
    if (!next) return;
    event.preventDefault();
    select(next, true);
  });
}

const dock = document.getElementById("dock");
const page = document.getElementById("table");
if (dock && page && "ResizeObserver" in window) {
  new ResizeObserver(() => {
    page.style.setProperty("--dock-h", Math.ceil(dock.getBoundingClientRect().height) + "px");
  }).observe(dock);
}

const roadsPanel = document.getElementById("roads-panel");
const roadsToggle = document.getElementById("roads-toggle");
if (roadsPanel && roadsToggle) {
  roadsToggle.addEventListener("click", () => {
    const open = !roadsPanel.hasAttribute("data-expanded");
    roadsPanel.toggleAttribute("data-expanded", open);
    roadsToggle.setAttribute("aria-expanded", String(open));
  });
}
