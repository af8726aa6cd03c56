"""Drive Debian's headless ``chromium`` against the playground (``/``): load a URL that pre-fills
and runs a panel, then read the rendered DOM (``--dump-dom``) or save a screenshot.  Chromium waits
for the page's fetches while its virtual time budget runs, so the DOM it prints is the answered
panel.  Used by the browser test and by ``dev/screenshots.py``; no WebDriver needed."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
INSTALL_HINT = ("the playground's browser test needs Debian's chromium: run 'make browser' as root "
                "(apt-get install chromium), or as a user 'sudo apt-get install chromium'")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(url: str, extra: list[str], timeout: float, budget_ms: int) -> subprocess.CompletedProcess:
    exe = find_chromium()
    if exe is None:
        raise FileNotFoundError(INSTALL_HINT)
    with tempfile.TemporaryDirectory(prefix="textqa-chromium-") as profile:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--hide-scrollbars", f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}", *extra, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def dump_dom(url: str, timeout: float = 60, budget_ms: int = 20000) -> str:
    """The page's DOM after its scripts ran (and their fetches were answered)."""
    run = _run(url, ["--dump-dom"], timeout, budget_ms)
    if run.returncode != 0 or "<html" not in run.stdout:
        raise RuntimeError(f"chromium --dump-dom {url} failed ({run.returncode}): {run.stderr[-2000:]}")
    return run.stdout


def screenshot(url: str, dest: Path, width: int = 1000, height: int = 1000, timeout: float = 60,
               budget_ms: int = 20000) -> Path:
    """A PNG of the page as rendered at ``width`` x ``height``."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    run = _run(url, [f"--screenshot={dest}", f"--window-size={width},{height}"], timeout, budget_ms)
    if run.returncode != 0 or not dest.exists():
        raise RuntimeError(f"chromium --screenshot {url} failed ({run.returncode}): {run.stderr[-2000:]}")
    return dest


@dataclass
class PanelView:
    """What a panel shows in a dumped DOM: its state (``done``, ``error``, ``running`` or None),
    the error box's text and the result's HTML."""
    state: str | None
    error: str | None
    result: str | None


def panel(dom: str, model: str) -> PanelView:
    m = re.search(rf'<section id="panel-{model}"[^>]*>(.*?)</section>', dom, re.S)
    if not m:
        raise ValueError(f"no panel {model!r} in the page")
    head = re.search(rf'<section id="panel-{model}"[^>]*>', dom).group(0)
    state = re.search(r'data-state="(\w+)"', head)
    body = m.group(1)
    err = re.search(r'<div class="error" role="alert"(?: hidden="")?>(.*?)</div>', body, re.S)
    res = re.search(r'<div class="result"( hidden="")?>(.*)</div>', body, re.S)
    error = html.unescape(err.group(1)) if err and 'hidden=""' not in err.group(0) else None
    result = res.group(2) if res and not res.group(1) else None
    return PanelView(state.group(1) if state else None, error or None, result)


#: one worked example per panel (query-string state), shared by the browser test and the README's
#: screenshots (``dev/screenshots.py``), with the window height its answer needs
EXAMPLES = {
    "truecase": ({"text": "the president of the united states met the prime minister of canada in ottawa on "
                          "monday , and they visited the national gallery .", "method": "viterbi"}, 760),
    "blanc": ({"hypothesis": "The cat sat on the mat near the door.",
               "references": "The cat is sitting on the mat by the door.\nA cat sat on the mat next to the door."},
              1150),
    "icd9": ({"text": "Clinical history: Cough and fever for three days.\nImpression: No focal pneumonia. "
                      "Possible early infiltrate in the right lower lobe versus atelectasis.",
              "classifier": "brr"}, 1000),
    "qa": ({"question": "What is the capital of Uruguay?", "top_k": "3"}, 1350),
}


def example_url(base: str, model: str, **override) -> str:
    params = {"model": model, **EXAMPLES[model][0], **override}
    return f"{base}/?{urlencode(params)}"
