"""A live dealer's table on the players' side (issue 24): the dealer's video, made here with ffmpeg as a local live
HLS stream, plays on the table page above the felt with the cards over it; when it stalls the page says "Video
interrupted" and the round goes on over the socket; the dealer's shuffle, burn, cut card, shift and supervisor call
reach the players. The dealer's steps are the services the console calls (tables.services.dealing).

The stream: ffmpeg (Debian's, with libx264) encodes a test pattern into 1 s H.264 MPEG-TS segments; a thread serves
them with a live playlist that grows by one segment a second, as a live encoder's does, until the test freezes it
(a live playlist that never grows: the player runs out of video and stalls), then lets it grow again.

Set ``LIVE_SHOTS=<directory>`` to keep screenshots (1366 × 768, 390 × 844, 1920 × 1080 and 1280 × 720, English and
Persian)."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission

from tables.models import Shoe, Table
from tables.services import dealing
from tests import processes
from tests.browser.helpers import funded_players, in_own_thread, log_in, wait_until
from tests.factories import make_table, make_user, make_variant

pytestmark = pytest.mark.django_db(transaction=True)

FFMPEG = shutil.which("ffmpeg") or "/usr/bin/ffmpeg"
STREAM_SECONDS = 180
LIVE_AT_START = 4  # segments in the playlist when the stream starts (a player starts a few behind the live edge)
# Player 2 + 2 = 4 draws a 6 (0); Banker 3 + 2 = 5 draws on a Player's 6 (a 5: 0): both hands hold three cards.
BOTH_DRAW = ["2H", "3D", "2C", "2S", "6H", "5D"]


class LiveStream:
    """A live HLS playlist over ffmpeg's segments: one more segment each second, none while frozen."""

    def __init__(self, directory: Path) -> None:
        lines = (directory / "vod.m3u8").read_text().splitlines()
        self.header = [
            line for line in lines if line.startswith(("#EXTM3U", "#EXT-X-VERSION", "#EXT-X-TARGETDURATION"))
        ]
        self.segments = [(lines[i], lines[i + 1]) for i, line in enumerate(lines) if line.startswith("#EXTINF")]
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.frozen: int | None = None
        self.url = ""

    def available(self) -> int:
        if self.frozen is not None:
            return self.frozen
        return min(len(self.segments), LIVE_AT_START + int(time.monotonic() - self.started))

    def playlist(self) -> str:
        with self.lock:
            count = self.available()
        lines = [*self.header, "#EXT-X-MEDIA-SEQUENCE:0"]
        for extinf, uri in self.segments[:count]:
            lines += [extinf, uri]
        return "\n".join(lines) + "\n"  # no #EXT-X-ENDLIST: a live stream

    def freeze(self) -> None:
        """The playlist stops growing (the encoder went quiet): the player plays what it has, then stalls."""
        with self.lock:
            self.frozen = self.available()

    def resume(self) -> None:
        with self.lock:
            if self.frozen is not None:
                self.started = time.monotonic() - (self.frozen - LIVE_AT_START)
            self.frozen = None


class _Handler(http.server.SimpleHTTPRequestHandler):
    stream: LiveStream

    def do_GET(self) -> None:
        if self.path.split("?")[0] == "/live.m3u8":
            body = self.server.stream.playlist().encode()  # type: ignore[attr-defined]
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.apple.mpegurl")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")  # the page is on another port
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStream]:
    if not os.path.exists(FFMPEG):
        pytest.fail(f"ffmpeg not found at {FFMPEG}: apt-get install ffmpeg (the CI script does)")
    directory = tmp_path_factory.mktemp("hls")
    # H.264 (baseline, yuv420p) in MPEG-TS: what hls.js turns into fMP4 for the browser's Media Source.
    subprocess.run(
        [FFMPEG, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=15",
         "-t", str(STREAM_SECONDS), "-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "baseline",
         "-pix_fmt", "yuv420p", "-g", "15", "-keyint_min", "15", "-sc_threshold", "0",
         "-f", "hls", "-hls_time", "1", "-hls_list_size", "0", "-hls_playlist_type", "vod",
         "-hls_segment_filename", str(directory / "seg%03d.ts"), str(directory / "vod.m3u8")],
        check=True,
        timeout=120,
    )  # fmt: skip
    live = LiveStream(directory)
    assert len(live.segments) >= STREAM_SECONDS - 1
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", processes.free_port()), partial(_Handler, directory=str(directory))
    )
    server.stream = live  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    live.url = f"http://127.0.0.1:{server.server_address[1]}/live.m3u8"
    yield live
    server.shutdown()
    server.server_close()


def make_dealer(username: str, name: str) -> Any:
    user = make_user(username, is_staff=True, first_name=name)
    user.user_permissions.add(Permission.objects.get(codename="deal_table", content_type__app_label="tables"))
    return user


