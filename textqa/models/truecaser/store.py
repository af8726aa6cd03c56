"""The truecaser's artifact: saving a fitted model and loading it back without running code."""
from __future__ import annotations

import gzip
import io
import json
import logging
import shutil
from functools import partial
from pathlib import Path

import kenlm

from textqa.runtime.gc_pause import gc_paused
from textqa.runtime.gc_pause import promote_to_oldest_generation as _promote_to_oldest_generation

from .baseline import CasingTable, UnigramTruecaser
from .classes import WordClasses
from .compounds import parts_from_data
from .context import SentenceContext
from .model import Truecaser
from .native_search import table_inputs
from .oov import oov_from_data, oov_to_data
from .phrases import PhraseTable
from .rerank import CandidateWeights

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------- persistence
FORMAT_VERSION = 10           # 10: the phrase table's per-position counts as arrays (phrases.npz), not entry strings; 9: + search.npz (the C++ search's inputs of every casing form and word, read at load, not made); 8: the phrase table and the casing forms as arrays (phrases.npz, casing.npz), the JSON tables gzipped; 7: + context.json/.npz (the sentence-context model, when trained with one), baseline.json.gz for baseline.json; 6: + the fold_accents hyper-parameter; 5: + discriminative.json (when trained with one); 4: + the compound part table in casing.json; 3: + phrases.json; 2: the OOV model as JSON + .npz (1 pickled it with joblib)

MIN_FORMAT_VERSION = 2

BASELINE_FILE = "baseline.json.gz"
SEARCH_FILE = "search.npz"
#: The phrase table's arrays stored deflated (the others hardly shrink)
PHRASES_DEFLATED = frozenset({"words", "extra_forms", "search_index", "totals", "pos_n", "pos_forms", "pos_counts"})

ARTIFACT_NAME = "truecaser"

