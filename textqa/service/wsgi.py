"""WSGI entry point for gunicorn: ``gunicorn textqa.service.wsgi:app`` (artifacts from $TEXTQA_ARTIFACTS)."""
from textqa.service import create_app

app = create_app()
