"""WSGI entry point for gunicorn: ``gunicorn service.wsgi:app`` (artifacts from $TEXTQA_ARTIFACTS)."""
from service import create_app

app = create_app()
