/* Short tones for the live moments, made with Web Audio (nothing to download). Off until the player turns it on. */
const KEY = "casino.sound";
let context = null;

export function soundOn() {
  return localStorage.getItem(KEY) === "on";
}

export function setSound(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
  // A signed-in player's choice is also saved to the profile (static/casino/accounts.js listens).
  document.dispatchEvent(new CustomEvent("casino:sound", { detail: { on } }));
}

function tone(frequency, start, duration, volume = 0.08, type = "sine") {
  context = context || new AudioContext();
  const osc = context.createOscillator();
  const gain = context.createGain();
  osc.type = type;
  osc.frequency.value = frequency;
  gain.gain.setValueAtTime(volume, context.currentTime + start);
  gain.gain.exponentialRampToValueAtTime(0.0001, context.currentTime + start + duration);
  osc.connect(gain).connect(context.destination);
  osc.start(context.currentTime + start);
  osc.stop(context.currentTime + start + duration);
}

const SOUNDS = {
  chip: () => tone(1400, 0, 0.05, 0.05, "triangle"),
  open: () => [660, 880].forEach((f, i) => tone(f, i * 0.12, 0.15)),
  close: () => [880, 660, 440].forEach((f, i) => tone(f, i * 0.12, 0.18)),
  card: () => tone(300, 0, 0.06, 0.05, "square"), // a card turns (reveal.js)
  result: () => [392, 587].forEach((f, i) => tone(f, i * 0.1, 0.22, 0.07)), // the result, after the last turn
  win: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.09, 0.2)),
  warn: () => tone(440, 0, 0.12, 0.06, "sawtooth"),
};

export function play(name) {
  if (!soundOn()) return;
  try {
    SOUNDS[name]();
  } catch (error) {
    /* no audio device: silence is fine */
  }
}
