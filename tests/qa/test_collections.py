"""Named collections: ``textqa qa index`` over a folder of real documents (Wikipedia articles from the
bundled dump, written out as .txt/.md/.html files), answering from it with the document named, a
rebuild after the folder changes, and the errors of bad input."""
import io
import itertools
import json
import sys

import pytest

import textqa
from textqa.cli import main
from textqa.models.qa.documents import documents, wikiextractor_documents
from textqa.runtime.paths import DATA_DIR

ARTICLES = ("Actrius", "Animalia (book)", "Allan Dwan")


@pytest.fixture(scope="module")
def articles():
    found = {d.title: d for d in itertools.islice(wikiextractor_documents(DATA_DIR / "truecase" /
                                                                          "enwiki_prefix.txt.xz"), 40)
             if d.title in ARTICLES}
    assert set(found) == set(ARTICLES)
    return found


def write_folder(folder, articles):
    """The three articles as a user's files: plain text, Markdown and HTML."""
    folder.mkdir(exist_ok=True)
    a, b, c = (articles[t] for t in ARTICLES)
    (folder / "actrius.txt").write_text("\n\n".join(a.paragraphs) + "\n", encoding="utf-8")
    (folder / "animalia.md").write_text(f"# {b.title}\n\n" + "\n\n".join(b.paragraphs) + "\n", encoding="utf-8")
    (folder / "dwan.html").write_text(f"<html><head><title>{c.title}</title><script>var x = 1;</script></head>"
                                      "<body>" + "".join(f"<p>{p}</p>" for p in c.paragraphs) + "</body></html>",
                                      encoding="utf-8")


