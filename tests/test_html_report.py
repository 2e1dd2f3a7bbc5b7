"""The self-contained HTML report (``bayeseval report ... --html``, :func:`bayeseval.report.html.html_report`,
``POST /v1/report.html``), checked in a real headless Chromium.

Chromium (Debian's ``chromium`` package; ``BAYESEVAL_CHROMIUM`` names another binary) is driven through the
DevTools protocol over a pipe (``--remote-debugging-pipe``: stdlib only, no websocket, no browser download).
It runs with every outside connection made to fail (``--proxy-server`` on a closed port, host resolution
mapped to nothing), and the page is loaded from ``file://``.  For each page the test collects console
messages, uncaught exceptions, the browser log and every network request, then reads the DOM and takes a
full-page screenshot: no error may be logged, no request may leave ``file:`` / ``data:``, the main elements
(headings, estimate table, plots) must be laid out, and the screenshot must show them (the crops of the
table and of every plot are not blank).  A control page with an outside image and a ``console.error``
proves the harness sees both.  Without Chromium the browser tests skip (CI installs it).
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import io
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import bayeseval as B
from bayeseval.cli import main
from bayeseval.report.html import fmt_bounded, html_report, provenance, write_html

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"
GAME24 = DATA / "tot_game24.json"
SUMMEVAL = DATA / "summeval_annotations.csv"
WIDTH = 1280


# ----------------------------------------------------------------------------- Chromium over the DevTools pipe
def chromium_binary() -> str | None:
    env = os.environ.get("BAYESEVAL_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Headless Chromium driven through ``--remote-debugging-pipe`` (fd 3: commands in, fd 4: replies out;
    each message is JSON ended by a NUL byte)."""

    def __init__(self, exe: str, profile: Path):
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        hi_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)  # above 4, so the dup2 below cannot clobber them
        hi_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--host-resolver-rules=MAP * ~NOTFOUND", f"--window-size={WIDTH},900", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds, pass_fds=(3, 4))
        os.close(hi_r)
        os.close(hi_w)
        self._next = 0
        self._replies: dict = {}
        self._events: queue.Queue = queue.Queue()
        self._cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_child, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cv:
                    self._replies[None] = "closed"
                    self._cv.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cv:
                        self._replies[msg["id"]] = msg
                        self._cv.notify_all()
                else:
                    self._events.put(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30.0):
        self._next += 1
        mid = self._next
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cv:
            while mid not in self._replies:
                if None in self._replies or time.monotonic() > deadline:
                    raise RuntimeError(f"chromium did not answer {method}")
                self._cv.wait(0.1)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def events(self) -> list:
        out = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    def open(self, url: str, settle: float = 0.3) -> dict:
        """Load ``url`` in a new tab; return its console errors, requests, DOM facts and screenshot (PNG bytes)."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": 900, "deviceScaleFactor": 1,
                                                         "mobile": False}, session=session)
        self.events()  # drop what about:blank said
        self.send("Page.navigate", {"url": url}, session=session)
        seen, deadline, loaded = [], time.monotonic() + 30, False
        while time.monotonic() < deadline and not loaded:
            try:
                ev = self._events.get(timeout=0.2)
            except queue.Empty:
                continue
            seen.append(ev)
            loaded = ev.get("method") == "Page.loadEventFired" and ev.get("sessionId") == session
        assert loaded, "the page did not finish loading"
        time.sleep(settle)
        facts = self.send("Runtime.evaluate", {"expression": _FACTS, "returnByValue": True}, session=session)
        facts = facts["result"]["value"]
        height = min(int(facts["height"]), 16000)
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height,
                                                             "scale": 1}}, session=session)
        seen += self.events()
        self.send("Target.closeTarget", {"targetId": target})
        mine = [e for e in seen if e.get("sessionId") == session]
        errors = []
        for e in mine:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                errors.append(f"console.{p['type']}: " + " ".join(str(a.get("value", a.get("description")))
                                                                  for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                errors.append(f"exception: {p['exceptionDetails'].get('text')}")
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                errors.append(f"log {p['entry'].get('source')}: {p['entry'].get('text')}")
            elif m == "Network.loadingFailed":
                errors.append(f"request failed: {p.get('errorText')}")
        requests = [e["params"]["request"]["url"] for e in mine if e["method"] == "Network.requestWillBeSent"]
        return {"errors": errors, "requests": requests, "facts": facts, "png": base64.b64decode(shot["data"])}

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except RuntimeError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass


_FACTS = """(() => {
  const box = e => { const b = e.getBoundingClientRect();
                     return [b.left + window.scrollX, b.top + window.scrollY, b.width, b.height]; };
  return {
    title: document.title,
    h1: [...document.querySelectorAll('h1')].map(e => e.textContent),
    h2: [...document.querySelectorAll('h2')].map(e => e.textContent),
    sections: [...document.querySelectorAll('section')].map(e => e.id),
    plots: [...document.querySelectorAll('figure.plot svg')].map(box),
    table: [...document.querySelectorAll('#estimate-table')].map(box),
    estimateRows: document.querySelectorAll('#estimate-table tbody tr').length,
    rankingRows: document.querySelectorAll('table.ranking tbody tr').length,
    scripts: document.scripts.length,
    resources: performance.getEntriesByType('resource').map(e => e.name),
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    text: document.body.innerText,
  };
})()"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    exe = chromium_binary()
    if exe is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; or set BAYESEVAL_CHROMIUM); "
                    "CI installs it")
    b = Browser(exe, tmp_path_factory.mktemp("chromium-profile"))
    try:
        b.send("Browser.getVersion", timeout=60)
    except RuntimeError as exc:  # pragma: no cover - a broken install
        b.close()
        pytest.fail(f"Chromium at {exe} did not start: {exc}")
    yield b
    b.close()


