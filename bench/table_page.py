"""Benchmark of the live table page (/tables/<id>/) in headless Chromium, each figure next to a baseline
measured in the same run.

    .venv/bin/python bench/table_page.py [--reps 50] [--card-rounds 30] [-v]

What it does (everything on loopback; everything it starts, it stops):

1. Creates a scratch database ``baccarat_bench_page`` (the embedded PostgreSQL when DATABASE_URL is unset),
   migrates it, deals a whole 8-deck shoe with the real engine (``tables.engine.new_shoe`` + ``deal_round``,
   the first seed giving 80+ rounds) and stores it as the table's current shoe with its settled rounds, so the
   page opens on a full scoreboard; makes a funded player. Starts one daphne (no Celery: nothing moves the
   table; the frames below are fed to the page itself).
2. Static weight: every response the browser gets while loading the table page signed in (HTML, JS, CSS, SVG,
   fonts, the /jsi18n/ catalogue; Playwright ``response`` events, decoded body sizes, fresh cache), next to
   the same for a minimal Django page (/accounts/login/, signed out). Goal: ≤ 250 kB.
3. In the loaded page, through ``window.casinoTable.handle(frame)`` (frames as the server sends them):
   - a whole round with realistic pacing (opened, totals, closed, its cards, result with the full shoe's
     roads, settled), watched by a ``longtask`` PerformanceObserver installed before load: long tasks over
     50 ms (goal: none), and the longest ``handle()`` call;
   - ``round.result`` of the shoe's last round, carrying the five roads of the full shoe while the page shows
     them without that round (as at the table: each result adds one round; its cards already dealt, so the work
     is the result and the roads), ``--reps`` times: median / p95 (goal ≤ 16 ms), next to the same number of
     plain ``<div>``s and to a bare ``innerHTML`` of the very SVG markup the page drew (no JS building it); and,
     for the page load, ``drawRoads()`` of the full shoe into an empty container (every cell drawn);
   - ``card.dealt``: every card of ``--card-rounds`` real rounds (a new ``round.opened`` and its
     ``round.closed`` before each, untimed): median / p95 (goal ≤ 4 ms), next to appending one element.
   Each timing is ``handle()`` plus the style and layout it leaves pending (forced by reading
   ``offsetHeight``), the baselines likewise; paint and compositing are not in it. Frames are paced as at
   the table (the card flips end before the next frame) and each sample starts on a settled page, its
   baselines measured just before it on the same page.
4. Prints the table, stops daphne, drops the database. Per goal OK / MISSED; exit status 0 unless the
   benchmark itself failed.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baccarat_site import daphne_server  # noqa: E402

# Django, and the project's modules that need it, are imported inside the functions that use them: the
# scratch database's settings exist only once django_setup() has run.
from bench.results import record  # noqa: E402
from bench.scratch import django_setup, drop_database, recreate_database, service_urls, stop_groups  # noqa: E402
from tables.engine import BET_TYPES, commitment, facts_of, new_shoe, outcome_marks, roads  # noqa: E402

BENCH_DB = "baccarat_bench_page"
LOOPBACK = "127.0.0.1"
PLAYER, PASSWORD = "bench-player", "bench-pass-123"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
FIRST_ROUND_ID = 1_000_000  # frames fed to the page: newer than any stored round, so the page accepts them

GOAL_WEIGHT_KB = 250
GOAL_ROADS_MS = 16.0
GOAL_CARD_MS = 4.0
LONG_TASK_MS = 50.0


# ── statistics ──────────────────────────────────────────────────────────────


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def med_p95(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} / {percentile(values, 95):.2f} ms"


# ── the shoe, from the engine ───────────────────────────────────────────────


def full_shoe(min_rounds: int = 80) -> tuple[Any, list[Any]]:
    """The first shoe (seeds derived from a fixed label) that deals at least ``min_rounds`` rounds, dealt whole."""
    for i in range(1000):
        seed = hashlib.sha256(f"bench-table-page-{i}".encode()).hexdigest()
        shoe = new_shoe(8, seed_hex=seed)
        results = []
        while not shoe.is_last_round:
            results.append(shoe.deal_round())
        if len(results) >= min_rounds:
            return shoe, results
    raise SystemExit(f"no shoe of {min_rounds}+ rounds in 1000 seeds")


def deal_entries(result: Any) -> list[dict[str, Any]]:
    """A round's cards as stored on Round.cards (positions 1.. in deal order)."""
    return [
        {"hand": hand, "card": str(card), "position": i}
        for i, (hand, card) in enumerate(result.cards_in_deal_order(), start=1)
    ]


