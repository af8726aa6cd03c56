"""Query expansion for sentence retrieval, four kinds (Lita & Carbonell, "Cluster-based query
expansion for statistical question answering", the fifth paper of ``003``; its section 4 and table 2).

* ``simple``: the question's content words (:func:`textqa.models.qa.system.keywords`).
* ``synonym``: plus the WordNet synonyms of every content word (the lemmas of the first
  :data:`SENSES` synsets of its part of speech; a multi-word synonym is one phrase, a tuple of
  words: ("city", "of", "light")).
* ``inflect``: plus the inflectional variants of every content word (``lemminflect``: "wrote" adds
  "write", "writes", "writing", "written").  The index already stems with Porter, so what this can
  add is what a stemmer cannot conflate: irregular forms ("born"/"bore"/"bear", "mice"/"mouse").
* ``cluster``: the simple query enhanced by each feature of the query-content model of every
  training cluster the question belongs to (2008 algorithm 1; :mod:`textqa.models.qa.query_content`),
  one query per feature, the paper's "adding one feature at a time".

A strategy made of several queries ranks the union of their results by reciprocal rank fusion
(Cormack, Clarke & Büttcher 2009: ``sum_q 1 / (60 + rank_q)``), so every strategy yields one
ranked list and recall at k compares lists of equal length.
"""
from __future__ import annotations

from functools import lru_cache

from textqa.runtime.paths import english_stopwords
from textqa.runtime.wordnet import wordnet

from .answers import _Matcher, keywords, pattern_match
from .frames import question_frames
from .query_content import learn, query_words, sentence_features

