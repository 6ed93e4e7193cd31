"""Two app servers behind one proxy, proven (`make two-servers`; CI runs it).

Starts, on loopback only: a Redis of its own, two gunicorn instances of the site sharing
it and a PostgreSQL database of its own (made and dropped here), and nginx in front of
both with the deployment's own configuration (`deploy/nginx.conf`, its upstream pointed
at the two instances). Then shows:

1. the anonymous API limit holds across both instances: the 61st request in a minute is
   429, through the proxy and straight from either instance, forged X-Forwarded-For or not;
2. a session made on one instance works on the other;
3. an edit through one instance shows at once through the other (API body and ETag, page);
4. slow clients (headers or body never finished), more than all workers, wait in nginx:
   everyone else is still answered;
5. under `wrk` load through the proxy, one instance killed (SIGKILL) loses no acknowledged
   write, and the proxy keeps answering: no errors beyond the requests in flight;
6. the limits hold exactly under parallel connections, across both instances (restarted
   with hour-long API windows, so that no window ends during a check): the anonymous and
   the per-user API limits, the log-in lock-out (not reset by another account's log-in or
   by a sign-up, and exact under parallel guesses) and the API token cap (30 creations at
   once make 20 tokens).

It measures requests/s and p99 through the proxy with two instances and with one. It
prints what it found, exits non-zero if any check failed, and removes everything it
started or made on the way out. Debian's nginx, wrk and redis-server are installed
(apt-get) when missing; PostgreSQL must be running on 127.0.0.1:5432 (user postgres,
trust auth; TWO_SERVERS_POSTGRES_URL to change).
"""

import argparse
import atexit
import http.client
import http.cookies
import json
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
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the bench's proxy module, when run as a script

from bench import proxy  # noqa: E402

BIN = Path(sys.executable).parent
LOOPBACK = "127.0.0.1"
ADMIN_URL = os.environ.get(
    "TWO_SERVERS_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"
)
ANON_LIMIT = 60  # the documented default, API_THROTTLE_ANON
USERNAME = "two-servers"
PASSWORD = "two-servers-pass-4821"
# Check 6's accounts: three whose passwords are guessed, one that guesses and logs in to
# its own, one whose tokens are made at once, one whose token calls the API.
VICTIMS = ("victim-one", "victim-two", "victim-three")
GUESSER, TOOLSMITH, API_USER = "guesser", "toolsmith", "api-user"
MAKE_ACCOUNTS = f"""
import json
from django.contrib.auth import get_user_model
from accounts.tokens import create_api_token
users = get_user_model().objects
for name in {(USERNAME, *VICTIMS, GUESSER, TOOLSMITH, API_USER)!r}:
    users.create_user(name, password={PASSWORD!r})
_, raw = create_api_token(user=users.get(username={API_USER!r}), name="two servers")
print(json.dumps({{"token": raw}}))
"""
# Check 6's limits: the documented counts, over an hour instead of a minute (see 6).
HOUR_RATES = {"API_THROTTLE_ANON": "60/hour", "API_THROTTLE_USER": "120/hour"}
USER_LIMIT = 120
FAILURE_LIMIT = 5  # AXES_FAILURE_LIMIT's default
TOKEN_CAP = 20  # accounts.tokens.MAX_TOKENS_PER_USER
DEBIAN = {
    "nginx": proxy.NGINX,
    "wrk": "/usr/bin/wrk",
    "redis-server": "/usr/bin/redis-server",
}


# --- printing and checks ---------------------------------------------------------------------


@dataclass
class Findings:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        line = f"{what}{f' ({detail})' if detail else ''}"
        (self.passed if ok else self.failed).append(line)
        say(f"  {'ok  ' if ok else 'FAIL'} {line}")
        return ok


def say(message: str) -> None:
    print(message, flush=True)


def step(title: str) -> None:
    say(f"\n-- {title}")


# --- what runs, and its clean-up -------------------------------------------------------------