# ── database, server ────────────────────────────────────────────────────────


def make_table(shoe_state: Any, results: list[Any]) -> tuple[int, list[str]]:
    """A table whose current shoe is ``results``, every round settled; a funded player. (table id, bet types)"""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from tables.models import Round, Shoe, Table
    from tables.services.variants import variant_create
    from wallets.services import wallet_deposit

    now = timezone.now()
    variant = variant_create(name="Bench page")
    # Open, as a live table between rounds; nothing runs the ticker in this benchmark.
    table = Table.objects.create(name="Bench page", variant=variant, next_action_at=now + timedelta(days=1))
    shoe = Shoe.objects.create(
        table=table,
        number=1,
        state=shoe_state.to_dict(),
        server_seed=shoe_state.seed,
        commitment=commitment(shoe_state.seed),
        burn_card=str(shoe_state.burn_card),
        burn_count=shoe_state.burn_count,
    )
    start = now - timedelta(seconds=30 * len(results))
    rows = []
    for n, result in enumerate(results, start=1):
        at = start + timedelta(seconds=30 * n)
        rows.append(
            Round(
                table=table,
                shoe=shoe,
                number=n,
                state=Round.State.SETTLED,
                opens_at=at - timedelta(seconds=25),
                closes_at=at - timedelta(seconds=10),
                closed_at=at - timedelta(seconds=10),
                dealing_started_at=at - timedelta(seconds=10),
                result_at=at - timedelta(seconds=5),
                settled_at=at - timedelta(seconds=4),
                cards=deal_entries(result),
                player_total=result.player_total,
                banker_total=result.banker_total,
                winner=result.winner,
                flags=result.flags(),
                is_last_of_shoe=n == len(results),
            )
        )
    Round.objects.bulk_create(rows)
    user = get_user_model().objects.create_user(username=PLAYER, password=PASSWORD)
    wallet_deposit(user=user, amount=Decimal("10000.00"), reason="bench funds")
    return table.pk, [t for t in BET_TYPES if t in variant.limits_dict()["per_type"]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"daphne exited:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"nothing answers at {url}")


# ── the browser side ────────────────────────────────────────────────────────

LONGTASK_OBSERVER = """
window.__longTasks = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
} catch (e) { window.__longTasks = null; }
"""

# Shared helpers, defined once in the page (window.__bench).
HELPERS = """
() => {
  const T = window.casinoTable;
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const settle = async () => { await frame(); await frame(); };
  const force = () => document.body.offsetHeight;
  const iso = (ms) => new Date(ms).toISOString();
  const opened = (bench, id, number, seconds = 15) => ({
    type: "round.opened", table_id: bench.tableId, round_id: id, number, shoe_number: 1,
    opens_at: iso(Date.now()), closes_at: iso(Date.now() + seconds * 1000), betting_seconds: seconds,
    server_time: iso(Date.now()), bet_types: bench.betTypes,
  });
  const dealt = (bench, id, number, entry) => ({
    type: "card.dealt", table_id: bench.tableId, round_id: id, number, hand: entry.hand, card: entry.card,
    position: entry.position, totals: entry.totals, player_total: entry.totals.player,
    banker_total: entry.totals.banker, cards_left: 200,
  });
  window.__bench = { T, frame, settle, force, opened, dealt, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
}
"""

ONE_ROUND = """
async (bench) => {
  const { T, opened, dealt, sleep } = window.__bench;
  const before = window.__longTasks ? window.__longTasks.slice() : null;
  const start = performance.now();
  let longest = 0, longestType = "";
  const feed = (f) => {
    const t0 = performance.now();
    T.handle(f);
    const d = performance.now() - t0;
    if (d > longest) { longest = d; longestType = f.type; }
  };
  const id = bench.nextId, number = bench.result.number;
  feed(opened(bench, id, number, 2));
  for (let i = 1; i <= 3; i++) {
    await sleep(300);
    feed({ type: "bets.totals", table_id: bench.tableId, round_id: id, players: i,
           totals: { banker: { amount: (25 * i) + ".00", players: i }, player: { amount: "10.00", players: 1 } } });
  }
  await sleep(1200);
  feed({ type: "round.closed", table_id: bench.tableId, round_id: id, number, closed_at: new Date().toISOString() });
  for (const entry of bench.result.cards) {
    await sleep(800);
    feed(dealt(bench, id, number, entry));
  }
  await sleep(800);
  feed(Object.assign({}, bench.result, { round_id: id, result_at: new Date().toISOString() }));
  await sleep(500);
  feed({ type: "round.settled", table_id: bench.tableId, round_id: id, bets: [], total_won: "0.00",
         balance: "10000.00" });
  await sleep(1500);
  const all = window.__longTasks;
  return {
    supported: all !== null,
    load: before || [],
    round: (all || []).filter((t) => t.start >= start),
    longest, longestType,
    drawn: document.querySelectorAll("#roads svg[data-road] .cell").length,
  };
}
"""

ROADS = """
async (bench) => {
  const { T, settle, force, opened, dealt, sleep } = window.__bench;
  const roadsEl = document.getElementById("roads");
  const style = document.createElement("style");
  style.textContent = "#bench-divs > div { display: inline-block; width: 12px; height: 12px; margin: 1px;" +
    " border-radius: 50%; background: #d33c3c; }";
  document.head.appendChild(style);
  const divBox = document.createElement("div");
  divBox.id = "bench-divs";
  const svgBox = document.createElement("div");
  svgBox.className = "roads";
  svgBox.id = "bench-svg";
  roadsEl.after(divBox, svgBox);
  const main = document.querySelector("script[type=module][src*='table/main.js']").src;
  const roadsModule = await import(new URL("roads.js", main).href); // the page's own instance
  // The snapshot drew the same shoe: its markup is what the bare innerHTML baseline sets.
  const markup = roadsEl.innerHTML;
  const cells = roadsEl.querySelectorAll("svg[data-road] .cell").length;
  const fullBox = document.createElement("div");
  fullBox.className = "roads";
  fullBox.id = "bench-full";
  svgBox.after(fullBox);
  const page = [], alone = [], divs = [], svg = [], full = [];
  for (let i = 0; i < bench.warmup + bench.reps; i++) {
    // a round up to its last card, then a pause (the flips end, as they have before a real result)
    const id = bench.nextId + i, number = bench.result.number;
    T.handle(opened(bench, id, number));
    for (const entry of bench.result.cards) T.handle(dealt(bench, id, number, entry));
    await sleep(400);
    await settle();

    // baselines first, on the same settled page the measured frame meets
    let t0 = performance.now();
    const frag = document.createDocumentFragment();
    for (let k = 0; k < cells; k++) frag.appendChild(document.createElement("div"));
    divBox.appendChild(frag);
    force();
    const tDivs = performance.now() - t0;
    divBox.textContent = "";
    await settle();

    t0 = performance.now();
    svgBox.innerHTML = markup;
    force();
    const tSvg = performance.now() - t0;
    svgBox.textContent = "";
    await settle();

    t0 = performance.now();
    roadsModule.drawRoads(fullBox, bench.result.roads); // the page load: every cell of the shoe, from nothing
    force();
    const tFull = performance.now() - t0;
    fullBox.textContent = "";
    fullBox.__roadBoxes = null;
    await settle();

    // the page shows the shoe without its last round (untimed); the result adds it
    roadsModule.drawRoads(roadsEl, bench.before);
    await settle();
    t0 = performance.now();
    roadsModule.drawRoads(roadsEl, bench.result.roads);
    force();
    const tAlone = performance.now() - t0;
    await settle();

    roadsModule.drawRoads(roadsEl, bench.before);
    await settle();
    t0 = performance.now();
    T.handle(Object.assign({}, bench.result, { round_id: id, result_at: new Date().toISOString() }));
    force();
    const tPage = performance.now() - t0;
    await settle();

    if (i >= bench.warmup) { page.push(tPage); alone.push(tAlone); divs.push(tDivs); svg.push(tSvg); full.push(tFull); }
  }
  divBox.remove(); svgBox.remove(); fullBox.remove(); style.remove();
  const drawn = roadsEl.querySelectorAll("svg[data-road] .cell").length;
  return { page, alone, divs, svg, full, cells, drawn, bytes: markup.length };
}
"""

CARDS = """
async (bench) => {
  const { T, settle, force, opened, dealt, sleep } = window.__bench;
  const box = document.createElement("div");
  box.id = "bench-append";
  document.getElementById("hands").after(box);
  const page = [], base = [], positions = [];
  for (let i = 0; i < bench.rounds.length; i++) {
    const id = bench.nextId + i, round = bench.rounds[i];
    T.handle(opened(bench, id, round.number));
    await settle();
    // as the server does: the window closes before the first card
    T.handle({ type: "round.closed", table_id: bench.tableId, round_id: id, number: round.number,
               closed_at: new Date().toISOString() });
    await sleep(100);
    await settle();
    for (const entry of round.cards) {
      let t0 = performance.now();
      const el = document.createElement("div");
      el.textContent = entry.card;
      box.appendChild(el);
      force();
      base.push(performance.now() - t0);
      await settle();

      t0 = performance.now();
      T.handle(dealt(bench, id, round.number, entry));
      force();
      page.push(performance.now() - t0);
      positions.push(entry.position);
      await sleep(400); // the flip ends before the next card, as it does at the table (800 ms apart)
      await settle();
    }
    box.textContent = "";
    const shown = document.querySelectorAll("#player-cards .card, #banker-cards .card").length;
    if (shown !== round.cards.length) throw new Error(`round ${id}: ${shown} cards shown, ${round.cards.length} dealt`);
  }
  box.remove();
  return { page, base, positions };
}
"""


def weigh(context: Any, url: str) -> tuple[int, dict[str, int], int, list[str]]:
    """Load ``url`` in ``context`` (fresh cache): (bytes, bytes per kind, gzip bytes, the URLs requested)."""
    page = context.new_page()
    responses: list[Any] = []
    page.on("response", lambda response: responses.append(response))
    page.goto(url, wait_until="load")
    page.wait_for_timeout(1500)  # anything requested late (icon, a lazy import)
    total, gz, kinds, urls = 0, 0, {}, []
    for response in responses:
        if response.status in (101, 204, 304) or not response.url.startswith("http"):
            continue
        try:
            body = response.body()
        except Exception:  # a redirect has no body
            continue
        kind = kind_of(response)
        kinds[kind] = kinds.get(kind, 0) + len(body)
        total += len(body)
        gz += len(gzip.compress(body, 6))
        urls.append(f"{len(body):8,d}  {response.url}")
    page.close()
    return total, kinds, gz, urls


def kind_of(response: Any) -> str:
    url = response.url.split("?")[0]
    if "/jsi18n/" in url:
        return "jsi18n"
    resource = response.request.resource_type
    if resource == "document":
        return "html"
    for ext, kind in ((".js", "js"), (".css", "css"), (".svg", "svg"), (".woff2", "font"), (".woff", "font")):
        if url.endswith(ext):
            return kind
    return {"script": "js", "stylesheet": "css", "font": "font", "image": "image"}.get(resource, resource)


# ── the scratch casino and the browser (bench/reveal.py uses them too) ──────


class Casino(NamedTuple):
    base: str  # http://127.0.0.1:<port>
    table_id: int
    bet_types: list[str]
    results: list[Any]  # the shoe's rounds, as the engine dealt them
    log: Path  # daphne's output


@contextlib.contextmanager
def scratch_casino(db_name: str, prefix: str, *, keep_db: bool = False) -> Iterator[Casino]:
    """A scratch database ``db_name`` (migrated) holding a table whose current shoe is a whole 8-deck shoe dealt
    by the engine, and a funded player; one daphne on loopback serving it (nothing runs the ticker). Stops daphne
    and drops the database (unless ``keep_db``) on the way out."""
    db_url, redis_url = service_urls()
    bench_url = recreate_database(db_url, db_name)
    django_setup(bench_url, redis_url, CHANNELS_PREFIX=prefix, CACHE_KEY_PREFIX=prefix)
    shoe_state, results = full_shoe(80)
    table_id, bet_types = make_table(shoe_state, results)
    from django.db import connections  # after django_setup: settings come from the scratch database's URL

    connections.close_all()
    env = {
        **os.environ,
        "DATABASE_URL": bench_url,
        "REDIS_URL": redis_url,
        "CHANNELS_PREFIX": prefix,
        "CACHE_KEY_PREFIX": prefix,
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    log = Path(tempfile.mkdtemp(prefix=f"{db_name}-")) / "daphne.log"
    port = free_port()
    procs: list[subprocess.Popen] = []
    command = daphne_server.command(LOOPBACK, port)
    try:
        with log.open("wb") as out:
            procs.append(
                subprocess.Popen(
                    command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
                )
            )
        base = f"http://{LOOPBACK}:{port}"
        wait_http(base + "/accounts/login/", procs[0], log)
        yield Casino(base, table_id, bet_types, results, log)
    finally:
        stop_groups(procs)
        connections.close_all()
        if not keep_db:
            drop_database(db_url, db_name)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium (Playwright), closed on the way out."""
    from playwright.sync_api import sync_playwright  # only the browser benchmarks need Playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def open_table_page(browser: Any, base: str, table_id: int, viewport: dict[str, int], out: dict[str, Any]) -> Any:
    """Sign the player in once; weigh the table page signed in (``out["weight"]``) and the login page signed
    out (``out["weight_base"]``), each in a fresh context; then open the table page in a context watched by
    ``LONGTASK_OBSERVER`` from before load, until it is connected and has drawn its roads. Returns
    ``(context, page, errors)``: the page's uncaught errors are appended to ``errors`` as they come."""
    login = browser.new_context(viewport=viewport, locale="en-US")
    page = login.new_page()
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", PLAYER)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base + "/")
    session = login.storage_state()
    login.close()

    ctx = browser.new_context(viewport=viewport, locale="en-US", storage_state=session)
    out["weight"] = weigh(ctx, f"{base}/tables/{table_id}/")
    ctx.close()
    ctx = browser.new_context(viewport=viewport, locale="en-US")
    out["weight_base"] = weigh(ctx, base + "/accounts/login/")
    ctx.close()

    ctx = browser.new_context(viewport=viewport, locale="en-US", storage_state=session)
    ctx.add_init_script(LONGTASK_OBSERVER)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/tables/{table_id}/")
    page.wait_for_selector("#table[data-connected='1']", timeout=30_000)
    page.wait_for_function("document.querySelectorAll('#roads svg[data-road] .cell').length > 0", timeout=30_000)
    return ctx, page, errors


def browser_measures(base: str, table_id: int, bet_types: list[str], results: list[Any], args: Any) -> dict:
    from tables.selectors.tables import cards_with_totals

    last = results[-1]
    result_frame = {
        "type": "round.result",
        "table_id": table_id,
        "number": len(results),
        "shoe_number": 1,
        "cards": cards_with_totals(deal_entries(last)),
        "player_cards": [str(c) for c in last.player_cards],
        "banker_cards": [str(c) for c in last.banker_cards],
        "player_total": last.player_total,
        "banker_total": last.banker_total,
        "winner": last.winner,
        "flags": last.flags(),
        "outcomes": outcome_marks(facts_of(last)),
        "is_last_of_shoe": True,
        "roads": roads([r.flags() for r in results]),
    }
    card_rounds = [
        {"number": n, "cards": cards_with_totals(deal_entries(r))}
        for n, r in list(enumerate(results, start=1))[: args.card_rounds]
    ]
    bench = {
        "tableId": table_id,
        "betTypes": bet_types,
        "result": result_frame,
        "before": roads([r.flags() for r in results[:-1]]),  # what the page shows before the last result
    }
    out: dict[str, Any] = {
        "shoe_rounds": len(results),
        "expected_cells": sum(
            len(result_frame["roads"][k])
            for k in ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig")
        ),
    }

    out["load"] = os.getloadavg()
    with chromium() as browser:
        out["chromium"] = browser.version
        ctx, page, errors = open_table_page(browser, base, table_id, {"width": 1280, "height": 900}, out)
        page.wait_for_timeout(500)
        out["cells_on_load"] = page.evaluate("document.querySelectorAll('#roads svg[data-road] .cell').length")
        page.evaluate(HELPERS)
        next_id = FIRST_ROUND_ID
        out["round"] = page.evaluate(ONE_ROUND, {**bench, "nextId": next_id})
        next_id += 1
        out["roads"] = page.evaluate(ROADS, {**bench, "nextId": next_id, "reps": args.reps, "warmup": args.warmup})
        next_id += args.reps + args.warmup
        out["cards"] = page.evaluate(CARDS, {**bench, "nextId": next_id, "rounds": card_rounds})
        out["errors"] = errors
        out["cores"] = page.evaluate("navigator.hardwareConcurrency")
        ctx.close()
    return out


# ── the run ─────────────────────────────────────────────────────────────────


def run(args: argparse.Namespace) -> int:
    with scratch_casino(BENCH_DB, f"benchpage{os.getpid()}", keep_db=args.keep_db) as casino:
        m = browser_measures(casino.base, casino.table_id, casino.bet_types, casino.results, args)

    report(m, args)
    if args.verbose:
        print("\nrequests, table page (bytes, URL):")
        print("\n".join(m["weight"][3]))
        print("requests, baseline page:")
        print("\n".join(m["weight_base"][3]))
    print(f"(daphne log: {casino.log})")
    return 0


def report(m: dict[str, Any], args: argparse.Namespace) -> None:
    weight, kinds, gz, urls = m["weight"]
    bweight, _bkinds, bgz, burls = m["weight_base"]
    rd, cd, rnd = m["roads"], m["cards"], m["round"]
    verdict = {}
    verdict["weight"] = weight <= GOAL_WEIGHT_KB * 1000
    verdict["roads"] = statistics.median(rd["page"]) <= GOAL_ROADS_MS and percentile(rd["page"], 95) <= GOAL_ROADS_MS
    verdict["card"] = statistics.median(cd["page"]) <= GOAL_CARD_MS and percentile(cd["page"], 95) <= GOAL_CARD_MS
    over = [t for t in rnd["round"] if t["duration"] > LONG_TASK_MS]
    verdict["long"] = rnd["supported"] and not over
    mark = {True: "OK", False: "MISSED"}

    rows = [
        (
            "static weight, table page signed in",
            f"{weight / 1000:.1f} kB ({len(urls)} requests)",
            f"{bweight / 1000:.1f} kB ({len(burls)} requests, /accounts/login/)",
            f"<= {GOAL_WEIGHT_KB} kB",
            mark[verdict["weight"]],
        ),
        (
            f"round.result + five roads, round {m['shoe_rounds']} of the shoe, med / p95",
            med_p95(rd["page"]),
            f"{med_p95(rd['divs'])} ({rd['cells']} <div>s)",
            f"<= {GOAL_ROADS_MS:.0f} ms",
            mark[verdict["roads"]],
        ),
        ("", "", f"{med_p95(rd['svg'])} (innerHTML of the same SVG)", "", ""),
        (
            f"card.dealt, {len(cd['page'])} frames, med / p95",
            med_p95(cd["page"]),
            f"{med_p95(cd['base'])} (append one element)",
            f"<= {GOAL_CARD_MS:.0f} ms",
            mark[verdict["card"]],
        ),
        (
            "long tasks > 50 ms in one whole round",
            (
                f"{len(over)} (longest {max(t['duration'] for t in over):.0f} ms)"
                if over
                else "0 (none reported)"
                if rnd["supported"]
                else "longtask API unavailable"
            ),
            f"longest handle(): {rnd['longest']:.1f} ms ({rnd['longestType']})",
            "none",
            mark[bool(verdict["long"])],
        ),
    ]
    for measure, result, base, goal, met in (
        ("table page static weight", weight / 1000, bweight / 1000, f"≤ {GOAL_WEIGHT_KB} kB", "weight"),
        (
            "round.result + five roads, p95",
            percentile(rd["page"], 95),
            percentile(rd["divs"], 95),
            GOAL_ROADS_MS,
            "roads",
        ),
        ("card.dealt, p95", percentile(cd["page"], 95), percentile(cd["base"], 95), GOAL_CARD_MS, "card"),
    ):
        unit = "kB" if met == "weight" else "ms"
        goal_text = goal if isinstance(goal, str) else f"≤ {goal:.0f} ms"
        record(measure, result, unit, baseline=base, goal=goal_text, met=verdict[met])
    header = ("measure", "result", "baseline (same run)", "goal", "")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(5)]
    print()
    print(
        f"Table page, headless Chromium {m['chromium']} ({m['cores']} cores), "
        f"{args.reps} repetitions after {args.warmup} warm-up; load average {m['load'][0]:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after"
    )
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  " + "  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    print()
    print(
        "  weight by kind: "
        + ", ".join(f"{k} {v / 1000:.1f} kB" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
        + f"; gzip -6 of the same bodies {gz / 1000:.1f} kB (baseline {bgz / 1000:.1f} kB)"
    )
    print(f"  of the round.result: drawRoads() alone (the page's roads.js, same roads) {med_p95(rd['alone'])}")
    print(f"  full redraw (the page load): drawRoads() of the whole shoe into an empty container {med_p95(rd['full'])}")
    print(
        f"  roads drawn: {rd['drawn']} cells ({m['expected_cells']} in the engine's roads), "
        f"{rd['bytes'] / 1000:.0f} kB of SVG markup; cells on load (snapshot) {m['cells_on_load']}"
    )
    first = [t for t, pos in zip(cd["page"], cd["positions"], strict=True) if pos == 1]
    later = [t for t, pos in zip(cd["page"], cd["positions"], strict=True) if pos > 1]
    print(f"  card.dealt: the first card (the round turns to dealing) {med_p95(first)}, the others {med_p95(later)}")
    load_long = [t["duration"] for t in rnd["load"] if t["duration"] > LONG_TASK_MS]
    print(
        f"  context: long tasks during the page load (snapshot of the full shoe): {len(load_long)}"
        + (f", longest {max(load_long):.0f} ms" if load_long else "")
        + f"; max round.result {max(rd['page']):.1f} ms, max card.dealt {max(cd['page']):.1f} ms"
    )
    if m["errors"]:
        print("  page errors: " + "; ".join(m["errors"][:5]))
    print("GOALS MET" if all(verdict.values()) else "GOALS NOT MET")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=50, help="round.result repetitions (measured)")
    parser.add_argument("--warmup", type=int, default=5, help="round.result repetitions before measuring")
    parser.add_argument("--card-rounds", type=int, default=30, help="rounds whose card.dealt frames are timed")
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every request of the weight measure")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        return run(args)
    return 130


if __name__ == "__main__":
    sys.exit(main())
