/* The live dealer's video: an HLS playlist played muted and inline in a <video>, and whether it is playing.
 *
 * Playback: hls.js (static/vendor/hls.js/, loaded only when a table has a video) wherever Media Source Extensions
 * exist, the browser's own HLS where they do not (iPhone) or where ManagedMediaSource says it is Safari: hls.js's
 * own advice, since Chrome reports canPlayType("application/vnd.apple.mpegurl") but may fail on some streams.
 *
 * Interrupted: the video is said to be interrupted (`onChange(true)`) when it errs (a <video> `error`, a fatal
 * hls.js error), when it ends (a live feed has no end), or when it makes no progress for STALL_MS, whether it says
 * `waiting` / `stalled` or nothing at all; playing on (its time moves again) ends it (`onChange(false)`). A fatal
 * error is retried every RETRY_MS. Nothing here knows about rounds: the round goes on over the socket. */

/** No progress for this long while it should play: interrupted. */
export const STALL_MS = 3000;
/** Before the first frame, the stream has this long to start. */
const START_MS = 8000;
/** A failed stream is tried again this often. */
const RETRY_MS = 4000;
const HLS_TYPE = "application/vnd.apple.mpegurl";

let hlsLoading = null;

/** window.Hls, the script loaded once from `src` (null when it cannot load). */
function loadHls(src) {
  if (window.Hls) return Promise.resolve(window.Hls);
  if (!hlsLoading) {
    hlsLoading = new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = src;
      script.async = true;
      script.onload = () => resolve(window.Hls || null);
      script.onerror = () => resolve(null);
      document.head.appendChild(script);
    });
  }
  return hlsLoading;
}

function mediaSourceExists() {
  return Boolean(window.MediaSource || window.ManagedMediaSource);
}

/** Plays `url` (or nothing, for "") in `video`. `hlsSrc`: where hls.js is; `onChange(interrupted)`. */
export class VideoPlayer {
  constructor(video, { hlsSrc, onChange }) {
    Object.assign(this, { video, hlsSrc, onChange });
    this.url = "";
    this.hls = null;
    this.interrupted = false;
    this.lastTime = 0;
    this.lastMove = 0;
    this.started = false;
    this.retry = null;
    this.timer = null;
    video.muted = true; // autoplay is allowed only muted
    video.defaultMuted = true;
    video.playsInline = true;
    video.setAttribute("playsinline", "");
    const moved = () => this.progress();
    video.addEventListener("timeupdate", moved);
    video.addEventListener("playing", moved);
    video.addEventListener("error", () => this.fail());
    video.addEventListener("ended", () => this.fail());
    // waiting / stalled: the watchdog decides (a short rebuffer that plays on within STALL_MS says nothing)
    for (const type of ["waiting", "stalled"]) video.addEventListener(type, () => this.check());
  }

  /** Play `url` ("" stops and empties the player). The same url again changes nothing. `keep`: an interruption
   * stays said until the new stream plays (a retry). */
  play(url, keep = false) {
    url = url || "";
    if (url === this.url) return;
    this.stop(keep);
    this.url = url;
    if (!url) return;
    this.lastMove = Date.now();
    this.timer = setInterval(() => this.check(), 500);
    this.attach();
  }

  async attach() {
    const url = this.url;
    const video = this.video;
    const safari = "ManagedMediaSource" in window || !mediaSourceExists();
    if (video.canPlayType(HLS_TYPE) && safari) {
      video.src = url;
    } else {
      const Hls = await loadHls(this.hlsSrc);
      if (url !== this.url) return; // another url (or none) meanwhile
      if (Hls && Hls.isSupported()) {
        const hls = new Hls({ lowLatencyMode: false, liveSyncDurationCount: 2, manifestLoadingMaxRetry: 2, levelLoadingMaxRetry: 2, fragLoadingMaxRetry: 2 });
        this.hls = hls;
        hls.on(Hls.Events.ERROR, (_event, data) => {
          if (data.fatal) this.fail();
          else if (data.details === Hls.ErrorDetails.BUFFER_STALLED_ERROR) this.check();
        });
        hls.loadSource(url);
        hls.attachMedia(video);
      } else if (video.canPlayType(HLS_TYPE)) {
        video.src = url;
      } else {
        this.setInterrupted(true); // this browser cannot play the stream: the table goes on without it
        return;
      }
    }
    const started = video.play();
    if (started && started.catch) started.catch(() => {}); // refused autoplay: the watchdog says so
  }

  stop(keep = false) {
    clearInterval(this.timer);
    clearTimeout(this.retry);
    this.timer = this.retry = null;
    if (this.hls) this.hls.destroy();
    this.hls = null;
    this.video.removeAttribute("src");
    this.video.load();
    this.started = false;
    this.lastTime = 0;
    if (!keep) this.setInterrupted(false);
  }

  progress() {
    const now = this.video.currentTime;
    if (now !== this.lastTime && !this.video.paused) {
      this.lastTime = now;
      this.lastMove = Date.now();
      this.started = true;
      this.setInterrupted(false);
    }
  }

  /** The watchdog: no progress for STALL_MS (START_MS before the first frame) is an interruption. */
  check() {
    if (!this.url) return;
    this.progress();
    const quiet = Date.now() - this.lastMove;
    if (quiet > (this.started ? STALL_MS : START_MS)) this.setInterrupted(true);
    // A paused video (a tab back from the background, autoplay once refused) is asked to play again.
    if (this.video.paused && this.video.readyState >= 2) {
      const again = this.video.play();
      if (again && again.catch) again.catch(() => {});
    }
  }

  /** An error or an end: interrupted at once, and the stream is tried again shortly. */
  fail() {
    if (!this.url) return;
    this.setInterrupted(true);
    if (this.retry) return;
    this.retry = setTimeout(() => {
      const url = this.url;
      this.retry = null;
      this.url = "";
      this.play(url, true); // still interrupted until it plays again
    }, RETRY_MS);
  }

  setInterrupted(value) {
    if (this.interrupted === value) return;
    this.interrupted = value;
    this.onChange(value);
  }
}
