/* The table page (/tables/<id>/): one TableClient over the whole page, its elements found by id (docs/table-client.md). */
import { TableClient } from "./client.js";

const config = JSON.parse(document.getElementById("table-config").textContent);
const client = new TableClient(document.getElementById("table"), config);

// live: the table's socket, which the chat panel (chat.js) shares.
window.casinoTable = {
  handle: client.handle,
  state: client.state,
  board: client.board,
  askMarks: client.askMarks,
  live: client.live,
};
