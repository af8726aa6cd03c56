"""The models textqa knows, each named once: the one table every front end reads.

An entry says where everything about a model lives, as dotted names (``"module:attribute"``) so
that reading the table imports nothing heavy: ``textqa --help`` and the service's start-up stay fast,
and each front end imports only the model it uses.

* ``name``: the model's one name, its artifact folder under the artifacts root and its
  ``manifest.json`` name;
* ``verb``: the command's word for it (``textqa VERB ...``, ``textqa batch VERB``);
* ``title``: the model and its paper; ``label``: its short name in help texts;
* ``loader``: artifact folder -> the loaded model (what ``textqa.load`` returns), a
  :class:`textqa.LoadedModel`: its manifest, its status, its warm-up;
* ``store``: the module whose ``MIN_FORMAT_VERSION`` is the oldest artifact format it loads;
* ``trainer``: the training module (``add_arguments``, ``run``, ``DEFAULT_DATA``);
* ``command``: the command-line module (``textqa VERB``);
* ``batch``: the function that runs one partition of ``textqa batch VERB`` on a worker;
* ``blueprint``: the Flask blueprint of its HTTP endpoints;
* ``train_minutes``: how long its default training takes on 2 cores (the first time, with its
  caches to fill): ``textqa serve --train-missing`` trains the cheapest first and estimates progress
  from it until this machine has trained the model once;
* ``read_on_use``: payloads its loader reads only when first used (the loading hashes them, and
  does not parse them ahead);
* ``read_first``: payloads the loading reads ahead first, in this order (its loader's);
* ``options``: its run-time options (:class:`textqa.runtime.options.Option`, declared beside the
  model when they are its own), each reaching ``textqa.load`` (keyword arguments, for options that
  configure the loaded model), the command line (flags) and ``textqa batch`` under one name.

Adding a model: a package under ``textqa/models/``, a training module under ``textqa/training/``,
a command module under ``textqa/cli/``, a blueprint under ``textqa/service/`` and one entry here
(``docs/development.md``).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from textqa.models.truecaser.options import OPTIONS as TRUECASER_OPTIONS
from textqa.runtime.options import Option

__all__ = ["BY_NAME", "BY_VERB", "MODELS", "NAMES", "ModelEntry", "Option", "entry", "resolve"]


@dataclass(frozen=True)
class ModelEntry:
    name: str
    verb: str
    title: str
    label: str
    loader: str
    store: str
    trainer: str
    command: str
    batch: str
    blueprint: str
    options: tuple[Option, ...] = field(default_factory=tuple)
    train_minutes: float = 5.0
    read_on_use: tuple[str, ...] = ()
    read_first: tuple[str, ...] = ()

    def option_values(self, source, stage: str | None = None) -> dict:
        """This model's options (of ``stage``, or all) read from ``source``: an ``argparse.Namespace``
        or a dict; options it lacks take their defaults."""
        get = source.get if isinstance(source, dict) else (lambda k, d: getattr(source, k, d))
        return {o.name: get(o.name, o.default) for o in self.options if stage is None or o.stage == stage}

    def load(self, folder, **options):
        """The model in artifact ``folder`` with its load-time ``options``; an unknown option is a
        ``TypeError`` naming the known ones."""
        known = {o.name for o in self.options if o.stage == "load"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"{self.name}: unknown option(s) {', '.join(unknown)}; "
                            f"known: {', '.join(sorted(known)) or 'none'}")
        from .models.artifact import read_ahead  # deferred: loads numpy, orjson
        from .runtime.loaded import LoadedModel

        arguments = self.loader_arguments(options)
        # the payloads are hashed and read while the model's code imports (those read on use: hashed only)
        with read_ahead(folder, hash_only=self.read_on_use, first=self.read_first):
            loader = resolve(self.loader)
            model = loader(folder, **arguments) if arguments else loader(folder)
        if not isinstance(model, LoadedModel):
            raise TypeError(f"{self.name}: its loader {self.loader} returned a {type(model).__name__}, "
                            f"not a textqa.LoadedModel (manifest, load_options, status(), warm_up())")
        model.load_options = self.option_values(options, "load")
        return model

    def loader_arguments(self, options: dict) -> dict:
        """The loader's keyword arguments for the load-time ``options``: the parameters that an
        option with ``settings`` stands for at its value (merged in the table's order), the others as
        they are.  A value an option's settings do not list is a ``ValueError`` naming the choices."""
        out: dict = {}
        by_name = {o.name: o for o in self.options}
        for name, value in options.items():
            settings = by_name[name].settings
            if settings is None:
                out[name] = value
            elif value in settings:
                out.update(settings[value])
            else:
                raise ValueError(f"{self.name}: {name} must be one of {', '.join(map(repr, settings))}, not {value!r}")
        return out


def resolve(dotted: str):
    """The object that ``"package.module:attr.attr"`` names (imported on first use)."""
    module, _, attr = dotted.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


MODELS: tuple[ModelEntry, ...] = (
    ModelEntry(
        name="truecaser", verb="truecase", title="Truecaser (Lita et al. 2003)", label="truecaser",
        loader="textqa.models.truecaser.service_api:TruecaserService.load",
        store="textqa.models.truecaser.store", trainer="textqa.training.truecaser",
        command="textqa.cli.truecase", batch="textqa.cli.truecase:run_partition",
        blueprint="textqa.service.truecaser:bp", options=TRUECASER_OPTIONS, train_minutes=15,
        read_on_use=("baseline.json.gz",),
        # the loader's order, but the phrase table first: the largest to inflate
        read_first=("phrases.npz", "casing.json.gz", "casing.npz", "oov.json", "oov.npz", "phrases.json",
                    "classes.json.gz", "classes.npz", "context.json.gz", "context.npz", "search.npz")),
    ModelEntry(
        name="blanc", verb="blanc", title="BLANC MT metric (Lita, Rogati & Lavie 2005)", label="BLANC",
        loader="textqa.models.blanc.store:load_blanc", store="textqa.models.blanc.store",
        trainer="textqa.training.blanc", command="textqa.cli.blanc", batch="textqa.cli.blanc:run_partition",
        blueprint="textqa.service.blanc:bp",
        options=(Option("corpus", False, "one system-level score instead of one per line"),
                 Option("details", False, "print 'score precision recall' per line")), train_minutes=6),
    ModelEntry(
        name="icd9", verb="icd9", title="ICD-9-CM coders (Lita et al. 2008)", label="ICD-9",
        loader="textqa.models.icd9.store:load_coder", store="textqa.models.icd9.store",
        trainer="textqa.training.icd9", command="textqa.cli.icd9", batch="textqa.cli.icd9:run_partition",
        blueprint="textqa.service.icd9:bp",
        options=(Option("classifier", "svm", "svm (default, better in cross-validation) or brr"),
                 Option("all_scores", False, "add \"scores\": every code's margin over its threshold "
                        "(for AUC in 'textqa eval icd9')")), train_minutes=1),
    ModelEntry(
        name="qa", verb="qa", title="Instance-based QA (Lita & Carbonell 2004, 2008)", label="QA",
        loader="textqa.models.qa.store:load_qa", store="textqa.models.qa.store",
        trainer="textqa.training.qa", command="textqa.cli.qa", batch="textqa.cli.qa:run_partition",
        blueprint="textqa.service.qa:bp",
        options=(Option("top_k", 5, "answers per question (default 5)"),
                 Option("collection", "default", "the collection to answer from: 'default' (Wikipedia, when built, "
                                                 "and the news pool), 'pool', or a name built with 'textqa qa index'"
                                                 " (default: default)")), train_minutes=5.5),
)

BY_NAME: dict[str, ModelEntry] = {m.name: m for m in MODELS}
BY_VERB: dict[str, ModelEntry] = {m.verb: m for m in MODELS}
NAMES: tuple[str, ...] = tuple(BY_NAME)


def entry(name: str) -> ModelEntry:
    """The entry of model ``name`` (or of its verb); ``KeyError`` naming the known models."""
    found = BY_NAME.get(name) or BY_VERB.get(name)
    if found is None:
        raise KeyError(f"unknown model {name!r}; known: {', '.join(NAMES)}")
    return found
