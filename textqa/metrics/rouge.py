"""ROUGE as NIST's ROUGE-1.5.5.pl computes it (:mod:`textqa.evaluation.rouge`: NIST's official DUC
2006 output reproduces line for line), on Python strings.

A summary is a string, its sentences on lines of their own (ROUGE-LCS reads sentences; the n-gram
measures read the whole text), or a list of its sentences.  References are given per segment, any
number each: ``references[i]`` is the list of the model summaries of segment ``i`` (a plain string
is one model summary).

The options keep the script's meaning, and the signature its letters:

========================  ==========  ==================================================
argument                  script      meaning
========================  ==========  ==================================================
``n=2``                   ``-n 2``    ROUGE-1 .. ROUGE-n
``lcs=True``              no ``-x``   ROUGE-L
``w=None``                ``-w 1.2``  ROUGE-W with weight ``w`` (a string, as it is named)
``skip=None``             ``-2 4``    ROUGE-S with this skip distance (-1: any)
``unigrams=False``        ``-u``      ROUGE-SU instead of ROUGE-S
``stem=False``            ``-m``      ROUGE's Porter stemmer (and WordNet exceptions)
``remove_stopwords``      ``-s``      drop the script's stopwords
``length_words=0``        ``-l``      cut each summary to so many words
``length_bytes=0``        ``-b``      cut each summary to so many bytes
``formula="A"``           ``-f``      A: sum over models; B: the model of best recall
``alpha=0.5``             ``-p``      F's weight of precision
``confidence=95``         ``-c``      the interval of corpus_score
``resamples=1000``        ``-r``      the bootstrap of corpus_score
``average="evaluation"``  ``-t``      corpus_score averages evaluations' R/P/F; ``"token"``:
                                      pools the counts; ``"counts"``: the counts only
``both=False``            ``-U``      with ``skip`` and no ``unigrams``: ROUGE-S and ROUGE-SU
``data_dir=None``         ``-e``      the stopword and WordNet exception lists' folder
========================  ==========  ==================================================

:meth:`ROUGE.evaluate` scores the script's configurations (``textqa eval rouge`` prints its lines).

>>> scores = ROUGE(n=1).sentence_score("the cat was found under the bed", ["the cat was under the bed"])
>>> scores["ROUGE-1"]
RougeScore(recall=1.0, precision=0.85714, f=0.92308)
>>> sorted(scores)
['ROUGE-1', 'ROUGE-L']
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from textqa.evaluation.rouge import Options, Scorer, averages
from textqa.evaluation.rouge_run import evaluate
from textqa.evaluation.rouge_input import Resources
from textqa.runtime.metric import SegmentMetric
from textqa.runtime.metric_input import MetricInputError, references_per_segment, signature, texts


AVERAGES = {"evaluation": 0, "token": 1, "counts": 2}       # -t


@dataclass(frozen=True)
class RougeScore:
    """Recall, precision and F (the script's 5-decimal values); from :meth:`ROUGE.corpus_score`, the
    bootstrap averages with their intervals (``recall_ci`` ...), as the script prints them, and the
    summed counts (model units, peer units, hits; with ``average="counts"`` only these)."""
    recall: float | None
    precision: float | None
    f: float | None
    recall_ci: tuple | None = None
    precision_ci: tuple | None = None
    f_ci: tuple | None = None
    model_count: int | None = None
    peer_count: int | None = None
    hits: int | None = None

    def __repr__(self) -> str:
        ci = "" if self.f_ci is None else f", f_ci={self.f_ci}"
        return f"RougeScore(recall={self.recall}, precision={self.precision}, f={self.f}{ci})"


class ROUGE(SegmentMetric):
    """ROUGE-1.5.5 (see the module for the arguments)."""

    name = "ROUGE"

    def __init__(self, n: int = 2, lcs: bool = True, w: str | None = None, skip: int | None = None,
                 unigrams: bool = False, stem: bool = False, remove_stopwords: bool = False,
                 length_words: int = 0, length_bytes: int = 0, formula: str = "A", alpha: float = 0.5,
                 confidence: int | str = 95, resamples: int = 1000, average: str = "evaluation",
                 both: bool = False, data_dir=None):
        def whole(x, what, low=0):
            if not isinstance(x, int) or isinstance(x, bool) or x < low:
                raise MetricInputError(f"{what} must be an integer >= {low}, not {x!r}")
            return x
        whole(n, "n")
        whole(length_words, "length_words")
        whole(length_bytes, "length_bytes")
        whole(resamples, "resamples", 1)
        if skip is not None:
            whole(skip, "skip", -1)
        if w is not None:
            try:
                if float(w) <= 0:
                    raise ValueError
            except (TypeError, ValueError):
                raise MetricInputError(f"w must be a weight above 0 (as '1.2'), not {w!r}") from None
        if formula not in ("A", "B"):
            raise MetricInputError(f"formula must be 'A' or 'B', not {formula!r}")
        if not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
            raise MetricInputError(f"alpha must be a number from 0 to 1, not {alpha!r}")
        try:
            if isinstance(confidence, bool) or not 0 <= float(confidence) <= 100:
                raise ValueError
        except (TypeError, ValueError):
            raise MetricInputError(f"confidence must be a percentage from 0 to 100, not {confidence!r}") from None
        if average not in AVERAGES:
            raise MetricInputError(f"average must be one of {', '.join(AVERAGES)}, not {average!r}")
        if not (n or lcs or w is not None or skip is not None):
            raise MetricInputError("no measure asked for: give n >= 1, lcs=True, w or skip")
        self.options = Options(max_n=n or None, compute_l=bool(lcs), weight=None if w is None else str(w),
                               skip=None if skip is None else str(skip), unigrams=bool(unigrams),
                               stem=bool(stem), remove_stopwords=bool(remove_stopwords), words=length_words,
                               nbytes=length_bytes, formula=formula, alpha=float(alpha),
                               confidence=str(confidence), resamples=resamples, average=AVERAGES[average],
                               both_skip=bool(both) and skip is not None and not unigrams)
        self.data_dir = data_dir
        self._scorer = None

    @property
    def signature(self) -> str:
        o = self.options
        return signature("ROUGE-1.5.5", n=o.max_n or 0, x=not o.compute_l, w=o.weight or "none",
                         **{"2": o.skip if o.skip is not None else "none"}, u=o.unigrams, U=o.both_skip, m=o.stem,
                         s=o.remove_stopwords, l=o.words, b=o.nbytes, f=o.formula, p=o.alpha, t=o.average,
                         c=o.confidence, r=o.resamples)

    @property
    def measures(self) -> list[str]:
        """The measures scored, named as the script names them (``ROUGE-1``, ``ROUGE-L``, ``ROUGE-SU4``)."""
        return [tag for tag, _, _ in self.options.measures()]

    def _scorer_ready(self) -> Scorer:
        if self._scorer is None:
            self._scorer = Scorer(self.options, Resources.load(self.data_dir))
        return self._scorer

    def evaluate(self, evaluations, peers, warn=None, progress=None):
        """The script's run over a configuration's ``evaluations`` (``textqa.evaluation.rouge_input``:
        ``read_config``, ``read_file_list``) for each of ``peers``: one result per peer and measure, in
        the script's order, with every evaluation's scores and the averages the script prints
        (``textqa.evaluation.rouge_run.format_result`` writes its lines).  ``warn`` receives the script's
        warnings, ``progress`` is called after each evaluation scored."""
        return evaluate(evaluations, peers, self.options, scorer=self._scorer_ready(), warn=warn, progress=progress)

    def _summary(self, value, what: str):
        if isinstance(value, str):
            sentences = value.split("\n")
        else:
            sentences = texts(value, what)
        return self._scorer_ready().from_sentences(sentences)

    def _rows(self, hypothesis, references, where: str):
        peer = self._summary(hypothesis, f"hypothesis{where}")
        models = [self._summary(r, f"references{where}[{k}]") for k, r in enumerate(references)]
        return {tag: self._scorer.score(kind, params, models, peer) for tag, kind, params in self.options.measures()}

    def sentence_score(self, hypothesis, references) -> dict[str, RougeScore]:
        """{measure: recall, precision and F} of one summary against its model summaries."""
        refs = references_per_segment([references], 1, sentences=True)[0]
        rows = self._rows(hypothesis, refs, "")
        return {tag: RougeScore(float(r), float(p), float(f)) for tag, (_, _, _, r, p, f) in rows.items()}

    def segment_statistics(self, hypotheses, references) -> dict:
        """{``ROUGE-x``: (stats, score)}: each segment's F (the script's 5-decimal value) for every
        measure, and their mean (the plain mean: the script's bootstrap average is a mean over its own
        resamples); what :mod:`textqa.metrics.significance` resamples."""
        hyps = texts(hypotheses, "hypotheses") if isinstance(hypotheses, str) else list(hypotheses)
        refs = references_per_segment(references, len(hyps), sentences=True)
        rows = [self._rows(h, rs, f"[{i}]") for i, (h, rs) in enumerate(zip(hyps, refs))]
        return {tag: (np.array([[float(r[tag][5])] for r in rows]).reshape(-1, 1),
                      lambda x, n=len(rows): np.atleast_2d(x)[:, 0] / n) for tag in self.measures}

    def corpus_score(self, hypotheses, references, ids=None) -> dict[str, RougeScore]:
        """{measure: the script's ``Average_R/P/F`` with their intervals} over the segments: the mean of
        ``resamples`` bootstrap means drawn as the script draws them, over the segments in the string
        order of their evaluation ``ids`` (default ``"1"`` .. ``"N"``; give a configuration's ids to
        get its numbers)."""
        hyps = list(hypotheses) if not isinstance(hypotheses, str) else texts(hypotheses, "hypotheses")
        refs = references_per_segment(references, len(hyps), sentences=True)
        ids = [str(i + 1) for i in range(len(hyps))] if ids is None else [str(x) for x in ids]
        if len(ids) != len(hyps) or len(set(ids)) != len(ids):
            raise MetricInputError(f"ids: give one distinct id per segment ({len(hyps)} segments, {len(ids)} ids, "
                                   f"{len(set(ids))} distinct)")
        per = {tag: {} for tag in self.measures}
        by_counts = self.options.average != 0
        for i, (h, rs, key) in enumerate(zip(hyps, refs, ids)):
            for tag, (mc, hit, pc, r, p, f) in self._rows(h, rs, f"[{i}]").items():
                per[tag][key] = (mc, pc, hit) if by_counts else (r, p, f)
        out = {}
        for tag, rows in per.items():
            a = averages([rows[k] for k in sorted(rows)], self.options)
            counts = {"model_count": int(a["M_cnt"]), "peer_count": int(a["P_cnt"]), "hits": int(a["H_cnt"])} \
                if by_counts else {}
            if self.options.average == 2:
                out[tag] = RougeScore(None, None, None, **counts)
                continue
            out[tag] = RougeScore(float(a["AvgR"]), float(a["AvgP"]), float(a["AvgF"]),
                                  (float(a["CIAvgL_R"]), float(a["CIAvgU_R"])),
                                  (float(a["CIAvgL_P"]), float(a["CIAvgU_P"])),
                                  (float(a["CIAvgL_F"]), float(a["CIAvgU_F"])), **counts)
        return out
