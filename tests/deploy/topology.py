"""The shipped topology (deploy/) started on loopback: the systemd units' own commands and environment, nginx from
the shipped site file, each with only its per-machine values (the lines deploy/ marks CHANGE or per machine)
replaced by the test's ports and paths.

A unit is read as systemd reads it, for what these units use: ``Environment=`` then ``EnvironmentFile=`` (which
overrides it), the specifiers ``%i`` (the instance), ``%S`` (the state directory) and ``%%``, and ``${NAME}`` from
that environment in ``ExecStart=``. ``/srv/baccarat`` (the checkout, in ``WorkingDirectory=`` and ``ExecStart=``)
becomes this checkout and its virtualenv.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis
from django.conf import settings

from tests.processes import BIN, ROOT

DEPLOY = ROOT / "deploy"
INSTALL_DIR = "/srv/baccarat"
ENV_FILE = "/etc/baccarat/env"


def read_env_file(path: Path) -> dict[str, str]:
    """systemd's EnvironmentFile format, as deploy/env.example uses it: NAME=value lines, # comments."""
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        name, sep, value = line.partition("=")
        assert sep, f"not NAME=value: {line!r}"
        assert re.fullmatch(r"[A-Z_][A-Z0-9_]*", name), f"not a variable name: {line!r}"
        values[name] = value
    return values


def render_env_file(tmp_path: Path, **per_machine: str) -> Path:
    """deploy/env.example with the test's values for the lines it says to change; every other line as shipped."""
    values = read_env_file(DEPLOY / "env.example")
    unknown = set(per_machine) - set(values)
    assert not unknown, f"deploy/env.example has no {sorted(unknown)}"
    values.update(per_machine)
    left = [name for name, value in values.items() if "CHANGE-ME" in value or "example" in value]
    assert not left, f"deploy/env.example: the test must give its own {left}"
    path = tmp_path / "etc-baccarat-env"
    path.write_text("".join(f"{name}={value}\n" for name, value in values.items()))
    return path


