"""The model registry is the one list of models: every front end offers exactly its models, under
its names, with its options; and the import layers hold (import-linter's contracts in pyproject)."""
import argparse
import subprocess
import sys
from pathlib import Path

import pytest

import textqa
from textqa import registry
from textqa.cli import build_parser
from textqa.models.artifact import ArtifactError

ROOT = Path(__file__).resolve().parents[1]


def _subcommands(parser: argparse.ArgumentParser) -> dict:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def _flags(parser: argparse.ArgumentParser) -> set:
    return {s for a in parser._actions for s in a.option_strings}


def test_each_model_is_named_once_with_distinct_names_verbs_and_option_names():
    names = [m.name for m in registry.MODELS]
    assert names == ["truecaser", "blanc", "icd9", "qa"] and len(set(names)) == len(names)
    assert len({m.verb for m in registry.MODELS}) == len(names)
    options = [o.name for m in registry.MODELS for o in m.options]
    assert len(options) == len(set(options))          # one flag namespace in 'textqa batch'
    for m in registry.MODELS:                          # every dotted name resolves
        for dotted in (m.loader, m.batch, m.blueprint):
            assert callable(registry.resolve(dotted)) or hasattr(registry.resolve(dotted), "name"), dotted
        for module in (m.store, m.trainer, m.command):
            assert registry.resolve(module).__name__ == module


def test_the_command_line_offers_exactly_the_registry_models_and_options():
    commands = _subcommands(build_parser(["--help"]))
    assert set(_subcommands(commands["train"])) == {"all", *registry.NAMES}
    batch = commands["batch"]
    kind = next(a for a in batch._actions if a.dest == "kind")
    assert tuple(kind.choices) == tuple(m.verb for m in registry.MODELS)
    for m in registry.MODELS:
        assert m.verb in commands, m.verb
        own = commands[m.verb]
        parsers = [own] + list(_subcommands(own).values()) if any(
            isinstance(a, argparse._SubParsersAction) for a in own._actions) else [own]
        for option in m.options:
            assert any(option.flag in _flags(p) for p in parsers), (m.name, option.flag)
            assert option.flag in _flags(batch), (m.name, option.flag)


def test_the_python_api_offers_exactly_the_registry_models(tmp_path):
    for name in registry.NAMES:
        with pytest.raises(ArtifactError, match="no manifest"):
            textqa.load(name, tmp_path)
    with pytest.raises(ArtifactError, match="known: truecaser, blanc, icd9, qa"):
        (tmp_path / "x").mkdir()
        (tmp_path / "x" / "manifest.json").write_text('{"name": "other"}')
        textqa.load(tmp_path / "x")


def test_an_unknown_load_option_names_the_known_ones(truecaser_artifact):
    with pytest.raises(TypeError, match="unknown option.*beam.*known: class_lm, compounds, context, decoder"):
        textqa.load("truecaser", truecaser_artifact, beam=3)
    with pytest.raises(TypeError, match="unknown option"):
        textqa.load("icd9", truecaser_artifact, classifier="brr")     # a call option, not a load option


def test_each_load_option_stands_for_the_model_parameters_the_registry_declares(truecaser_artifact):
    """A truecaser load option is declared once, beside the truecaser, as the estimator parameters it sets:
    the loader gets those parameters (``--decoder trigram`` is every part switched off, the paper's
    decoder), the loaded model has them, and a value the option does not declare is refused."""
    from textqa.models.truecaser.options import TRIGRAM_DECODER
    entry = registry.BY_NAME["truecaser"]
    parts = {"phrases": "phrase_weight", "compounds": "compound_casing", "discriminative": "discriminative",
             "class_lm": "class_lm_weight", "context": "context_weight"}
    assert entry.loader_arguments({"decoder": "default", "phrases": True}) == {}
    assert entry.loader_arguments({"decoder": "trigram"}) == TRIGRAM_DECODER
    assert set(TRIGRAM_DECODER) == set(parts.values())
    for option, param in parts.items():
        assert list(entry.loader_arguments({option: False})) == [param]
    assert entry.loader_arguments({"decoder": "trigram", "context": True}) == TRIGRAM_DECODER
    with pytest.raises(ValueError, match="decoder must be one of 'default', 'trigram', not 'beam'"):
        entry.loader_arguments({"decoder": "beam"})
    model = textqa.load("truecaser", truecaser_artifact, decoder="trigram").model
    assert {k: model.get_params()[k] for k in TRIGRAM_DECODER} == TRIGRAM_DECODER
    plain = textqa.load("truecaser", truecaser_artifact, phrases=False).model.get_params()
    assert plain["phrase_weight"] == 0.0 and plain["context_weight"] > 0 and plain["compound_casing"] is True


def test_the_service_offers_exactly_the_registry_models(tmp_path):
    from textqa.service import create_app
    app = create_app(tmp_path, {"TEXTQA_ACCESS_LOG": False})
    assert list(app.extensions["textqa_models"]) == list(registry.NAMES)
    for m in registry.MODELS:
        assert registry.resolve(m.blueprint).name in app.blueprints
    listed = app.test_client().get("/v1/models").get_json()["models"]
    assert list(listed) == list(registry.NAMES)
    assert [m["verb"] for m in listed.values()] == [m.verb for m in registry.MODELS]


def test_the_playground_has_a_tab_and_an_example_per_registry_model():
    """The playground's tabs and panels (one per model's verb, shown when ``/v1/models`` lists the
    model) and the browser test's worked examples are the registry's models, no more, no fewer."""
    import re

    from textqa.service import browser
    page = (ROOT / "textqa" / "service" / "static" / "playground.html").read_text(encoding="utf-8")
    verbs = [m.verb for m in registry.MODELS]
    assert re.findall(r'role="tab" data-model="(\w+)"', page) == verbs
    assert re.findall(r'<section id="panel-(\w+)"', page) == verbs
    assert list(browser.EXAMPLES) == verbs


def test_each_store_writes_its_registry_name():
    for m in registry.MODELS:
        assert registry.resolve(m.store).ARTIFACT_NAME == m.name


def test_import_layers_and_no_cycles():
    """import-linter's contracts (pyproject.toml): the front ends (cli, service, training) never
    import each other, models and evaluation import none of them, and no sibling modules import
    each other in a circle, counting imports inside functions."""
    r = subprocess.run([str(Path(sys.executable).with_name("lint-imports"))], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "2 kept, 0 broken" in r.stdout


def test_every_loaded_model_is_a_loaded_model(truecaser_artifact, tmp_path):
    """What ``textqa.load`` returns has the manifest, the load options in force, a status and a warm-up,
    which the service reads instead of asking what a model has; a loader returning anything else is refused."""
    import textqa
    model = textqa.load("truecaser", truecaser_artifact, decoder="trigram")
    assert isinstance(model, textqa.LoadedModel)
    assert model.manifest["name"] == "truecaser"
    assert model.load_options == {"decoder": "trigram", "phrases": True, "compounds": True, "discriminative": True,
                                  "class_lm": True, "context": True}
    assert set(model.status()) == {"search"} and model.status()["search"]
    model.warm_up()
    entry = registry.ModelEntry(name="truecaser", verb="x", title="x", label="x", loader="pathlib:Path",
                                store="x", trainer="x", command="x", batch="x", blueprint="x")
    with pytest.raises(TypeError, match="returned a PosixPath, not a textqa.LoadedModel"):
        entry.load(truecaser_artifact / "truecaser")
