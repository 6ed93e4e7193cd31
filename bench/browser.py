"""What a player feels in Chromium: click to updated screen, on loopback and on emulated
phone networks; how long a change on one phone takes to show on the other; what a phone
watching a battle costs in bytes.

Everything here takes Playwright pages and URLs, nothing of the bench's database, so the
same code runs against the bench's gunicorn (`python -m bench`) and, with a few clicks,
against the browser tests' live server (`tests/browser/test_bench_browser.py`, which keeps
it working as the screens change).

Times come from the page itself (`INSTRUMENT`): the click, caught before htmx sees it;
each htmx swap; and the next frame after the swap (an animation frame, then a task), when
the new screen has been laid out and painted. Both phones are contexts of one Chromium on
one machine, so their clocks (`performance.timeOrigin + performance.now()`) agree.
Bytes come from Chromium's DevTools protocol: each request's headers as sent and every
byte received for it, headers included (HTTP/1.1 on loopback: under HTTP/2 repeated
headers cost far less).
"""

import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = Path("/usr/bin/chromium")
# Headless as root on a machine with no outside network: no sandbox, no GPU, and none of
# chromium's background connections (they are refused here, many at a time). The browser
# tests start it so too (tests/browser/conftest.py).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 3,
}


@dataclass(frozen=True, slots=True)
class Network:
    """Chromium's network emulation (`Network.emulateNetworkConditions`): `latency` ms
    added to every request before its answer starts, and each direction's throughput."""

    name: str
    latency_ms: float = 0
    down_kbps: float = 0  # 0: not limited
    up_kbps: float = 0

    def words(self) -> str:
        if not self.latency_ms and not self.down_kbps:
            return f"{self.name}: no emulation"
        return (
            f"{self.name}: {self.latency_ms:g} ms latency, {self.down_kbps / 1000:g} Mbps down, "
            f"{self.up_kbps / 1000:g} Mbps up"
        )


LOOPBACK = Network("loopback")
FOUR_G = Network("4G", 60, 9_000, 1_500)
SLOW_4G = Network("slow 4G", 150, 1_600, 750)
NETWORKS = (LOOPBACK, FOUR_G, SLOW_4G)

INSTRUMENT = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const bench = window.__bench = { armed: false, clicks: [], swaps: [] };
  document.addEventListener("click", () => {
    if (bench.armed) {
      bench.armed = false;
      bench.clicks.push(now());
    }
  }, true);
  document.addEventListener("htmx:afterSwap", (event) => {
    const swapped = now();
    const state = document.getElementById("battle-state");
    const version = state ? Number(state.getAttribute("data-version")) : null;
    const target = event.detail.target ? event.detail.target.id : "";
    requestAnimationFrame(() => setTimeout(() => {
      bench.swaps.push({ swapped: swapped, painted: now(), version: version, target: target });
    }, 0));
  });
})();
"""


@dataclass(slots=True)
class Exchange:
    """One request and its answer, as Chromium saw them."""

    method: str
    path: str
    sent_bytes: int = 0  # request line, headers and body
    status: int = 0
    received_bytes: int = 0  # everything received: headers and the (compressed) body
    body_bytes: int = 0  # the body as decoded
    done: bool = False


@dataclass(slots=True)
class Phone:
    """A page in a browser context of its own, with its network emulated and its traffic
    counted."""

    page: Any
    network: Network
    exchanges: dict[str, Exchange] = field(default_factory=dict)

    def swaps(self) -> list[dict]:
        return self.page.evaluate("() => window.__bench.swaps")

    def click(self, locator) -> float:
        """Click `locator` and give the page's time of the click."""
        self.page.evaluate("() => { window.__bench.armed = true; }")
        locator.click()
        self.page.wait_for_function("() => !window.__bench.armed")
        return self.page.evaluate("() => window.__bench.clicks[window.__bench.clicks.length - 1]")

    def finished(self, matches: Callable[[Exchange], bool]) -> list[Exchange]:
        return [e for e in self.exchanges.values() if e.done and matches(e)]