def unit_service(path: Path) -> dict[str, list[str]]:
    """The [Service] section of a unit file: every key with its values in order."""
    section, service = "", {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _, value = line.partition("=")
            service.setdefault(key, []).append(value)
    return service


def unit_process(
    unit: str, *, instance: str = "", env_file: Path, base_env: dict[str, str], state_dir: Path | None = None
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment systemd would give ``unit`` (``baccarat-daphne@.service`` …)."""
    service = unit_service(DEPLOY / "systemd" / unit)
    assert service["Restart"] == ["always"], f"{unit}: Restart=always"
    assert service["WorkingDirectory"] == [INSTALL_DIR], f"{unit}: WorkingDirectory={INSTALL_DIR}"
    assert service["EnvironmentFile"] == [ENV_FILE], f"{unit}: EnvironmentFile={ENV_FILE}"
    env = dict(base_env)
    for assignments in service.get("Environment", []):
        for assignment in shlex.split(assignments):
            name, _, value = assignment.partition("=")
            env[name] = value
    env.update(read_env_file(env_file))  # systemd: EnvironmentFile= overrides Environment=

    [exec_start] = service["ExecStart"]
    specifiers = {"i": instance, "S": str(state_dir or ""), "%": "%"}

    def specifier(match: re.Match[str]) -> str:
        letter = match.group(1)
        assert letter in specifiers, f"{unit}: specifier %{letter} is not one this test knows"
        assert letter != "S" or state_dir is not None, f"{unit}: %S needs a state directory"
        return specifiers[letter]

    def variable(match: re.Match[str]) -> str:
        assert match.group(1) in env, f"{unit}: ${{{match.group(1)}}} is set nowhere"
        return env[match.group(1)]

    # systemd's order: the specifiers, then ${NAME} from the environment
    words = [re.sub(r"%(.)", specifier, word) for word in shlex.split(exec_start)]
    words = [re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", variable, word) for word in words]
    assert all("$" not in word for word in words), f"{unit}: only ${{NAME}} is expanded here: {words}"
    program = Path(words[0])
    assert program.parent == Path(INSTALL_DIR) / ".venv" / "bin", f"{unit}: runs {program}"
    return [str(BIN / program.name), *words[1:]], env


def render_nginx_site(
    tmp_path: Path,
    *,
    daphne_ports: list[int],
    gunicorn_ports: list[int],
    http_port: int,
    https_port: int,
    certificate: Path,
    key: Path,
    static_root: Path,
) -> Path:
    """deploy/nginx/baccarat.conf with the test's upstream servers, ports, certificate and static directory."""
    site = (DEPLOY / "nginx" / "baccarat.conf").read_text()

    def replace(pattern: str, replacement: str, count: int, flags: int = 0) -> None:
        nonlocal site
        site, found = re.subn(pattern, replacement, site, flags=flags)
        assert found == count, f"deploy/nginx/baccarat.conf: {pattern!r} found {found} times, not {count}"

    def upstream(name: str, ports: list[int]) -> None:
        servers = "".join(f"    server 127.0.0.1:{port};\n" for port in ports)

        def servers_replaced(match: re.Match[str]) -> str:
            body = re.sub(r"(?m)^\s*server\s+\S+;[^\n]*\n", "", match.group(2))
            return f"{match.group(1)}{body}{servers}}}"

        replace(rf"(upstream {name} \{{\n)(.*?)\}}", servers_replaced, 1, re.DOTALL)

    upstream("baccarat_daphne", daphne_ports)
    upstream("baccarat_gunicorn", gunicorn_ports)
    replace(r"(?m)^(\s*)listen 80;", rf"\g<1>listen 127.0.0.1:{http_port};", 1)
    replace(r"(?m)^(\s*)listen 443 ssl;", rf"\g<1>listen 127.0.0.1:{https_port} ssl;", 1)
    replace(r"(?m)^\s*listen \[::\]:(80|443)[^;]*;[^\n]*\n", "", 2)  # loopback IPv6 may be missing here
    replace(r"(?m)^(\s*)ssl_certificate \S+;", rf"\g<1>ssl_certificate {certificate};", 1)
    replace(r"(?m)^(\s*)ssl_certificate_key \S+;", rf"\g<1>ssl_certificate_key {key};", 1)
    replace(r"(?m)^(\s*)alias \S+;", rf"\g<1>alias {static_root}/;", 1)
    path = tmp_path / "nginx" / "baccarat.conf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(site)
    return path


def nginx_main_conf(tmp_path: Path, site: Path) -> Path:
    """A main nginx.conf around the site, as Debian's includes sites-enabled/: logs, pid and temp files in tmp."""
    prefix = tmp_path / "nginx"
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (prefix / temp).mkdir(parents=True, exist_ok=True)
    user = "user root;\n" if os.geteuid() == 0 else ""  # the workers read the test's private tmp directory
    conf = prefix / "nginx.conf"
    conf.write_text(
        f"{user}worker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log info;\n"
        "events { worker_connections 512; }\n"
        "http {\n"
        "    include /etc/nginx/mime.types;\n"
        "    default_type application/octet-stream;\n"
        f"    access_log {prefix}/access.log;\n"
        f"    client_body_temp_path {prefix}/body;\n    proxy_temp_path {prefix}/proxy;\n"
        f"    fastcgi_temp_path {prefix}/fastcgi;\n    uwsgi_temp_path {prefix}/uwsgi;\n"
        f"    scgi_temp_path {prefix}/scgi;\n"
        f"    include {site};\n"
        "}\n"
    )
    return conf


def nginx_command(nginx: str, conf: Path) -> list[str]:
    prefix = conf.parent
    return [nginx, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log"), "-g", "daemon off;"]


def self_signed_certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (cryptography comes with autobahn)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


class Processes:
    """The test's children by name, each in its own process group; ``close`` stops every one still running."""

    def __init__(self, tmp_path: Path, queue: str) -> None:
        self.tmp_path, self.queue = tmp_path, queue
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}

    def start(self, name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = self.tmp_path / f"{name}.log"
        self.logs[name] = log
        with log.open("ab") as handle:
            proc = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.procs[name] = proc
        return proc

    def wait_listening(self, name: str, port: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
            if self.procs[name].poll() is not None:
                raise RuntimeError(f"{name} exited with {self.procs[name].returncode}:\n{self.log(name)}")
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not listen on {port}:\n{self.log(name)}")

    def kill(self, name: str) -> None:
        """SIGKILL to the whole group (a prefork worker's children, gunicorn's workers), not restarted."""
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def log(self, name: str) -> str:
        path = self.logs.get(name)
        return path.read_text(errors="replace") if path and path.exists() else ""

    def logs_text(self) -> str:
        return "\n".join(f"── {name} ──\n{self.log(name)[-4000:]}" for name in self.logs)

    def close(self) -> None:
        for proc in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for name in list(self.procs):
            proc = self.procs.pop(name)
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        with contextlib.suppress(Exception):
            client = redis.Redis.from_url(settings.REDIS_URL)
            client.delete(self.queue, *client.keys(f"_kombu.binding.{self.queue}*"))

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
