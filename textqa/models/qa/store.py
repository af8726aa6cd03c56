"""QA artifacts: answer-type classifier, sentence selector and instance-based system as data
(``*.json`` + ``*.npz``, no pickle), the retrieval collection (``index.sqlite``), with the manifest."""
from __future__ import annotations

import json
import os
from pathlib import Path

from textqa.runtime import deadline, training_state
from textqa.runtime.loaded import LoadedModel
from textqa.runtime.paths import cache_dir
from textqa.runtime.training_state import ANALYSIS_JOB, READER_JOB, WIKIPEDIA_JOB

from ..artifact import MANIFEST, ArtifactError, load_arrays, load_manifest, save_arrays, write_artifact
from ..sklearn_data import linear_from_arrays, linear_to_arrays, scaler_from_arrays, scaler_to_arrays
from .answer_type import AnswerTypeClassifier
from .answers import keywords
from .definitions import definition_answers
from .index import SentenceIndex
from .merging import FEATURES, AnswerReader
from .nlp import parse
from .passages import WIKIPEDIA, check_name, has_collection, list_collections, load_collection
from .retrieval import QuestionSource
from .selection import SentenceSelector
from .system import ClusterModel, InstanceQA

ARTIFACT_NAME = "qa"
MAX_QUESTION_WORDS = 200            # longer input is refused (CLI and HTTP)
FORMAT_VERSION = 3            # 3: WordNet features in the sentence ranker (12, not 8); 2: JSON + .npz + SQLite
MIN_FORMAT_VERSION = 3        # (a format-2 ranker expects 8 features); 1 pickled the models with joblib


DEFAULT_COLLECTION = "default"      # Wikipedia (the collection named WIKIPEDIA) and the news pool
POOL_COLLECTION = "pool"            # the news pool the artifact holds, alone


class UnknownCollection(KeyError):
    """A collection name that is neither built nor one of the built-in ones; ``known`` lists those."""

    def __init__(self, name: str, known: list[str]):
        super().__init__(name)
        self.name, self.known = name, known

    def __str__(self) -> str:
        return f"unknown collection {self.name!r}; known: {', '.join(self.known)} (build one with 'textqa qa index')"


class NoContentWords(ValueError):
    """A question with no word to search for ("the of and"): nothing to retrieve, so no answer; ``index``
    is its place in the questions asked."""

    def __init__(self, question: str, index: int):
        super().__init__(f"the question {question[:80]!r} has no content word to search for (only stop words and "
                         f"punctuation); ask with the words of what you want to know")
        self.question, self.index = question, index


