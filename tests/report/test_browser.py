"""The HTML pages in a real browser: headless Chromium opens report, compare and sweep pages.

The pages are made through the CLI, as a user would, then loaded in
Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
no websocket, no port, no Python dependency). For each page: every image
decoded (``naturalWidth > 0``), no console error or uncaught exception, no raw
Markdown in the rendered text, and a full-page screenshot kept in the test's
temp dir for a person to look at.

Chromium comes from Debian's ``chromium`` package (``.ci/run`` installs it).
Without it the tests fail in CI (``CI`` set) and are skipped elsewhere, with a
message saying how to install it.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TIMEOUT = 300.0  # a safety net for a hung browser, not a speed bound
MARKDOWN = {
    "bold": re.compile(r"\*\*"),
    "heading": re.compile(r"^#{1,6} ", re.M),
    "link": re.compile(r"\]\("),
    "table rule": re.compile(r"\|\s*:?-{3}"),
    "code tick": re.compile(r"`"),
}


def _chromium() -> str:
    """The browser's path; fails in CI and skips elsewhere when there is none."""
    for name in (os.environ.get("UNOSIM_CHROMIUM", ""), "chromium", "chromium-browser",
                 "google-chrome"):
        if name and (path := shutil.which(name)):
            return path
    msg = ("headless Chromium is not installed: `apt-get install -y chromium` "
           "(.ci/run installs it), or set UNOSIM_CHROMIUM to a Chromium binary")
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


class Browser:
    """A headless Chromium spoken to over the DevTools protocol on fds 3 (in) and 4 (out)."""

    def __init__(self, exe: str, profile: Path) -> None:
        cmd_r, self._cmd_w = os.pipe()
        self._resp_r, resp_w = os.pipe()

        def fds() -> None:  # in the child: the pipes become fds 3 and 4, kept over exec
            # copies above 4 first, so neither dup2 clobbers the other pipe
            a, b = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (cmd_r, resp_w))
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--mute-audio",
                "--hide-scrollbars", "--window-size=1280,1000", f"--user-data-dir={profile}",
                "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds,
                                     close_fds=False)
        os.close(cmd_r)
        os.close(resp_w)
        self._next = 0
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        with os.fdopen(self._resp_r, "rb", buffering=0) as f:
            while chunk := f.read(1 << 16):
                buf += chunk
                *msgs, buf = buf.split(b"\0")
                for m in msgs:
                    self._inbox.put(json.loads(m))
        self._inbox.put(None)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """One command; its result (events that arrive meanwhile are kept in ``events``)."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._inbox.get(timeout=max(0.1, deadline - time.monotonic()))
            if reply is None:
                raise RuntimeError(f"Chromium exited (code {self.proc.poll()}) during {method}")
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str, since: int = 0) -> None:
        """Until the event ``method`` arrives for ``session`` (counting only events from
        index ``since`` of ``events``: a second page load must not be the first one)."""
        deadline = time.monotonic() + TIMEOUT
        if any(e.get("method") == method and e.get("sessionId") == session
               for e in self.events[since:]):
            return
        while True:
            ev = self._inbox.get(timeout=max(0.1, deadline - time.monotonic()))
            if ev is None:
                raise RuntimeError(f"Chromium exited while waiting for {method}")
            self.events.append(ev)
            if ev.get("method") == method and ev.get("sessionId") == session:
                return

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, queue.Empty, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    b = Browser(_chromium(), tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield b
    finally:
        b.close()


def _unosim(*args: str) -> None:
    cmd = [sys.executable, "-m", "unosim", *args, "--quiet", "--jobs", "1"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stderr[-3000:]}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The three kinds of page, made through the CLI with small runs."""
    root = tmp_path_factory.mktemp("pages")
    _unosim("run", "classic", "--games", "2000", "--seed", "1", "--out", str(root / "run"))
    _unosim("compare", "classic", "stacking", "--games", "2000", "--out", str(root / "cmp"))
    _unosim("sweep", "classic", "--vary", "players=2..4", "--games", "1000",
            "--out", str(root / "sweep"))
    return {"report": root / "run" / "report.html", "compare": root / "cmp" / "compare.html",
            "sweep": root / "sweep" / "sweep.html"}


_IMAGES = """Promise.all(Array.from(document.images, img =>
  img.decode().then(() => [img.naturalWidth, img.naturalHeight, img.alt],
                    () => [0, 0, img.alt])))"""


@pytest.mark.parametrize("kind", ["report", "compare", "sweep"])
def test_page_renders_in_chromium(pages: dict[str, Path], browser: Browser, kind: str,
                                  tmp_path: Path) -> None:
    page = pages[kind]
    assert page.is_file(), f"{page} was not written"
    target = browser.send("Target.createTarget", url="about:blank")["targetId"]
    session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    try:
        for domain in ("Page", "Runtime", "Log"):
            browser.send(f"{domain}.enable", session)
        browser.send("Page.navigate", session, url=page.as_uri())
        browser.wait_for("Page.loadEventFired", session)

        def js(expr: str) -> Any:
            r = browser.send("Runtime.evaluate", session, expression=expr, awaitPromise=True,
                             returnByValue=True)
            assert "exceptionDetails" not in r, r["exceptionDetails"]
            return r["result"]["value"]

        images = js(_IMAGES)
        assert len(images) >= 3, f"{kind}: only {len(images)} images"
        broken = [alt for width, height, alt in images if not (width > 0 and height > 0)]
        assert not broken, f"{kind}: images that did not decode: {broken}"

        text = js("document.body.innerText")
        assert js("document.title") and len(text) > 500
        found = {name: m.group(0) for name, rx in MARKDOWN.items() if (m := rx.search(text))}
        assert not found, f"{kind}: raw Markdown in the page text: {found}"

        size = browser.send("Page.getLayoutMetrics", session)["cssContentSize"]
        shot = browser.send("Page.captureScreenshot", session, format="png",
                            captureBeyondViewport=True,
                            clip={"x": 0, "y": 0, "width": size["width"],
                                  "height": min(size["height"], 16000), "scale": 1})
        png = base64.b64decode(shot["data"])
        assert png[:8] == PNG_MAGIC
        (tmp_path / f"{kind}.png").write_bytes(png)
        # a round trip through the page's task queue: every console message of a task
        # queued before it is on the pipe before this reply (no sleep-and-hope)
        browser.send("Runtime.evaluate", session, awaitPromise=True,
                     expression="new Promise(r => setTimeout(r, 0))")
    finally:
        browser.send("Target.closeTarget", targetId=target)
    errors = [e for e in browser.events if e.get("sessionId") == session and (
        e.get("method") == "Runtime.exceptionThrown"
        or (e.get("method") == "Runtime.consoleAPICalled"
            and e["params"].get("type") in ("error", "assert"))
        or (e.get("method") == "Log.entryAdded"
            and e["params"]["entry"].get("level") == "error"))]
    assert not errors, f"{kind}: console errors: {json.dumps(errors)[:2000]}"