# ----------------------------------------------------------------------------- pages
@pytest.fixture(scope="module")
def game24_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "game24.html"
    rc = main(["report", str(GAME24), "--metrics", "avg,pass@10,pass@100,pass^10,maj@10", "--html", str(out),
               "--quiet", "-o", str(out.with_suffix(".txt"))])
    assert rc == 0
    return out


@pytest.fixture(scope="module")
def many_page(tmp_path_factory):
    """16 summarisation systems (SummEval) x 100 documents x 8 raters, outcome = coherence rated 4 or 5."""
    import pandas as pd

    folder = tmp_path_factory.mktemp("many")
    t = pd.read_csv(SUMMEVAL)
    raters = {a: i for i, a in enumerate(sorted(t["annotator"].unique()))}
    long = pd.DataFrame({"doc": t["doc_id"], "system": t["system"], "trial": t["annotator"].map(raters),
                         "ok": (t["coherence"] >= 4).astype(int)})
    src = folder / "summeval_coherent.csv"
    long.to_csv(src, index=False)
    out = folder / "many.html"
    rc = main(["report", str(src), "--question-col", "doc", "--model-col", "system", "--trial-col", "trial",
               "--score-col", "ok", "--metrics", "avg,pass@4", "--html", str(out), "--quiet",
               "--resamples", "2000", "-o", str(folder / "table.txt")])
    assert rc == 0
    return out


def _colours(img) -> int:
    return len(img.getcolors(maxcolors=1 << 22) or [])


def _ink(img) -> float:
    """Share of pixels that are not (near) white."""
    a = np.asarray(img.convert("L"), dtype=np.uint8)
    return float((a < 235).mean())


def check_in_browser(browser, page: Path, *, models: int, plots: int, ranking_rows: int) -> dict:
    from PIL import Image

    got = browser.open(page.resolve().as_uri())
    assert got["errors"] == [], got["errors"]
    outside = [u for u in got["requests"] + got["facts"]["resources"] if not u.startswith(("file:", "data:"))]
    assert outside == [], outside
    f = got["facts"]
    assert f["scripts"] == 0
    assert f["h1"] and f["title"] == f["h1"][0]
    for head in ("Estimates", "Forest plot", "pass@k curves", "Warnings", "Provenance"):
        assert any(h.startswith(head) for h in f["h2"]), (head, f["h2"])
    assert any(h.startswith("Ranking on") for h in f["h2"]), f["h2"]
    assert f["estimateRows"] == models and f["rankingRows"] == ranking_rows
    assert len(f["plots"]) >= plots
    assert f["width"] <= WIDTH + 1, "the page scrolls sideways"
    assert "sha256" in f["text"] and "numpy" in f["text"] and "scipy" in f["text"]

    img = Image.open(io.BytesIO(got["png"])).convert("RGB")
    assert img.size[0] == WIDTH and img.size[1] >= min(f["height"], 16000) - 2
    assert _colours(img) > 2000, "the screenshot is (nearly) blank"
    for x, y, w, h in f["table"] + f["plots"]:  # every plot and the table are drawn where the DOM puts them
        assert w > 150 and h > 80, (w, h)
        if y + h > img.size[1]:
            continue
        crop = img.crop((int(x), int(y), int(x + w), int(y + h)))
        assert _colours(crop) > 30 and _ink(crop) > 0.01, (x, y, w, h)
    return got


