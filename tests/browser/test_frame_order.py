"""The browser's side of the frame sequence (static/casino/table/order.js), run in Chromium: events already in
the applied snapshot are dropped, a snapshot older than an applied event asks for a fresh one (the stale
snapshot of round 92 after round 94 opened), and a new epoch starts over."""

from __future__ import annotations

SCENARIO = """async () => {
  const { FrameOrder } = await import("/static/casino/table/order.js");
  const order = new FrameOrder();
  const d = (frame) => order.decide(frame);
  return [
    d({ type: "pong" }),                                           // not numbered: apply
    d({ type: "snapshot", epoch: "a", seq: 10 }),                  // apply
    d({ type: "round.opened", epoch: "a", seq: 9 }),               // in the snapshot: drop
    d({ type: "round.opened", epoch: "a", seq: 10 }),              // in the snapshot: drop
    d({ type: "round.opened", epoch: "a", seq: 12 }),              // apply (round 94 opened)
    d({ type: "snapshot", epoch: "a", seq: 11 }),                  // stale (round 92): resync
    d({ type: "snapshot", epoch: "a", seq: 12 }),                  // fresh: apply
    d({ type: "bets.totals", epoch: "a", seq: 12 }),               // in it: drop
    d({ type: "card.dealt", epoch: "a", seq: 13 }),                // apply
    d({ type: "card.dealt", epoch: "b", seq: 1 }),                 // Redis restarted: apply
    d({ type: "card.dealt", epoch: "b", seq: 2 }),                 // apply
    d({ type: "snapshot", epoch: "b", seq: 1 }),                   // older than seq 2 of epoch b: resync
  ];
}"""


def test_frames_are_ordered_by_their_sequence(casino_url, page):
    page.goto(casino_url + "/rules/")
    assert page.evaluate(SCENARIO) == [
        "apply",
        "apply",
        "drop",
        "drop",
        "apply",
        "resync",
        "apply",
        "drop",
        "apply",
        "apply",
        "apply",
        "resync",
    ]
