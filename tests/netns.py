"""A LAN of network namespaces made by the tests: a bridge and one namespace per host.

Multicast (mDNS) and TCP stay inside these namespaces; nothing reaches the machine's real
interfaces. Needs root and iproute2; ``available()`` says why not when it cannot be made.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

SUBNET = "10.77.{}.{}"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def available() -> str:
    """Empty if namespaces can be made here, else the reason they cannot."""
    if shutil.which("ip") is None:
        return "iproute2 (the ip command) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root"
    probe = f"pageone-probe-{os.getpid()}"
    try:
        _ip("netns", "add", probe)
    except subprocess.CalledProcessError as error:
        return f"cannot create a network namespace: {error.stderr.strip()}"
    _ip("netns", "del", probe)
    return ""


@dataclass
class Host:
    netns: str
    address: str

    def command(self, *argv: str) -> list[str]:
        return ["ip", "netns", "exec", self.netns, *argv]


@contextmanager
def lan(count: int, tag: str) -> Iterator[list[Host]]:
    """``count`` hosts on one bridged /24; deleted afterwards whatever happens."""
    uid = f"{os.getpid() % 10000}{tag}"
    bridge = f"pgb{uid}"
    names = [bridge]
    subnet = os.getpid() % 200 + 20
    hosts: list[Host] = []
    try:
        _ip("netns", "add", bridge)
        _ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", bridge, "link", "set", "br0", "up")
        for i in range(1, count + 1):
            name = f"pgh{uid}{i}"
            _ip("netns", "add", name)
            names.append(name)
            address = SUBNET.format(subnet, i)
            _ip("link", "add", "v0", "netns", name, "type", "veth", "peer", "name", f"p{i}",
                "netns", bridge)
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", "v0")
            _ip("-n", name, "link", "set", "v0", "up")
            _ip("-n", name, "link", "set", "lo", "up")
            _ip("-n", name, "route", "add", "224.0.0.0/4", "dev", "v0")
            _ip("-n", bridge, "link", "set", f"p{i}", "master", "br0")
            _ip("-n", bridge, "link", "set", f"p{i}", "up")
            hosts.append(Host(name, address))
        yield hosts
    finally:
        for name in names:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