# ----------------------------------------------------------------------------- in Chromium
def test_game24_page_in_chromium(browser, game24_page):
    got = check_in_browser(browser, game24_page, models=2, plots=4, ranking_rows=2)
    text = got["facts"]["text"]
    assert "gpt-4 IO" in text and "gpt-4 CoT" in text and "P(best)" in text


def test_many_models_page_in_chromium(browser, many_page):
    got = check_in_browser(browser, many_page, models=16, plots=5, ranking_rows=16)
    assert "Pegasus" in got["facts"]["text"]


def test_the_harness_sees_outside_requests_and_console_errors(browser, tmp_path):
    """The control: a page that loads an outside image and logs an error must fail both checks."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><head><meta charset=utf-8><title>bad</title></head><body><h1>bad</h1>"
                   "<img src='https://example.com/x.png'><script>console.error('boom')</script></body></html>")
    got = browser.open(bad.as_uri())
    assert any("boom" in e for e in got["errors"])
    assert any(u.startswith("https://example.com/") for u in got["requests"])


# ----------------------------------------------------------------------------- the page's text (no browser)
def test_page_is_self_contained(game24_page, many_page):
    for page in (game24_page, many_page):
        text = page.read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>")
        assert not re.search(r"https?://", text)  # not even an SVG namespace: nothing to fetch
        assert not re.search(r"<(script|link(?![^>]*data:)|iframe|object|embed)\b", text, re.I)
        refs = re.findall(r"""\b(?:src|href)\s*=\s*["']?([^"'\s>]*)""", text, re.I)
        assert refs and all(u.startswith(("#", "data:")) for u in refs), sorted(set(refs))[:5]
        assert "Content-Security-Policy" in text and "default-src 'none'" in text
        assert text.count("<svg") >= 4


def test_rounded_values_do_not_read_as_certainty(game24_page):
    text = game24_page.read_text(encoding="utf-8")
    # CoT's pass^10 is 9e-06: the value is not "0.0"; the tables' rule (two significant digits of the distance
    # from the bound), the same as the terminal table's.  The lower end is exactly 0 (the studentized population
    # posterior reaches the bound) and reads so; few questions carry it, so the default interval's upper end is
    # Clopper-Pearson's on the summed scores (0.009 for the posterior alone), and the page names the row
    from bayeseval.report.tables import fmt_near

    assert fmt_near(9.16e-6, 1, 100) == "0.00092" and fmt_near(6e-7, 1, 100) == "0.00006"
    e = B.estimate(B.load(DATA / "tot_game24.json")["gpt-4 CoT"], "pass^10")
    assert e.interval == "exact+binomial" and e.lo == 0.0 and 0.03 < e.hi < 0.05
    assert re.search(rf"<span class=v>0\.000\d\d</span> <span class=ci>\[0\.0, {100 * e.hi:.1f}\]", text), text[:0]
    assert "Widened to Clopper-Pearson&#x27;s interval on the summed scores (few questions carry the metric): " in text
    assert "gpt-4 CoT pass^10" in text.split("Widened to Clopper")[1].split(".")[0]
    assert fmt_bounded(0.99996, 1, 100.0) == "99.9960" and fmt_bounded(1.0, 1, 100.0) == "100.0"


def test_provenance_names_inputs_with_sha256_versions_and_command(game24_page):
    text = game24_page.read_text(encoding="utf-8")
    digest = hashlib.sha256(GAME24.read_bytes()).hexdigest()
    assert digest in text and str(GAME24) in text
    for word in ("bayeseval 0.", "numpy ", "scipy ", "library default", "bayeseval report", "--html"):
        assert word in text, word


def test_library_entry_point_renders_result_objects(tmp_path, game24):
    ev = B.evaluate(game24, ["avg", "pass@1", "pass@10", "pass@100"])
    rk = B.compare_all({m: game24.counts(m) for m in game24.models}, resamples=500)
    cmp = B.compare(game24.counts("gpt-4 CoT"), game24.counts("gpt-4 IO"), names=("CoT", "IO"), resamples=500)
    page = html_report(ev, [rk, cmp], title="Game of 24", provenance=provenance([GAME24], seed=None),
                       warnings=["a note from the caller"])
    assert "<title>Game of 24</title>" in page
    assert "pass@k curves" in page  # drawn from the evaluation's own pass@1, pass@10, pass@100
    assert "Comparison: CoT vs IO on avg" in page and "a note from the caller" in page
    out = write_html(tmp_path / "r.html", ev, rk, plots=False)
    assert out.read_text(encoding="utf-8").count("<svg") == 0
    with pytest.raises(B.InputTypeError):
        html_report(ev, ranking="not a ranking")
    with pytest.raises(B.InputTypeError):
        html_report({"a": 1})


def test_names_are_escaped():
    R = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    ev = B.evaluate({"<script>alert(1)</script>": R, "a $x$ & b": 1 - R}, ["avg"])
    page = html_report(ev, B.compare_all({"<script>alert(1)</script>": R, "a $x$ & b": 1 - R}, resamples=200))
    assert "<script>" not in page and "&lt;script&gt;" in page and "a $x$ &amp; b" in page


def test_rank_and_compare_write_pages(tmp_path):
    rank = tmp_path / "rank.html"
    cmp = tmp_path / "cmp.html"
    assert main(["rank", str(GAME24), "--resamples", "500", "--html", str(rank), "--quiet",
                 "-o", str(tmp_path / "r.txt")]) == 0
    assert main(["compare", "--data", str(GAME24), "gpt-4 CoT", "gpt-4 IO", "--resamples", "500", "--html", str(cmp),
                 "--quiet", "-o", str(tmp_path / "c.txt")]) == 0
    assert "Ranking on avg" in rank.read_text(encoding="utf-8")
    text = cmp.read_text(encoding="utf-8")
    assert "Comparison: gpt-4 CoT vs gpt-4 IO on avg" in text and "P(A&gt;B)" in text


def test_html_output_folder_must_exist(tmp_path, capsys):
    assert main(["report", str(GAME24), "--html", str(tmp_path / "missing" / "r.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the service, over real HTTP
@pytest.fixture(scope="module")
def service():
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    httpx = pytest.importorskip("httpx")
    from bayeseval.service.settings import Settings
    from bayeseval.service.testing import running

    with running(Settings(workers=1, timeout=60.0, max_cells=200_000)) as url:
        with httpx.Client(base_url=url, timeout=120) as client:
            yield client


def _matrix(data, model) -> np.ndarray:
    return np.asarray(data.run(model).values(), dtype=int)


def test_service_serves_the_report(service, game24, tmp_path, request):
    body = {"models": {m: {"matrix": _matrix(game24, m)[:40, :20].tolist()} for m in game24.models},
            "metrics": ["avg", "pass@4"], "seed": 3}
    r = service.post("/v1/report.html", json=body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/html")
    page = r.text
    assert page.startswith("<!DOCTYPE html>") and not re.search(r"https?://", page)
    for head in ("Estimates", "Forest plot", "pass@k curves", "Ranking on avg", "Provenance", "request_sha256"):
        assert head in page, head
    # the numbers are the library's (the same call /v1/metrics makes)
    ev = B.evaluate({m: np.array(body["models"][m]["matrix"]) for m in game24.models}, ["avg", "pass@4"], seed=3)
    e = ev["gpt-4 IO", "pass@4"]
    assert f"{100 * e.value:.1f}" in page and f"{100 * e.lo:.1f}" in page
    if chromium_binary() is not None:  # and the served page passes the browser checks too
        path = tmp_path / "served.html"
        path.write_text(page, encoding="utf-8")
        got = request.getfixturevalue("browser").open(path.as_uri())
        assert got["errors"] == [] and all(u.startswith(("file:", "data:")) for u in got["requests"])


@pytest.mark.parametrize("body,field", [
    ({"models": {}}, "models"),
    ({"models": {"a": {"matrix": [[1, 0]]}}, "metrics": ["pass@x"]}, "metrics[0]"),
    ({"models": {"a": {"matrix": [[1, 0], [2, 5]]}}, "metrics": ["avg"], "scope": "galaxy"}, "scope"),
])
def test_service_bad_input_is_json_4xx(service, body, field):
    r = service.post("/v1/report.html", json=body)
    assert 400 <= r.status_code < 500, r.text
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert set(err) == {"type", "field", "message", "details"}
    assert err["field"] == field or (err["field"] or "").startswith(field), err