STRATEGIES = ("simple", "synonym", "inflect", "cluster")
LEXICAL = ("simple", "synonym", "inflect")          # need no training: the answering system's choices
SENSES = 2              # WordNet senses of a word whose synonyms are added (the first is the most frequent)
RRF_K = 60              # reciprocal rank fusion's constant (Cormack et al. 2009)
_WN_POS = {"NOUN": "n", "PROPN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


def content_tokens(doc) -> list:
    """The question's content tokens: the tokens behind :func:`system.keywords`."""
    kws = set(keywords(doc))
    return [t for t in doc if t.lower_ in kws]


@lru_cache(maxsize=20_000)
def synonyms(word: str, upos: str) -> tuple:
    """WordNet synonyms of ``word`` (lowercased lemmas of its first :data:`SENSES` synsets of the
    part of speech, the word itself excluded; a multi-word lemma as a phrase, a tuple of words)."""
    pos = _WN_POS.get(upos)
    if pos is None:
        return ()
    out = []
    for s in wordnet().synsets(word, pos)[:SENSES]:
        for name in s.lemma_names():
            words = tuple(name.lower().split("_"))
            name = words if len(words) > 1 else words[0]
            if name != word.lower() and name not in out:
                out.append(name)
    return tuple(out)


@lru_cache(maxsize=20_000)
def inflections(word: str, lemma: str, upos: str) -> tuple[str, ...]:
    """The lemma and every inflection of it (``lemminflect``) for the word's part of speech
    (nouns: plural; verbs: every conjugation; adjectives: comparison), the word itself excluded."""
    if upos not in ("NOUN", "VERB", "ADJ"):
        return ()
    from lemminflect import getAllInflections, getAllLemmas  # deferred: loads spacy, pydantic, lemminflect
    lemmas = {lemma.lower()} | {l.lower() for ls in getAllLemmas(word, upos).values() for l in ls}
    out = []
    for lem in sorted(lemmas):
        for form in [lem] + [f for fs in getAllInflections(lem, upos).values() for f in fs]:
            form = form.lower()
            if form != word.lower() and form not in out:
                out.append(form)
    return tuple(out)


def lexical_terms(doc, strategy: str) -> list:
    """The query terms of the ``simple``, ``synonym`` or ``inflect`` strategy for a parsed question."""
    toks = content_tokens(doc)
    terms = [t.lower_ for t in toks]
    for t in toks:
        if strategy == "synonym":
            terms += synonyms(t.lower_ if t.pos_ != "PROPN" else t.text, t.pos_)
        elif strategy == "inflect":
            terms += inflections(t.lower_, t.lemma_, t.pos_)
        elif strategy != "simple":
            raise ValueError(f"unknown lexical expansion {strategy!r}")
    return list(dict.fromkeys(terms))


def fuse(rankings, k: int) -> list[tuple[int, str, float]]:
    """Reciprocal rank fusion of several ranked result lists ((rowid, text, score) each) into one
    top-``k`` list whose score is the fused score (ties: first seen first)."""
    if len(rankings) == 1:
        return list(rankings[0][:k])
    score: dict = {}
    text: dict = {}
    for ranking in rankings:
        for rank, (rowid, t, _s) in enumerate(ranking):
            score[rowid] = score.get(rowid, 0.0) + 1.0 / (RRF_K + rank + 1)
            text.setdefault(rowid, t)
    order = sorted(score, key=lambda r: -score[r])        # stable: insertion order breaks ties
    return [(r, text[r], score[r]) for r in order[:k]]


def queries(doc, strategy: str, cluster_features=()) -> list[list[str]]:
    """The queries (term lists) of one strategy for a parsed question; ``cluster_features``: the
    query-content features of the question's clusters (only the ``cluster`` strategy uses them;
    without any it is the simple query)."""
    if strategy == "cluster":
        base = lexical_terms(doc, "simple")
        feats = list(dict.fromkeys(cluster_features))
        return [base + query_words(f) for f in feats] or [base]
    return [lexical_terms(doc, strategy)]


def search(index, doc, strategy: str, k: int, cluster_features=()) -> list[tuple[int, str, float]]:
    """The strategy's top ``k`` sentences: one query, or several fused (module doc)."""
    return fuse([index.search(q, k) for q in queries(doc, strategy, cluster_features)], k)


# ---------------------------------------------------------------------- the paper's comparison
TEMPORAL = ("when ", "what year", "in what year", "what date", "on what date", "in which year", "what day")
KS = (10, 20, 50, 100)


def is_temporal(question: str) -> bool:
    """The paper's evaluation set: temporal questions ("When ...", "What year ..."), whose answers
    have few surface forms, so a pattern match is a reliable relevance judgment."""
    q = question.strip().lower()
    return q.startswith(TEMPORAL)


def _search_with_tokens(index, words, k):
    """(tokens, text) of the top ``k`` sentences of one query (tokens from the analysed collection)."""
    out = []
    for rowid, text, _ in index.search(words, k):
        info = index.info(rowid)
        out.append((info[0] if info else text.split(), text))
    return out


def learn_cluster_features(questions, docs, index, clusters: dict, k: int = 20, progress=None) -> dict:
    """Each training cluster's query-content model (frame -> features), learned as
    :meth:`InstanceQA.fit` learns it (:func:`query_content.learn`).  ``questions``: objects with
    ``qid`` and ``patterns``; ``clusters``: frame -> member qids (``FrameClusters.clusters_``);
    ``progress(1)`` after each cluster."""

    stop = english_stopwords()
    data = {}
    for q, doc in zip(questions, docs):
        kws = keywords(doc)
        ok = _Matcher(q.patterns)
        data[q.qid] = (kws, [(sentence_features(toks, set(kws), stop), ok(text))
                             for toks, text in _search_with_tokens(index, kws, k)], ok)
    out = {}
    for frame, members in clusters.items():
        feats = learn([data[m] for m in members], index.search, k=k)
        if feats:
            out[frame] = feats
        if progress:
            progress(1)
    return out


def question_cluster_features(doc, features: dict, sizes: dict, max_clusters: int = 8) -> list[str]:
    """The query-content features of the (at most ``max_clusters``, most specific first) training
    clusters a question belongs to."""
    frames = sorted((f for f in question_frames(doc) if f in features), key=lambda f: (sizes[f], f))
    return list(dict.fromkeys(x for f in frames[:max_clusters] for x in features[f]))


def compare(questions, docs, index, features: dict, sizes: dict, ks=KS, progress=None) -> dict:
    """The paper's comparison (its table 2 and figure 1) for parsed test questions with patterns.

    For every strategy and k: ``recall`` = relevant sentences in its top k over the pool of relevant
    sentences any strategy finds in its top ``max(ks)`` (TREC-style pooled recall; relevant = a NIST
    pattern matches the sentence); ``gain`` = the fraction of questions with a relevant sentence in
    its top k that the simple query's top k lacks; ``new`` = the mean number of such sentences.
    ``union20``: the paper's table 2 rows from the union of the strategies' top-20 sets: a single
    strategy's row counts the relevant sentences it adds to the simple query's (the paper's
    inflectional row also builds on the synonyms; here each builds on the simple query alone), the
    "all" rows count every relevant sentence of the union."""
    kmax = max(ks)
    rows = []
    for q, doc in zip(questions, docs):
        feats = question_cluster_features(doc, features, sizes)
        rel_cache: dict = {}

        def relevant(hits):
            out = []
            for rowid, text, _ in hits:
                if rowid not in rel_cache:
                    rel_cache[rowid] = pattern_match(q.patterns, text)
                out.append(rel_cache[rowid])
            return out

        ranked = {s: search(index, doc, s, kmax, feats) for s in STRATEGIES}
        rels = {s: [r for (r, _, _), y in zip(hits, relevant(hits)) if y] for s, hits in ranked.items()}
        pos = {s: {r: i for i, (r, _, _) in enumerate(hits)} for s, hits in ranked.items()}
        rows.append((q, bool(feats), rels, pos))
        if progress:
            progress(1)
    return summarise(rows, ks)


def summarise(rows, ks=KS) -> dict:
    """Aggregate the per-question relevant sentences and ranks of :func:`compare`."""
    def top(s, rels, pos, k):
        return {r for r in rels[s] if pos[s][r] < k}

    n = len(rows)
    out = {"questions": n, "with_cluster_features": sum(f for _, f, _, _ in rows), "strategies": {}, "union20": {}}
    for s in STRATEGIES:
        d = {}
        for k in ks:
            rec, gain, new = [], 0, 0
            for _q, _f, rels, pos in rows:
                pool = set().union(*rels.values())
                mine, simple = top(s, rels, pos, k), top("simple", rels, pos, k)
                if pool:
                    rec.append(len(mine) / len(pool))
                extra = mine - simple
                gain += bool(extra)
                new += len(extra)
            d[k] = {"recall": sum(rec) / len(rec) if rec else 0.0, "gain": gain / n if n else 0.0,
                    "new": new / n if n else 0.0}
        out["strategies"][s] = d
    out["answerable"] = sum(bool(set().union(*r.values())) for _, _, r, _ in rows)
    k = 20 if 20 in ks else ks[0]
    others = [s for s in STRATEGIES if s != "simple"]
    combos = {"simple": ["simple"], **{s: ["simple", s] for s in others}, "all": STRATEGIES,
              **{f"all - {s}": [x for x in STRATEGIES if x != s] for s in others}}
    base = sum(len(top("simple", r, p, k)) for _, _, r, p in rows) / n if n else 0.0
    for name, ss in combos.items():
        tot = sum(len(set().union(*(top(s, r, p, k) for s in ss))) for _, _, r, p in rows) / n if n else 0.0
        # the paper's rows: a single strategy counts what it adds to the simple query, "all" rows the total
        val = tot - base if name in others else tot
        out["union20"][name] = {"relevant": val, "percent_of_simple": 100 * val / base if base else 0.0}
    out["union_k"] = k
    return out


# the paper's table 2 (web documents, temporal TREC 8-12 questions, 20 documents per query)
PAPER_TABLE2 = {"simple": (4.43, 100.0), "synonym": (1.48, 33.4), "inflect": (2.37, 53.43), "cluster": (1.05, 23.65),
                "all": (9.33, 210.45), "all - synonym": (7.88, 177.69), "all - inflect": (6.99, 157.69),
                "all - cluster": (8.28, 186.80)}


def format_report(results: dict) -> str:
    """Markdown tables of :func:`compare` results ({subset name: results})."""
    lines = []
    for name, r in results.items():
        ks = list(r["strategies"]["simple"])
        lines += [f"### {name}: {r['questions']} questions ({r['answerable']} with a relevant sentence in some "
                  f"strategy's top {max(ks)}; {r['with_cluster_features']} in a cluster with expansions)", "",
                  "| strategy | " + " | ".join(f"recall@{k}" for k in ks) + " | "
                  + " | ".join(f"gain@{k}" for k in ks) + " |",
                  "|---|" + "---:|" * (2 * len(ks))]
        for s, d in r["strategies"].items():
            lines.append(f"| {s} | " + " | ".join(f"{d[k]['recall']:.3f}" for k in ks) + " | "
                         + " | ".join("—" if s == "simple" else f"{d[k]['gain']:.3f}" for k in ks) + " |")
        k = r["union_k"]
        lines += ["", f"New relevant sentences per question at {k} retrieved (the paper's table 2; paper: web "
                  "documents, temporal TREC 8-12 questions)", "",
                  "| queries | relevant sentences | % of simple | paper | paper % |", "|---|---:|---:|---:|---:|"]
        for row, d in r["union20"].items():
            paper = PAPER_TABLE2.get(row)
            lines.append(f"| {row} | {d['relevant']:.2f} | {d['percent_of_simple']:.1f} | "
                         f"{paper[0] if paper else '—'} | {paper[1] if paper else '—'} |")
        lines.append("")
    return "\n".join(lines)
