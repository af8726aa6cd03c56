"""A collection analysed once at indexing (``textqa.models.qa.analysis``): the stored analysis gives the
reader what analysing at answer time gives, an interrupted analysis resumes to the same bytes, a Dask
cluster of two workers writes the same bytes as one process, and a tampered analysis is refused.
The text is real: the first articles of the bundled Wikipedia dump."""
import json
import os
import sqlite3

import pytest

from textqa.models.artifact import ArtifactError, sha256_file
from textqa.models.qa import analysis as A
from textqa.models.qa.passages import build_collection, load_collection

ARTICLES = 12


@pytest.fixture
def collection(tmp_path, wikipedia_slice):
    """An unanalysed collection of the first articles of the bundled dump."""
    folder = tmp_path / "collections" / "wiki"
    build_collection(folder, "wiki", [wikipedia_slice(ARTICLES)])
    return folder


def _rows(folder):
    db = sqlite3.connect(folder / A.ANALYSIS)
    try:
        return db.execute("SELECT paragraph, data FROM analysis ORDER BY paragraph").fetchall()
    finally:
        db.close()


def _paragraphs(folder):
    db = sqlite3.connect(folder / "passages.sqlite")
    try:
        return dict(db.execute("SELECT rowid, text FROM passages").fetchall())
    finally:
        db.close()


def test_the_stored_analysis_gives_the_candidates_of_an_analysis_at_answer_time(collection):
    A.analyse_collection(collection, n_process=1, progress=lambda done, total: None)
    paragraphs = _paragraphs(collection)
    rows = _rows(collection)
    assert [r for r, _ in rows] == sorted(paragraphs)                 # every paragraph, once
    n_cands = 0
    for rowid, data in rows:
        para = paragraphs[rowid]
        stored_spans, per = A.stored_sentences(data)
        stored = [A.sentence_of(para[a:b], c) for (a, b), c in zip(stored_spans, per)]
        spans = A.sentence_spans(para)
        assert [s.text for s in stored] == [para[a:b] for a, b in spans]
        now = [A.sentence_of(para[a:b], c) for (a, b), c in zip(spans, A.analyse_sentences([para[a:b] for a, b in spans]))]
        assert stored == now
        for s in stored:
            for c in s.candidates:      # a candidate is a run of whole tokens, its text the sentence's
                assert " ".join(s.tokens[c.start:c.end]).replace(" ", "") == c.text.replace(" ", "")
                assert s.text[s.offsets[c.start][0]:s.offsets[c.end - 1][1]] == c.text
            n_cands += len(s.candidates)
    assert n_cands > 500
    # the reader: the same sentences and candidates from the stored analysis as from analysing them now
    from textqa.models.qa.retrieval import QuestionSource
    analysed = load_collection(collection)
    assert analysed.analysis is not None and analysed.describe()["analysed"]
    fresh = load_collection(collection)
    fresh.analysis = None
    for question in (["Actrius", "directed"], ["Anarchism", "founded"], ["Albedo", "measure"]):
        a, b = QuestionSource([analysed]), QuestionSource([fresh])
        got, want = a.search(question, 10), b.search(question, 10)
        assert [t for _, t, _ in got] == [t for _, t, _ in want] and got
        assert [a.info(r) for r, _, _ in got] == [b.info(r) for r, _, _ in want]
        assert [a.provenance(r) for r, _, _ in got] == [b.provenance(r) for r, _, _ in want]


def test_an_interrupted_analysis_resumes_where_it_stopped(collection, tmp_path, monkeypatch, wikipedia_slice):
    monkeypatch.setattr(A, "CHUNK", 100)
    seen = []

    def stop_after_two(done, total):
        seen.append(done)
        if len(seen) == 2:
            raise KeyboardInterrupt            # Ctrl-C
    before = json.loads((collection / "manifest.json").read_text())
    with pytest.raises(KeyboardInterrupt):
        A.analyse_collection(collection, n_process=1, progress=stop_after_two)
    # nothing half-written in the collection: the manifest is as it was, no analysis file is listed
    assert json.loads((collection / "manifest.json").read_text()) == before
    assert not (collection / A.ANALYSIS).exists() and (collection / A.PARTIAL).exists()
    assert load_collection(collection).analysis is None
    done = []
    real = A.analyse_chunk
    monkeypatch.setattr(A, "analyse_chunk", lambda task: done.append(task[0]) or real(task))
    info = A.analyse_collection(collection, n_process=1, progress=lambda d, t: None)
    assert 0 not in done and 1 not in done and done       # the two committed chunks were not analysed again
    assert not (collection / A.PARTIAL).exists()
    manifest = json.loads((collection / "manifest.json").read_text())
    assert manifest["files"][A.ANALYSIS]["sha256"] == sha256_file(collection / A.ANALYSIS)
    assert manifest["analysis"]["sentences"] == info["sentences"] > 0
    # the same bytes as an analysis run in one go
    other = tmp_path / "again" / "wiki"
    build_collection(other, "wiki", [wikipedia_slice(ARTICLES)])
    A.analyse_collection(other, n_process=1, progress=lambda d, t: None)
    assert sha256_file(other / A.ANALYSIS) == sha256_file(collection / A.ANALYSIS)