def live_table(name: str, stream: LiveStream, dealer: Any) -> Table:
    return make_table(
        name,
        make_variant(f"{name} rules"),
        dealing=Table.Dealing.LIVE,
        dealer=dealer,
        video_url=stream.url,
        betting_seconds=5,
        result_seconds=60,  # the result stays while the test goes on to the cut card (the round is then the last)
        dealer_timeout_seconds=600,
    )


def scan(table: Table, dealer: Any, code: str) -> dict[str, Any]:
    return in_own_thread(dealing.card_scan, table_id=table.pk, code=code, actor=dealer)


def start_shoe(page: Any, table: Table, dealer: Any, burn: str = "5H") -> None:
    """The dealer scans the new shoe's burn card and confirms the burn: the first round opens."""
    page.wait_for_selector("#shoe-status[data-kind='shuffling']")
    scan(table, dealer, burn)
    in_own_thread(dealing.burn_confirm, table_id=table.pk, actor=dealer)


def deal(table: Table, dealer: Any, cards: list[str]) -> None:
    """Once betting has closed, the dealer scans each card (a scan before the close is refused: tried again)."""
    for code in cards:
        wait_until(lambda code=code: _scanned(table, dealer, code), timeout=30, message=f"the scan of {code}")


def _scanned(table: Table, dealer: Any, code: str) -> bool:
    try:
        scan(table, dealer, code)
    except dealing.DealingRefused as refused:
        if refused.code in ("betting_open", "no_round"):
            time.sleep(0.3)
            return False
        raise
    return True


VIDEO = """() => { const v = document.getElementById("video");
  return {time: v.currentTime, ready: v.readyState, paused: v.paused, hls: Boolean(window.Hls),
          notice: !document.getElementById("video-notice").hidden,
          text: document.getElementById("video-notice").textContent}; }"""


def test_the_dealers_video_plays_stalls_with_a_notice_while_the_round_goes_on(
    casino_url, page, stream, casino_layer
) -> None:
    anna, boris = make_dealer("anna", "Anna"), make_dealer("boris", "Boris")
    table = live_table("Live Baccarat", stream, anna)
    page.goto(f"{casino_url}/tables/{table.pk}/")

    # The dealer is shuffling a new shoe: players see it, and for how long.
    page.wait_for_selector("#shoe-status[data-kind='shuffling']")
    assert page.inner_text("#phase").lower() == "the dealer is shuffling a new shoe"
    first = page.text_content("#shoe-status .status-text")
    assert re.fullmatch("Shuffling for \u2066\\d+:\\d\\d\u2069", first), first
    page.wait_for_function(f"document.querySelector('#shoe-status .status-text').textContent !== {first!r}")
    assert page.inner_text("#round-label") == "–"
    assert page.inner_text("#dealer-name") == "Anna"
    assert page.inner_text("#video-dealer-name") == "Anna"

    # The video plays: frames decoded and its time moving, through hls.js.
    page.wait_for_function(
        "() => { const v = document.getElementById('video'); return v.readyState >= 2 && v.currentTime > 1; }",
        timeout=30_000,
    )
    before = page.evaluate(VIDEO)
    page.wait_for_timeout(1500)
    after = page.evaluate(VIDEO)
    assert after["time"] > before["time"] + 0.5, (before, after)
    assert after["hls"], "Chromium plays through hls.js (Media Source), not its own HLS"
    assert not after["notice"]

    # The burn card scanned, then confirmed: the first round opens.
    scan(table, anna, "5H")
    page.wait_for_function("document.getElementById('shoe-status').textContent.includes('5♥')")
    assert "Burn card 5♥: 5 cards burned" in page.inner_text("#shoe-status")
    in_own_thread(dealing.burn_confirm, table_id=table.pk, actor=anna)
    page.wait_for_selector("#table[data-round-state='betting']")
    assert page.is_hidden("#shoe-status")

    # The encoder goes quiet: the playlist stops growing, the player runs dry, the page says so.
    stream.freeze()
    page.wait_for_selector("#video-notice:not([hidden])", timeout=20_000)
    assert page.inner_text("#video-notice") == "Video interrupted: the round goes on"
    assert page.get_attribute("#video-box", "data-interrupted") is not None

    # ... and the round goes on over the socket: every card, the result.
    deal(table, anna, BOTH_DRAW)
    page.wait_for_selector("#table[data-round-state='result']", timeout=20_000)
    page.wait_for_function("document.querySelectorAll('#stage .card[data-revealed=\"1\"]').length === 6")
    assert page.inner_text("#result-text") == "Tie 0 – 0"
    assert page.is_visible("#video-notice"), "the video is still frozen"

    # The encoder is back: the video plays on and the notice goes.
    stream.resume()
    page.wait_for_selector("#video-notice", state="hidden", timeout=30_000)
    moving = page.evaluate(VIDEO)["time"]
    page.wait_for_function(f"document.getElementById('video').currentTime > {moving + 0.5}", timeout=10_000)

    # A new dealer takes the shift; the cut card comes out; the dealer calls the supervisor.
    in_own_thread(dealing.shift_take, table_id=table.pk, actor=boris)
    page.wait_for_function("document.getElementById('video-dealer-name').textContent === 'Boris'")
    assert page.inner_text("#dealer-name") == "Boris"
    in_own_thread(dealing.cut_card_out, table_id=table.pk, actor=boris)
    page.wait_for_selector("#shoe-status[data-kind='cut_card']")
    assert page.inner_text("#shoe-status .status-text") == "Cut card out: last round of the shoe"
    in_own_thread(dealing.supervisor_call, table_id=table.pk, actor=boris)
    page.wait_for_function("document.getElementById('notice').textContent.includes('supervisor')")
    assert "Paused: the supervisor is on the way." in page.inner_text("#notice")
    # A reload reads the same from the snapshot: the supervisor, and the cut card (or, once the shoe's last round
    # has settled, the next shoe being shuffled).
    page.reload()
    page.wait_for_function("document.getElementById('notice').textContent.includes('supervisor')")
    active = Shoe.objects.filter(table=table, finished_at__isnull=True).values_list("number", flat=True).first()
    page.wait_for_selector(f"#shoe-status[data-kind='{'cut_card' if active == 1 else 'shuffling'}']")


BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
  return {
    video: box(document.getElementById("video-box")),
    board: box(document.getElementById("board")),
    hands: ["player-hand", "banker-hand"].map((id) => box(document.getElementById(id))),
    cards: [...document.querySelectorAll("#stage .card")].map(box),
    clock: box(document.getElementById("clock")),
    phase: box(document.getElementById("phase")),
    result: box(document.getElementById("result")),
    scrollWidth: document.documentElement.scrollWidth,
  };
}"""


def within(inner: dict[str, float], outer: dict[str, float], slack: float = 0.5) -> bool:
    return (
        inner["left"] >= outer["left"] - slack
        and inner["right"] <= outer["right"] + slack
        and inner["top"] >= outer["top"] - slack
        and inner["bottom"] <= outer["bottom"] + slack
    )


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_video_sits_above_the_felt_with_the_cards_over_it(casino_url, browser, stream, casino_layer, lang) -> None:
    stream.resume()
    dealer = make_dealer(f"dealer-{lang}", "Anna")
    table = live_table(f"Live {lang}", stream, dealer)
    sizes = [(1366, 768), (390, 844), (1920, 1080), (1280, 720)]
    contexts, pages = [], []
    for width, height in sizes:
        context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
        context.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{casino_url}/tables/{table.pk}/")
        pages.append(page)
    shots = os.environ.get("LIVE_SHOTS")
    try:
        for (width, height), page in zip(sizes, pages, strict=True):
            page.wait_for_selector("#shoe-status[data-kind='shuffling']")
            page.wait_for_function("document.getElementById('video').readyState >= 2")
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=f"{shots}/live-{width}x{height}-{lang}-shuffling.png")
        start_shoe(pages[0], table, dealer)
        for page in pages:
            page.wait_for_selector("#table[data-round-state='betting']")
        board_before = [page.evaluate(BOXES)["board"]["top"] for page in pages]
        deal(table, dealer, BOTH_DRAW)
        problems: list[str] = []
        for (width, height), page, board_top in zip(sizes, pages, board_before, strict=True):
            page.wait_for_selector("#table[data-round-state='result']")
            page.wait_for_function("document.querySelectorAll('#stage .card[data-revealed=\"1\"]').length === 6")
            page.wait_for_function("document.getElementById('video').readyState >= 2")
            page.wait_for_timeout(500)  # the last flip and the result's pop end
            m = page.evaluate(BOXES)
            where = f"{width}×{height} {lang}"
            video = m["video"]
            if video["height"] < 120:
                problems.append(f"{where}: the video is {video['height']:.0f} px high")
            if video["bottom"] > m["board"]["top"] + 0.5:
                felt = m["board"]["top"]
                problems.append(f"{where}: the video ({video['bottom']:.0f}) reaches into the felt ({felt:.0f})")
            if video["top"] < m["phase"]["top"]:
                problems.append(f"{where}: the video starts above the phase")
            for hand in m["hands"]:
                if not within(hand, video):
                    problems.append(f"{where}: a hand {hand} lies outside the video {video}")
            if len(m["cards"]) != 6:
                problems.append(f"{where}: {len(m['cards'])} cards on the stage")
            for card in m["cards"]:
                if not within(card, video):
                    problems.append(f"{where}: a card {card} lies outside the video {video}")
            # The result is laid over the stage: the board under it does not move when a round ends (a board
            # that jumps under the pointer takes the next click on the wrong spot).
            if abs(m["board"]["top"] - board_top) > 0.5:
                problems.append(f"{where}: the board moved from {board_top:.0f} to {m['board']['top']:.0f} px")
            for hand in m["hands"]:
                if overlap(m["result"], hand):
                    problems.append(f"{where}: the result {m['result']} covers a hand {hand}")
            if m["scrollWidth"] > width:
                problems.append(f"{where}: the page scrolls sideways ({m['scrollWidth']} px)")
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=f"{shots}/live-{width}x{height}-{lang}.png")
        # The video stalls: its notice lies on the video, clear of the dealer's name and of the hands.
        stream.freeze()
        for (width, height), page in zip(sizes, pages, strict=True):
            page.wait_for_selector("#video-notice:not([hidden])", timeout=20_000)
            m = page.evaluate(NOTICE)
            where = f"{width}×{height} {lang}, video interrupted"
            if not within(m["notice"], m["video"]):
                problems.append(f"{where}: the notice {m['notice']} is not on the video {m['video']}")
            for name in ("dealer", "player", "banker"):
                if overlap(m["notice"], m[name]):
                    problems.append(f"{where}: the notice overlaps the {name} {m[name]}")
            if shots:
                page.screenshot(path=f"{shots}/live-{width}x{height}-{lang}-interrupted.png")
        assert not problems, "\n".join(problems)
    finally:
        stream.resume()
        for context in contexts:
            context.close()


NOTICE = """() => {
  const box = (id) => { const r = document.getElementById(id).getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  return {notice: box("video-notice"), video: box("video-box"), dealer: box("video-dealer"),
          player: box("player-hand"), banker: box("banker-hand")};
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5 and (
        min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
    )


def test_a_live_table_without_a_video_shows_no_video_and_its_shoe_on_a_phone(casino_url, browser) -> None:
    dealer = make_dealer("dina", "Dina")
    table = make_table("Live no video", make_variant("No video rules"), dealing=Table.Dealing.LIVE, dealer=dealer)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    try:
        page = context.new_page()
        page.goto(f"{casino_url}/tables/{table.pk}/")
        page.wait_for_selector("#shoe-status[data-kind='shuffling']")
        assert page.is_hidden("#video-box")
        assert not page.evaluate("document.getElementById('stage').classList.contains('has-video')")
        assert page.evaluate("document.getElementById('video').currentSrc") == ""
        assert page.evaluate("window.Hls === undefined"), "no video, no hls.js loaded"
        assert page.inner_text("#dealer-name") == "Dina"
        box = page.evaluate(
            """() => Object.fromEntries(["phase", "shoe-status", "player-hand", "banker-hand"].map((id) => {
                 const r = document.getElementById(id).getBoundingClientRect();
                 return [id, {top: r.top, bottom: r.bottom, left: r.left, right: r.right}]; }))"""
        )
        assert box["phase"]["bottom"] <= box["shoe-status"]["top"] + 0.5
        assert box["shoe-status"]["bottom"] <= min(box["player-hand"]["top"], box["banker-hand"]["top"]) + 0.5
        assert box["player-hand"]["right"] <= box["banker-hand"]["left"] + 0.5
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_live_tables_name_is_not_cut_short_by_the_bar_on_a_phone(casino_url, browser, lang) -> None:
    """The bar of a live table on a phone holds the round, the dealer, the balance and the sound button; they
    used to squeeze the table's name to "Live B…". Now they move to a second row, and the stage still starts
    within the phone header's 110 px."""
    funded_players("petra")
    table = make_table(
        "Live Baccarat Salon 2",
        make_variant("Bar rules"),
        dealing=Table.Dealing.LIVE,
        dealer=make_dealer("dina", "Dina"),
    )
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": lang, "url": casino_url}])
    try:
        page = context.new_page()
        log_in(page, casino_url, "petra")
        page.goto(f"{casino_url}/tables/{table.pk}/")
        page.wait_for_selector("#shoe-status[data-kind='shuffling']")
        assert page.inner_text("#dealer-name") == "Dina"
        m = page.evaluate(
            """() => {
                 const h1 = document.querySelector("#table .table-title h1");
                 const box = (el) => el.getBoundingClientRect().toJSON();
                 return {name: [h1.scrollWidth, h1.clientWidth], title: box(h1), facts: box(document.querySelector(
                   "#table .bar-facts")), stage: box(document.getElementById("stage")),
                   scroll: document.documentElement.scrollWidth};
               }"""
        )
        assert m["name"][0] <= m["name"][1], f"the table's name is cut: {m['name']}"
        assert not overlap(m["title"], m["facts"]), m
        assert m["stage"]["top"] <= 110, m["stage"]
        assert m["scroll"] <= 390
    finally:
        context.close()
