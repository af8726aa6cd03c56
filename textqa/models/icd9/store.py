"""ICD-9 coder artifacts: the fitted coder as data (``coder.json`` + ``coder.npz``, no pickle) and code
descriptions, with the manifest."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..artifact import ArtifactError, load_arrays, load_manifest, save_arrays, write_artifact
from .coder import ICD9Coder

ARTIFACT_NAME = "icd9"
FORMAT_VERSION = 3            # 3: index-term features, hypothetical and pseudo-negation triggers
MIN_FORMAT_VERSION = 3        # (2 read the same files, but its features came from other triggers:
                              # its models would see different features, so it is refused); 1 pickled
_ARRAYS = ("features", "phi", "weights")
_OPTIONAL_ARRAYS = ("var_basis", "var_share")      # BRR posterior (models trained since the review flag)


def save_coder(coder: ICD9Coder, dest, *, descriptions: dict, metrics: dict | None = None,
               data_fingerprint: str | None = None, extra: dict | None = None, files: dict | None = None) -> None:
    """``files``: {name in the artifact: source path} copied in (e.g. ROC plots)."""
    known = {c: descriptions.get(c) for c in list(coder.codes_) + list(coder.unpredicted_codes_)}
    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION, hyper_parameters=coder.get_params(), metrics=metrics,
                        data_fingerprint=data_fingerprint,
                        extra={"codes": coder.codes_, "unpredicted_codes": coder.unpredicted_codes_,
                               "classifiers": list(coder.models_), **(extra or {})}, files=files) as tmp:
        meta, arrays = _coder_to_data(coder)
        (tmp / "coder.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        save_arrays(tmp / "coder.npz", arrays)
        (tmp / "descriptions.json").write_text(json.dumps(known, indent=1, sort_keys=True), encoding="utf-8")


def load_coder(path) -> ICD9Coder:
    """The coder of an artifact (checksums verified first; data files only); ``coder.manifest``
    and ``coder.descriptions`` are attached."""
    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION,
                             min_format_version=MIN_FORMAT_VERSION)
    try:
        coder = _coder_from_data(json.loads((path / "coder.json").read_text(encoding="utf-8")),
                                 load_arrays(path / "coder.npz"))
        descriptions = json.loads((path / "descriptions.json").read_text(encoding="utf-8"))
    except Exception as e:  # corrupt despite a matching checksum: say which file
        raise ArtifactError(f"{path}: cannot read the coder ({e})") from e
    coder.manifest, coder.descriptions = manifest, descriptions
    coder.n_jobs = 1
    return coder


def _coder_to_data(coder: ICD9Coder) -> tuple[dict, dict]:
    vocabulary = sorted(coder.vocabulary_, key=coder.vocabulary_.get)
    models, arrays = {}, {}
    for clf, per_code in coder.models_.items():
        models[clf] = {}
        for code, m in per_code.items():
            models[clf][code] = {k: float(v) for k, v in m.items() if k not in _ARRAYS + _OPTIONAL_ARRAYS}
            for k in _ARRAYS + _OPTIONAL_ARRAYS:
                if k in m:
                    arrays[f"{clf}|{code}|{k}"] = np.asarray(m[k])
    meta = {"params": coder.get_params(), "stopwords": sorted(coder.stopwords), "vocabulary": vocabulary,
            "codes": list(coder.codes_), "unpredicted_codes": coder.unpredicted_codes_,
            "code_counts": coder.code_counts_, "suppress": coder.suppress_, "exclusive": coder.exclusive_,
            "cap": coder.cap_, "models": models}
    return meta, arrays


def _coder_from_data(meta: dict, arrays: dict) -> ICD9Coder:
    coder = ICD9Coder(**meta["params"], stopwords=frozenset(meta["stopwords"]))
    coder.vocabulary_ = {f: i for i, f in enumerate(meta["vocabulary"])}
    coder.codes_ = list(meta["codes"])
    coder.unpredicted_codes_ = dict(meta["unpredicted_codes"])
    coder.code_counts_ = dict(meta["code_counts"])
    coder.suppress_ = {str(k): [str(d) for d in v] for k, v in meta.get("suppress", {}).items()}
    coder.exclusive_ = {str(k): [str(d) for d in v] for k, v in meta.get("exclusive", {}).items()}
    coder.cap_ = int(meta.get("cap", 0))
    V = len(coder.vocabulary_)
    coder.models_ = {}
    for clf, per_code in meta["models"].items():
        coder.models_[clf] = {}
        for code in coder.codes_:
            m = dict(per_code[code])
            for k in _ARRAYS:
                m[k] = arrays[f"{clf}|{code}|{k}"]
            for k in _OPTIONAL_ARRAYS:
                if f"{clf}|{code}|{k}" in arrays:
                    m[k] = arrays[f"{clf}|{code}|{k}"]
            if "var_basis" in m and (m["var_basis"].ndim != 2 or m["var_basis"].shape[0] != len(m["features"])
                                     or m["var_basis"].shape[1] != len(m.get("var_share", ()))):
                raise ValueError(f"posterior of code {code} ({clf}) does not fit its features")
            m["features"] = m["features"].astype(np.int32)
            if len(m["features"]) and (m["features"].min() < 0 or m["features"].max() >= V) or \
                    not len(m["features"]) == len(m["phi"]) == len(m["weights"]):
                raise ValueError(f"model of code {code} ({clf}) does not fit the vocabulary")
            coder.models_[clf][code] = m
    return coder