def open_phone(browser, base: str, session: str, network: Network) -> Phone:
    """A signed-in phone (the `sessionid` cookie given) on `network`."""
    context = browser.new_context(**PHONE)
    context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
    context.add_init_script(INSTRUMENT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.on("dialog", lambda dialog: dialog.accept())  # "Undo the last action?"
    phone = Phone(page, network)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    if network.latency_ms or network.down_kbps:
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": network.latency_ms,
                "downloadThroughput": network.down_kbps * 1000 / 8,
                "uploadThroughput": network.up_kbps * 1000 / 8,
            },
        )
    _count_traffic(cdp, phone.exchanges)
    return phone


def _count_traffic(cdp, exchanges: dict[str, Exchange]) -> None:
    def sent(event: dict) -> None:
        request = event["request"]
        parts = urlsplit(request["url"])
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        exchange = exchanges.setdefault(event["requestId"], Exchange(request["method"], path))
        exchange.method, exchange.path = request["method"], path
        exchange.sent_bytes += len(f"{request['method']} {path} HTTP/1.1\r\n\r\n")
        exchange.sent_bytes += len(request.get("postData", "").encode())

    def headers_sent(event: dict) -> None:
        exchange = exchanges.setdefault(event["requestId"], Exchange("", ""))
        exchange.sent_bytes += sum(len(k) + len(v) + 4 for k, v in event["headers"].items())

    def answered(event: dict) -> None:
        if event["requestId"] in exchanges:
            exchanges[event["requestId"]].status = event["response"]["status"]

    def data(event: dict) -> None:
        if event["requestId"] in exchanges:
            exchanges[event["requestId"]].body_bytes += event["dataLength"]

    def finished(event: dict) -> None:
        if event["requestId"] in exchanges:
            exchange = exchanges[event["requestId"]]
            exchange.received_bytes = int(event["encodedDataLength"])
            exchange.done = True

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.requestWillBeSentExtraInfo", headers_sent)
    cdp.on("Network.responseReceived", answered)
    cdp.on("Network.dataReceived", data)
    cdp.on("Network.loadingFinished", finished)


# --- figures -----------------------------------------------------------------------------


@dataclass(slots=True)
class Figures:
    """Times in ms and sizes in bytes of one kind of click on one network."""

    times: list[float] = field(default_factory=list)
    wire: list[int] = field(default_factory=list)  # the answer: received, headers included
    body: list[int] = field(default_factory=list)  # the answer's body, decoded

    def median(self) -> float:
        return statistics.median(self.times)

    def p90(self) -> float:
        return percentile(self.times, 90)


