"""Load on loopback: gunicorn (sync workers, 2 x cores + 1 as the Dockerfile runs it)
behind nginx as deployed (`bench.proxy`: wrk connects before each pause, and without the
proxy every paused player would hold a worker), and Debian's `wrk`, one connection per
player, each player pausing between requests as a
person at the table or at the builder would (`PLAYERS_SCRIPT`).

wrk counts only socket errors and 4xx/5xx answers as errors; the Lua script also counts
anything but 200 or 304 (a 302 to the login page would otherwise pass), and prints the
latency percentiles in microseconds for parsing.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench import proxy

BASE_DIR = Path(__file__).resolve().parent.parent

# Counts anything but 200 over every thread; prints what `run_wrk` parses.
WRK_DONE = """
function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("not_ok")
  end
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d not_ok=%d connect=%d read=%d write=%d "
    .. "status=%d timeout=%d\\n",
    summary.requests, summary.duration, total, e.connect, e.read, e.write, e.status, e.timeout))
  io.write(string.format("BENCH p50=%.0f p90=%.0f p95=%.0f p99=%.0f max=%.0f\\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(95),
    latency:percentile(99), latency.max))
end
"""


@dataclass(frozen=True, slots=True)
class LoadResult:
    label: str
    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    errors: int
    error_detail: str

    @property
    def rps(self) -> float:
        return self.requests / self.seconds


def wrk_version() -> str:
    wrk = shutil.which("wrk")
    if wrk is None:
        return "missing"
    result = subprocess.run([wrk, "-v"], capture_output=True, text=True, check=False)
    return (result.stdout or result.stderr).split("[")[0].strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, cookie: str) -> int:
    request = urllib.request.Request(url, headers={"Cookie": cookie})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def pinning() -> tuple[str, str] | None:
    """(the server's CPUs, wrk's CPU) for `taskset`, or None where the machine has one
    core or no taskset: wrk on the last core, the server on the others."""
    cores = os.cpu_count() or 1
    if cores < 2 or shutil.which("taskset") is None:
        return None
    server = "0" if cores == 2 else f"0-{cores - 2}"
    return server, str(cores - 1)


def _pinned(command: list[str], cpus: str | None) -> list[str]:
    return ["taskset", "-c", cpus, *command] if cpus else command


def _wait_answering(
    process: "subprocess.Popen[bytes]", base: str, cookie: str, *, seconds: float, what: str
) -> None:
    """Until `base` answers the bench's floor page; fail if `process` ends or `seconds`
    pass first."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            if _get(f"{base}/bench/floor/", cookie) == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer within {seconds:g} s")
        time.sleep(0.1)


@contextmanager
def gunicorn(
    env: dict[str, str],
    *,
    workers: int,
    log: Path,
    cookie: str,
    cpus: str | None = None,
) -> Iterator[str]:
    """Serve the site on a free loopback port; yield its base URL; always stop it.
    `cpus` pins the server (taskset)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log.parent.mkdir(parents=True, exist_ok=True)  # var/ is not in a fresh checkout
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "dbd_site.wsgi",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--log-level",
        "warning",
        "--error-logfile",
        str(log),
    ]
    process = subprocess.Popen(
        _pinned(command, cpus),
        env=env,
        cwd=BASE_DIR,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        _wait_answering(process, base, cookie, seconds=60, what=f"gunicorn (see {log})")
        yield base
    finally:
        # The process group we started: the master and its workers, nothing else.
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def behind_nginx(base: str, home: Path, *, cookie: str, cpus: str | None = None) -> Iterator[str]:
    """nginx as deployed (`bench.proxy`) in front of the server at `base`; yield the
    proxy's base URL; always stop it. `cpus` pins nginx (taskset)."""
    port = free_port()
    command = proxy.write_conf(home, [int(base.rsplit(":", 1)[1])], port)
    process = subprocess.Popen(
        _pinned(command, cpus), cwd=BASE_DIR, start_new_session=True, stdin=subprocess.DEVNULL
    )
    front = f"http://127.0.0.1:{port}"
    try:
        _wait_answering(process, front, cookie, seconds=20, what=f"nginx (see {home})")
        yield front
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def check(url: str, cookie: str) -> None:
    status = _get(url, cookie)
    if status != 200:
        raise RuntimeError(f"{url} answers {status}, not 200, to the bench session")


