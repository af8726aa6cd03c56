"""The playground at ``/``: served files (Flask test client) and every panel driven in a real
headless Chromium against a live ``textqa serve`` (``textqa.service.browser``).  The browser test
needs Debian's chromium (``make test`` installs it as root); without it the test fails and says how
to install it.  ``TEXTQA_SCREENSHOT_DIR`` keeps the screenshots (``dev/screenshots.py`` writes the
README's from the default models)."""
import os
import re
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

from textqa.service import browser

STATIC = Path(__file__).resolve().parents[2] / "textqa" / "service" / "static"


@pytest.fixture
def client(service_artifacts):
    from textqa.service import create_app
    return create_app(service_artifacts, {"TESTING": True, "TEXTQA_ACCESS_LOG": False}).test_client()


def test_page_and_assets_are_served_with_a_strict_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and page.content_type.startswith("text/html")
    csp = page.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe" not in csp
    text = page.get_data(as_text=True)
    for panel in ("truecase", "blanc", "icd9", "qa"):
        assert f'id="panel-{panel}"' in text
    assert 'href="/docs"' in text
    for name, kind in (("playground.js", "javascript"), ("playground.css", "css")):
        r = client.get(f"/playground/{name}")
        assert r.status_code == 200 and kind in r.content_type
    for bad in ("/playground/../__init__.py", "/playground/playground.html.bak", "/playground/%2e%2e%2fschemas.py"):
        r = client.get(bad)
        assert r.status_code == 404 and r.is_json and r.get_json()["error"]["code"] == "not_found"


def test_static_files_load_nothing_from_elsewhere_and_never_inject_html():
    for f in STATIC.iterdir():
        text = f.read_text(encoding="utf-8")
        assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", text), f"{f.name} loads a remote file"
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text and "eval(" not in text, f.name


@pytest.fixture(scope="module")
def chromium():
    exe = browser.find_chromium()
    if exe is None and os.environ.get("TEXTQA_SKIP_BROWSER") == "1":
        pytest.skip("TEXTQA_SKIP_BROWSER=1: " + browser.INSTALL_HINT)
    assert exe, browser.INSTALL_HINT + " (or set TEXTQA_SKIP_BROWSER=1 to skip this test on purpose)"
    return exe


