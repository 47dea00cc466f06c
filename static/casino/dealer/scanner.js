/* Card input like a shoe's scanner: a USB scanner types a card code and Enter into the focused page. The scan
 * field keeps the focus (it takes it back after a button or the picker); keys typed while the focus is on
 * something else that is not a text field are collected too, so a scan is never lost. `onCode(code)` gets each
 * code, trimmed and upper-cased; the server decides whether it is a card. */

const EDITABLE = "input, textarea, select, [contenteditable]";

export class Scanner {
  constructor(input, onCode) {
    this.input = input;
    this.onCode = onCode;
    this.buffer = "";
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      const code = input.value;
      input.value = "";
      this.submit(code);
    });
    // Keys typed with the focus elsewhere (a button just pressed): gathered here, Enter sends them.
    document.addEventListener("keydown", (event) => {
      if (event.target === input || event.target.closest(EDITABLE) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (document.querySelector("dialog[open]")) return;
      if (event.key === "Enter") {
        if (this.buffer) {
          event.preventDefault();
          const code = this.buffer;
          this.buffer = "";
          this.submit(code);
        }
        this.focus();
      } else if (event.key.length === 1 && /[0-9a-z]/i.test(event.key)) {
        event.preventDefault();
        this.buffer = (this.buffer + event.key).slice(-12);
      }
    });
    // Back to the scan field after anything but another text field or a dialog.
    input.addEventListener("blur", () => setTimeout(() => this.refocus(), 0));
    document.addEventListener("click", () => setTimeout(() => this.refocus(), 0));
  }

  submit(code) {
    const clean = String(code || "").trim().toUpperCase();
    if (clean) this.onCode(clean);
  }

  refocus() {
    const active = document.activeElement;
    if (document.querySelector("dialog[open]")) return;
    if (active && active !== this.input && active.matches(EDITABLE)) return;
    this.focus();
  }

  focus() {
    if (document.activeElement !== this.input) this.input.focus({ preventScroll: true });
  }
}