def run_wrk(
    label: str,
    url: str,
    *,
    seconds: int,
    connections: int,
    threads: int = 2,
    cpus: str | None = None,
    lua: str,
    say: Callable[[str], None] = print,
) -> LoadResult:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(lua)
    try:
        command = [
            shutil.which("wrk") or "wrk",
            f"-t{threads}",
            f"-c{connections}",
            f"-d{seconds}s",
            "--timeout",
            "10s",
            "--latency",
            "-s",
            script.name,
            url,
        ]
        result = subprocess.run(
            _pinned(command, cpus),
            capture_output=True,
            text=True,
            check=False,
            timeout=seconds + 60,
        )
    finally:
        os.unlink(script.name)
    if result.returncode != 0:
        raise RuntimeError(f"wrk failed ({result.returncode}): {result.stderr}")
    values = {
        key: int(value)
        for key, value in re.findall(
            r"(\w+)=(\d+)",
            "\n".join(line for line in result.stdout.splitlines() if line.startswith("BENCH ")),
        )
    }
    errors = {k: values[k] for k in ("not_ok", "connect", "read", "write", "timeout")}
    load = LoadResult(
        label=label,
        requests=values["requests"],
        seconds=values["duration_us"] / 1e6,
        p50_ms=values["p50"] / 1000,
        p90_ms=values["p90"] / 1000,
        p95_ms=values["p95"] / 1000,
        p99_ms=values["p99"] / 1000,
        max_ms=values["max"] / 1000,
        errors=sum(errors.values()),
        error_detail=", ".join(f"{k} {v}" for k, v in errors.items() if v) or "none",
    )
    say(
        f"  {label}: {load.rps:.0f} req/s, p50 {load.p50_ms:.1f} ms, "
        f"p95 {load.p95_ms:.1f} ms, errors {load.errors}"
    )
    return load


# --- players at once ---------------------------------------------------------------------

# What one player does, over and over: (kind, the pause in ms after its answer). A player at
# the table: their phone polls the battle's state every half second while it is being
# played (static/js/play.js) and they act every 20 s (a d12, through the battle screen).
# A player at the builder: an edit every 10 s, opening another step between edits, and a
# look at the force page.
TABLE_ROUND = (*(("poll", 500),) * 39, ("act", 500))
BUILDER_ROUND = (("edit_add", 5000), ("step", 5000), ("edit_remove", 5000), ("page", 5000))

PLAYERS_SCRIPT = """
local players = {%(players)s}
local round = {%(round)s}
local waits = {%(waits)s}
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("number", counter)
  table.insert(threads, thread)
end

function init(args)
  not_ok = 0
  step = 0
  etag = ""
  me = players[(number - 1) %% #players + 1]
  math.randomseed(number)
  first = true
  local form = "application/x-www-form-urlencoded"
  htmx = {
    ["Cookie"] = me.cookie, ["HX-Request"] = "true", ["X-CSRFToken"] = me.csrf,
    ["Content-Type"] = form, ["Accept-Encoding"] = "gzip" }
  plain = { ["Cookie"] = me.cookie, ["Accept-Encoding"] = "gzip" }
end

-- The pause before each request: a random part of a round's first pause, so the players
-- do not move in step; then the pause after the step just answered.
function delay()
  if first then
    first = false
    return math.random(0, waits[1])
  end
  return waits[(step - 1) %% #round + 1]
end

-- One connection per thread (wrk -tN -cN), so these globals are one player's.
function request()
  local kind = round[step %% #round + 1]
  if kind == "poll" then
    plain["If-None-Match"] = etag
    return wrk.format("GET", me.state, plain)
  elseif kind == "act" then
    return wrk.format("POST", me.act, htmx, "type=roll&count=1")
  elseif kind == "edit_add" then
    return wrk.format("POST", me.add, htmx, "add=medical-kit")
  elseif kind == "edit_remove" then
    return wrk.format("POST", me.remove, htmx, "index=" .. me.index)
  elseif kind == "step" then
    return wrk.format("GET", me.step, htmx)
  end
  plain["If-None-Match"] = nil
  return wrk.format("GET", me.page, plain)
end

function response(status, headers, body)
  step = step + 1
  if headers["ETag"] then
    etag = headers["ETag"]
  end
  if status ~= 200 and status ~= 304 then
    not_ok = not_ok + 1
  end
end
""" + WRK_DONE.replace("%", "%%")