def test_a_partial_analysis_of_another_index_is_started_again(collection, monkeypatch):
    monkeypatch.setattr(A, "CHUNK", 100)
    with pytest.raises(KeyboardInterrupt):
        A.analyse_collection(collection, n_process=1, progress=lambda d, t: (_ for _ in ()).throw(KeyboardInterrupt))
    db = sqlite3.connect(collection / A.PARTIAL)
    db.execute("UPDATE meta SET value = 'another' WHERE key = 'passages_sha256'")
    db.commit()
    db.close()
    done = []
    real = A.analyse_chunk
    monkeypatch.setattr(A, "analyse_chunk", lambda task: done.append(task[0]) or real(task))
    A.analyse_collection(collection, n_process=1, progress=lambda d, t: None)
    assert done[0] == 0


def test_a_two_worker_dask_cluster_writes_the_analysis_of_one_process(collection, tmp_path, wikipedia_slice,
                                                                      monkeypatch):
    from distributed import Client, LocalCluster
    monkeypatch.setattr(A, "CHUNK", 150)
    other = tmp_path / "cluster" / "wiki"
    build_collection(other, "wiki", [wikipedia_slice(ARTICLES)])
    A.analyse_collection(collection, n_process=1, progress=lambda d, t: None)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        A.analyse_collection(other, client=client, progress=lambda d, t: None)
        assert len(client.scheduler_info()["workers"]) == 2
    assert (other / A.ANALYSIS).read_bytes() == (collection / A.ANALYSIS).read_bytes()


def test_a_tampered_analysis_is_refused_naming_it(collection):
    A.analyse_collection(collection, n_process=1, progress=lambda d, t: None)
    path = collection / A.ANALYSIS
    st = os.stat(path)
    with open(path, "r+b") as f:
        f.seek(st.st_size // 2)
        byte = f.read(1)
        f.seek(st.st_size // 2)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(ArtifactError, match="analysis.sqlite.*checksum mismatch|checksum mismatch for analysis.sqlite"):
        load_collection(collection)


def test_stored_rows_are_checked_when_decoded():
    row = A.encode([(0, 10), (11, 30)], [[(0, 4, 5)], [(2, 6, 0)]])
    sents, cands = A.decode(row)
    assert sents.tolist() == [[0, 10], [11, 30]] and cands.tolist() == [[0, 0, 4, 5], [1, 2, 6, 0]]
    for bad in (row[:-1], row[:5], row + b"\0", A.encode([(0, 10)], [[(0, 4, 250)]])):
        with pytest.raises(ValueError):
            A.decode(bad)


def test_tokens_split_at_candidate_edges():
    text = "The U.S. has 2,102,650 residents (as of 2023)."
    toks, offs = A.tokens_of(text)
    assert toks == ["The", "U.S", ".", "has", "2,102,650", "residents", "(", "as", "of", "2023", ")", "."]
    assert all(text[a:b] == t for t, (a, b) in zip(toks, offs))
    s = A.sentence_of(text, [(4, 8, 7), (13, 22, 3)])        # "U.S." (a location), the number
    assert [(c.text, s.tokens[c.start:c.end]) for c in s.candidates] == [("U.S.", ["U.S", "."]),
                                                                          ("2,102,650", ["2,102,650"])]


def test_the_answer_time_cache_keeps_what_it_is_asked_for(monkeypatch):
    """A full cache evicts the least recently used sentences, never one of those asked for now."""
    from textqa.models.qa import retrieval
    monkeypatch.setattr(retrieval, "ANALYSIS_CACHE", 3)
    monkeypatch.setattr(retrieval, "_ANALYSED", retrieval.OrderedDict())
    monkeypatch.setattr(retrieval, "analyse_sentences", lambda texts, batch: [[(0, len(t), 0)] for t in texts])
    assert retrieval.analysed(["a", "bb", "ccc"]) == [[(0, 1, 0)], [(0, 2, 0)], [(0, 3, 0)]]
    # "a" is the oldest; asked for again with two new sentences, it stays and "bb", "ccc" go
    assert retrieval.analysed(["a", "dddd", "eeeee"]) == [[(0, 1, 0)], [(0, 4, 0)], [(0, 5, 0)]]
    assert list(retrieval._ANALYSED) == ["a", "dddd", "eeeee"]
