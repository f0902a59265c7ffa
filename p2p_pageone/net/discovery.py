"""mDNS advertising and browsing of tables (``_pageone._tcp.local.``) with zeroconf's asyncio API.

Adverts are unauthenticated hints: trust starts with the signed handshake (protocol/SPEC.md §6).
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass
from typing import Any

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

SERVICE = "_pageone._tcp.local."
PROTOCOL = "1"


@dataclass(frozen=True)
class TableAdvert:
    name: str
    rules: str
    taken: int
    free: int
    fingerprint: str
    proto: str
    address: str
    port: int
    service: str
    nick: str = ""  # the host player's name
    settings: str = ""  # the table's settings that differ from the defaults
    state: str = ""  # lobby, playing or over ("" from an older host)
    left: tuple[str, ...] = ()  # the start of each leaver's fingerprint (a game under way)
    watch: str = ""  # "watching/most": the host's watchers ("" from an older host)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rules": self.rules, "taken": self.taken, "free": self.free,
                "host": self.fingerprint, "proto": self.proto, "address": self.address,
                "port": self.port, "nick": self.nick, "settings": self.settings,
                "service": self.service, "state": self.state, "left": list(self.left),
                "watch": self.watch}

    def matches(self, wanted: str) -> bool:
        """``wanted`` (any case) is the table's name or its host player's name."""
        folded = wanted.casefold()
        return folded in (self.name.casefold(), self.nick.casefold()) and bool(folded)

    def under_way(self) -> bool:
        return self.state in ("playing", "over")

    def left_by(self, fingerprint: str) -> bool:
        return fingerprint[:9] in self.left

    def players_text(self) -> str:
        """``3 players``: the seats still in the game (a leaver's seat is taken but empty)."""
        players = self.taken - len(self.left)
        return f"{players} player{'s' if players != 1 else ''}"

    def watch_text(self) -> str:
        """``2 watch`` (of at most 4), ``no watchers``, or "" from an older host."""
        watching, _, most = self.watch.partition("/")
        if not watching.isdigit() or not most.isdigit():
            return ""
        return f"{watching} watch" if int(most) else "no watchers"

    def seats_text(self) -> str:
        """``2 of 4 free``, ``full``, or for a game under way ``playing (3 players)``."""
        if self.under_way() and not self.free:
            return f"{self.state} ({self.players_text()})"
        return f"{self.free} of {self.taken + self.free} free" if self.free else "full"


def host_addresses(interface: str = "") -> list[str]:
    """The IPv4 addresses others reach this machine at: ``interface`` if given, else every
    address but loopback (loopback alone on a machine with no network)."""
    if interface:
        return [interface]
    found = [str(ip.ip) for adapter in ifaddr.get_adapters() for ip in adapter.ips
             if isinstance(ip.ip, str) and not ip.ip.startswith("127.")]
    return list(dict.fromkeys(found)) or ["127.0.0.1"]


def _zeroconf(interface: str | None) -> AsyncZeroconf:
    if interface:
        return AsyncZeroconf(interfaces=[interface], ip_version=IPVersion.V4Only)
    return AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)


def _label(name: str) -> str:
    clean = "".join(ch if ch.isalnum() or ch in " -_" else "-" for ch in name).strip()
    return (clean or "pageone")[:50]


def instance_name(table: str, fingerprint: str) -> str:
    """The mDNS instance name of a table: its name plus a piece of the host's fingerprint.

    Two hosts that open tables of one name at the same moment both probe before either answers,
    and python-zeroconf has no simultaneous-probe tie-break, so a name unique by construction is
    what keeps both tables listed. A clash that remains (one identity hosting twice) is still
    renamed by zeroconf's probing.
    """
    return f"{_label(table)} [{fingerprint[:4]}].{SERVICE}"


class Advertiser:
    """Registers the table, keeps its TXT fields current, and unregisters on exit."""

    def __init__(self, interface: str | None, port: int, fingerprint: str) -> None:
        self.interface, self.port, self.fingerprint = interface, port, fingerprint
        self.zc: AsyncZeroconf | None = None
        self.info: AsyncServiceInfo | None = None
        self._fields: dict[str, Any] = {}

    def _service_info(self, fields: dict[str, Any], name: str | None = None) -> AsyncServiceInfo:
        addresses = host_addresses(self.interface or "")
        properties = {"proto": PROTOCOL, "name": fields["name"], "rules": fields["rules"],
                      "taken": str(fields["taken"]), "free": str(fields["free"]),
                      "host": self.fingerprint, "nick": str(fields.get("nick", ""))[:32],
                      "settings": str(fields.get("settings", ""))[:200],
                      "state": str(fields.get("state", "")),
                      "left": str(fields.get("left", ""))[:60],
                      "watch": str(fields.get("watch", ""))[:12]}
        service = name or instance_name(fields["name"], self.fingerprint)
        return AsyncServiceInfo(SERVICE, service, port=self.port, properties=properties,
                                addresses=[socket.inet_aton(a) for a in addresses],
                                server=f"pageone-{self.fingerprint[:4].lower()}.local.")

    async def start(self, fields: dict[str, Any]) -> str:
        """Register; a name already taken on the network gets a numbered variant."""
        self.zc = _zeroconf(self.interface)
        self.info = self._service_info(fields)
        await (await self.zc.async_register_service(self.info, allow_name_change=True))
        self._fields = fields
        return self.info.name

    async def update(self, fields: dict[str, Any]) -> None:
        if self.zc is None or self.info is None or fields == self._fields:
            return
        self._fields = fields
        self.info = self._service_info(fields, self.info.name)
        await (await self.zc.async_update_service(self.info))

    async def stop(self) -> None:
        if self.zc is None:
            return
        if self.info is not None:
            await (await self.zc.async_unregister_service(self.info))
        await self.zc.async_close()
        self.zc = None


async def browse(timeout: float, interface: str | None = None) -> list[TableAdvert]:
    """Tables seen on the network within ``timeout`` seconds."""
    zc = _zeroconf(interface)
    names: set[str] = set()

    def on_change(zeroconf: Any, service_type: str, name: str,
                  state_change: ServiceStateChange) -> None:
        if state_change in (ServiceStateChange.Added, ServiceStateChange.Updated):
            names.add(name)

    browser = AsyncServiceBrowser(zc.zeroconf, [SERVICE], handlers=[on_change])
    try:
        await asyncio.sleep(timeout)
        found = [await _resolve(zc, name) for name in sorted(names)]
    finally:
        await browser.async_cancel()
        await zc.async_close()
    return [advert for advert in found if advert is not None]


async def _resolve(zc: AsyncZeroconf, name: str) -> TableAdvert | None:
    info = AsyncServiceInfo(SERVICE, name)
    if not await info.async_request(zc.zeroconf, 3000):
        return None
    props = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
    addresses = info.parsed_addresses(IPVersion.V4Only)
    if not addresses or info.port is None:
        return None
    return advert_from(props, addresses[0], int(info.port), name)


def advert_from(props: dict[str, str], address: str, port: int, name: str) -> TableAdvert | None:
    """A table from its TXT fields (None when a number does not parse)."""
    try:
        return TableAdvert(props.get("name", name), props.get("rules", "?"),
                           int(props.get("taken", "0")), int(props.get("free", "0")),
                           props.get("host", "?"), props.get("proto", "?"), address, port, name,
                           props.get("nick", ""), props.get("settings", ""),
                           props.get("state", ""),
                           tuple(f for f in props.get("left", "").split(",") if f),
                           props.get("watch", ""))
    except ValueError:
        return None