def _ask(root, question, capsys, monkeypatch, *extra):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(question.encode() + b"\n")))
    assert main(["qa", "answer", "--model", str(root / "qa"), *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_documents_from_a_folder(articles, tmp_path):
    write_folder(tmp_path / "docs", articles)
    got = {d.id: d for d in documents([tmp_path / "docs"])}
    assert set(got) == {"actrius.txt", "animalia.md", "dwan.html"}
    assert got["animalia.md"].title == "Animalia (book)" and got["dwan.html"].title == "Allan Dwan"
    assert got["dwan.html"].paragraphs == articles["Allan Dwan"].paragraphs        # no script, no markup
    assert got["actrius.txt"].paragraphs == articles["Actrius"].paragraphs


def test_index_answer_rebuild(qa_artifact, copy_root, articles, tmp_path, capsys, monkeypatch):
    root = copy_root(qa_artifact)
    folder = tmp_path / "docs"
    write_folder(folder, articles)
    assert main(["qa", "index", "films", str(folder), "--artifacts", str(root)]) == 0
    assert "3 documents" in capsys.readouterr().err
    res = _ask(root, "Who directed Actrius?", capsys, monkeypatch, "--collection", "films")
    top = res["answers"][0]
    assert res["collection"] == "films" and top["answer"] == "Ventura Pons", res["answers"][:3]
    assert top["document"]["id"] == "actrius.txt" and top["document"]["collection"] == "films"
    assert top["sentence"][top["start"]:top["end"]] == "Ventura Pons" and "1996 film" in top["sentence"]
    # the default collection (no Wikipedia built here: the news pool) does not know the answer
    assert "Ventura Pons" not in [a["answer"] for a in _ask(root, "Who directed Actrius?", capsys, monkeypatch)
                                  ["answers"]]
    # the user edits their document (a change made by this test, not a fact) and rebuilds
    text = (folder / "actrius.txt").read_text(encoding="utf-8")
    (folder / "actrius.txt").write_text(text.replace("Ventura Pons", "Luis Buñuel"), encoding="utf-8")
    assert main(["qa", "index", "films", str(folder), "--artifacts", str(root)]) == 0
    capsys.readouterr()
    top = _ask(root, "Who directed Actrius?", capsys, monkeypatch, "--collection", "films")["answers"][0]
    assert top["answer"] == "Luis Buñuel" and top["document"]["title"] == "actrius"
    # the same through textqa.load and over the list of collections
    model = textqa.load(str(root / "qa"))
    assert model.answer("Who directed Actrius?", collection="films")["answers"][0]["answer"] == "Luis Buñuel"
    names = [c["name"] for c in model.describe_collections()]
    assert names == ["default", "pool", "films"]


def test_index_errors_leave_nothing_half_written(qa_artifact, copy_root, articles, tmp_path, capsys):
    root = copy_root(qa_artifact)
    folder = tmp_path / "docs"
    write_folder(folder, articles)
    assert main(["qa", "index", "films", str(folder), "--artifacts", str(root)]) == 0
    before = sorted(p.name for p in (root / "collections" / "films").iterdir())
    (folder / "broken.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    assert main(["qa", "index", "films", str(folder), "--artifacts", str(root)]) == 2
    err = capsys.readouterr().err
    assert "broken.txt" in err and ("not UTF-8" in err or "binary" in err), err
    assert sorted(p.name for p in (root / "collections" / "films").iterdir()) == before
    assert not [p for p in (root / "collections").iterdir() if p.name.startswith(".")]
    for bad in ("../x", "a/b", ".hidden", ""):
        assert main(["qa", "index", bad, str(folder), "--artifacts", str(root)]) == 2
        assert "collection name" in capsys.readouterr().err


def test_a_tampered_collection_is_refused(qa_artifact, copy_root, articles, tmp_path, capsys, monkeypatch):
    root = copy_root(qa_artifact)
    write_folder(tmp_path / "docs", articles)
    assert main(["qa", "index", "films", str(tmp_path / "docs"), "--artifacts", str(root)]) == 0
    capsys.readouterr()
    with open(root / "collections" / "films" / "passages.sqlite", "ab") as f:
        f.write(b"tampered")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Who directed Actrius?\n")))
    assert main(["qa", "answer", "--model", str(root / "qa"), "--collection", "films"]) == 2
    err = capsys.readouterr().err
    assert "passages.sqlite" in err and "checksum mismatch" in err, err


def test_unknown_collection(qa_artifact, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Who?\n")))
    assert main(["qa", "answer", "--model", str(qa_artifact / "qa"), "--collection", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown collection 'nosuch'" in err and "default, pool" in err


def test_http_collections(service_artifacts, copy_root):
    from textqa.service import create_app
    c = create_app(service_artifacts, {"TEXTQA_MODELS": ["qa"]}).test_client()
    assert c.get("/v1/models").get_json()["models"]["qa"]["collection"] == (
        "default: Wikipedia and the news pool (Wikipedia analysed at indexing: its sentences and candidates are read "
        "from storage)")
    listed = c.get("/v1/qa/collections").get_json()
    assert listed["default"] == "default" and [x["name"] for x in listed["collections"]] == ["default", "pool",
                                                                                            "wikipedia"]
    wiki = listed["collections"][2]
    assert 250 < wiki["documents"] <= 300 and wiki["paragraphs"] > 1000          # articles with paragraphs
    assert wiki["analysed"] is True and "refused" not in wiki
    r = c.post("/v1/qa/answer", json={"question": "Who directed Actrius?", "collection": "wikipedia"})
    top = r.get_json()["answers"][0]
    assert r.status_code == 200 and top["document"]["url"] == "http://en.wikipedia.org/wiki?curid=330", top
    r = c.post("/v1/qa/answer", json={"question": "Who directed Actrius?", "collection": "nosuch"})
    err = r.get_json()["error"]
    assert r.status_code == 404 and err["code"] == "unknown_collection" and "default, pool, wikipedia" in err["message"]
    for bad in ("../qa", "", "a" * 65):
        r = c.post("/v1/qa/answer", json={"question": "Who?", "collection": bad})
        assert r.status_code == 422 and r.get_json()["error"]["field"] == "collection"
    # before the Wikipedia collection is built, the default collection is the news pool, and says so
    root = copy_root(service_artifacts)
    import shutil
    shutil.rmtree(root / "collections")
    c = create_app(root, {"TEXTQA_MODELS": ["qa"]}).test_client()
    assert "news pool only" in c.get("/v1/models").get_json()["models"]["qa"]["collection"]
    r = c.post("/v1/qa/answer", json={"question": "Who directed Actrius?"})
    assert r.status_code == 200 and all(a["document"]["id"].startswith("trecqa-pool/") for a in r.get_json()["answers"])


def test_search_takes_paragraphs_with_every_word_first_and_prunes_frequent_words(articles, tmp_path):
    from textqa.models.qa.passages import PassageIndex
    ix = PassageIndex(tmp_path / "p.sqlite", max_df=0.5)
    n_docs, n_paras = ix.add(articles.values())
    assert (n_docs, n_paras) == (3, sum(len(d.paragraphs) for d in articles.values()))
    the, actrius = ix.doc_frequency(["the", "Actrius"])
    assert the > 0.5 * n_paras and actrius == sum("Actrius" in p for p in articles["Actrius"].paragraphs)
    assert ix._stems(["directed", "Actresses"]) == ["direct", "actress"]          # FTS5's own Porter stemmer
    assert ix.query_words(["the", "Actrius", "film", "Dwan"]) == ["actrius", "film", "dwan"]
    rows = ix.search(["Actrius", "directed"], 3)
    assert "Actrius" in rows[0][1] and "directed" in rows[0][1]
    # BM25 of the OR query prefers a paragraph with "Hollywood" twice; the one with both words comes first
    assert "Toronto" not in ix.match('"hollywood" OR "toronto"', 1)[0][1]
    rows = ix.search(["Hollywood", "Toronto"], 3)
    assert "Toronto" in rows[0][1] and "Hollywood" in rows[0][1], rows[0][1]
    assert ix.document(rows[0][2])["title"] == "Allan Dwan"
    assert len(ix.search(["Actrius", "Dwan"], 3)) == 3                            # no paragraph has both: the OR fills


def test_a_refused_collection_is_listed_as_refused_and_hides_no_other(qa_artifact, copy_root, articles, tmp_path):
    """One byte appended to a collection's ``collection.json`` (a file of its manifest): the list names it
    refused, with the reason, and lists the others; the others still answer."""
    root = copy_root(qa_artifact)
    write_folder(tmp_path / "docs", articles)
    for name in ("films", "books"):
        assert main(["qa", "index", name, str(tmp_path / "docs"), "--quiet", "--no-analyse", "--artifacts",
                     str(root)]) == 0
    with open(root / "collections" / "films" / "collection.json", "ab") as f:
        f.write(b" ")
    from textqa.service import create_app
    c = create_app(root, {"TEXTQA_MODELS": ["qa"]}).test_client()
    r = c.get("/v1/qa/collections")
    assert r.status_code == 200, r.get_json()
    listed = {x["name"]: x for x in r.get_json()["collections"]}
    assert set(listed) == {"default", "pool", "films", "books"}
    assert "collection.json" in listed["films"]["refused"] and "checksum mismatch" in listed["films"]["refused"]
    assert "refused" not in listed["books"] and listed["books"]["documents"] == 3
    r = c.post("/v1/qa/answer", json={"question": "Who directed Actrius?", "collection": "books"})
    assert r.status_code == 200 and r.get_json()["answers"][0]["answer"] == "Ventura Pons"
    r = c.post("/v1/qa/answer", json={"question": "Who directed Actrius?", "collection": "films"})
    assert r.status_code == 503 and "collection.json" in r.get_json()["error"]["message"]


def test_a_question_without_a_content_word_is_refused(qa_artifact, service_artifacts, capsys, monkeypatch):
    from textqa.service import create_app
    c = create_app(service_artifacts, {"TEXTQA_MODELS": ["qa"]}).test_client()
    for q in ("the of and", "What is it?", "?!"):
        r = c.post("/v1/qa/answer", json={"question": q})
        err = r.get_json()["error"]
        assert r.status_code == 400 and err["code"] == "no_content_words" and err["field"] == "question", (q, err)
        assert "no content word" in err["message"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Who directed Actrius?\nthe of and\n")))
    assert main(["qa", "answer", "--model", str(qa_artifact / "qa")]) == 2
    out = capsys.readouterr()
    assert "question 2" in out.err and "no content word" in out.err and not out.out


def test_the_vital_articles_are_documents_with_their_urls_and_descriptions():
    from textqa.models.qa.documents import documents
    from textqa.runtime.paths import VITAL_ARTICLES
    got = {d.title: d for d in documents([VITAL_ARTICLES])}
    assert len(got) == 10033
    france, galileo = got["France"], got["Galileo Galilei"]
    assert france.id == "wiki/France" and france.url == "https://en.wikipedia.org/wiki/France"
    assert france.paragraphs[0].startswith("France, officially the French Republic, is a country")
    assert galileo.url == "https://en.wikipedia.org/wiki/Galileo_Galilei"
    assert galileo.description == "Italian physicist and astronomer (1564\u20131642)"
    assert sum(len(p.split()) for d in got.values() for p in d.paragraphs) > 700_000


def test_a_summaries_file_that_is_not_one_is_named(tmp_path):
    from textqa.models.qa.documents import DocumentError, documents
    for content in ('["France"]', '{"France": {"extract": 3}}', '{"France": '):
        bad = tmp_path / "pages.json"
        bad.write_text(content, encoding="utf-8")
        with pytest.raises(DocumentError, match="pages.json"):
            list(documents([bad]))