class QAModel(LoadedModel):
    """What ``textqa qa`` and the service use.  ``collections_root``: the folder of the collections
    ``textqa qa index`` builds (``<artifacts>/collections``), each loaded on first use."""

    def __init__(self, answer_types, selector, instance=None, index=None, manifest: dict | None = None,
                 collections_root: Path | None = None, cache: Path | None = None):
        self.answer_types, self.selector, self.instance, self.index = answer_types, selector, instance, index
        self.manifest = manifest or {}
        self.collections_root, self.cache = collections_root, cache
        self._collections: dict = {}

    def collection_names(self) -> list[str]:
        """Every name ``answer(collection=...)`` takes: the built-in ones, then the built collections."""
        built = list_collections(self.collections_root) if self.collections_root else []
        return [DEFAULT_COLLECTION, POOL_COLLECTION] + [n for n in built if n not in (DEFAULT_COLLECTION,
                                                                                       POOL_COLLECTION)]

    def collection(self, name: str):
        """The loaded collection ``name``, checked against its manifest on first use, and loaded again
        when its manifest is replaced (a rebuild, or its analysis finished and joined)."""
        try:
            folder = self.collections_root / check_name(name) if self.collections_root else None
        except ValueError:
            folder = None
        try:
            st = os.stat(folder / MANIFEST) if folder is not None else None
        except OSError:
            st = None
        if st is None or name in (DEFAULT_COLLECTION, POOL_COLLECTION):
            raise UnknownCollection(name, self.collection_names())
        identity = (st.st_ino, st.st_mtime_ns, st.st_size)
        known = self._collections.get(name)
        if known is None or known[0] != identity:
            self._collections[name] = (identity, load_collection(folder, self.cache))
        return self._collections[name][1]

    def has_wikipedia(self) -> bool:
        """Whether the 'wikipedia' collection is built: the default collection then answers from it too."""
        return bool(self.collections_root and has_collection(self.collections_root, WIKIPEDIA))

    def sources(self, name: str | None) -> tuple[list, object | None]:
        """(collections, pool index or None) that collection ``name`` answers from."""
        name = name or DEFAULT_COLLECTION
        if name == POOL_COLLECTION:
            return [], self.index
        if name == DEFAULT_COLLECTION:
            return ([self.collection(WIKIPEDIA)] if self.has_wikipedia() else []), self.index
        return [self.collection(name)], None

    def status(self) -> dict[str, str]:
        """What the default collection answers from and which reader ranks the answers, with the stages
        of their background builds (:mod:`textqa.runtime.training_state`)."""
        background = training_state.read()
        return {"collection": self.default_status(background), "reader": self.reader_status(background)}

    def warm_up(self) -> None:
        self.answer("Who warmed up?", 1)

    def default_status(self, background: dict | None = None) -> str:
        """What the default collection answers from now, in a line (``/v1/models`` shows it);
        ``background``: the background jobs' states (:mod:`textqa.runtime.training_state`), for the
        Wikipedia index's build and its analysis while they are queued or running."""
        background = background or {}
        if self.has_wikipedia():
            try:
                analysed = self.collection(WIKIPEDIA).analysis is not None
            except ArtifactError as e:
                return f"default: the news pool only (the 'wikipedia' collection is refused: {e})"
            if analysed:
                return ("default: Wikipedia and the news pool (Wikipedia analysed at indexing: its sentences and "
                        "candidates are read from storage)")
            job = background.get(ANALYSIS_JOB) or {}
            when = (f"its analysis, running in the background (about {job.get('percent') or 0:.0f}%), is finished"
                    if job.get("state") == "training" else
                    "its analysis, queued in the background, is finished" if job.get("state") == "queued" else
                    "'textqa qa analyse wikipedia' has run")
            return (f"default: Wikipedia and the news pool (Wikipedia's sentences are analysed when a question is "
                    f"asked until {when})")
        indexing = background.get(WIKIPEDIA_JOB) or {}
        if indexing.get("state") == "training":
            return (f"default: the news pool only for now; the 'wikipedia' collection is being indexed in the "
                    f"background (about {indexing.get('percent') or 0:.0f}%) and joins it when built")
        if indexing.get("state") == "queued":
            return ("default: the news pool only for now; the 'wikipedia' collection is queued for indexing in the "
                    "background and joins it when built")
        return ("default: the news pool only (the 'wikipedia' collection is not built yet; 'textqa qa index "
                "wikipedia' builds it)")

    def reader_status(self, background: dict | None = None) -> str:
        """Which reader ranks the answers, in a line (``/v1/models`` shows it); ``background``: the background
        jobs' states, for the answer reader's training while it is queued or running."""
        if self.instance is not None and self.instance.reader_ is not None:
            n = (self.manifest.get("metrics") or {}).get("reader", {}).get("questions")
            return ("the answer reader, trained by distant supervision" + (f" on {n:,} questions" if n else "")
                    + " (Lita & Carbonell 2008's merged strategies with redundancy features)")
        job = (background or {}).get(READER_JOB) or {}
        if job.get("state") == "training":
            return (f"the merged strategy score for now; the answer reader is being trained in the background "
                    f"(about {job.get('percent') or 0:.0f}%)")
        if job.get("state") == "queued":
            return "the merged strategy score for now; the answer reader is queued for training in the background"
        return ("the merged strategy score (this model has no answer reader: 'textqa train qa --collection default "
                "--reader-questions open' trains one)")

    def _described(self, name: str) -> dict:
        """:meth:`Collection.describe` of the collection ``name``; one that its checks refuse is described
        as refused, with the reason, so that it does not hide the others."""
        try:
            return self.collection(name).describe()
        except ArtifactError as e:
            return {"name": name, "documents": 0, "paragraphs": 0, "description": "", "created_at": None,
                    "refused": str(e)}

    def describe_collections(self) -> list[dict]:
        """Name, size and description of every collection this model can answer from; a collection its
        checks refuse carries ``refused``, the reason."""
        wiki = [self._described(WIKIPEDIA)] if self.has_wikipedia() else []
        pool = {"name": POOL_COLLECTION, "documents": 0, "paragraphs": len(self.index) if self.index else 0,
                "description": "the TrecQA sentence pool: 1990s newswire sentences (TREC QA data)", "created_at":
                self.manifest.get("created_at")}
        refused = [w["refused"] for w in wiki if "refused" in w]
        wiki = [w for w in wiki if "refused" not in w]
        out = [{"name": DEFAULT_COLLECTION, "documents": sum(w["documents"] for w in wiki),
                "paragraphs": sum(w["paragraphs"] for w in wiki) + pool["paragraphs"],
                "description": ("Wikipedia and the news pool" if wiki else
                                "the news pool only (no 'wikipedia' collection is built)"),
                "created_at": self.manifest.get("created_at"), **({"refused": refused[0]} if refused else {})}, pool]
        return out + [self._described(n) for n in self.collection_names()[2:]]

    def answer(self, questions: str | list[str], top_k: int = 5, collection: str | None = None) -> dict | list[dict]:
        """Answers of one question (a dict) or of a list of questions (a list of dicts): ``answers``
        (best first: ``answer``, ``score``, ``sentence`` as written, the answer's ``start`` and ``end``
        in it, its ``document`` {``id``, ``title``, ``url``}, ``clusters``), ``answer_type``,
        ``uiuc_type``, ``clusters`` and ``collection``.  ``collection``: a name of
        :meth:`collection_names`; None is ``"default"`` (Wikipedia, when built, and the news pool)."""
        if isinstance(questions, str):
            return self.answer([questions], top_k, collection)[0]
        if self.instance is None or self.index is None:
            raise ArtifactError("this QA artifact has no answering model (trained with --no-instance)")
        name = collection or DEFAULT_COLLECTION
        collections, pool = self.sources(name)
        docs = parse(questions)
        for i, (q, doc) in enumerate(zip(questions, docs)):
            if not keywords(doc):
                raise NoContentWords(q, i)
        fine, coarse = self.answer_types.classify(docs)
        if not getattr(self.instance, "uses_uiuc_", False):
            coarse = [None] * len(docs)
        out = []
        for q, doc, label, dist in zip(questions, docs, fine, coarse):
            deadline.check("between questions")          # a request past its deadline stops here
            source = QuestionSource(collections, pool, self.instance.paragraphs)
            res = self.instance.answer(doc, source, top_k, dist, label)
            defined = definition_answers(q, str(label), collections)
            if defined:                 # a definition question: the articles its subject names first
                res["answers"] = sorted(defined + res["answers"], key=lambda a: -a["score"])[:top_k]
            out.append({"question": q, "answers": res["answers"], "answer_type": res["answer_type"],
                        "uiuc_type": str(label), "clusters": res["clusters"], "collection": name})
        return out


