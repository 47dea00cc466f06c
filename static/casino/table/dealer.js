/* A live dealer's table, as players see it (docs/table-client.md, "Live dealer tables"): the dealer's name, the
 * video above the felt with the cards over it (video.js plays it), what the dealer's shoe is doing (shuffling a new
 * shoe, for how long; the cut card out) and "Video interrupted" while the video stalls. A table dealt by the
 * server's shoe, or a live one without a video, shows none of the video; a page without these elements (/multi/)
 * gets stand-ins and plays nothing. Nothing here holds the round up: cards and results come over the socket. */
import { fill } from "../format.js";
import { rankLabel } from "./cards.js";
import { VideoPlayer } from "./video.js";

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };

function cardText(code) {
  return rankLabel(code) + (SUIT[String(code).slice(-1)] || "");
}

/** m:ss (0:07, 1:42, 12:05). */
function clockText(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
}

/** `t`: the table (client.js): `$`, `S`, `render`, `root`. */
export function createDealer(t) {
  const { $, S } = t;
  const live = { on: false, url: "", status: null }; // status: {kind: "shuffling", since, burn, count} | {kind: "cut_card"}
  S.live = live;
  const video = $("video");
  const player =
    video instanceof HTMLVideoElement
      ? new VideoPlayer(video, { hlsSrc: video.dataset.hls, onChange: interrupted })
      : null;
  let timer = null;

  function interrupted(value) {
    const box = $("video-box");
    box.toggleAttribute("data-interrupted", value);
    const notice = $("video-notice");
    // Written when it shows (a status region reads what changes in it), emptied when the video plays again.
    notice.textContent = value ? gettext("Video interrupted: the round goes on") : "";
    notice.hidden = !value;
  }

  /** The table's part of a snapshot (or the lobby's row): how it is dealt, by whom, with which video. */
  function table(info) {
    if (!info) return;
    live.on = info.dealing === "live";
    dealer(info.dealer);
    const url = live.on && player ? info.video_url || "" : "";
    const stage = $("stage");
    stage.classList.toggle("has-video", Boolean(url));
    $("video-box").hidden = !url;
    t.root.dataset.dealing = info.dealing || "shoe";
    if (url !== live.url) {
      live.url = url;
      player.play(url);
    }
  }

  /** The dealer on shift ({name} or null). */
  function dealer(info) {
    const name = live.on && info ? info.name : "";
    for (const el of [$("dealer-name"), $("video-dealer-name")]) el.textContent = name;
    $("dealer").hidden = !name;
    $("video-dealer").hidden = !name;
  }

  /** The shoe's part of a snapshot: a live shoe still being shuffled and burned, or its cut card out. */
  function shoe(info) {
    if (!info || !live.on || !info.live) return status(null);
    if (!info.ready) {
      const same = live.status && live.status.kind === "shuffling" && live.status.shoe === info.number;
      const since = info.shuffling_since ? Date.parse(info.shuffling_since) : same ? live.status.since : serverNow();
      return status({ kind: "shuffling", shoe: info.number, since, burn: info.burn_card, count: info.burn_count });
    }
    status(info.cut_card_out && !info.finished ? { kind: "cut_card" } : null);
  }

  /** shoe.shuffling: the dealer shuffles a new shoe (again when the burn card is scanned, with the burn). */
  function shuffling(frame) {
    if (!live.on) return;
    const same = live.status && live.status.kind === "shuffling" && live.status.shoe === frame.shoe_number;
    const since = frame.shuffling_since ? Date.parse(frame.shuffling_since) : same ? live.status.since : serverNow();
    if (!same) t.render.announce(gettext("The dealer is shuffling a new shoe"));
    status({ kind: "shuffling", shoe: frame.shoe_number, since, burn: frame.burn_card, count: frame.burn_count });
  }

  function cutCard() {
    if (!live.on) return;
    if (!live.status || live.status.kind !== "cut_card") t.render.announce(gettext("Cut card out: last round of the shoe"));
    status({ kind: "cut_card" });
  }

  function serverNow() {
    return Date.now() + (S.countdown ? S.countdown.offsetMs : 0);
  }

  function status(next) {
    live.status = next;
    const el = $("shoe-status");
    clearInterval(timer);
    timer = null;
    if (!next) {
      el.hidden = true;
      delete el.dataset.kind;
      return;
    }
    el.dataset.kind = next.kind;
    el.hidden = false;
    draw();
    if (next.kind === "shuffling") timer = setInterval(draw, 1000);
  }

  /* The pill under the phase: how long the dealer has been shuffling (the phase says "The dealer is shuffling a
   * new shoe") and, once scanned, the burn card; or the cut card out. Not a live region: the time changes every
   * second, so what it says is announced once, when it starts (announce). */
  function draw() {
    const st = live.status;
    const el = $("shoe-status");
    if (!st) return;
    let text;
    let more = "";
    if (st.kind === "shuffling") {
      // the time isolated left-to-right inside a right-to-left sentence (U+2066 … U+2069)
      text = fill(gettext("Shuffling for %(time)s"), { time: "\u2066" + clockText(serverNow() - st.since) + "\u2069" });
      if (st.burn) more = fill(gettext("Burn card %(card)s: %(count)s cards burned"), { card: cardText(st.burn), count: st.count });
    } else {
      text = gettext("Cut card out: last round of the shoe");
    }
    const textEl = el.querySelector(".status-text") || el;
    if (textEl.textContent !== text) textEl.textContent = text;
    const moreEl = el.querySelector(".status-more");
    if (moreEl) {
      if (moreEl.textContent !== more) moreEl.textContent = more;
      moreEl.hidden = !more;
    }
  }

  return { table, dealer, shoe, shuffling, cutCard, status, get interrupted() { return player ? player.interrupted : false; } };
}