def _lua(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def players_script(players: list[dict[str, str]], plan: tuple[tuple[str, int], ...]) -> str:
    """The wrk script for one connection per player (wrk -tN -cN, N players at most
    `len(players)` apart): connection i sends player i % len(players)'s cookies and
    URLs, round after round of `plan`, pausing between requests as `plan` says."""
    rows = ", ".join(
        "{" + ", ".join(f"{key} = {_lua(str(value))}" for key, value in p.items()) + "}"
        for p in players
    )
    kinds = ", ".join(_lua(kind) for kind, _ in plan)
    waits = ", ".join(str(wait) for _, wait in plan)
    return PLAYERS_SCRIPT % {"players": rows, "round": kinds, "waits": waits}


@dataclass(frozen=True, slots=True)
class Step:
    players: int
    result: LoadResult

    def kept_up(self, limit_ms: float) -> bool:
        return self.result.p95_ms < limit_ms and not self.result.errors


def ramp(
    base: str,
    players: list[dict[str, str]],
    plan: tuple[tuple[str, int], ...],
    *,
    start: int,
    limit_ms: float,
    seconds: int,
    warmup: int,
    most_steps: int,
    cpus: str | None,
    say: Callable[[str], None],
) -> list[Step]:
    """After `warmup` seconds of the first step's players, not counted (every worker's
    first answers, every cache filled), twice as many players at once each step until the
    95th percentile of the answers' times reaches `limit_ms` or an answer fails (at most
    `most_steps` steps), then one step halfway (geometrically) between the last that kept
    up and the first that did not."""
    lua = players_script(players, plan)

    def step(count: int, length: int = seconds, label: str = "") -> Step:
        result = run_wrk(
            label or f"{count} players",
            base + "/bench/floor/",
            seconds=length,
            connections=count,
            threads=count,
            cpus=cpus,
            lua=lua,
            say=say,
        )
        return Step(count, result)

    step(start, warmup, "warm-up")
    steps = [step(start)]
    while steps[-1].kept_up(limit_ms) and len(steps) < most_steps:
        steps.append(step(steps[-1].players * 2))
    if len(steps) >= 2 and not steps[-1].kept_up(limit_ms):
        middle = round((steps[-2].players * steps[-1].players) ** 0.5)
        steps.append(step(middle))
    return sorted(steps, key=lambda s: s.players)


def served(steps: list[Step], limit_ms: float) -> Step | None:
    """The most players served within `limit_ms` at the 95th percentile, without errors."""
    kept = [step for step in steps if step.kept_up(limit_ms)]
    return max(kept, key=lambda step: step.players) if kept else None


class LoadSampler:
    """The 1-minute load average, sampled every second while a phase runs."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "LoadSampler":
        self.samples.append(os.getloadavg()[0])
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.samples.append(os.getloadavg()[0])

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def summary(self) -> str:
        values = self.samples or [os.getloadavg()[0]]
        mean = sum(values) / len(values)
        return f"{min(values):.1f}-{max(values):.1f} (mean {mean:.1f})"
