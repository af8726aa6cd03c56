"""The playground at ``/``: a static page (HTML, CSS and JavaScript shipped in the package, no CDN,
no build step) with one panel per model, each calling the public ``/v1`` endpoints."""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, send_from_directory

from .http_errors import APIError

STATIC = Path(__file__).resolve().parent / "static"
ASSETS = {"playground.js", "playground.css"}

bp = Blueprint("playground", __name__)


@bp.get("/")
def page():
    resp = send_from_directory(STATIC, "playground.html", mimetype="text/html")
    # the page only talks to this origin: no inline script, no third-party anything
    resp.headers["Content-Security-Policy"] = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                                               "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'")
    return resp


@bp.get("/playground/<name>")
def asset(name: str):
    if name not in ASSETS:                  # a fixed list: no path from the URL reaches the disk
        raise APIError(404, f"no playground file {name!r}")
    return send_from_directory(STATIC, name)