class Cleanup:
    """Undo every start and every creation, last first, however the script ends."""

    def __init__(self) -> None:
        self.actions: list[tuple[str, object]] = []
        atexit.register(self.run)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, frame) -> None:
        if signum == signal.SIGALRM:
            say("\nFAIL: out of time (--timeout)")
        sys.exit(128 + signum)  # atexit runs the clean-up

    def add(self, description: str, action) -> None:
        self.actions.append((description, action))

    def run(self) -> None:
        while self.actions:
            description, action = self.actions.pop()
            try:
                action()
            except Exception as exc:  # keep cleaning up the rest
                say(f"  (clean-up: {description} failed: {exc})")


CLEANUP = Cleanup()


def start(name: str, argv: list[str], *, env: dict[str, str], log: Path) -> subprocess.Popen:
    """A child in a process group of its own, so it and its children stop together."""
    out = log.open("wb")
    process = subprocess.Popen(
        argv, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True
    )
    CLEANUP.add(f"stop {name}", lambda: stop(process))
    return process


def stop(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def wait_until(what: str, ready, *, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.2)
    raise SystemExit(f"gave up waiting for {what} after {seconds:.0f} s")


# --- Debian packages -------------------------------------------------------------------------


def install_missing() -> None:
    missing = [package for package, path in DEBIAN.items() if not Path(path).exists()]
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    say(f"installing {' '.join(missing)} (apt-get)")
    subprocess.run([*sudo, "apt-get", "update", "-q"], check=True, env=env)
    subprocess.run([*sudo, "apt-get", "install", "-y", "-q", *missing], check=True, env=env)


# --- HTTP ------------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    cookies: dict[str, str]

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def call(
    port: int,
    method: str,
    path: str,
    *,
    cookies: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    timeout: float = 30,
    source: str | None = None,
) -> Answer:
    """One request on a connection of its own; `source`: the loopback address it comes
    from (127.0.0.2 and so on), so that each check counts against an address of its own."""
    connection = http.client.HTTPConnection(
        LOOPBACK, port, timeout=timeout, source_address=(source, 0) if source else None
    )
    sent = {"Host": f"{LOOPBACK}:{port}", **(headers or {})}
    if cookies:
        sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    try:
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        got = response.read()
        jar = http.cookies.SimpleCookie()
        for value in response.headers.get_all("Set-Cookie") or []:
            jar.load(value)
        return Answer(
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            got,
            {k: m.value for k, m in jar.items()},
        )
    finally:
        connection.close()


def sign_in(port: int) -> dict[str, str]:
    """Log in through the form of the instance at `port`: its session and CSRF cookies."""
    form = call(port, "GET", "/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text())
    if form.status != 200 or not token:
        raise SystemExit(f"no log-in form on port {port} ({form.status})")
    cookies = dict(form.cookies)
    body = urllib.parse.urlencode(
        {"username": USERNAME, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)}
    ).encode()
    done = call(
        port,
        "POST",
        "/accounts/login/",
        cookies=cookies,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        body=body,
    )
    if done.status != 302 or "sessionid" not in done.cookies:
        raise SystemExit(f"log-in on port {port} answered {done.status}")
    return {**cookies, **done.cookies}


def api_write(port: int, method: str, path: str, cookies: dict[str, str], data: object) -> Answer:
    return call(
        port,
        method,
        path,
        cookies=cookies,
        headers={"Content-Type": "application/json", "X-CSRFToken": cookies["csrftoken"]},
        body=json.dumps(data).encode(),
    )


def new_force(name: str) -> dict[str, object]:
    return {"format": "dbd-roster/1", "name": name, "resources": 50, "members": []}


# --- wrk -------------------------------------------------------------------------------------


@dataclass
class Load:
    requests: int
    per_second: float
    p99_ms: float
    non_2xx_3xx: int
    socket_errors: int

    def line(self) -> str:
        return (
            f"{self.per_second:.0f} requests/s, p99 {self.p99_ms:.1f} ms, "
            f"{self.requests} requests, {self.non_2xx_3xx} non-2xx/3xx, "
            f"{self.socket_errors} socket errors"
        )


def _ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk_command(port: int, path: str, cookies: dict[str, str], seconds: int) -> list[str]:
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    return [
        DEBIAN["wrk"],
        "-t2",
        "-c16",
        f"-d{seconds}s",
        "--latency",
        "--timeout",
        "10s",
        "-H",
        f"Cookie: {cookie}",
        f"http://{LOOPBACK}:{port}{path}",
    ]


def parse_wrk(output: str) -> Load:
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    per_second = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = _ms(re.search(r"99%\s+([\d.]+\w+)", output).group(1))
    non_ok = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    return Load(
        requests,
        per_second,
        p99,
        int(non_ok.group(1)) if non_ok else 0,
        sum(int(n) for n in errors.groups()) if errors else 0,
    )


def run_wrk(port: int, path: str, cookies: dict[str, str], seconds: int) -> Load:
    done = subprocess.run(
        wrk_command(port, path, cookies, seconds),
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 30,
    )
    return parse_wrk(done.stdout)


# --- the run ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per instance")
    parser.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    parser.add_argument(
        "--timeout", type=int, default=300, help="give up (and clean up) after this long"
    )
    args = parser.parse_args()
    started = time.monotonic()
    findings = Findings()

    step("setting up (loopback only)")
    install_missing()
    signal.alarm(args.timeout)  # the packages are in: from here on, bounded
    work = Path(tempfile.mkdtemp(prefix="dbd-two-servers-"))
    CLEANUP.add(f"remove {work}", lambda: shutil.rmtree(work, ignore_errors=True))
    work.chmod(0o755)  # nginx's workers (nobody, when started as root) write under it

    database = f"dbd_two_servers_{os.getpid()}"
    admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=10)
    CLEANUP.add("close the admin connection", admin.close)
    admin.execute(f'CREATE DATABASE "{database}"')
    CLEANUP.add(
        f"drop database {database}",
        lambda: admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'),
    )
    database_url = urllib.parse.urlsplit(ADMIN_URL)._replace(path=f"/{database}").geturl()
    say(f"database {database}")

    redis_port = free_port()
    redis = start(
        "redis",
        [
            DEBIAN["redis-server"],
            "--port",
            str(redis_port),
            "--bind",
            LOOPBACK,
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        env=dict(os.environ),
        log=work / "redis.log",
    )

    def redis_up() -> bool:
        try:
            with socket.create_connection((LOOPBACK, redis_port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            if redis.poll() is not None:
                log = (work / "redis.log").read_text()
                raise SystemExit(f"redis-server exited: {log}") from None
            return False

    wait_until("redis", redis_up, seconds=20)
    say(f"redis on {LOOPBACK}:{redis_port}")

    site_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "API_THROTTLE"))},
        "DJANGO_SETTINGS_MODULE": "two_servers_settings",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "scripts"), str(ROOT)]),
        "DEBUG": "0",
        "SECRET_KEY": os.urandom(32).hex(),
        "ALLOWED_HOSTS": LOOPBACK,
        "DATABASE_URL": database_url,
        "REDIS_URL": f"redis://{LOOPBACK}:{redis_port}/0",
        "TRUSTED_PROXY_COUNT": "1",
        "LOG_LEVEL": "WARNING",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=site_env, check=True, cwd=ROOT)
    subprocess.run([*manage, "loaddata", "rules", "-v0"], env=site_env, check=True, cwd=ROOT)
    subprocess.run([*manage, "refresh_evaluations"], env=site_env, check=True, cwd=ROOT)
    made = subprocess.run(
        [*manage, "shell", "-c", MAKE_ACCOUNTS],
        env=site_env,
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    api_token = json.loads(made.stdout.strip().splitlines()[-1])["token"]

    ports = {"A": free_port(), "B": free_port()}
    instances = start_instances(ports, site_env, work, args)
    say(f"instances A on :{ports['A']}, B on :{ports['B']} ({args.workers} workers each)")

    proxy_port = free_port()
    nginx = start(
        "nginx",
        proxy.write_conf(work / "nginx", list(ports.values()), proxy_port, name_upstream=True),
        env=dict(os.environ),
        log=work / "nginx.log",
    )
    wait_until("nginx", lambda: _answers(proxy_port, "/healthz") == 200, seconds=20)
    say(f"nginx on :{proxy_port} (deploy/nginx.conf, upstream A and B)")

    completed = False
    try:
        check_anonymous_limit(findings, proxy_port, ports)
        cookies = check_sessions(findings, ports)
        force_id = check_edits(findings, ports, cookies)
        check_slow_clients(findings, proxy_port, cookies, force_id, 2 * args.workers)
        check_failover(
            findings, proxy_port, ports, instances, cookies, force_id, database_url, args
        )
        instances = restart(instances, ports, {**site_env, **HOUR_RATES}, work, args)
        check_limits(findings, proxy_port, api_token, database_url)
        completed = True
    finally:
        if findings.failed or not completed:
            for log in [*sorted(work.glob("*.log")), work / "nginx" / "error.log"]:
                if log.exists():
                    say(f"\n-- the end of {log.name}")
                    say("\n".join(log.read_text(errors="replace").splitlines()[-30:]))
    if nginx.poll() is not None:
        findings.check(False, "nginx still running at the end", f"exit {nginx.returncode}")

    took = time.monotonic() - started
    step(f"done in {took:.0f} s")
    if findings.failed:
        say(
            f"two servers: {len(findings.failed)} of "
            f"{len(findings.failed) + len(findings.passed)} checks FAILED:"
        )
        for line in findings.failed:
            say(f"  {line}")
        return 1
    say(f"two servers: all {len(findings.passed)} checks held")
    return 0


def _answers(port: int, path: str) -> int | None:
    try:
        return call(port, "GET", path).status
    except OSError:
        return None


def check_anonymous_limit(findings: Findings, proxy: int, ports: dict[str, int]) -> None:
    step(f"1. the anonymous limit ({ANON_LIMIT}/minute) holds across both instances")
    url = "/api/v1/rules/societies/"
    answers = [call(proxy, "GET", url) for _ in range(ANON_LIMIT + 1)]
    statuses = [a.status for a in answers]
    upstreams = {a.headers.get("x-upstream-addr") for a in answers}
    by = {name: f"{LOOPBACK}:{port}" for name, port in ports.items()}
    findings.check(
        all(address in upstreams for address in by.values()),
        "requests through the proxy went to both instances",
        f"answered by {', '.join(sorted(u or '?' for u in upstreams))}",
    )
    findings.check(
        statuses[:ANON_LIMIT] == [200] * ANON_LIMIT and statuses[ANON_LIMIT] == 429,
        f"the first {ANON_LIMIT} answered 200, the {ANON_LIMIT + 1}st 429",
        f"statuses: {sorted(set(statuses[:ANON_LIMIT]))} then {statuses[ANON_LIMIT]}",
    )
    forged = call(proxy, "GET", url, headers={"X-Forwarded-For": "203.0.113.9"})
    findings.check(
        forged.status == 429,
        "a forged X-Forwarded-For through the proxy is still 429",
        f"{forged.status}",
    )
    for name, port in ports.items():
        direct = call(port, "GET", url)
        findings.check(
            direct.status == 429, f"straight from instance {name}: 429", f"{direct.status}"
        )


def check_sessions(findings: Findings, ports: dict[str, int]) -> dict[str, str]:
    step("2. a session made on one instance works on the other")
    cookies = sign_in(ports["A"])
    on_b = call(ports["B"], "GET", "/accounts/", cookies=cookies)
    findings.check(
        on_b.status == 200 and f"logged in as <strong>{USERNAME}</strong>" in on_b.text(),
        "signed in on A, instance B shows the user's account page",
        f"{on_b.status}",
    )
    anonymous = call(ports["B"], "GET", "/accounts/")
    findings.check(
        anonymous.status == 302,
        "without the session, B sends to the log-in",
        f"{anonymous.status}",
    )
    return cookies


def check_edits(findings: Findings, ports: dict[str, int], cookies: dict[str, str]) -> int:
    step("3. an edit through one instance shows at once through the other")
    made = api_write(ports["A"], "POST", "/api/v1/rosters/", cookies, new_force("Shared Club"))
    if made.status != 201:
        findings.check(False, "a force made through A", f"{made.status} {made.text()[:200]}")
        raise SystemExit(1)
    force_id = json.loads(made.body)["id"]
    detail = f"/api/v1/rosters/{force_id}/"
    page = f"/forces/{force_id}/"
    # Both instances read (and cache) the force first.
    before = {name: call(port, "GET", detail, cookies=cookies) for name, port in ports.items()}
    for port in ports.values():
        call(port, "GET", page, cookies=cookies)
    etag = before["A"].headers.get("etag")
    findings.check(
        etag is not None and before["B"].headers.get("etag") == etag,
        "both instances give the same ETag",
        f"{etag}",
    )
    edited = api_write(ports["A"], "PATCH", detail, cookies, {"name": "Renamed on A"})
    findings.check(edited.status == 200, "renamed through A", f"{edited.status}")
    after = call(ports["B"], "GET", detail, cookies=cookies)
    findings.check(
        after.status == 200
        and json.loads(after.body)["document"]["name"] == "Renamed on A"
        and after.headers.get("etag") not in (None, etag),
        "B's API answer has the new name and a new ETag",
        f"{after.status}, ETag {after.headers.get('etag')}",
    )
    conditional = call(ports["B"], "GET", detail, cookies=cookies, headers={"If-None-Match": etag})
    findings.check(
        conditional.status == 200,
        "B answers the old ETag with 200, not 304",
        f"{conditional.status}",
    )
    unchanged = call(
        ports["B"],
        "GET",
        detail,
        cookies=cookies,
        headers={"If-None-Match": after.headers["etag"]},
    )
    findings.check(unchanged.status == 304, "and the new ETag with 304", f"{unchanged.status}")
    page_b = call(ports["B"], "GET", page, cookies=cookies)
    findings.check(
        page_b.status == 200 and "Renamed on A" in page_b.text(),
        "B's force page shows the new name",
        f"{page_b.status}",
    )
    return force_id


def check_slow_clients(
    findings: Findings, proxy: int, cookies: dict[str, str], force_id: int, workers: int
) -> None:
    """More slow clients than both instances have workers: some never finish their
    headers, some never finish their body. gunicorn's sync workers would each wait on
    one; nginx holds them all, so everyone else is still answered."""
    slow_count = 2 * workers + 2
    step(f"4. {slow_count} slow clients wait in nginx, not in gunicorn's {workers} workers")
    host = f"Host: {LOOPBACK}:{proxy}\r\n"
    unfinished = [
        f"GET /accounts/login/ HTTP/1.1\r\n{host}X-Still-Typing: ",
        f"POST /api/v1/rosters/validate/ HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
        'Content-Length: 100000\r\n\r\n{"format": ',
    ]
    slow: list[socket.socket] = []
    answers: list[int | str]
    try:
        for number in range(slow_count):
            sock = socket.create_connection((LOOPBACK, proxy), timeout=5)
            sock.sendall(unfinished[number % 2].encode())
            slow.append(sock)
        answers = [
            call(proxy, "GET", f"/forces/{force_id}/", cookies=cookies, timeout=10).status
            for _ in range(2 * workers)
        ]
    except OSError as exc:
        answers = [f"{type(exc).__name__}: {exc}"]
    finally:
        for sock in slow:
            sock.close()
    findings.check(
        answers == [200] * (2 * workers),
        "every other request is still answered at once",
        f"{len(answers)} requests while {len(slow)} slow clients held on: "
        f"{sorted(set(map(str, answers)))}",
    )


def check_failover(
    findings: Findings,
    proxy: int,
    ports: dict[str, int],
    instances: dict[str, subprocess.Popen],
    cookies: dict[str, str],
    force_id: int,
    database_url: str,
    args: argparse.Namespace,
) -> None:
    page = f"/forces/{force_id}/"
    step(f"5a. load through the proxy, two instances (wrk -c16, {args.seconds} s)")
    two = run_wrk(proxy, page, cookies, args.seconds)
    say(f"  {two.line()}")
    findings.check(
        two.non_2xx_3xx == 0 and two.socket_errors == 0, "no errors with both instances up"
    )

    failover_seconds = 2 * args.seconds
    step(f"5b. instance B killed under load ({failover_seconds} s of wrk, writes alongside)")
    load = subprocess.Popen(
        wrk_command(proxy, page, cookies, failover_seconds),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    CLEANUP.add("stop wrk", lambda: stop_plain(load))
    writes: list[tuple[str, int]] = []
    writing = threading.Event()
    writing.set()

    def writer() -> None:
        number = 0
        while writing.is_set():
            number += 1
            name = f"Failover {number}"
            try:
                status = api_write(proxy, "POST", "/api/v1/rosters/", cookies, new_force(name))
                writes.append((name, status.status))
            except OSError:
                writes.append((name, 0))

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    time.sleep(args.seconds / 2)  # the kill falls in the middle of steady load
    writes_before_kill = len(writes)
    os.killpg(instances["B"].pid, signal.SIGKILL)
    instances["B"].wait(timeout=10)
    say(f"  killed instance B (SIGKILL) after {writes_before_kill} writes")
    output, _ = load.communicate(timeout=failover_seconds + 30)
    writing.clear()
    thread.join(timeout=30)
    failover = parse_wrk(output)
    say(f"  {failover.line()}")
    errors = failover.non_2xx_3xx + failover.socket_errors
    findings.check(
        errors <= args.workers,
        "the proxy kept answering: errors only for requests B had in flight",
        f"{errors} errors; B had at most {args.workers} in flight",
    )
    acknowledged = [name for name, status in writes if status == 201]
    refused = [(name, status) for name, status in writes if status != 201]
    with psycopg.connect(database_url) as connection:
        stored = {
            row[0]
            for row in connection.execute(
                "SELECT name FROM roster_force WHERE name LIKE 'Failover %%'"
            )
        }
    lost = [name for name in acknowledged if name not in stored]
    # A write cut off in flight may or may not have been applied; it was never confirmed.
    applied = sum(1 for name, _ in refused if name in stored)
    findings.check(
        len(acknowledged) > writes_before_kill and not lost,
        "no acknowledged write lost",
        f"{len(acknowledged)} writes acknowledged, {len(lost)} missing; "
        f"not acknowledged: {refused}, {applied} of them applied",
    )
    findings.check(
        len(refused) <= 1,
        "no write refused but the one in flight at the kill (the writer sends one at a time)",
        f"{len(refused)} of {len(writes)}",
    )

    step(f"5c. load through the proxy, one instance ({args.seconds} s)")
    one = run_wrk(proxy, page, cookies, args.seconds)
    say(f"  {one.line()}")
    findings.check(one.non_2xx_3xx == 0 and one.socket_errors == 0, "no errors with one instance")

    step("measured (through nginx, the signed-in force page)")
    say(f"  two instances: {two.per_second:.0f} requests/s, p99 {two.p99_ms:.1f} ms")
    say(f"  one instance:  {one.per_second:.0f} requests/s, p99 {one.p99_ms:.1f} ms")
    say(
        f"  failover:      {errors} errors in {failover.requests} requests; "
        f"{len(lost)} acknowledged writes lost"
    )


def start_instances(
    ports: dict[str, int], env: dict[str, str], work: Path, args: argparse.Namespace
) -> dict[str, subprocess.Popen]:
    instances = {
        name: start(
            f"instance {name}",
            [
                str(BIN / "gunicorn"),
                "dbd_site.wsgi",
                "-b",
                f"{LOOPBACK}:{port}",
                "-w",
                str(args.workers),
            ],
            env=env,
            log=work / f"instance-{name}.log",
        )
        for name, port in ports.items()
    }
    for name, port in ports.items():
        wait_until(
            f"instance {name}",
            lambda port=port: _answers(port, "/healthz") == 200,
            seconds=60,
        )
    return instances


def restart(
    instances: dict[str, subprocess.Popen],
    ports: dict[str, int],
    env: dict[str, str],
    work: Path,
    args: argparse.Namespace,
) -> dict[str, subprocess.Popen]:
    for process in instances.values():
        stop(process)
    return start_instances(ports, env, work, args)


def at_once(connections: int, each: int, request) -> list[Answer | None]:
    """`connections` threads released together, each making `each` requests one after the
    other (`request(i)`): that many connections open at any moment. None: no answer."""
    barrier = threading.Barrier(connections)
    answers: list[list[Answer | None]] = [[] for _ in range(connections)]

    def run(i: int) -> None:
        barrier.wait(timeout=30)
        for _ in range(each):
            try:
                answers[i].append(request(i))
            except OSError:
                answers[i].append(None)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return [answer for per_thread in answers for answer in per_thread]


def tally(answers: list[Answer | None]) -> dict[int | str, int]:
    counts: dict[int | str, int] = {}
    for answer in answers:
        key: int | str = answer.status if answer is not None else "no answer"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=str))