def test_every_panel_in_a_real_browser(chromium, service_artifacts, live_server, tmp_path, is_drawn_png):
    shots = Path(os.environ.get("TEXTQA_SCREENSHOT_DIR") or tmp_path / "shots")
    with live_server(service_artifacts, "--workers", "2") as server:
        server.wait_ready()
        base = server.base

        # each panel, pre-filled from the URL, answers with a real result
        dom = browser.dump_dom(browser.example_url(base, "truecase"))
        view = browser.panel(dom, "truecase")
        assert view.state == "done" and view.error is None, view
        assert '<mark class="changed">T</mark>he' in view.result          # the first word, highlighted
        assert "method viterbi" in view.result
        assert re.search(r"Models: truecaser \S+ \(textqa ", dom), "the page names the model versions"

        dom = browser.dump_dom(browser.example_url(base, "truecase", method="unigram"))
        assert "method unigram" in browser.panel(dom, "truecase").result

        view = browser.panel(browser.dump_dom(browser.example_url(base, "blanc")), "blanc")
        assert view.state == "done" and view.error is None, view
        score = float(re.search(r'<b class="score">([\d.]+)</b>', view.result).group(1))
        assert 0 < score < 1
        assert '<span class="tok exact" title="match weight 1">cat</span>' in view.result
        assert "mat .. door" in view.result or "mat .. the" in view.result      # a matched skip-bigram

        view = browser.panel(browser.dump_dom(browser.example_url(base, "icd9")), "icd9")
        assert view.state == "done" and view.error is None, view
        assert 'class="codes"' in view.result
        assert re.search(r'<span class="span-negated"[^>]*>pneumonia</span>', view.result)
        assert re.search(r'<span class="span-uncertain"[^>]*>atelectasis</span>', view.result)
        assert re.search(r'<span class="span-trigger"[^>]*>No</span>', view.result)

        view = browser.panel(browser.dump_dom(browser.example_url(base, "qa")), "qa")
        assert view.state == "done" and view.error is None, view
        assert re.search(r"Question class \(UIUC\): </b>(ABBR|DESC|ENTY|HUM|LOC|NUM):\w+", view.result)
        assert 'class="types"' in view.result and '<span class="chips"><span>' in view.result
        assert re.search(r'<span class="muted doc">from <(a href="http://en.wikipedia.org/wiki\?curid=\d+"[^>]*|span)>',
                         view.result) and "<mark>" in view.result
        dom = browser.dump_dom(browser.example_url(base, "qa"))
        assert all(f'<option value="{c}">' in dom for c in ("default", "pool", "wikipedia"))  # the selector

        # invalid input: the JSON error, as a readable message
        for model, override, expected in (
                ("qa", {"question": "   "}, "question: is empty"),
                ("qa", {"top_k": "0"}, "top_k"),
                ("blanc", {"references": "\n"}, "must have at least 1 item"),
                ("icd9", {"text": " "}, "is empty"),
                ("icd9", {"classifier": "knn"}, "classifier")):
            view = browser.panel(browser.dump_dom(browser.example_url(base, model, **override)), model)
            assert view.state == "error" and expected in view.error and "HTTP 422" in view.error, (model, view)

        # a long state travels in the fragment (never sent to the server): 20,001 tokens, one too many
        long_text = "a " * 20001
        dom = browser.dump_dom(f"{base}/#" + urlencode({"model": "truecase", "text": long_text}))
        view = browser.panel(dom, "truecase")
        assert view.state == "error" and "20,001 tokens" in view.error and "limit is 20,000" in view.error, view

        for model, (_, height) in browser.EXAMPLES.items():
            path = browser.screenshot(browser.example_url(base, model), shots / f"playground-{model}.png",
                                      height=height)
            assert is_drawn_png(path), path
    log = server.text()
    assert "Traceback" not in log, log[-3000:]


def test_a_tab_shows_its_models_training_progress_then_answers(chromium, service_artifacts, live_server, tmp_path,
                                                                monkeypatch):
    """While ``textqa serve --train-missing`` trains a model (here its state file says QA is at 40%
    and ICD-9 queued), its tab shows a progress element with the percentage and its panel waits;
    once the model is no longer training and its artifact is there, the same URL answers."""
    import json
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"models": {
        "qa": {"state": "training", "step": "analysing the collection", "percent": 40.0, "eta_seconds": 150.0},
        "icd9": {"state": "queued", "eta_seconds": 400.0}}}))
    monkeypatch.setenv("TEXTQA_TRAINING_STATE", str(state))
    with live_server(service_artifacts, "--workers", "1") as server:
        server.wait_bound(time.time() + 120)
        url = browser.example_url(server.base, "qa")
        dom = browser.dump_dom(url, budget_ms=6000)
        view = browser.panel(dom, "qa")
        assert view.state is None and view.result is None, view           # not run: the model is training
        section = re.search(r'<section id="panel-qa".*?</section>', dom, re.S).group(0)
        assert re.search(r'<progress max="100" value="40">', section), section[:2000]
        assert "qa is training (analysing the collection): 40%" in section and "(estimated)" in section
        assert re.search(r'<button type="submit" disabled="">', section)
        assert re.search(r'data-model="qa"[^>]*>QA<span class="badge"> 40%</span>', dom)
        assert re.search(r'data-model="icd9"[^>]*>ICD-9<span class="badge"> queued</span>', dom)
        state.write_text(json.dumps({"models": {}}))                         # trained: the artifact is there
        view = browser.panel(browser.dump_dom(url), "qa")
        assert view.state == "done" and view.error is None, view
        assert "Traceback" not in server.text()
