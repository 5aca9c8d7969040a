"""Fixtures for the book tests: a fresh build of the book, and a headless Chromium to read it.

Chromium is driven through its DevTools protocol over a pipe (`--remote-debugging-pipe`: JSON
messages separated by NUL bytes on file descriptors 3 and 4), so the tests need nothing beyond
the standard library and Debian's `chromium` (`make chromium` installs it).
"""
import base64, fcntl, json, os, select, shutil, subprocess, tempfile, time
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore new random examples on every local run; CI (which sets CI=true) replays a
# fixed set, so that a submission's result does not depend on the luck of the draw.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"): settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
BUILD = NBS / "_build"
HTML = BUILD / "html"
BOOK_OK = BUILD / ".book-ok"          # written by `make book-html` once the build has passed its checks
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"

# Everything the book is built from: if any of it is newer than the build, the build is stale.
SOURCES = ["nbs/*.ipynb", "nbs/*.md", "nbs/_config.yml", "nbs/_toc.yml", "nbs/_static/*",
           "climbing_trees/*.py", "tools/book_*.py", "tools/check_build.py"]


def stale_sources():
    if not BOOK_OK.exists() or not (HTML / "index.html").exists(): return ["(no finished build)"]
    built = BOOK_OK.stat().st_mtime
    return [str(p.relative_to(ROOT)) for pattern in SOURCES for p in ROOT.glob(pattern) if p.stat().st_mtime > built]


@pytest.fixture(scope="session")
def book():
    "The built book's HTML folder; builds it (`make book-html`: no export, no retagging) unless fresh."
    # pytest-xdist runs test files in several processes: the lock lets one of them build, the others wait
    with open(ROOT / ".book-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stale = stale_sources()
        if stale:
            print(f"building the book: stale or missing build ({', '.join(stale[:5])})")
            r = subprocess.run(["make", "book-html"], cwd=ROOT, capture_output=True, text=True)
            if r.returncode != 0:
                pytest.fail(f"`make book-html` failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    return HTML


def _high(fd, low=10):
    "The same pipe end moved to a descriptor number >= low (close-on-exec, like os.pipe's)."
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, low)
    os.close(fd)
    return new


class Chromium:
    "A headless Chromium with one tab, driven over the DevTools protocol."

    def __init__(self, executable, width=1280, height=900):
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        # Pipe ends above 3 and 4, so that moving them onto 3 and 4 in the child never clobbers one
        # with the other (a fresh process's pipes would be 3..6 themselves).
        to_browser_r, self._to_browser, self._from_browser, from_browser_w = map(_high, os.pipe() + os.pipe())

        def on_fds_3_and_4():  # the protocol's fixed descriptors: Chromium reads 3, writes 4
            os.dup2(to_browser_r, 3, inheritable=True); os.dup2(from_browser_w, 4, inheritable=True)

        self.proc = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
             "--remote-debugging-pipe", "about:blank"],
            preexec_fn=on_fds_3_and_4, close_fds=False,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r); os.close(from_browser_w)
        self._buffer, self._next_id, self.events = b"", 0, []
        for _ in range(50):   # the first tab appears a moment after the browser answers
            page = next((t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page"), None)
            if page: break
            time.sleep(0.1)
        else:
            raise RuntimeError("Chromium opened no tab")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=True)
        self.send("Emulation.setDeviceMetricsOverride", session=True,
                  width=width, height=height, deviceScaleFactor=1, mobile=False)

    # -- protocol
    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._from_browser], [], [], remaining)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk: raise RuntimeError(f"Chromium closed the pipe (exit code {self.proc.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, session=False, timeout=60, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session: message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply: raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method: return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    # -- page
    def open(self, url, timeout=30):
        "Load `url`; return the problems the browser reported while loading it."
        self.events.clear()
        self.send("Page.navigate", session=True, url=url)
        self.wait_for_event("Page.loadEventFired", timeout)
        return self.problems()

    def problems(self):
        "JavaScript exceptions, console errors and failed loads seen since the page was opened."
        found = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                found.append(f"JS exception: {d.get('exception', {}).get('description') or d.get('text')}")
            elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                found.append(f"console: {p['entry']['text']} {p['entry'].get('url', '')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                found.append("console.error: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif m == "Network.loadingFailed" and not p.get("canceled"):
                found.append(f"failed to load: {p.get('errorText')} (request {p.get('requestId')})")
        return found

    def evaluate(self, expression, timeout=60):
        "The value of a JavaScript expression in the page (promises are awaited)."
        r = self.send("Runtime.evaluate", session=True, timeout=timeout, expression=expression,
                      awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r: raise RuntimeError(f"JS error: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", session=True, format="png")["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self):
        try: self.send("Browser.close", timeout=10)
        except Exception: pass
        try: self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired: self.proc.kill(); self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try: os.close(fd)
            except OSError: pass
        shutil.rmtree(self.profile, ignore_errors=True)


def chromium_executable():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if path := shutil.which(name): return path
    return None


@pytest.fixture(scope="session")
def browser():
    executable = chromium_executable()
    if executable is None:
        pytest.fail("no Chromium found: `make chromium` installs Debian's chromium (the browser tests need it)")
    chromium = Chromium(executable)
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def screenshots():
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True)
    return SCREENSHOTS
