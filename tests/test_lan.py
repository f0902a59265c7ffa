"""Real TCP and real mDNS between separate processes on a LAN of network namespaces."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

from . import netns

REASON = netns.available()
pytestmark = pytest.mark.skipif(bool(REASON), reason=f"no network namespaces here: {REASON}")

FAST = ("--think", "0", "--catch-window", "0")  # CPU players only: no human pacing


def pageone(host: netns.Host, home: Path, *args: str) -> list[str]:
    env = ["env", f"HOME={home}", f"XDG_CONFIG_HOME={home}/cfg", f"XDG_DATA_HOME={home}/data",
           "NO_COLOR=1"]
    return host.command(*env, sys.executable, "-m", "p2p_pageone.cli.main", *args)


def start(cmd: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return -9, out, err
    return proc.returncode, out, err


@pytest.mark.parametrize(("rules", "options"), [("classic", ["--deals", "1"]), ("qdan", [])])
def test_host_and_three_bot_processes_play_a_full_game_over_mdns(
    rules: str, options: list[str], tmp_path: Path
) -> None:
    with netns.lan(5, rules[0]) as hosts:
        host, joiners, lister = hosts[0], hosts[1:4], hosts[4]
        table = f"lan-{rules}"
        server = start(pageone(host, tmp_path / "h0", "host", "--rules", rules, *options,
                               "--seats", "4", "--autoplay", "--table", table, *FAST,
                               "--interface", host.address))
        try:
            listing: list[dict[str, object]] = []
            for _ in range(10):
                result = subprocess.run(
                    pageone(lister, tmp_path / "lister", "tables", "--json", "--timeout", "2",
                            "--interface", lister.address),
                    capture_output=True, text=True, timeout=60, check=True)
                listing = [t for t in json.loads(result.stdout) if t["name"] == table]
                if listing:
                    break
            assert listing, "pageone tables did not find the table"
            entry = listing[0]
            assert entry["rules"] == rules and entry["free"] == 3 and entry["taken"] == 1
            assert entry["address"] == host.address and entry["proto"] == "1"
            bots = [start(pageone(j, tmp_path / f"j{i}", "join", table, "--bot", "--name",
                                  f"bot{i}", *FAST, "--interface", j.address))
                    for i, j in enumerate(joiners)]
            results = [finish(proc, 240) for proc in bots]
            code, out, err = finish(server, 60)
        finally:
            if server.poll() is None:
                server.kill()
        for bot_code, bot_out, bot_err in results:
            assert bot_code == 0, bot_out + bot_err
            assert "game over" in bot_out
        assert code == 0, out + err
        assert "game over" in out and "log:" in out
        logs = [Path(line.split("log: ", 1)[1].strip())
                for text in [out] + [r[1] for r in results]
                for line in text.splitlines() if line.startswith("log: ")]
        assert len(logs) == 4
        contents = {path.read_bytes() for path in logs}
        assert len(contents) == 1, "every peer's log is byte-identical"
        audit = [sys.executable, "-m", "p2p_pageone.cli.main", "audit"]  # no network needed
        together = subprocess.run([*audit, "--json", *map(str, logs)], capture_output=True,
                                  text=True, timeout=600, check=False)
        assert together.returncode == 0, together.stdout + together.stderr
        assert json.loads(together.stdout)["comparison"]["relation"] == "identical"
        for path in logs:
            alone = subprocess.run([*audit, "--quiet", str(path)], capture_output=True,
                                   text=True, timeout=300, check=False)
            assert alone.returncode == 0 and "verdict: OK" in alone.stdout, alone.stdout


def test_a_killed_joiner_is_named_and_the_others_play_on(tmp_path: Path) -> None:
    with netns.lan(3, "k") as hosts:
        host = hosts[0]
        address = f"{host.address}:7420"
        server = Watched("host", pageone(
            host, tmp_path / "h0", "host", "--rules", "classic", "--deals", "20", "--seats", "3",
            "--autoplay", "--no-mdns", *FAST, "--port", "7420", "--interface", host.address,
            "--silent-after", "8", "--reconnect-window", "5"))  # it is not coming back
        procs = [server]
        try:
            server.wait_for(address, 60)  # listening: joiners started now cannot miss it
            victim, other = (Watched(name, pageone(
                hosts[i], tmp_path / f"j{i}", "join", "--bot", "--name", name, *FAST,
                "--connect", address, "--silent-after", "8")) for i, name in
                ((1, "victim"), (2, "other")))
            procs += [victim, other]
            logs = tmp_path / "j1" / "data" / "pageone" / "logs"
            deadline = time.time() + 120
            while time.time() < deadline:  # kill it mid-game: once its log holds a few hands
                sizes = [p.stat().st_size for p in logs.glob("*")] if logs.exists() else []
                if sizes and max(sizes) > 200_000:
                    break
                assert victim.proc.poll() is None, "\n".join(p.output() for p in procs)
                time.sleep(0.2)
            victim.stop()
            code, other_code = server.proc.wait(120), other.proc.wait(120)
            shown = "\n".join(p.output() for p in procs)
            assert code == 0 and other_code == 0, shown
            for text in ("\n".join(server.lines), "\n".join(other.lines)):
                # killed as its hand seed reveal fell due, it leaves for that instead
                assert "goes on without victim" in text, shown
                assert ("went silent" in text
                        or "did not reveal its hand seed in time" in text), shown
                assert "game over" in text, shown
        finally:
            for proc in procs:
                proc.stop()


def test_a_joiner_whose_link_drops_comes_back_by_itself(tmp_path: Path) -> None:
    """Its namespace's link goes down for 8 s (a Wi-Fi drop: no FIN, nothing gets through) and
    comes up again: the joiner, still running, reconnects and plays on; nothing is lost."""
    with netns.lan(3, "w") as hosts:
        address = f"{hosts[0].address}:7420"
        server = Watched("host", pageone(
            hosts[0], tmp_path / "h0", "host", "--rules", "classic", "--deals", "2", "--seats",
            "3", "--autoplay", "--no-mdns", "--think", "0.05", "--catch-window", "0",
            "--port", "7420", "--interface", hosts[0].address, "--silent-after", "3"))
        procs = [server]
        try:
            server.wait_for(address, 60)
            cut, other = (Watched(name, pageone(
                hosts[i], tmp_path / f"j{i}", "join", "--bot", "--name", name, "--think",
                "0.05", "--catch-window", "0", "--connect", address, "--silent-after", "3"))
                for i, name in ((1, "wendy"), (2, "other")))
            procs += [cut, other]
            cut.wait_for("hand 2", 120)
            subprocess.run(["ip", "-n", hosts[1].netns, "link", "set", "v0", "down"], check=True)
            server.wait_for("wendy (seat", 30)
            time.sleep(8)
            subprocess.run(["ip", "-n", hosts[1].netns, "link", "set", "v0", "up"], check=True)
            codes = [proc.proc.wait(240) for proc in procs]
            shown = "\n".join(p.output() for p in procs)
            assert codes == [0, 0, 0], shown
            for proc in procs:
                text = "\n".join(proc.lines)
                returned = ("back at the table as wendy" if proc is cut else  # said once, there
                            ") returned")
                assert "wendy (seat" in text and returned in text, shown
                assert "game over" in text and "void" not in text, shown
            assert "trying to reconnect" in "\n".join(cut.lines), shown
            logs = [next((tmp_path / home / "data" / "pageone" / "logs").glob("*"))
                    for home in ("h0", "j1", "j2")]
            logs_agree_and_audit(logs, shown)
        finally:
            for proc in procs:
                proc.stop()


def test_the_host_killed_the_next_seat_takes_over_and_a_returning_joiner_finds_it_by_name(
        tmp_path: Path) -> None:
    """Over mDNS: the host is killed mid-hand; the next seat takes the table over and advertises
    it; another joiner, killed after that, runs the same `pageone join NAME` again, finds the
    table where it is now and returns; the game finishes and every log agrees."""
    with netns.lan(4, "f") as hosts:
        table, pace = "lan-failover", ("--think", "0.05", "--catch-window", "0")
        server = Watched("host", pageone(
            hosts[0], tmp_path / "h0", "host", "--rules", "classic", "--deals", "2", "--seats",
            "4", "--autoplay", "--table", table, *pace, "--interface", hosts[0].address))
        procs = [server]

        def join(i: int, name: str) -> Watched:
            return Watched(name, pageone(hosts[i], tmp_path / f"j{i}", "join", table, "--bot",
                                         "--name", name, *pace, "--interface", hosts[i].address))

        try:
            server.wait_for("advertised on the LAN", 60)
            joins = {i: join(i, name) for i, name in ((1, "ann"), (2, "bob"), (3, "cat"))}
            procs += joins.values()
            joins[1].wait_for(" plays ", 120)
            server.stop()  # SIGKILL: no bye, no mDNS goodbye
            deadline = time.monotonic() + 60
            while not any("takes the table over" in "\n".join(p.lines) for p in joins.values()):
                assert time.monotonic() < deadline, "\n".join(p.output() for p in procs)
                time.sleep(0.1)
            new_host = next(i for i, p in joins.items() if "takes the table over" in
                            "\n".join(p.lines))
            gone = next(i for i in joins if i != new_host)
            joins[gone].wait_for("is the table's host now", 60)
            joins[gone].stop()
            again = join(gone, joins[gone].name)  # the same command, the same HOME
            procs.append(again)
            again.wait_for(f"back at the table as {joins[gone].name}", 120)
            players = [p for i, p in joins.items() if i != gone] + [again]
            codes = [p.proc.wait(240) for p in players]
            shown = "\n".join(p.output() for p in procs)
            assert codes == [0, 0, 0], shown
            assert "advertised on the LAN" in "\n".join(joins[new_host].lines), shown
            logs = [next((tmp_path / f"j{i}" / "data" / "pageone" / "logs").glob("*"))
                    for i in joins if i != gone] + [max(
                        (tmp_path / f"j{gone}" / "data" / "pageone" / "logs").glob("*"),
                        key=lambda path: path.stat().st_size)]
            logs_agree_and_audit(logs, shown)
        finally:
            for proc in procs:
                proc.stop()


def logs_agree_and_audit(logs: list[Path], shown: str) -> None:
    """Every log byte-identical, and `pageone audit` of them all OK."""
    assert len({log.read_bytes() for log in logs}) == 1, shown
    audit = subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "audit",
                            *map(str, logs)], capture_output=True, text=True, timeout=300)
    assert audit.returncode == 0 and "verdict: OK" in audit.stdout, audit.stdout


class Watched:
    """A process whose output is read as it comes, so a test can wait for a line and show it all."""

    def __init__(self, name: str, cmd: list[str]) -> None:
        self.name = name
        self.proc = start(cmd)
        self.lines: list[str] = []
        self.errors: list[str] = []
        for stream, sink in ((self.proc.stdout, self.lines), (self.proc.stderr, self.errors)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()

    @staticmethod
    def _pump(stream: IO[str] | None, sink: list[str]) -> None:
        assert stream is not None
        for line in stream:
            sink.append(line.rstrip("\n"))

    def wait_for(self, needle: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = next((line for line in self.lines if needle in line), None)
            if found is not None:
                return found
            assert self.proc.poll() is None, f"{self.name} exited early\n{self.output()}"
            time.sleep(0.05)
        raise AssertionError(f"{self.name} never printed {needle!r}\n{self.output()}")

    def output(self) -> str:
        return (f"--- {self.name} (exit {self.proc.poll()}) stdout:\n" + "\n".join(self.lines)
                + "\n--- stderr:\n" + "\n".join(self.errors))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def test_adverts_update_collide_and_go_away(tmp_path: Path) -> None:
    def tables(lister: netns.Host) -> list[dict[str, object]]:
        result = subprocess.run(
            pageone(lister, tmp_path / "lister", "tables", "--json", "--timeout", "2",
                    "--interface", lister.address),
            capture_output=True, text=True, timeout=60, check=True)
        return [t for t in json.loads(result.stdout) if t["name"] == "same"]

    def listed_until(lister: netns.Host, done: Callable[[list[dict[str, object]]], bool],
                     procs: list[Watched]) -> list[dict[str, object]]:
        seen: list[dict[str, object]] = []
        for _ in range(10):
            seen = tables(lister)
            if done(seen):
                return seen
        shown = "\n".join(p.output() for p in procs)
        raise AssertionError(f"last listing: {seen}\n{shown}")

    with netns.lan(4, "m") as hosts:
        first = Watched("host A", pageone(hosts[0], tmp_path / "h0", "host", "--table", "same",
                                          "--seats", "3", "--autoplay",
                                          "--interface", hosts[0].address))
        second = Watched("host B", pageone(hosts[1], tmp_path / "h1", "host", "--table", "same",
                                           "--seats", "2", "--autoplay",
                                           "--interface", hosts[1].address))
        procs = [first, second]
        try:
            for p in procs:
                p.wait_for("advertised on the LAN", 60)
            seen = listed_until(hosts[3], lambda s: len(s) == 2, procs)
            assert {t["address"] for t in seen} == {hosts[0].address, hosts[1].address}
            services = {t["service"] for t in seen}
            assert len(services) == 2, "each table has its own instance name: " + str(services)
            port = next(t["port"] for t in seen if t["address"] == hosts[0].address)
            joiner = Watched("joiner", pageone(hosts[2], tmp_path / "j", "join", "--bot",
                                               "--connect", f"{hosts[0].address}:{port}"))
            procs.append(joiner)
            mine = listed_until(hosts[3], lambda s: any(
                t["address"] == hosts[0].address and t["taken"] == 2 for t in s), procs)
            assert [t["free"] for t in mine if t["address"] == hosts[0].address] == [1]
            second.proc.terminate()
            second.proc.wait(30)
            left = listed_until(hosts[3], lambda s: len(s) == 1, procs)
            assert [t["address"] for t in left] == [hosts[0].address]
        finally:
            for proc in procs:
                proc.stop()
