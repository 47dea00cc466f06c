/* Shared by every player page: the one money formatter and translation helpers over Django's JS catalogue. */

const money = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Money as the house writes it in every language: 1,234.00 (American format, RULES). */
export function formatMoney(value) {
  if (value === null || value === undefined || value === "") return "–";
  const number = Number(value);
  return Number.isFinite(number) ? money.format(number) : "–";
}

/** A whole-unit chip value: 1, 25, 1K, 5K, 25K, 100K (short enough for a chip's face). */
export function chipLabel(value) {
  const n = Number(value);
  if (n >= 1000 && n % 1000 === 0) return n / 1000 + "K";
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

/** Cents as an integer, so sums never meet floating point: "10.05" → 1005. */
export function cents(value) {
  const [whole, frac = ""] = String(value ?? "0").split(".");
  const sign = whole.startsWith("-") ? -1 : 1;
  return sign * (Math.abs(parseInt(whole, 10) || 0) * 100 + parseInt((frac + "00").slice(0, 2), 10));
}

/** Cents back to the API's amount string: 1005 → "10.05". */
export function amount(centsValue) {
  const sign = centsValue < 0 ? "-" : "";
  const abs = Math.abs(centsValue);
  return sign + Math.floor(abs / 100) + "." + String(abs % 100).padStart(2, "0");
}

/** A translated template with named parts, as Django's interpolate(fmt, values, true):
 * fill(gettext("Round %(number)s"), {number: 3}). Call gettext() at the call site so makemessages finds it. */
export function fill(template, values) {
  return template.replace(/%\((\w+)\)s/g, (_, name) => (values[name] === undefined ? "" : String(values[name])));
}

/** Left-to-right isolate for numbers, codes and card rows inside right-to-left text. */
export function ltr(text) {
  return "\u2066" + text + "\u2069";
}
