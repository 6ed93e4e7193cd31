"""nginx in front of gunicorn, configured as deployed (`deploy/nginx.conf`).

gunicorn's sync workers serve one connection at a time, from the moment they accept it:
a client that connects and then waits before sending (wrk does, pausing between a
player's requests) holds a worker for its whole pause. Deployed, nginx reads each request
whole before passing it on, so a worker only ever waits on the site. The bench's players
and `make two-servers` go through this proxy for that reason.
"""

from pathlib import Path

NGINX = "/usr/sbin/nginx"
NGINX_CONF = Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf"
LOOPBACK = "127.0.0.1"


def site_conf(upstream_ports: list[int], proxy_port: int, *, name_upstream: bool = False) -> str:
    """deploy/nginx.conf with its upstream the given loopback ports and its listener on
    loopback; `name_upstream` adds a header naming the server that answered."""
    conf = NGINX_CONF.read_text()
    changes = {
        "    server web:8000 max_fails=1 fail_timeout=5s;\n": "".join(
            f"    server {LOOPBACK}:{port} max_fails=1 fail_timeout=5s;\n"
            for port in upstream_ports
        ),
        "    listen 8080;\n": f"    listen {LOOPBACK}:{proxy_port};\n",
    }
    if name_upstream:
        changes["    location / {\n"] = (
            "    location / {\n        add_header X-Upstream-Addr $upstream_addr always;\n"
        )
    for old, new in changes.items():
        if conf.count(old) != 1:
            raise SystemExit(f"deploy/nginx.conf changed: expected one {old.strip()!r}")
        conf = conf.replace(old, new)
    return conf


def main_conf(home: Path) -> str:
    """The top of an nginx configuration that keeps everything under `home`."""
    return f"""
worker_processes 1;
pid {home}/nginx.pid;
error_log {home}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {home}/client_body;
    proxy_temp_path {home}/proxy;
    fastcgi_temp_path {home}/fastcgi;
    uwsgi_temp_path {home}/uwsgi;
    scgi_temp_path {home}/scgi;
    include {home}/site.conf;
}}
"""


def write_conf(
    home: Path, upstream_ports: list[int], proxy_port: int, *, name_upstream: bool = False
) -> list[str]:
    """Write the configuration under `home`; return the command that runs nginx on it in
    the foreground."""
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o755)  # nginx's workers (nobody, when started as root) write under it
    (home / "site.conf").write_text(
        site_conf(upstream_ports, proxy_port, name_upstream=name_upstream)
    )
    (home / "nginx.conf").write_text(main_conf(home))
    return [
        NGINX,
        "-p",
        str(home),
        "-c",
        str(home / "nginx.conf"),
        "-e",
        str(home / "error.log"),
        "-g",
        "daemon off;",
    ]
