"""The bundled WordNet 3.0 (textqa.runtime.wordnet): unpacked safely into the cache, read by NLTK's reader."""
import io
import tarfile

import pytest

from textqa.runtime import wordnet


def test_bundled_wordnet_is_princetons_3_0(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTQA_CACHE", str(tmp_path))
    wordnet.wordnet.cache_clear()
    try:
        wn = wordnet.wordnet()
        assert (tmp_path / "nltk_data" / "corpora" / "wordnet" / "data.noun").is_file()
        assert wn.get_version() == "3.0"
        dog, cat = wn.synset("dog.n.01"), wn.synset("cat.n.01")
        assert {h.name() for h in dog.hypernyms()} == {"canine.n.02", "domestic_animal.n.01"}
        assert dog.path_similarity(cat) == pytest.approx(0.2)          # NLTK's documented value for 3.0
        assert "chromatic_color.n.01" in {h.name() for h in wn.synset("color.n.01").hyponyms()}
        assert wn.morphy("geese") == "goose" and wn.morphy("ran", "v") == "run"
        assert "nominal" in {l.name() for s in wn.synsets("nominal") for l in s.lemmas()}
        assert wn.synset("viscosity.n.01").definition().startswith("resistance of a liquid to shear forces")
        # the index, exception and lexname files read as plain text files give NLTK's own reader's maps
        import warnings

        from nltk.corpus.reader.wordnet import WordNetCorpusReader
        class Plain(WordNetCorpusReader):             # NLTK's reader, but for the missing index.sense
            def map_wn(self, version="wordnet"):
                return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            plain = Plain(str(tmp_path / "nltk_data" / "corpora" / "wordnet"), None)
        assert type(wn).open is not WordNetCorpusReader.open and len(wn._lemma_pos_offset_map) > 140_000
        assert wn._lemma_pos_offset_map == plain._lemma_pos_offset_map
        assert wn._exception_map == plain._exception_map and wn._lexnames == plain._lexnames
        _check_the_stored_lemma_index(tmp_path / "nltk_data" / "corpora" / "wordnet", plain, monkeypatch)
    finally:
        wordnet.wordnet.cache_clear()


def _check_the_stored_lemma_index(folder, plain, monkeypatch):
    """The first reader stored its parsed lemma index (``LEMMA_MAP``); the next reader reads it back
    without parsing, the same map (the adjective satellites' "s" entries included); a damaged store,
    or index files changed since, are parsed again and the store replaced."""
    import os

    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    stored = folder / wordnet.LEMMA_MAP
    assert stored.is_file()
    parses = []
    parse = WordNetCorpusReader._load_lemma_pos_offset_map
    monkeypatch.setattr(WordNetCorpusReader, "_load_lemma_pos_offset_map", lambda self: parses.append(1) or parse(self))
    wn = wordnet.reader(folder)
    assert parses == [] and wn._lemma_pos_offset_map == plain._lemma_pos_offset_map
    assert wn._lemma_pos_offset_map["fast"]["s"] and [s.name() for s in wn.synsets("fast", "s")][:1] == ["fast.s.01"]
    data = bytearray(stored.read_bytes())
    data[-20] ^= 1                                   # one bit of the index flipped
    stored.write_bytes(bytes(data))
    wn = wordnet.reader(folder)
    assert parses == [1] and wn._lemma_pos_offset_map == plain._lemma_pos_offset_map
    assert wordnet.reader(folder)._lemma_pos_offset_map == plain._lemma_pos_offset_map and parses == [1]  # replaced
    st = (folder / "index.adv").stat()
    os.utime(folder / "index.adv", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))        # an index file changed
    assert wordnet.reader(folder)._lemma_pos_offset_map == plain._lemma_pos_offset_map and parses == [1, 1]
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]               # no temporary file left


