"""Local TCP ports: find a free one, or say which process holds a taken one."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from ledger.errors import ConfigurationError


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that is free on `host` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether `port` can be bound on `host`."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def _listening_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                inodes.add(inode)
    return inodes


def _fd_links(fd_dir: Path) -> list[str]:
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return []
    links = []
    for fd in fds:
        try:
            links.append(os.readlink(fd_dir / fd))
        except OSError:
            continue
    return links


def port_holder(port: int) -> str | None:
    """Describe the process listening on `port` ("pid 123: redis-server ..."), if visible."""
    inodes = _listening_inodes(port)
    if not inodes:
        return None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        fd_dir = Path("/proc", pid, "fd")
        if any(link.startswith("socket:[") and link[8:-1] in inodes for link in _fd_links(fd_dir)):
            try:
                cmd = (
                    Path("/proc", pid, "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
                )
            except OSError:
                cmd = "?"
            return f"pid {pid}: {cmd[:120]}"
    return "an unknown process"


def ensure_free(port: int, what: str, host: str = "127.0.0.1") -> None:
    """Raise a ConfigurationError naming the port and its holder if `port` is taken."""
    if not is_free(port, host):
        holder = port_holder(port) or "another process"
        raise ConfigurationError(
            f"port {port} for {what} is already taken by {holder}; stop it or choose another port"
        )


def accepts_connections(port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> bool:
    """Whether something accepts TCP connections on `host`:`port` right now."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
