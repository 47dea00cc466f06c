/* A table's frames in order, by the per-table sequence the server gives them (tables/sequence.py).
 * A snapshot carries the number of the last event it contains; every table event carries its own.
 * - An event numbered at most the applied snapshot's is already in it: drop it.
 * - A snapshot numbered below an event already applied is stale (read before that event): ask again.
 * - A new epoch means the server's numbering started over (its Redis restarted): take it as it comes.
 * Frames without a number (personal events, replies) always apply. */
export class FrameOrder {
  constructor() {
    this.epoch = null;
    this.floor = 0; // the applied snapshot's number
    this.seen = 0; // the highest number applied
  }

  /** "apply", "drop" or "resync". */
  decide(frame) {
    if (typeof frame.seq !== "number" || !frame.epoch) return "apply";
    const sameEpoch = frame.epoch === this.epoch;
    if (frame.type === "snapshot") {
      if (sameEpoch && frame.seq < this.seen) return "resync";
      this.seen = sameEpoch ? Math.max(this.seen, frame.seq) : frame.seq;
      this.epoch = frame.epoch;
      this.floor = frame.seq;
      return "apply";
    }
    if (!sameEpoch) {
      this.epoch = frame.epoch;
      this.floor = 0;
      this.seen = frame.seq;
      return "apply";
    }
    if (frame.seq <= this.floor) return "drop";
    this.seen = Math.max(this.seen, frame.seq);
    return "apply";
  }
}
