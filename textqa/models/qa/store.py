"""QA artifacts: answer-type classifier, sentence selector and instance-based system (joblib),
the retrieval collection (``index.sqlite``), with the manifest."""
from __future__ import annotations

from pathlib import Path

from ..artifact import ArtifactError, load_manifest, write_artifact

ARTIFACT_NAME = "qa"
MAX_QUESTION_WORDS = 200            # longer input is refused (CLI and HTTP)
FORMAT_VERSION = 1


class QAModel:
    """What ``textqa qa`` and the service use."""

    def __init__(self, answer_types, selector, instance=None, index=None, manifest: dict | None = None):
        self.answer_types, self.selector, self.instance, self.index = answer_types, selector, instance, index
        self.manifest = manifest or {}

    def with_more_text(self, items) -> "QAModel":
        """A copy whose collection also holds ``items`` (analysed sentences); the artifact is untouched."""
        from .index import SentenceIndex
        mem = SentenceIndex()
        self.index.db.backup(mem.db)
        mem.add_analysed(items, "added")
        return QAModel(self.answer_types, self.selector, self.instance, mem, self.manifest)

    def answer(self, questions: str | list[str], top_k: int = 5) -> dict | list[dict]:
        """Answers of one question (a dict) or of a list of questions (a list of dicts): ``answers``
        (best first: ``answer``, ``score``, ``sentence``, ``clusters``), ``answer_type``, ``uiuc_type``,
        ``clusters``."""
        if isinstance(questions, str):
            return self.answer([questions], top_k)[0]
        from .nlp import parse
        if self.instance is None or self.index is None:
            raise ArtifactError("this QA artifact has no answering model (trained with --no-instance)")
        docs = parse(questions)
        fine = self.answer_types.predict(docs)
        coarse = self.answer_types.distribution(docs) if getattr(self.instance, "uses_uiuc_", False) else \
            [None] * len(docs)
        out = []
        for q, doc, label, dist in zip(questions, docs, fine, coarse):
            res = self.instance.answer(doc, self.index, top_k, dist)
            out.append({"question": q, "answers": res["answers"], "answer_type": res["answer_type"],
                        "uiuc_type": str(label), "clusters": res["clusters"]})
        return out


def save_qa(answer_types, selector, dest, *, instance=None, index=None, metrics=None, data_fingerprint=None,
            extra=None) -> None:
    import joblib
    hyper = {"answer_type_C": answer_types.C, "selection_C": selector.C}
    if instance is not None:
        hyper.update(min_cluster=instance.min_cluster, retrieve_k=instance.retrieve_k, extraction_C=instance.C,
                     query_content=instance.query_content)
    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION, hyper_parameters=hyper, metrics=metrics,
                        data_fingerprint=data_fingerprint, extra=extra) as tmp:
        joblib.dump(answer_types, tmp / "answer_types.joblib", compress=3)
        joblib.dump(selector, tmp / "selector.joblib", compress=3)
        if instance is not None:
            joblib.dump(instance, tmp / "instance.joblib", compress=3)
            index.save(tmp / "index.sqlite")


def load_qa(path) -> QAModel:
    """Checksums are verified before the pickles are read."""
    import joblib

    from .index import SentenceIndex
    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION)
    try:
        instance = joblib.load(path / "instance.joblib") if (path / "instance.joblib").exists() else None
        index = SentenceIndex(path / "index.sqlite", read_only=True) if (path / "index.sqlite").exists() else None
        return QAModel(joblib.load(path / "answer_types.joblib"), joblib.load(path / "selector.joblib"),
                       instance, index, manifest)
    except Exception as e:
        raise ArtifactError(f"{path}: cannot read the QA model ({e})") from e