def save_truecaser(model: Truecaser, dest, *, punkt_dir, metrics: dict | None = None,
                   data_fingerprint: str | None = None, extra: dict | None = None, files: dict | None = None) -> None:
    """Write a fitted ``Truecaser``, its unigram baseline and its sentence splitter's tables
    (``punkt_dir``, Punkt ``punkt_tab/english``) as one self-contained artifact directory;
    ``files``: {name in the artifact: source path} copied in (the dev plots)."""

    from ..artifact import save_arrays, write_artifact  # deferred: loads orjson

    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION, hyper_parameters=model.get_params(),
                        metrics=metrics, data_fingerprint=data_fingerprint,
                        extra={"lm": model.lm_info_, "ngram_counts": model.ngram_counts_,
                               "training_tokens": model.n_train_tokens_, **(extra or {})}, files=files) as tmp:
        lm_name = "lm.binary" if model.lm_path_.endswith(".binary") else "lm.arpa"
        shutil.copyfile(model.lm_path_, tmp / lm_name)
        _write_json_gz(tmp / "casing.json.gz", {"rare_mc": model.rare_mc_, "compound_parts": model.compound_parts_})
        # (the word index's hashes, which do not shrink, stored as they are)
        save_arrays(tmp / "casing.npz", model.casing_.to_arrays(), compress=frozenset({"words", "forms", "counts", "off"}))
        _write_json_gz(tmp / BASELINE_FILE, model.baseline_.best_)
        if model.oov_ is not None:
            meta, arrays = oov_to_data(model.oov_)
            (tmp / "oov.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
            save_arrays(tmp / "oov.npz", arrays)
        if model.reranker_ is not None:
            (tmp / "discriminative.json").write_text(json.dumps(model.reranker_.to_data(), ensure_ascii=False),
                                                     encoding="utf-8")
        if model.context_ is not None:
            meta, arrays = model.context_.to_data()
            _write_json_gz(tmp / "context.json.gz", meta)
            save_arrays(tmp / "context.npz", arrays, compress=frozenset({"bucket_counts", "words", "column_places"}))
            # (the text, and the numbers that shrink several times: the counts are mostly 0 and 1)
        if model.classes_ is not None:
            shutil.copyfile(model.class_lm_path_,
                            tmp / ("class_lm.binary" if model.class_lm_path_.endswith(".binary") else "class_lm.arpa"))
            meta, arrays = model.classes_.to_data()
            _write_json_gz(tmp / "classes.json.gz", meta)
            save_arrays(tmp / "classes.npz", arrays, compress=True)
        if model.phrases_ is not None:
            meta, arrays = model.phrases_.to_arrays(model.casing_.arrays()[1])
            (tmp / "phrases.json").write_text(json.dumps(meta), encoding="utf-8")
            # the text and the counts deflated; the numbers that hardly shrink stored as they are: read
            # without inflating
            save_arrays(tmp / "phrases.npz", arrays, compress=PHRASES_DEFLATED)
        inputs = _search_inputs(model)
        if inputs is not None:
            save_arrays(tmp / SEARCH_FILE, inputs, compress=True)
        shutil.copytree(punkt_dir, tmp / "punkt")


def _search_inputs(model: Truecaser) -> dict | None:
    """The C++ search's inputs of the model's casing table (:func:`.native_search.table_inputs`), or
    None when the search's library is not built (a load then makes them, as it does for format 8)."""
    decoder = model.native_decoder()
    if decoder is None:
        log.warning("the C++ search is not built: the artifact stores no search inputs (%s), so each load "
                    "makes them (slower; run make and retrain to store them)", SEARCH_FILE)
        return None
    return table_inputs(model, decoder)

def _write_json_gz(path: Path, value) -> None:
    """``value`` as gzipped JSON, with no name or time in the gzip header (the same model, the same
    bytes): the truecaser's tables shrink three to four times and read back in a few hundredths of
    a second more."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as z, \
            io.TextIOWrapper(z, encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)


def _json_file(path: Path, name: str) -> Path:
    """``name`` gzipped (format 8) or not (earlier formats), whichever the artifact holds."""
    gz = path / (name + ".gz")
    return gz if gz.exists() else path / name


def _read_baseline(path: Path, manifest: dict) -> dict[str, str]:
    """The unigram baseline's table of a loaded artifact, read when first used; its checksum is checked
    again, since the artifact was verified at load time and is read only now."""

    from ..artifact import ArtifactError, verify_payload  # deferred: loads orjson

    name = BASELINE_FILE if BASELINE_FILE in manifest.get("files", {}) else "baseline.json"   # format <= 6
    verify_payload(path, manifest, name)
    p = path / name
    try:
        with (gzip.open(p, "rt", encoding="utf-8") if name.endswith(".gz") else open(p, encoding="utf-8")) as f:
            best = json.load(f)
    except (OSError, ValueError) as e:
        raise ArtifactError(f"{p}: cannot read the baseline table ({e})") from e
    if not isinstance(best, dict):
        raise ArtifactError(f"{p}: the baseline table is not a JSON object")
    return best

def load_truecaser(path) -> Truecaser:
    """Load a ``Truecaser`` artifact, verifying every checksum before reading payloads.  The cyclic
    garbage collector is paused meanwhile: the tables are millions of small lists and strings without
    cycles, and the collections their allocation would trigger cost a large share of the load
    (docs/experiments/truecaser.md, "Speed, memory and load time").  Before the collector resumes, the
    model's objects are moved to its oldest generation (``_promote_to_oldest_generation``)."""
    with gc_paused():
        model = _load_truecaser(path)
        _promote_to_oldest_generation()
    return model

def _load_truecaser(path) -> Truecaser:
    from ..artifact import load_arrays, load_manifest, read_json  # deferred: loads orjson

    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION,
                             min_format_version=MIN_FORMAT_VERSION)
    params = manifest["hyper_parameters"]
    params["work_dir"] = None
    lm_file = path / ("lm.binary" if (path / "lm.binary").exists() else "lm.arpa")
    casing = read_json(_json_file(path, "casing.json"))
    t = {"lm_path_": str(lm_file), "lm_": kenlm.Model(str(lm_file)), "lm_info_": manifest.get("lm", {}),
         "ngram_counts_": manifest.get("ngram_counts", {}), "n_train_tokens_": manifest.get("training_tokens", 0),
         "rare_mc_": casing["rare_mc"], "manifest_": manifest}
    # format 8: the forms as arrays; before, [form, count] pairs in the JSON, read as they are stored
    t["casing_"] = _read(path, "the casing table", lambda: CasingTable(casing["forms"]) if "forms" in casing else
                         CasingTable.from_arrays(load_arrays(path / "casing.npz")))
    # format 3 has no compound part table: compounds render as UC
    t["compound_parts_"] = _read(_json_file(path, "casing.json"), "the compound part table", lambda: parts_from_data(
        casing["compound_parts"]) if "compound_parts" in casing else None)
    t["baseline_"] = UnigramTruecaser.read_on_use(partial(_read_baseline, path, manifest))
    t["oov_"] = _read(path, "the OOV model", lambda: oov_from_data(
        read_json(path / "oov.json"), load_arrays(path / "oov.npz")) if (path / "oov.json").exists() else None)
    t["phrases_"] = _read(path, "the phrase table", lambda: _read_phrases(path, read_json, load_arrays, t["casing_"]))
    if _json_file(path, "classes.json").exists():
        class_lm = path / ("class_lm.binary" if (path / "class_lm.binary").exists() else "class_lm.arpa")
        t["classes_"] = _read(path, "the class LM", lambda: WordClasses.from_data(
            read_json(_json_file(path, "classes.json")), load_arrays(path / "classes.npz")))
        t["class_lm_path_"] = str(class_lm)
        t["class_lm_"] = _read(path, "the class LM", lambda: kenlm.Model(str(class_lm)))
    t["reranker_"] = _read(path / "discriminative.json", "the discriminative weights", lambda: CandidateWeights.from_data(
        read_json(path / "discriminative.json")) if (path / "discriminative.json").exists() else None)
    t["context_"] = _read(path, "the sentence-context model", lambda: SentenceContext.from_data(
        read_json(_json_file(path, "context.json")), load_arrays(path / "context.npz"))
        if _json_file(path, "context.json").exists() else None)
    # format 9 (made by the C++ search at saving; checked against the tables and the LM when first used)
    t["search_inputs_"] = _read(path, "the search inputs", lambda: load_arrays(path / SEARCH_FILE)
                                if (path / SEARCH_FILE).exists() else None)
    if manifest["format_version"] < FORMAT_VERSION:
        log.warning("%s: format %s stores %s: each load makes them (the same output, a slower start); retrain it "
                    "with 'textqa train truecaser' to store them", path, manifest["format_version"],
                    "the phrase counts as strings" if manifest["format_version"] == 9 else "no indexes")
    return Truecaser.from_tables(params, **t)


def _read(where: Path, what: str, read):
    """``read()``; a payload it cannot read is an ``ArtifactError`` naming ``where`` and ``what``."""
    from ..artifact import ArtifactError  # deferred: loads orjson
    try:
        return read()
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ArtifactError(f"{where}: cannot read {what} ({e})") from e


def _read_phrases(path: Path, read_json, load_arrays, casing: CasingTable) -> PhraseTable | None:
    """The phrase table, as arrays (format 8; per-position counts from format 10) or JSON (format <= 7),
    or None (trained without one)."""
    if not (path / "phrases.json").exists():
        return None
    meta = read_json(path / "phrases.json")
    if isinstance(meta, dict) and isinstance(meta.get("phrases"), dict):
        return PhraseTable.from_data(meta)
    return PhraseTable.from_arrays(meta, load_arrays(path / "phrases.npz"), casing.arrays()[1])