def form_cookies(proxy: int, path: str, source: str) -> dict[str, str]:
    """A form's CSRF cookie, got as a browser would (its token goes in X-CSRFToken)."""
    page = call(proxy, "GET", path, source=source)
    if page.status != 200 or "csrftoken" not in page.cookies:
        raise SystemExit(f"no form at {path} ({page.status})")
    return page.cookies


def post_form(
    proxy: int, path: str, cookies: dict[str, str], fields: dict[str, str], source: str
) -> Answer:
    return call(
        proxy,
        "POST",
        path,
        cookies=cookies,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "X-CSRFToken": cookies["csrftoken"],
        },
        body=urllib.parse.urlencode(fields).encode(),
        source=source,
    )


def check_limits(findings: Findings, proxy: int, api_token: str, database_url: str) -> None:
    step("6. limits under parallel connections, through the proxy to both instances")
    url = "/api/v1/rules/societies/"

    anonymous = at_once(6, 30, lambda i: call(proxy, "GET", url, source="127.0.0.2"))
    counts = tally(anonymous)
    findings.check(
        counts == {200: ANON_LIMIT, 429: 180 - ANON_LIMIT},
        f"anonymous API, 6 connections, 180 requests: exactly {ANON_LIMIT} answered",
        f"{counts}",
    )
    answered = [a for a in anonymous if a is not None]
    findings.check(
        all(a.headers.get("ratelimit-limit") == str(ANON_LIMIT) for a in answered)
        and all("ratelimit-remaining" in a.headers for a in answered)
        and all(a.headers.get("retry-after") for a in answered if a.status == 429),
        "every answer carries RateLimit-*, every 429 Retry-After",
    )
    by_token = {"Authorization": f"Token {api_token}"}
    one_user = at_once(
        4, 45, lambda i: call(proxy, "GET", url, headers=by_token, source=f"127.0.1.{i + 1}")
    )
    counts = tally(one_user)
    findings.check(
        counts == {200: USER_LIMIT, 429: 180 - USER_LIMIT},
        f"one user from 4 addresses, 4 connections, 180 requests: exactly {USER_LIMIT}",
        f"{counts}",
    )

    def guess(victim: str, cookies: dict[str, str], source: str, password: str = "wrong") -> int:
        fields = {"username": victim, "password": password}
        return post_form(proxy, "/accounts/login/", cookies, fields, source).status

    first, second, third = VICTIMS
    here = "127.0.0.4"
    cookies = form_cookies(proxy, "/accounts/login/", here)
    before = [guess(first, cookies, here) for _ in range(FAILURE_LIMIT - 1)]
    own = guess(GUESSER, cookies, here, PASSWORD)
    after = guess(first, cookies, here)
    right = guess(first, cookies, here, PASSWORD)
    findings.check(
        (before, own, after, right) == ([200] * (FAILURE_LIMIT - 1), 302, 429, 429),
        "lock-out: four wrong guesses, a log-in to one's own account, the fifth guess is "
        "locked out, and so is the victim's right password",
        f"{before}, own log-in {own}, then {after}, right password {right}",
    )
    here = "127.0.0.5"
    cookies = form_cookies(proxy, "/accounts/login/", here)
    before = [guess(second, cookies, here) for _ in range(FAILURE_LIMIT - 1)]
    signup_cookies = form_cookies(proxy, "/accounts/signup/", here)
    fields = {"username": "newcomer", "password1": PASSWORD, "password2": PASSWORD}
    signed_up = post_form(proxy, "/accounts/signup/", signup_cookies, fields, here).status
    after = guess(second, cookies, here)
    findings.check(
        (before, signed_up, after) == ([200] * (FAILURE_LIMIT - 1), 302, 429),
        "lock-out: four wrong guesses, a sign-up (which logs in), the fifth is locked out",
        f"{before}, sign-up {signed_up}, then {after}",
    )
    here = "127.0.0.6"
    cookies = form_cookies(proxy, "/accounts/login/", here)
    guesses = at_once(
        12,
        1,
        lambda i: post_form(
            proxy, "/accounts/login/", cookies, {"username": third, "password": f"guess-{i}"}, here
        ),
    )
    counts = tally(guesses)
    right = guess(third, cookies, here, PASSWORD)
    findings.check(
        counts == {200: FAILURE_LIMIT - 1, 429: 12 - FAILURE_LIMIT + 1} and right == 429,
        "lock-out: 12 guesses at once, 4 refused as wrong, the rest and then the right "
        "password locked out",
        f"{counts}, right password {right}",
    )

    here = "127.0.0.7"
    cookies = form_cookies(proxy, "/accounts/login/", here)
    signed_in = post_form(
        proxy, "/accounts/login/", cookies, {"username": TOOLSMITH, "password": PASSWORD}, here
    )
    session = {**cookies, **signed_in.cookies}
    made = at_once(
        30,
        1,
        lambda i: post_form(proxy, "/accounts/tokens/new/", session, {"name": f"tool {i}"}, here),
    )
    counts = tally(made)
    with psycopg.connect(database_url) as connection:
        (stored,) = connection.execute(
            "SELECT count(*) FROM accounts_apitoken t JOIN auth_user u ON u.id = t.user_id "
            "WHERE u.username = %s",
            [TOOLSMITH],
        ).fetchone()
    findings.check(
        signed_in.status == 302
        and counts == {200: TOKEN_CAP, 409: 30 - TOKEN_CAP}
        and stored == TOKEN_CAP,
        f"API tokens: 30 made at once, exactly {TOKEN_CAP} stored, the rest refused (409)",
        f"{counts}, {stored} stored",
    )
    step("measured (parallel connections through nginx)")
    say(f"  anonymous API: {tally(anonymous).get(200, 0)} of 180 answered (limit {ANON_LIMIT})")
    say(f"  one user's API: {tally(one_user).get(200, 0)} of 180 answered (limit {USER_LIMIT})")
    say(f"  token creations: {tally(made).get(200, 0)} of 30 made, {stored} stored (cap 20)")


def stop_plain(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
