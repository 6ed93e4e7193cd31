"""Load on loopback: gunicorn (2 x cores + 1 sync workers, as the Dockerfile runs it)
and Debian's `wrk` with a fixed number of connections.

wrk counts only socket errors and 4xx/5xx answers as errors; the Lua script below also
counts anything but 200 (a 302 to the login page would otherwise pass), and prints the
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
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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
    "BENCH requests=%d duration_us=%d not_200=%d connect=%d read=%d write=%d "
    .. "status=%d timeout=%d\\n",
    summary.requests, summary.duration, total, e.connect, e.read, e.write, e.status, e.timeout))
  io.write(string.format("BENCH p50=%.0f p90=%.0f p99=%.0f max=%.0f\\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
"""

WRK_SCRIPT = (
    """
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  not_ok = 0
end

function response(status, headers, body)
  if status ~= 200 then
    not_ok = not_ok + 1
  end
end

"""
    + WRK_DONE
)


@dataclass(frozen=True, slots=True)
class LoadResult:
    label: str
    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
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


@contextmanager
def gunicorn(
    env: dict[str, str],
    *,
    workers: int,
    log: Path,
    cookie: str,
    cpus: str | None = None,
    access_log: Path | None = None,
) -> Iterator[str]:
    """Serve the site on a free loopback port; yield its base URL; always stop it.
    `cpus` pins the server (taskset); `access_log` writes method, path, status and the
    time each request took in the worker (µs), for per-kind latencies."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    logging = []
    if access_log is not None:
        logging = ["--access-logfile", str(access_log), "--access-logformat", ACCESS_FORMAT]
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
        *logging,
    ]
    process = subprocess.Popen(
        _pinned(command, cpus),
        env=env,
        cwd=BASE_DIR,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}; see {log}")
            try:
                if _get(f"{base}/bench/floor/", cookie) == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer within 60 s; see {log}")
            time.sleep(0.2)
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


def check(url: str, cookie: str) -> None:
    status = _get(url, cookie)
    if status != 200:
        raise RuntimeError(f"{url} answers {status}, not 200, to the bench session")


def run_wrk(
    label: str,
    url: str,
    cookie: str,
    *,
    seconds: int,
    connections: int,
    threads: int = 2,
    cpus: str | None = None,
    lua: str = WRK_SCRIPT,
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
            "-H",
            f"Cookie: {cookie}",
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
    errors = {k: values[k] for k in ("not_200", "connect", "read", "write", "timeout")}
    load = LoadResult(
        label=label,
        requests=values["requests"],
        seconds=values["duration_us"] / 1e6,
        p50_ms=values["p50"] / 1000,
        p90_ms=values["p90"] / 1000,
        p99_ms=values["p99"] / 1000,
        max_ms=values["max"] / 1000,
        errors=values["not_200"]
        + values["connect"]
        + values["read"]
        + values["write"]
        + values["timeout"],
        error_detail=", ".join(f"{k} {v}" for k, v in errors.items() if v) or "none",
    )
    say(
        f"  {label}: {load.rps:.0f} req/s, p50 {load.p50_ms:.1f} ms, "
        f"p99 {load.p99_ms:.1f} ms, errors {load.errors}"
    )
    return load


# --- many players on their own forces ------------------------------------------------------

ACCESS_FORMAT = "BENCH %(m)s %(U)s %(s)s %(D)s"

# One player's round, repeated: each builder edit, then opening another step (the page
# sends nothing after an edit; a player moves on to the next step), two views of the
# force page and two API reads per edit.
MIXED_ROUND = (
    "edit_add",
    "step",
    "page",
    "page",
    "api",
    "api",
    "edit_remove",
    "step",
    "page",
    "page",
    "api",
    "api",
)

MIXED_SCRIPT = """
local players = {%(players)s}
local round = {%(round)s}
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
  me = players[number]
  local form = "application/x-www-form-urlencoded"
  local htmx = {
    ["Cookie"] = me.cookie, ["HX-Request"] = "true", ["X-CSRFToken"] = me.csrf,
    ["HX-Current-URL"] = me.builder, ["Content-Type"] = form }
  local plain = { ["Cookie"] = me.cookie }
  requests = {
    edit_add = wrk.format("POST", me.add, htmx, "add=medical-kit"),
    edit_remove = wrk.format("POST", me.remove, htmx, "index=" .. me.index),
    step = wrk.format("GET", me.step, htmx),
    page = wrk.format("GET", me.page, plain),
    api = wrk.format("GET", me.api, plain),
  }
end

-- The round moves on with each answer, not with each request built: wrk builds one
-- request of the first thread before the run starts, to check the script, and never
-- sends it. Counted per request built, that player skipped the round's first edit (a
-- medical kit added), and its removal was then refused as a removal of nothing.
function request()
  return requests[round[step %% #round + 1]]
end

function response(status, headers, body)
  step = step + 1
  if status ~= 200 then
    not_ok = not_ok + 1
  end
end
""" + WRK_DONE.replace("%", "%%")


def _lua(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def mixed_script(players: list[dict[str, str]]) -> str:
    """The wrk script for one connection per player (wrk -tN -cN): player i's thread
    sends player i's cookies and URLs, round after round of `MIXED_ROUND`."""
    rows = ", ".join(
        "{" + ", ".join(f"{key} = {_lua(str(value))}" for key, value in p.items()) + "}"
        for p in players
    )
    kinds = ", ".join(_lua(kind) for kind in MIXED_ROUND)
    return MIXED_SCRIPT % {"players": rows, "round": kinds}


def access_times(
    log: Path, kind_of: Callable[[str, str], str | None]
) -> tuple[dict[str, list[float]], Counter]:
    """({kind: worker times in ms}, {(kind, status): n} for answers but 200) from a
    gunicorn access log in `ACCESS_FORMAT`."""
    found: dict[str, list[float]] = {}
    refused: Counter = Counter()
    for line in log.read_text().splitlines():
        parts = line.split()
        if len(parts) != 5 or parts[0] != "BENCH":
            continue
        _, method, path, status, micros = parts
        kind = kind_of(method, path)
        if kind is not None:
            found.setdefault(kind, []).append(int(micros) / 1000)
            if status != "200":
                refused[(kind, status)] += 1
    return found, refused


def wait_until_answered(log: Path, *, quiet: float = 2.0, limit: float = 60.0) -> int:
    """The access log's line count once it has stopped growing for `quiet` seconds (at
    most `limit`): the requests still in the workers when a wrk run ended have been
    answered. Cold workers answer their first edits seconds after the warm-up's wrk has
    gone; counted in the measured run, they were its slowest edits."""
    lines, since, started = -1, time.monotonic(), time.monotonic()
    while time.monotonic() - started < limit:
        now = len(log.read_text().splitlines())
        if now != lines:
            lines, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
        time.sleep(0.1)
    return lines


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
