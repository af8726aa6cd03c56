"""Screenshots of the playground's four panels for the README, from the default models.

    make browser && python dev/screenshots.py [--artifacts artifacts] [--out docs/img]

Starts ``textqa serve`` on a free loopback port, loads each panel's worked example
(``textqa.service.browser.EXAMPLES``) in headless Chromium and saves ``playground-<panel>.png``.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    from textqa.service import browser
    from textqa.service.live import LiveServer
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=ROOT / "artifacts")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = p.parse_args(argv)
    if browser.find_chromium() is None:
        raise SystemExit("error: " + browser.INSTALL_HINT)
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(args.artifacts, "--workers", "1", log=Path(tmp) / "serve.log")
        try:
            server.wait_ready()
            for model, (_, height) in browser.EXAMPLES.items():
                dom = browser.dump_dom(browser.example_url(server.base, model))
                view = browser.panel(dom, model)
                if view.state != "done":
                    raise SystemExit(f"error: the {model} panel did not answer: {view}")
                path = browser.screenshot(browser.example_url(server.base, model),
                                          args.out / f"playground-{model}.png", height=height)
                print(path)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