def save_qa(answer_types, selector, dest, *, instance=None, index=None, metrics=None, data_fingerprint=None,
            extra=None, files=None) -> None:
    """Everything as data: JSON, ``.npz`` arrays (no objects) and the SQLite collection;
    ``files``: {name in the artifact: source path} copied in (the dev plots)."""

    hyper = {"answer_type_C": answer_types.C, "selection_C": selector.C}
    if instance is not None:
        hyper.update(min_cluster=instance.min_cluster, retrieve_k=instance.retrieve_k, extraction_C=instance.C,
                     query_content=instance.query_content, expansion=instance.expansion,
                     redundancy=instance.redundancy, answer_k=instance.answer_k,
                     sentence_ranker=instance.sentence_ranker, fine_type=instance.fine_type,
                     drop_restated=instance.drop_restated, fine_wordnet=instance.fine_wordnet,
                     paragraphs=instance.paragraphs, reader=instance.reader_ is not None)
    parts = {"answer_types": _answer_types_to_data(answer_types), "selector": _selector_to_data(selector)}
    if instance is not None:
        parts["instance"] = _instance_to_data(instance)
    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION, hyper_parameters=hyper, metrics=metrics,
                        data_fingerprint=data_fingerprint, extra=extra, files=files) as tmp:
        for name, (meta, arrays) in parts.items():
            # sorted keys: tables built from sets (idf) are written the same whatever the hash seed
            (tmp / f"{name}.json").write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True), encoding="utf-8")
            save_arrays(tmp / f"{name}.npz", arrays)
        if instance is not None:
            index.save(tmp / "index.sqlite")


def load_qa(path) -> QAModel:
    """Checksums are verified first; every payload is data (JSON, ``.npz`` without pickles, SQLite)."""

    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION,
                             min_format_version=MIN_FORMAT_VERSION)

    def part(name):
        return json.loads((path / f"{name}.json").read_text(encoding="utf-8")), load_arrays(path / f"{name}.npz")
    try:
        instance = _instance_from_data(*part("instance")) if (path / "instance.json").exists() else None
        index = SentenceIndex(path / "index.sqlite", read_only=True) if (path / "index.sqlite").exists() else None
        selector = _selector_from_data(*part("selector"))
        if instance is not None and instance.sentence_ranker:
            instance.selector = selector            # its scores are features of the extraction model
        return QAModel(_answer_types_from_data(*part("answer_types")), selector, instance, index, manifest,
                       collections_root=path.resolve().parent / "collections", cache=cache_dir())
    except ArtifactError:
        raise
    except Exception as e:
        raise ArtifactError(f"{path}: cannot read the QA model ({type(e).__name__}: {e})") from e


# ---------------------------------------------------------------------- data forms
def _answer_types_to_data(m) -> tuple[dict, dict]:
    return {"C": m.C, "n_features": m.n_features}, {**linear_to_arrays(m.fine_, "fine_"),
                                                     **linear_to_arrays(m.coarse_, "coarse_")}


