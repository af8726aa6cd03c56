"""A synthetic model for ``test_adding_a_model.py`` (made up for the test): what each step of
"Adding a model" (docs/development.md) asks for, in one file: a store (``MIN_FORMAT_VERSION``,
``ARTIFACT_NAME``, ``load``) and a blueprint with its request and response classes beside it."""
from __future__ import annotations

import functools

from flask import Blueprint
from pydantic import Field

from textqa.models.artifact import load_manifest, write_artifact
from textqa.runtime.loaded import LoadedModel
from textqa.service.contract import POST_ERRORS, endpoint
from textqa.service.schemas import Limits, ModelInfo, Response, StrictRequest, text_field
from textqa.service.slots import get_model

ARTIFACT_NAME = "echo"
MIN_FORMAT_VERSION = 1


class Echo(LoadedModel):
    def __init__(self, manifest: dict, times: int):
        self.manifest, self.times = manifest, times

    def warm_up(self) -> None:
        self.echo("warm up")

    def echo(self, text: str) -> str:
        return " ".join([text] * self.times)


def save(dest, times: int) -> None:
    with write_artifact(dest, ARTIFACT_NAME, 1, hyper_parameters={"times": times}) as tmp:
        (tmp / "times.txt").write_text(str(times))


def load(folder) -> Echo:
    manifest = load_manifest(folder, expect_name=ARTIFACT_NAME)
    return Echo(manifest, int((folder / "times.txt").read_text()))


@functools.cache
def request_model(limits: Limits):
    class EchoRequest(StrictRequest):
        text: text_field(limits.max_tokens) = Field(description="what to say back")
    return EchoRequest


class EchoResponse(Response):
    text: str
    model: ModelInfo


bp = Blueprint("echo", __name__)


@endpoint(bp, "POST", "/v1/echo", request=request_model, response=EchoResponse, errors=POST_ERRORS, tag="echo",
          summary="say it back", examples={"text": {"text": "hello"}})
def echo(req):
    """The text, as many times as the artifact says."""
    model = get_model("echo")
    return {"text": model.echo(req.text), "model": {"name": "echo", "created_at": model.manifest.get("created_at")}}
