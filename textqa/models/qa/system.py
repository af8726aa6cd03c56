"""The instance-based QA system (Lita & Carbonell 2004, sections 3-4; 2008 for the merging).

Training questions (TREC questions with NIST answer patterns) are clustered by their frames
(:mod:`textqa.models.qa.frames`).  For every question a keyword query retrieves sentences from the
collection (:mod:`textqa.models.qa.index`); the phrases of those sentences are answer candidates,
labelled correct when a NIST pattern matches them.  Per cluster:

* answer model (4.1): the distribution of the types of its questions' correct answers
  (:mod:`textqa.models.qa.candidates`; sparse clusters lean on the nearest questions, eq. 1);
* extraction model (4.3): a linear SVM over candidate features: the cluster's probability of
  the candidate's answer type, keyword distance and density, retrieval rank, overlap with the
  question, candidate and sentence length, the words around the candidate (hashed), the UIUC
  coarse class's and WordNet's type checks, the answer-sentence ranker's score of the candidate's
  sentence (:func:`ranker_scores`) and the question's UIUC fine class crossed with the candidate's
  type; candidates made only of question words are no candidates (:func:`restates_question`);
* a confidence: the MRR its strategy reaches on its own training questions.

A new question is answered by every cluster whose frame matches it (and a global model
trained on all questions); answers (normalised strings) are merged across clusters, each
cluster's scores weighted by its confidence and damped for small clusters (the paper's figure 7
finding that small clusters are unstable).

The retrieval query is the question's content words; the query-content model (4.2: n-gram and
paraphrase expansions learned per cluster, ``query_content=True``) and the lexical expansions of
:mod:`textqa.models.qa.expansion` (``expansion="synonym"`` or ``"inflect"``) are options, off by
default because neither raised MRR@5 on the dev questions (README).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

from textqa.models.sklearn_data import same_numbers_anywhere
from textqa.runtime import deadline
from textqa.runtime.paths import english_stopwords

from .answers import _Matcher, focus_of, keywords, normalise_answer, pattern_match, question_stems, restates_question  # noqa: F401
from .candidates import ANSWER_TYPES, Candidate, cluster_distribution, type_distribution
from .expansion import LEXICAL, fuse, search
from .frames import FrameClusters
from .merging import FEATURES, answer_features, merge_strategies
from .typecheck import _fine_synsets  # noqa: F401 (the tests read it here)
from .typecheck import FINE_SYNSETS, fine_wordnet_match, uiuc_match, wordnet_type_match
from .query_content import learn, query_words, sentence_features
from .trecqa import Sentence


@dataclass
class Retrieved:
    rowid: int
    tokens: list
    candidates: list            # [Candidate]
    rank: int
    score: float


def candidate_features(q_keywords: set, sent: Retrieved, cand: Candidate, type_probs: dict) -> tuple[list, list]:
    """(dense features, hashed context strings) of one candidate."""
    toks = [t.lower() for t in sent.tokens]
    kw_pos = [i for i, t in enumerate(toks) if t in q_keywords]
    cand_toks = toks[cand.start:cand.end]
    in_q = sum(t in q_keywords for t in cand_toks) / max(len(cand_toks), 1)
    if kw_pos:
        d = min(min(abs(i - cand.start), abs(i - (cand.end - 1))) for i in kw_pos
                if not cand.start <= i < cand.end) if any(not cand.start <= i < cand.end for i in kw_pos) else 0
    else:
        d = len(toks)
    density = len({toks[i] for i in kw_pos}) / max(len(q_keywords), 1)
    p_type = type_probs.get(cand.type, 0.0)
    dense = [p_type, math.log(p_type + 1e-3), math.exp(-d / 4), density, 1.0 / (1 + sent.rank), in_q,
             min(len(cand_toks), 8) / 8, min(len(toks), 60) / 60, float(in_q == 0)]
    dense += [float(cand.type == t) for t in ANSWER_TYPES]
    before = toks[cand.start - 1] if cand.start > 0 else "<s>"
    after = toks[cand.end] if cand.end < len(toks) else "</s>"
    context = [f"b={before}", f"a={after}", f"b_t={before}_{cand.type}", f"t_a={cand.type}_{after}"]
    return dense, context


@dataclass
class ClusterModel:
    frame: str
    members: list
    type_probs: dict
    svm: object = None
    confidence: float = 0.0          # MRR of the strategy on its own training questions
    expansions: list = field(default_factory=list)      # query-content model (4.2)


# the BBN-style entity label each candidate type stands for, so that a collection sentence (spaCy's
# analysis) reaches the sentence ranker typed as TrecQA's sentences are (selection.NER_COARSE)
_RANKER_NER = {"person": "PERSON", "organization": "ORGANIZATION", "location": "GPE", "year": "DATE",
               "decade": "DATE", "date": "DATE", "number": "CARDINAL", "quantity": "QUANTITY", "entity": "MISC"}


def as_ranked_sentence(tokens: list, candidates: list):
    """A collection sentence as the sentence ranker reads it (:class:`trecqa.Sentence`): its tokens,
    with B/I entity tags from its typed candidates (noun chunks carry none; the first span wins)."""
    ner = ["-"] * len(tokens)
    for c in candidates:
        label = _RANKER_NER.get(c.type)
        if label is None or c.end > len(tokens) or any(t != "-" for t in ner[c.start:c.end]):
            continue
        ner[c.start:c.end] = [f"{label}-B"] + [f"{label}-I"] * (c.end - c.start - 1)
    return Sentence(list(tokens), ner=ner)


def ranker_scores(selector, q_tokens: list, sents: list, uiuc: dict | None, fine: str | None = None) -> dict:
    """{rowid: (sigmoid of the sentence ranker's score, 1 / (1 + its rank among ``sents``))}: the
    answer-sentence ranker (:mod:`textqa.models.qa.selection`) read as evidence for every candidate
    of the sentence."""
    if selector is None or not sents:
        return {}
    raw = selector.scores(Sentence(list(q_tokens)), [as_ranked_sentence(s.tokens, s.candidates) for s in sents],
                          uiuc or {}, fine)
    order = np.argsort(-raw, kind="stable")
    rank = np.empty(len(raw), dtype=int)
    rank[order] = np.arange(len(raw))
    return {s.rowid: (float(1 / (1 + math.exp(-x))), 1.0 / (1 + r)) for s, x, r in zip(sents, raw, rank)}


class _Block:
    """Feature rows of one question's candidates; the answer-type columns are filled per cluster.
    ``ranked``: :func:`ranker_scores` of the question's sentences, when the model reads the sentence
    ranker (``RANKER_COLUMNS`` more columns); ``fine``: the question's UIUC fine class (``HUM:ind``),
    crossed with each candidate's answer type as a hashed feature when the model reads it."""

    def __init__(self, qa: "InstanceQA", kws: set, data, uiuc: dict | None = None, focus: str | None = None,
                 ranked: dict | None = None, fine: str | None = None):
        rows = [candidate_features(kws, s, c, {}) for s, c, *_ in data]
        if qa.fine_type and fine:          # the UIUC fine class against the candidate's type
            rows = [(r[0], r[1] + [f"fine={fine}|{c.type}"]) for r, (_s, c, *_) in zip(rows, data)]
        if qa.fine_wordnet and fine in FINE_SYNSETS:          # known to WordNet as the class / as another
            checks = [fine_wordnet_match(fine, c.text) for _s, c, *_ in data]
            rows = [(r[0], r[1] + ([] if ok is None else [f"fine_wn={ok}", f"fine_wn={ok}|{fine}"]))
                    for r, ok in zip(rows, checks)]
        rows = [(r[0] + [uiuc_match(uiuc, c.type), wordnet_type_match(focus, c.text)], r[1])
                for r, (_s, c, *_) in zip(rows, data)]
        if qa.sentence_ranker:
            rows = [(r[0] + list(ranked.get(s.rowid, (0.0, 0.0))), r[1]) for r, (s, *_) in zip(rows, data)]
        width = N_DENSE + RANKER_COLUMNS * bool(qa.sentence_ranker)
        self.dense = np.array([r[0] for r in rows]) if rows else np.zeros((0, width))
        from scipy import sparse  # deferred: loads scipy
        self.hashed = qa._hash([r[1] for r in rows]) if rows else sparse.csr_matrix((0, qa.n_hash))
        self.types = [c.type for _, c, *_ in data]
        self.keys = [normalise_answer(c.text) for _, c, *_ in data]
        self.labels = np.array([int(d[2]) for d in data]) if data and len(data[0]) > 2 else np.zeros(len(data))


N_DENSE = 11 + len(ANSWER_TYPES)
RANKER_COLUMNS = 2


class _Scored:
    """One question's candidate rows as :func:`_with_types` lays them out, built once and scored by every
    cluster model: the CSR matrix keeps an entry for every dense column (explicit zeros included), so a
    model's answer-type columns (0 and 1) are written in place rather than the matrix rebuilt, and
    ``decision(svm)`` is the linear SVM's ``decision_function`` without its input checks: the same
    products summed in the same order (an explicit zero adds 0.0), so the same scores to the last bit."""

    def __init__(self, block):
        from scipy import sparse  # deferred: loads scipy
        dense, hashed = block.dense, block.hashed.tocsr()
        n, width = dense.shape
        self.types = block.types
        indptr = np.zeros(n + 1, dtype=np.int64)
        indptr[1:] = np.cumsum(width + np.diff(hashed.indptr))
        indices = np.empty(indptr[-1], dtype=np.int64)
        data = np.empty(indptr[-1], dtype=np.float64)
        for i in range(n):                  # each row: the dense columns, then its hashed entries
            a, h0, h1 = indptr[i], hashed.indptr[i], hashed.indptr[i + 1]
            indices[a:a + width] = np.arange(width)
            data[a:a + width] = dense[i]
            indices[a + width:indptr[i + 1]] = hashed.indices[h0:h1] + width
            data[a + width:indptr[i + 1]] = hashed.data[h0:h1]
        self.X = sparse.csr_matrix((data, indices, indptr), shape=(n, width + hashed.shape[1]))
        self._rows = indptr[:-1]

    def decision(self, svm, probs: dict) -> np.ndarray:
        """``svm.decision_function(_with_types([block], probs))``."""
        p = np.array([probs.get(t, 0.0) for t in self.types])
        self.X.data[self._rows], self.X.data[self._rows + 1] = p, np.log(p + 1e-3)
        return (self.X @ svm.coef_.T + svm.intercept_).reshape(-1)


def _with_types(blocks, probs):
    from scipy import sparse  # deferred: loads scipy
    dense = np.vstack([b.dense for b in blocks]) if blocks else np.zeros((0, N_DENSE + RANKER_COLUMNS))
    types = [t for b in blocks for t in b.types]
    p = np.array([probs.get(t, 0.0) for t in types])
    if len(p):
        dense = dense.copy()
        dense[:, 0], dense[:, 1] = p, np.log(p + 1e-3)
    hashed = sparse.vstack([b.hashed for b in blocks]) if blocks else sparse.csr_matrix((0, 1))
    return sparse.hstack([sparse.csr_matrix(dense), hashed]).tocsr()


def _top_answers(keys, scores) -> list[tuple[str, float]]:
    best: dict = {}
    for key, sc in zip(keys, scores):
        if key and (key not in best or sc > best[key]):
            best[key] = sc
    return sorted(best.items(), key=lambda kv: -kv[1])


@same_numbers_anywhere
def _train_cluster(frame, members, blocks, q_type_dist, q_types, C):
    from sklearn.svm import LinearSVC  # deferred: loads sklearn, scipy, joblib
    types = [t for m in members for t in q_types.get(m, [])]
    probs = cluster_distribution(types, [(1.0, q_type_dist[m]) for m in members])
    model = ClusterModel(frame, list(members), probs)
    bl = [blocks[m] for m in members]
    labels = np.concatenate([b.labels for b in bl]) if bl else np.zeros(0)
    if len(set(labels.tolist())) < 2:
        return model
    X = _with_types(bl, probs)
    model.svm = LinearSVC(C=C, class_weight="balanced", max_iter=5000, random_state=0).fit(X, labels)
    scores = model.svm.decision_function(X)
    rr, start = [], 0
    for b in bl:                     # the strategy's MRR@5 on its own training questions
        n = len(b.keys)
        ranked = _top_answers(b.keys, scores[start:start + n])
        correct = {k for k, y in zip(b.keys, b.labels) if y}
        rr.append(next((1.0 / (i + 1) for i, (a, _) in enumerate(ranked[:5]) if a in correct), 0.0))
        start += n
    model.confidence = float(np.mean(rr))
    return model


def where_from(index, sent: Retrieved, cand: Candidate) -> dict:
    """An answer's provenance: ``sentence`` (as written, when the index knows it), the answer's
    character offsets in it (``start``, ``end``), and its ``document`` (None when the index keeps none)."""
    prov = index.provenance(sent.rowid) if hasattr(index, "provenance") else None
    if prov is None:
        text = " ".join(sent.tokens)
        start = sum(len(t) + 1 for t in sent.tokens[:cand.start])
        end = start + len(" ".join(sent.tokens[cand.start:cand.end]))
        return {"sentence": text, "start": start, "end": end, "document": None}
    offsets = prov["offsets"]
    if offsets and cand.start < len(offsets):
        start, end = offsets[cand.start][0], offsets[min(cand.end, len(offsets)) - 1][1]
    else:
        start = end = 0
    out = {"sentence": prov["text"], "start": start, "end": end, "document": prov["document"]}
    if end > start:
        out["answer"] = prov["text"][start:end]
    return out


class InstanceQA:
    """``fit(questions, docs, index)`` then ``answer(doc, index)``; questions are dicts with ``qid``,
    ``question`` and ``patterns``."""

    def __init__(self, min_cluster: int = 3, retrieve_k: int = 20, C: float = 0.03, n_hash: int = 2 ** 12,
                 max_clusters: int = 8, n_jobs: int = 1, query_content: bool = False, expansion: str = "simple",
                 redundancy: float = 0.05, answer_k: int | None = 10, sentence_ranker: bool = True,
                 fine_type: bool = True, drop_restated: bool = True, fine_wordnet: bool = False,
                 paragraphs: int = 12):
        if expansion not in LEXICAL:
            raise ValueError(f"unknown query expansion {expansion!r}; choose from {', '.join(LEXICAL)}")
        if not redundancy >= 0:
            raise ValueError(f"redundancy must be >= 0, got {redundancy!r}")
        if answer_k is not None and answer_k < 1:
            raise ValueError(f"answer_k must be >= 1 or None, got {answer_k!r}")
        self.redundancy, self.answer_k = redundancy, answer_k
        self.min_cluster, self.retrieve_k, self.C, self.n_hash = min_cluster, retrieve_k, C, n_hash
        self.max_clusters, self.n_jobs, self.query_content = max_clusters, n_jobs, query_content
        self.expansion = expansion
        # read the answer-sentence ranker's score of each candidate's sentence (``selector``, a fitted
        # :class:`selection.SentenceSelector`, given to ``fit`` and kept with the model)
        self.sentence_ranker, self.selector = sentence_ranker, None
        self.fine_type = fine_type          # the UIUC fine class x candidate type (``fine`` of fit/answer)
        self.drop_restated = drop_restated  # candidates made of question words only are no answers
        self.fine_wordnet = fine_wordnet    # WordNet check of the candidate against the fine class (off:
        # no gain in cross-validation, README)
        self.paragraphs = paragraphs        # a collection's best paragraphs whose sentences are read
        self.reader_ = None                 # the answer reader (merging.AnswerReader), once trained

    # ------------------------------------------------------------------ retrieval
    def retrieve(self, index, words: list[str], doc=None, k: int | None = None) -> list[Retrieved]:
        """The top ``k`` (default ``retrieve_k``) sentences of the query ``words``; given the parsed
        question ``doc`` and a lexical expansion (:mod:`textqa.models.qa.expansion`), the expanded
        query runs in addition to ``words`` (the paper's expansions add queries) and the two
        rankings are fused."""
        k = k or self.retrieve_k
        if doc is not None and self.expansion != "simple":
            hits = fuse([index.search(words, k), search(index, doc, self.expansion, k)], k)
        else:
            hits = index.search(words, k)
        out = []
        for rank, (rowid, _text, score) in enumerate(hits):
            info = index.info(rowid)
            if info is None:
                continue
            tokens, cands = info
            out.append(Retrieved(rowid, tokens, cands, rank, score))
        return out

    def candidates(self, doc, sents) -> list:
        """(sentence, candidate) pairs of the retrieved sentences, without the candidates that only
        restate the question (:func:`restates_question`) when ``drop_restated`` is on."""
        pairs = [(s, c) for s in sents for c in s.candidates]
        if not self.drop_restated:
            return pairs
        q = question_stems(doc)
        return [(s, c) for s, c in pairs if not restates_question(q, c.text)]

    def _ranked(self, doc, sents, uiuc, fine) -> dict | None:
        """:func:`ranker_scores` of the question's sentences when the model reads the ranker, else None."""
        return ranker_scores(self.selector, [t.text for t in doc], sents, uiuc, fine) if self.sentence_ranker else None

    def _hash(self, contexts):
        from sklearn.feature_extraction import FeatureHasher  # deferred: loads sklearn, scipy, joblib
        return FeatureHasher(self.n_hash, input_type="string", alternate_sign=False).transform(contexts)

    # ------------------------------------------------------------------ training
    def fit(self, questions: list[dict], docs, index, progress=None, uiuc: list | None = None,
            selector=None, fine: list | None = None) -> "InstanceQA":
        """``uiuc``: each question's UIUC coarse-class distribution (a feature of the extraction model);
        ``selector``: the fitted answer-sentence ranker, required when ``sentence_ranker`` is on;
        ``fine``: each question's predicted UIUC fine class (read when ``fine_type`` is on)."""
        if self.sentence_ranker and selector is None:
            raise ValueError("sentence_ranker=True needs the fitted sentence ranker (selector=...)")
        self.selector = selector if self.sentence_ranker else None
        self.uses_uiuc_ = uiuc is not None
        from joblib import Parallel, delayed  # deferred: loads joblib, psutil
        self.clusters_ = FrameClusters(self.min_cluster).fit(docs, [q["qid"] for q in questions]).clusters_
        from tqdm import tqdm  # deferred: loads tqdm
        blocks, q_types, qc_data = {}, {}, {}
        bar = tqdm(total=len(questions), desc="retrieving for training questions", unit="q", file=sys.stderr,
                   disable=None if progress else True, mininterval=1)
        for i, (q, doc) in enumerate(zip(questions, docs)):
            kws = keywords(doc)
            retrieved = self.retrieve(index, kws, doc)
            data = [(s, c, pattern_match(q["patterns"], c.text)) for s, c in self.candidates(doc, retrieved)]
            if self.query_content:
                ok = _Matcher(q["patterns"])
                qc_data[q["qid"]] = (kws, [(sentence_features(s.tokens, set(kws), english_stopwords()),
                                            ok(" ".join(s.tokens))) for s in retrieved], ok)
            u = uiuc[i] if uiuc else None
            f = fine[i] if fine else None
            blocks[q["qid"]] = _Block(self, set(kws), data, u, focus_of(doc), self._ranked(doc, retrieved, u, f), f)
            q_types[q["qid"]] = [c.type for _, c, y in data if y]
            bar.update()
        bar.close()
        self.q_type_dist_ = {qid: type_distribution(t) for qid, t in q_types.items()}
        self.global_ = _train_cluster("<global>", list(blocks), blocks, self.q_type_dist_, q_types, self.C)
        if progress:
            progress(f"training {len(self.clusters_)} cluster models on {self.n_jobs} process(es)")
        items = sorted(self.clusters_.items())
        models = list(tqdm(Parallel(n_jobs=self.n_jobs, return_as="generator")(
            delayed(_train_cluster)(f, m, {x: blocks[x] for x in m}, self.q_type_dist_, q_types, self.C)
            for f, m in items), total=len(items), desc="cluster models", unit="cluster", file=sys.stderr,
            disable=None if progress else True, mininterval=1))
        self.cluster_models_ = {m.frame: m for m in models}
        if self.query_content:
            if progress:
                progress("learning query-content models")
            for m in self.cluster_models_.values():
                if m.svm is not None:
                    m.expansions = learn([qc_data[x] for x in m.members], index.search, k=self.retrieve_k)
        return self

    # ------------------------------------------------------------------ answering
    def strategies(self, doc) -> list:
        """The cluster models whose frame the question matches (the most confident ``max_clusters``), then
        the global model."""
        # sorted: a set's order depends on the process's string hashing, and the clusters' order shows in
        # the output (and in the float sums): the same question must give the same bytes in every process
        frames = [f for f in sorted(FrameClusters.frames_of(doc)) if f in self.cluster_models_]
        models = [self.cluster_models_[f] for f in frames if self.cluster_models_[f].svm is not None]
        models = sorted(models, key=lambda m: (-m.confidence, len(m.members), m.frame))[: self.max_clusters]
        return models + [self.global_]

    def evidence(self, doc, index, uiuc: dict | None = None, fine: str | None = None) -> "Evidence":
        """Everything one question's answers rest on: the strategies, the sentences retrieved, their
        candidates with their features, each strategy's probabilities of them, and the merged answers."""
        kws = keywords(doc)
        models = self.strategies(doc)
        k = self.answer_k or self.retrieve_k
        sents = self.retrieve(index, kws, doc, k)
        if self.query_content:                      # the matched clusters' expanded queries (4.2)
            seen = {s.rowid for s in sents}
            for m in models:
                for f in getattr(m, "expansions", []):
                    for s in self.retrieve(index, kws + query_words(f), k=k):
                        if s.rowid not in seen:
                            seen.add(s.rowid)
                            sents.append(s)
        deadline.check("retrieved")                 # a request past its deadline reads nothing
        data = self.candidates(doc, sents)
        block = _Block(self, set(kws), data, uiuc, focus_of(doc), self._ranked(doc, sents, uiuc, fine), fine)
        scored = _Scored(block) if data else None
        weights, scores = [], []
        type_mix = {t: 0.0 for t in ANSWER_TYPES}
        for m in models:
            if m.svm is None or not data:
                weights.append(0.0)
                scores.append(None)
                continue
            scores.append(1 / (1 + np.exp(-scored.decision(m.svm, m.type_probs))))
            weights.append(max(m.confidence, 0.05) * (1 - math.exp(-len(m.members) / 5)))
            for t, p in m.type_probs.items():
                type_mix[t] += weights[-1] * p
        answers = merge_strategies(models, weights, data, block.keys, scores, self.redundancy)
        total_w = sum(weights)
        type_dist = {t: v / total_w for t, v in type_mix.items()} if total_w else {}
        return Evidence(set(kws), models, sents, data, block, answers, total_w, type_dist)

    def answer_rows(self, ev: "Evidence", index) -> tuple[list, np.ndarray]:
        """(the merged answers, their rows of :data:`merging.FEATURES`)."""
        answers = sorted(ev.answers.values(), key=lambda a: (-a.score, a.key))
        places = {}
        for s in ev.sents:
            prov = index.provenance(s.rowid) if hasattr(index, "provenance") else None
            if prov is None:
                places[s.rowid] = (s.rowid, s.rank, s.rowid, "", True)
            else:
                doc = prov.get("document") or {}
                places[s.rowid] = (prov.get("paragraph", s.rowid), prov.get("paragraph_rank", s.rank),
                                   doc.get("id"), doc.get("title") or "", doc.get("collection") is None)
        X = answer_features(answers, ev.data, ev.block.dense, places, ev.kws, ev.total_w, ev.type_dist,
                            self.sentence_ranker) if answers else np.zeros((0, len(FEATURES)))
        return answers, X

    def answer(self, doc, index, top_k: int = 5, uiuc: dict | None = None, fine: str | None = None) -> dict:
        """The question's answers, best first: the strategies' merged answers (Lita & Carbonell 2008), ranked
        by the answer reader when the model has one (:class:`merging.AnswerReader`), else by the merged score."""
        ev = self.evidence(doc, index, uiuc, fine)
        if self.reader_ is not None:
            answers, X = self.answer_rows(ev, index)
            for a, p in zip(answers, self.reader_.scores(X)):
                a.score = float(p) * ev.total_w          # shown divided by the weights, as the merged score is
        else:
            answers = list(ev.answers.values())
        ranked = sorted(answers, key=lambda a: -a.score)[:top_k]
        out = []
        for a in ranked:
            shown = {"answer": a.text, "score": round(float(a.score / ev.total_w), 6) if ev.total_w else 0.0,
                     "clusters": a.clusters}
            shown.update(where_from(index, *a.at))
            out.append(shown)
        type_dist = {t: round(v, 4) for t, v in ev.type_dist.items()}
        return {"answers": out, "answer_type": type_dist, "clusters": [m.frame for m in ev.models]}


@dataclass
class Evidence:
    """One question's evidence (:meth:`InstanceQA.evidence`)."""
    kws: set
    models: list
    sents: list
    data: list
    block: object
    answers: dict
    total_w: float
    type_dist: dict