def _tar(path, members):
    with tarfile.open(path, "w:xz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_synsets_read_from_many_threads_are_the_ones_read_from_one():
    """A server's threads share the reader, whose data files NLTK seeks into: every synset read
    by four threads at once is the one a fresh reader reads alone (unlocked, the threads read each
    other's lines and raise, or return wrong synsets)."""
    import threading

    folder = wordnet.wordnet().root.path
    lemmas = sorted(wordnet.wordnet()._lemma_pos_offset_map)[::60]
    alone = wordnet.reader(folder)
    expected = {lemma: [s.name() for s in alone.synsets(lemma)] for lemma in lemmas}
    shared, got, failed = wordnet.reader(folder), {}, []

    def read(part):
        try:
            for lemma in part:
                got[lemma] = [s.name() for s in shared.synsets(lemma)]
        except Exception as e:  # noqa: BLE001 (any failure is the finding)
            failed.append(repr(e))
    threads = [threading.Thread(target=read, args=(lemmas[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failed and got == expected and len(expected) > 2000


def test_unsafe_or_incomplete_archives_write_nothing_outside(tmp_path):
    bad = tmp_path / "bad.tar.xz"
    _tar(bad, [("wordnet/../../escaped", b"x")])
    root = tmp_path / "root"
    with pytest.raises(wordnet.WordNetUnavailable, match="cannot unpack"):
        wordnet.unpack_wordnet(bad, root)
    assert not (tmp_path / "escaped").exists() and not (root / "escaped").exists()
    assert not (root / "corpora" / "wordnet").exists()
    partial = tmp_path / "partial.tar.xz"
    _tar(partial, [("wordnet/data.noun", b"")])
    with pytest.raises(wordnet.WordNetUnavailable, match="not a WordNet database"):
        wordnet.unpack_wordnet(partial, root)
    assert not (root / "corpora" / "wordnet").exists()
    assert list((root / "corpora").iterdir()) == []               # no temporary folder left behind
    with pytest.raises(wordnet.WordNetUnavailable, match="not found"):
        wordnet.unpack_wordnet(tmp_path / "nowhere.tar.xz", root)


def test_wordnet_features_of_the_sentence_ranker():
    from textqa.models.qa.selection import FEATURES, pair_features
    from textqa.models.qa.trecqa import Sentence

    def feats(q, c):
        f = pair_features(Sentence(q.split()), Sentence(c.split()), {}, {}, 1.0)
        assert len(f) == len(FEATURES)
        return dict(zip(FEATURES, f))
    # question content words: longest, river, united, states (idf 1 each): river -> Mississippi, an instance
    f = feats("What is the longest river in the United States ?", "the Mississippi is the longest in the United States")
    assert f["wn_hyper_hyponym"] == pytest.approx(1 / 4) and f["wn_synonym"] == 0
    f = feats("Who makes the automobile ?", "the car is made in Detroit")
    assert f["wn_synonym"] == pytest.approx(1 / 2)                       # automobile = car; makes ~ made (base form)
    f = feats("Who invented the telephone ?", "Bell , the inventor of the telephone")
    assert f["wn_derived"] == pytest.approx(1 / 2) and f["wn_synonym"] == 0
    assert feats("Which is the largest planet ?", "the smallest planet is Mercury")["wn_antonym"] == 1.0
    f = feats("Where are geese found ?", "a goose lives near water")        # a base form is a match, not a relation
    assert f["wn_synonym"] == f["wn_hyper_hyponym"] == f["wn_derived"] == 0


def test_wordnet_type_check_of_answer_candidates():
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.system import focus_of, wordnet_type_match
    assert wordnet_type_match("river", "Mississippi") == 1.0          # an instance of river
    assert wordnet_type_match("color", "red") == 1.0                   # a kind of color
    assert wordnet_type_match("city", "New York City") == 1.0          # multiword lemma
    assert wordnet_type_match("city", "Mississippi") == 0.0
    assert wordnet_type_match(None, "Paris") == 0.0 and wordnet_type_match("city", "") == 0.0
    docs = parse(["What river flows through Cairo?", "Which color is the sky?", "Who wrote Hamlet?"])
    assert [focus_of(d) for d in docs] == ["river", "color", None]
