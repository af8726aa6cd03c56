"""SQLite FTS5 sentence index (BM25)."""
from models.qa.index import SentenceIndex, fts5_available


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