def percentile(values: list[float], p: int) -> float:
    """The p-th percentile (nearest rank: a value that was measured)."""
    ordered = sorted(values)
    rank = max(1, -(-p * len(ordered) // 100))  # ceil(p * n / 100)
    return ordered[rank - 1]


def _first_swap_after(phone: Phone, since: float, *, target: str = "", version=None) -> dict:
    for swap in phone.swaps():
        if swap["swapped"] < since:
            continue
        if target and swap["target"] != target:
            continue
        if version is not None and (swap["version"] or 0) < version:
            continue
        return swap
    raise LookupError("no such swap")


def _wait_for_swap(phone: Phone, since: float, *, target: str = "", version=None) -> dict:
    condition = """([since, target, version]) => window.__bench.swaps.some(s =>
        s.swapped >= since && (!target || s.target === target) &&
        (version === null || (s.version || 0) >= version))"""
    phone.page.wait_for_function(condition, arg=[since, target, version], polling=20)
    return _first_swap_after(phone, since, target=target, version=version)


def _answer_to(phone: Phone, method: str, path_part: str, since_count: int) -> Exchange:
    """The latest finished `method` request to a path with `path_part`, of those after the
    first `since_count` exchanges."""
    later = list(phone.exchanges.values())[since_count:]
    for exchange in reversed(later):
        if exchange.method == method and path_part in exchange.path and exchange.done:
            return exchange
    raise LookupError(f"no {method} {path_part} answered")


def _wait_answered(phone: Phone, method: str, path_part: str, since_count: int) -> Exchange:
    for _ in range(1000):
        try:
            return _answer_to(phone, method, path_part, since_count)
        except LookupError:
            phone.page.wait_for_timeout(10)  # lets Playwright deliver the CDP events
    raise LookupError(f"no {method} {path_part} answered")


def _record(figures: Figures, clicked: float, swap: dict, answer: Exchange) -> None:
    figures.times.append(swap["painted"] - clicked)
    figures.wire.append(answer.received_bytes)
    figures.body.append(answer.body_bytes)


# --- the builder -------------------------------------------------------------------------


def builder_edits(phone: Phone, url: str, clicks: int, item: str = "Light Shield") -> Figures:
    """`clicks` builder edits on the equipment step (remove `item` the member carries, add
    it back), each timed from the click to the screen painted with its answer."""
    page = phone.page
    page.goto(url)
    step = page.locator("#step-equipment")
    figures = Figures()
    for i in range(clicks):
        removing = i % 2 == 0
        verb = "Remove" if removing else "Add"
        count = len(phone.exchanges)
        clicked = phone.click(step.get_by_role("button", name=f"{verb} {item}").first)
        swap = _wait_for_swap(phone, clicked, target="step-equipment")
        page.wait_for_function(
            "([text]) => (document.getElementById('builder-notice') || {}).textContent"
            " .includes(text)",
            arg=[f"{'Removed' if removing else 'Added'} {item}."],
        )
        _record(figures, clicked, swap, _wait_answered(phone, "POST", "/equipment-", count))
        _settle(page)
    return figures


def _settle(page) -> None:
    busy = ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added"
    page.wait_for_function(f"() => !document.querySelector({busy!r})", polling=20)


# --- play: two phones at one battle --------------------------------------------------------


@dataclass(slots=True)
class PlayFigures:
    """A network's figures for the battle screen."""

    clicks: dict[str, Figures] = field(default_factory=dict)  # "attack", "transfer", "undo"
    other_phone: list[float] = field(default_factory=list)  # ms, a change to the other's screen
    poll_wire: list[int] = field(default_factory=list)  # an unchanged poll: bytes both ways
    changed_poll_wire: list[int] = field(default_factory=list)  # a poll that brought a change


def _version(phone: Phone) -> int:
    return int(phone.page.locator("#battle-state").get_attribute("data-version"))


def _figure_id(page, side: int, name: str) -> str:
    figure = page.locator("section.play-side").nth(side).locator("li.play-figure", has_text=name)
    return figure.first.get_attribute("id").removeprefix("figure-")


def _both_at(a: Phone, b: Phone, version: int) -> None:
    for phone in (a, b):
        phone.page.wait_for_selector(f'#battle-state[data-version="{version}"]', state="attached")
        _settle(phone.page)


def start_play(a: Phone, b: Phone, url: str) -> tuple[str, str]:
    """Open the battle on both phones; roll initiative (side 0 first) if nobody has; tap A's
    Mio (Light Pistol) to open its sheet and choose B's Julius. Gives the two figures' ids."""
    for phone in (a, b):
        phone.page.goto(url)
    attacker, target = _figure_id(a.page, 0, "Mio"), _figure_id(a.page, 1, "Julius")
    if "initiative not rolled yet" in a.page.locator(".play-turn").inner_text():
        version = _version(a)
        form = a.page.locator("#initiative")
        form.locator('input[name="initiative_0_0"]').fill("8")
        form.locator('input[name="initiative_0_1"]').fill("3")
        form.get_by_role("button", name="Roll initiative").click()
        _both_at(a, b, version + 1)
    a.page.locator(f"#figure-{attacker} .play-figure__open").click()
    a.page.wait_for_selector(f'#sheet input[name="figure"][value="{attacker}"]', state="attached")
    _settle(a.page)
    sheet = a.page.locator("#sheet")
    select = sheet.locator('select[name="target"]')
    if select.input_value() != target:
        select.select_option(target)
        a.page.wait_for_selector(f'#attack-odds[data-for*="-{target}-"]', state="attached")
        _settle(a.page)
    ranged = sheet.locator('input[name="kind"][value="ranged"]')
    if not ranged.is_checked():
        ranged.check()
        a.page.wait_for_selector('#attack-odds[data-for*="-ranged-"]', state="attached")
        _settle(a.page)
    return attacker, target


def _act(
    figures: PlayFigures,
    kind: str,
    acting: Phone,
    other: Phone,
    button,
    path_part: str,
    rng: random.Random,
    pause_s: float,
) -> None:
    """One change: a pause (so the other phone's polls meet it at any point of their
    cycle), the click, the acting phone's screen, the other phone's screen."""
    acting.page.wait_for_timeout(rng.uniform(0, pause_s) * 1000)
    version = _version(acting)
    count = len(acting.exchanges)
    clicked = acting.click(button)
    mine = _wait_for_swap(acting, clicked, target="battle-state", version=version + 1)
    theirs = _wait_for_swap(other, clicked, target="battle-state", version=version + 1)
    _record(
        figures.clicks.setdefault(kind, Figures()),
        clicked,
        mine,
        _wait_answered(acting, "POST", path_part, count),
    )
    figures.other_phone.append(theirs["painted"] - clicked)
    _both_at(acting, other, version + 1)


def play_cycles(
    a: Phone, b: Phone, cycles: int, *, rng: random.Random, pause_s=1.0
) -> PlayFigures:
    """`cycles` rounds of: A's Mio shoots B's Julius (a 12 entered: a hit); B moves 1 of
    the damage onto Emma (Friendship); B undoes the transfer; A undoes the attack. The
    battle is where it started after each round."""
    figures = PlayFigures()
    for _ in range(cycles):
        sheet = a.page.locator("#sheet")
        sheet.get_by_label("Dice rolled at the table").fill("12")
        roll = sheet.get_by_role("button", name="Roll the attack")
        _act(figures, "attack", a, b, roll, "/act/", rng, pause_s)
        transfer = b.page.locator("#transfer")
        transfer.locator('select[name="recipient"]').first.select_option(label=_option(b, "Emma"))
        transfer.locator('input[name="amount"]').first.fill("1")
        button = transfer.get_by_role("button", name="Transfer", exact=True)
        _act(figures, "transfer", b, a, button, "/act/", rng, pause_s)
        undo = b.page.locator("#undo button")
        _act(figures, "undo", b, a, undo, "/undo/", rng, pause_s)
        undo = a.page.locator("#undo button")
        _act(figures, "undo", a, b, undo, "/undo/", rng, pause_s)
    for phone in (a, b):
        for exchange in phone.finished(lambda e: e.method == "GET" and "/state/" in e.path):
            wire = exchange.sent_bytes + exchange.received_bytes
            (figures.poll_wire if exchange.status == 304 else figures.changed_poll_wire).append(
                wire
            )
    return figures


def _option(phone: Phone, name: str) -> str:
    options = phone.page.locator('#transfer select[name="recipient"] option')
    for label in options.all_inner_texts():
        if label.startswith(name):
            return label
    raise LookupError(f"{name} is not offered for the transfer")


# --- watching --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Watching:
    seconds: float
    polls: int
    unchanged: int  # answered 304
    sent: int  # bytes
    received: int

    def per_hour(self) -> tuple[float, float]:
        """(requests, bytes both ways) an hour at this pace."""
        scale = 3600 / self.seconds
        return self.polls * scale, (self.sent + self.received) * scale


def watch(phone: Phone, seconds: float, *, hidden: bool = False) -> Watching:
    """The state polls `phone` makes in `seconds` while nothing changes; `hidden` as if the
    player had put the phone away (the page's visibility turned to hidden)."""
    if hidden:
        phone.page.evaluate(
            """() => {
              const hide = (name, value) =>
                Object.defineProperty(document, name, {value: value, configurable: true});
              hide("visibilityState", "hidden");
              hide("hidden", true);
              document.dispatchEvent(new Event("visibilitychange"));
            }"""
        )
    start = len(phone.exchanges)
    phone.page.wait_for_timeout(seconds * 1000)
    polls = [
        e
        for e in list(phone.exchanges.values())[start:]
        if e.method == "GET" and "/state/" in e.path and e.done
    ]
    if hidden:
        phone.page.evaluate(
            """() => {
              delete document.visibilityState; delete document.hidden;
              document.dispatchEvent(new Event("visibilitychange"));
            }"""
        )
    return Watching(
        seconds,
        len(polls),
        sum(1 for e in polls if e.status == 304),
        sum(e.sent_bytes for e in polls),
        sum(e.received_bytes for e in polls),
    )