def _answer_types_from_data(meta: dict, arrays: dict):
    from sklearn.svm import LinearSVC  # deferred: loads sklearn, scipy, joblib

    m = AnswerTypeClassifier(C=meta["C"], n_features=meta["n_features"])
    m.fine_ = linear_from_arrays(LinearSVC(C=m.C), arrays, "fine_")
    m.coarse_ = linear_from_arrays(LinearSVC(C=m.C), arrays, "coarse_")
    return m


def _selector_to_data(sel) -> tuple[dict, dict]:
    return ({"C": sel.C, "idf": sel.idf_, "default_idf": sel.default_idf_},
            {**linear_to_arrays(sel.model_, "model_"), **scaler_to_arrays(sel.scaler_, "scaler_")})


def _selector_from_data(meta: dict, arrays: dict):
    from sklearn.linear_model import LogisticRegression  # deferred: loads sklearn, scipy, joblib

    sel = SentenceSelector(C=meta["C"])
    sel.idf_ = {str(k): float(v) for k, v in meta["idf"].items()}
    sel.default_idf_ = float(meta["default_idf"])
    sel.scaler_ = scaler_from_arrays(arrays, "scaler_")
    sel.model_ = linear_from_arrays(LogisticRegression(C=sel.C), arrays, "model_")
    return sel


_INSTANCE_PARAMS = ("min_cluster", "retrieve_k", "C", "n_hash", "max_clusters", "query_content", "expansion",
                    "redundancy", "answer_k", "sentence_ranker", "fine_type", "drop_restated",
                    "fine_wordnet", "paragraphs")


def _instance_to_data(qa) -> tuple[dict, dict]:
    models = [qa.global_] + [qa.cluster_models_[f] for f in sorted(qa.cluster_models_)]
    arrays, described = {}, []
    for i, m in enumerate(models):
        described.append({"frame": m.frame, "members": list(m.members), "type_probs": m.type_probs,
                          "confidence": m.confidence, "expansions": list(m.expansions), "svm": m.svm is not None})
        if m.svm is not None:
            arrays.update(linear_to_arrays(m.svm, f"{i}|"))
    meta = {"params": {k: getattr(qa, k) for k in _INSTANCE_PARAMS}, "uses_uiuc": bool(qa.uses_uiuc_),
            "clusters": qa.clusters_, "q_type_dist": qa.q_type_dist_, "models": described}
    if qa.reader_ is not None:
        meta["reader"] = {"C": qa.reader_.C, "features": list(FEATURES)}
        arrays.update({**linear_to_arrays(qa.reader_.model_, "reader|"), **scaler_to_arrays(qa.reader_.scaler_,
                                                                                            "reader|scaler_")})
    return meta, arrays


def _instance_from_data(meta: dict, arrays: dict):
    from sklearn.svm import LinearSVC  # deferred: loads sklearn, scipy, joblib

    # artifacts from before these parameters: no redundancy term, answers from retrieve_k sentences,
    # no sentence-ranker columns, no fine-class feature, candidates restating the question kept
    qa = InstanceQA(**{"redundancy": 0.0, "answer_k": None, "sentence_ranker": False, "fine_type": False,
                       "drop_restated": False, "fine_wordnet": False, **meta["params"]})
    qa.uses_uiuc_ = bool(meta["uses_uiuc"])
    qa.clusters_ = {f: list(m) for f, m in meta["clusters"].items()}
    qa.q_type_dist_ = meta["q_type_dist"]
    models = []
    for i, d in enumerate(meta["models"]):
        m = ClusterModel(d["frame"], list(d["members"]), dict(d["type_probs"]), confidence=float(d["confidence"]),
                         expansions=list(d["expansions"]))
        if d["svm"]:
            m.svm = linear_from_arrays(LinearSVC(C=qa.C, class_weight="balanced"), arrays, f"{i}|")
        models.append(m)
    qa.global_ = models[0]
    qa.cluster_models_ = {m.frame: m for m in models[1:]}
    if "reader" in meta:
        from sklearn.linear_model import LogisticRegression  # deferred: loads sklearn, scipy, joblib
        if meta["reader"].get("features") != list(FEATURES):
            raise ArtifactError(f"the answer reader was trained on other features ({meta['reader'].get('features')}); "
                                f"retrain it with 'textqa train qa'")
        qa.reader_ = AnswerReader(C=float(meta["reader"]["C"]))
        qa.reader_.model_ = linear_from_arrays(LogisticRegression(C=qa.reader_.C), arrays, "reader|")
        qa.reader_.scaler_ = scaler_from_arrays(arrays, "reader|scaler_")
    return qa
