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
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

WRK_SCRIPT = """
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


@contextmanager
def gunicorn(env: dict[str, str], *, workers: int, log: Path, cookie: str) -> Iterator[str]:
    """Serve the site on a free loopback port; yield its base URL; always stop it."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
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
        command, env=env, cwd=BASE_DIR, start_new_session=True, stdin=subprocess.DEVNULL
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
    say: Callable[[str], None] = print,
) -> LoadResult:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
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
            command, capture_output=True, text=True, check=False, timeout=seconds + 60
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
