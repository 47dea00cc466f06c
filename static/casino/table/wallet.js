/* The player's balance when it moves somewhere else: bets confirmed on another device or at another table, a round
 * settled at another table. The server says so with a `wallet.changed` frame (docs/api.md), which carries no
 * balance: this table reads it again after that commit, so two such frames arriving out of order cannot leave an
 * older balance on screen.
 *  - A frame with a key this page sent itself is skipped: the confirm's answer already set the balance.
 *  - The same table during its betting window (another device's bets on this round): a snapshot brings both those
 *    bets and the balance.
 *  - Otherwise: GET /api/wallet/. One read at a time; a frame that arrives during it, or a balance the server sends
 *    this table meanwhile (a confirm's answer, a settlement), makes it read again rather than show what it read. */

/** The Idempotency-Keys this page sent, whichever of its tables sent them (/multi/ holds up to four). */
const sentKeys = new Set();

export function keySent(key) {
  sentKeys.add(key);
}

/** `t`: the table (client.js): `S`, `render`, `live`, `config`. Returns `changed(frame)`. */
export function createWalletFollower(t) {
  const { S } = t;
  let reading = false;
  let again = false;

  async function readBalance() {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const before = S.balanceSets;
        let response = null;
        try {
          response = await window.Casino.api("GET", "/api/wallet/");
        } catch (error) {
          response = null; // offline: the socket's snapshot when it reconnects brings the balance
        }
        if (!response || !response.ok) break;
        if (S.balanceSets !== before) again = true; // the server sent a balance meanwhile: this read may be older
        else if (!again) t.render.setBalance(response.data.balance);
      } while (again);
    } finally {
      reading = false;
    }
  }

  function changed(frame) {
    if (frame.idempotency_key && sentKeys.has(frame.idempotency_key)) return;
    const here = frame.table_id === t.config.table_id && S.round && S.round.id === frame.round_id;
    if (here && S.round.state === "betting") t.live.send({ type: "snapshot" });
    else readBalance();
  }

  return { changed };
}
