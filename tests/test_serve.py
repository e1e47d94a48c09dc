"""``ctx-tui serve``: localhost by default, other addresses only with --allow-remote and a warning; the page and the app's websocket answer."""

from __future__ import annotations

import asyncio
import base64
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from ctx_tui.cli import main
from ctx_tui.cli import serve_cmd


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class FakeServer:
    started: list[dict] = []

    def __init__(self, command: str, **kw) -> None:
        FakeServer.started.append({"command": command, **kw})

    def serve(self) -> None:
        return None


@pytest.fixture()
def fake_server(monkeypatch: pytest.MonkeyPatch):
    import textual_serve.server

    FakeServer.started = []
    monkeypatch.setattr(textual_serve.server, "Server", FakeServer)
    return FakeServer


def test_loopback_addresses() -> None:
    assert all(serve_cmd.is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "127.0.0.2"))
    assert not any(serve_cmd.is_loopback(h) for h in ("0.0.0.0", "192.168.1.5", "::", "example.com"))


def test_localhost_only_by_default(fake_server, capsys) -> None:
    assert main(["serve", "--demo", "--port", "8123"]) == 0
    started = fake_server.started[-1]
    assert started["host"] == "127.0.0.1" and started["port"] == 8123
    assert started["command"].endswith(" --demo --speed 1") and "ctx" in started["command"]
    out = capsys.readouterr()
    assert "serving the dashboard on http://localhost:8123" in out.out and "WARNING" not in out.err


def test_another_address_needs_the_flag_and_is_said_loudly(fake_server, capsys) -> None:
    assert main(["serve", "--demo", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "--allow-remote" in err and not fake_server.started
    assert main(["serve", "--demo", "--host", "0.0.0.0", "--allow-remote", "--port", "8124"]) == 0
    err = capsys.readouterr().err
    assert "WARNING" in err and "no login" in err.lower()
    assert fake_server.started[-1]["host"] == "0.0.0.0"


def test_a_session_path_is_checked_and_quoted(fake_server, tmp_path: Path, capsys) -> None:
    assert main(["serve", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    odd = tmp_path / "it's a $(session).jsonl"
    odd.write_text("")
    assert main(["serve", str(odd)]) == 0
    command = fake_server.started[-1]["command"]
    assert shlex.split(command)[-1] == str(odd)  # one shell word, nothing expanded
    assert main(["serve", "--port", "70000", "--demo"]) == 2


async def _first_bytes(url: str, want: int = 500, timeout: float = 60) -> bytes:
    got = b""
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        deadline = time.monotonic() + timeout
        while len(got) < want and time.monotonic() < deadline:
            msg = await asyncio.wait_for(ws.receive(), max(0.1, deadline - time.monotonic()))
            if msg.type == aiohttp.WSMsgType.BINARY:
                got += msg.data
            elif msg.type == aiohttp.WSMsgType.TEXT:
                got += msg.data.encode()
            else:
                break
    return got


def _wait_for_page(url: str, server: subprocess.Popen, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"server exited: {server.stdout.read() if server.stdout else ''}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode()
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the page never answered")


@pytest.fixture()
def served(tmp_path: Path):
    port = _free_port()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    server = subprocess.Popen([sys.executable, "-m", "ctx_tui", "serve", "--demo", "--speed", "4", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
                              start_new_session=True)
    try:
        yield port, server
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)


async def test_the_page_and_the_apps_websocket_answer(served) -> None:
    port, server = served
    page = await asyncio.to_thread(_wait_for_page, f"http://127.0.0.1:{port}/", server)
    assert f'data-session-websocket-url="ws://localhost:{port}/ws"' in page
    got = await _first_bytes(f"ws://127.0.0.1:{port}/ws?width=120&height=40")
    assert b"\x1b[" in got and b"ctx-tui" in got  # the dashboard drew its first screen


def _chromium() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome", "chrome")) if p), None)


async def _devtools_page(port_file: Path, chromium: subprocess.Popen, timeout: float = 30) -> str:
    """The websocket URL of Chromium's page target (its DevTools port is written to ``port_file``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and chromium.poll() is None:
        if port_file.is_file() and port_file.read_text().strip():
            port = port_file.read_text().split()[0]
            async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/json") as answer:
                targets = await answer.json(content_type=None)
            return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        await asyncio.sleep(0.2)
    raise AssertionError("Chromium's DevTools never answered")


async def _screenshot_once_drawn(url: str, shot: Path, profile: Path, timeout: float = 90) -> bool:
    """Open ``url`` in headless Chromium, wait for the app's first bytes in the page, save a PNG; whether they came.

    textual-serve's page shows a splash until the app's first bytes arrive over
    its websocket (``body.-first-byte``); a plain ``--screenshot`` is taken
    before that, so the browser is driven over the DevTools protocol.
    """
    chromium = subprocess.Popen(
        [_chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "--window-size=1400,900", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        page = await _devtools_page(profile / "DevToolsActivePort", chromium)
        async with aiohttp.ClientSession() as session, session.ws_connect(page, max_msg_size=0) as ws:
            ids = iter(range(1, 1_000_000))

            async def call(method: str, **params: object) -> dict:
                sent = next(ids)
                await ws.send_json({"id": sent, "method": method, "params": params})
                while True:
                    message = await ws.receive_json()
                    if message.get("id") == sent:
                        return message.get("result", {})

            await call("Page.navigate", url=url)
            drawn = False
            deadline = time.monotonic() + timeout
            while not drawn and time.monotonic() < deadline:
                answer = await call("Runtime.evaluate", returnByValue=True,
                                    expression="document.body !== null && document.body.classList.contains('-first-byte')")
                drawn = bool(answer.get("result", {}).get("value"))
                await asyncio.sleep(0.5)
            await asyncio.sleep(2)  # the first frames
            image = await call("Page.captureScreenshot", format="png")
            shot.write_bytes(base64.b64decode(image["data"]))
            return drawn
    finally:
        chromium.terminate()
        chromium.wait(15)


@pytest.mark.skipif(_chromium() is None, reason="no Chromium installed for a headless screenshot")
async def test_headless_screenshot_of_the_served_demo(served, tmp_path: Path) -> None:
    port, server = served
    await asyncio.to_thread(_wait_for_page, f"http://127.0.0.1:{port}/", server)
    shot = tmp_path / "served.png"
    assert await _screenshot_once_drawn(f"http://127.0.0.1:{port}/", shot, tmp_path / "chromium-profile")
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 10_000
