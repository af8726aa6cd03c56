"""The truecaser's Python search: exact Viterbi over the trellis of Lita et al. 2003 (figure 1,
eq. 2), with the class LMs' states beside the word LM's.  The C++ search (:mod:`.native_search`)
gives the same output; this one is the reference the tests hold it to, and it decodes when the C++
library is missing or ``Truecaser.search`` is ``"python"``."""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import defaultdict
from itertools import accumulate

import kenlm

from . import lm as lmmod
from .baseline import capitalize_first_word
from .scores import CandidateScores

#: ``viterbi``'s default: score the sentence's own phrases (None means no added scores).
_OWN_PHRASES = object()


class PythonSearch:
    """The Python search over a truecaser's candidates and scores (``scores``, a
    :class:`.scores.CandidateScores`; its model's LMs and parameters)."""

    def __init__(self, scores: CandidateScores):
        self.scores = scores
        self.model = scores.model

    def decode(self, token_lists: list[list[str]]) -> list[list[str]]:
        """Truecase a batch of token lists, part by part (:meth:`.scores.CandidateScores.parts`)."""
        scores, first_word = self.scores, self.scores.params.first_word
        oov = scores.oov_scores(token_lists)
        parts_of = [scores.parts(toks) for toks in token_lists]
        every = [part for parts in parts_of for part in parts]
        sent_off = list(accumulate(map(len, every), initial=0))
        low = [t.lower() for part in every for t in part]
        by_part: dict = defaultdict(dict)        # the added emission scores of each part, by position in it
        for i, x in scores.extra_scores(low, sent_off).items():
            k = bisect_right(sent_off, i) - 1
            by_part[k][i - sent_off[k]] = x
        out, k = [], 0
        for parts in parts_of:
            res = []
            for part in parts:
                cased = self.viterbi(part, oov, by_part.get(k, {}))
                if first_word.endswith("+upper"):
                    cased = capitalize_first_word(cased)
                scores.case_compounds(cased, low[sent_off[k]:sent_off[k + 1]], range(len(part)))
                k += 1
                res.extend(cased)
            out.append(res)
        return out

    def viterbi(self, tokens: list[str], oov_scores: dict, phrase=_OWN_PHRASES) -> list[str]:
        """Exact Viterbi over the trellis of Lita et al. 2003 figure 1, maximising eq. 2.

        A state is a KenLM state: the (up to) two-token case-carrying history.  Paths
        reaching the same state are merged keeping the best, which is exact because
        every later score depends only on that state; the LM merges histories it cannot
        tell apart (backed-off contexts), which shrinks the trellis further.  Cost is
        O(S * M^3) for S tokens and M candidates per token (paper: O(S M^(H+1))).
        ``phrase``: {position: added score of each candidate}: the weighted phrase scores and the
        discriminative pass's, beyond the paper (None: none; not given: computed for this sentence).

        With the class LM (:mod:`.classes`) each candidate also scores ``class_lm_weight *
        (log10 P_class(c | class history) + log10 P(w | c))``, and a state is a tuple of states (word
        LM, then each class LM of :meth:`.scores.CandidateScores.class_lms`), which keeps the search exact.  Scores are
        summed in the C++ search's order (``native/viterbi.cc``), whose output the tests require to
        be this one's.
        """
        lm, w = self.model.lm_, self.scores.params.oov_weight
        base_score = lm.BaseScore
        State = kenlm.State
        cls_lms = self.scores.class_lms()
        start = self._start_key(cls_lms)
        candidates = self.scores.candidates
        if phrase is _OWN_PHRASES:
            phrase = self.scores.extra_scores([t.lower() for t in tokens], [0, len(tokens)])
        layers, cand_lists = [{start: (0.0, None, -1)}], []
        for pos, tok in enumerate(tokens):
            cands = candidates(tok)
            cand_lists.append(cands)
            layer = layers[-1]
            if not cls_lms and len(cands) == 1 and len(layer) == 1:
                # Fast path (most tokens once paths have merged): one state, one candidate.
                [(st, (sc, _, _))] = layer.items()
                out = State()
                s = sc + base_score(st, cands[0][1], out)
                if cands[0][2] is not None and oov_scores:
                    s += w * oov_scores[tok.lower()][cands[0][2]]
                layers.append({out: (s, st, 0)})
                continue
            em, classes = self._emissions(tok, cands, oov_scores, phrase.get(pos) if phrase else None, cls_lms)
            nxt = {}
            for key, (sc, _, _) in layer.items():
                st = key[0] if cls_lms else key
                for ci, (_, lmw, _) in enumerate(cands):
                    out = State()
                    s = sc + base_score(st, lmw, out)
                    if cls_lms:
                        c, out = self._class_step(key, out, ci, classes, cls_lms)
                        s += c
                    s += em[ci]
                    cur = nxt.get(out)
                    if cur is None or s > cur[0]:       # ties: the first path (state order, then candidates)
                        nxt[out] = (s, key, ci)
            layers.append(nxt)
        best, best_key = -math.inf, None
        for key, (sc, _, _) in layers[-1].items():
            s = sc + self._end_score(key, cls_lms)
            if s > best:
                best, best_key = s, key
        return self._backtrack(tokens, layers, cand_lists, best_key)

    @staticmethod
    def _backtrack(tokens: list[str], layers: list, cand_lists: list, key) -> list[str]:
        """The casings along the back-pointers of :meth:`viterbi`'s ``layers`` ({state: (score, previous
        state, candidate)}) from the final state ``key``; a form of another length keeps the token."""
        result = [None] * len(tokens)
        for pos in range(len(tokens), 0, -1):
            _, back, ci = layers[pos][key]
            form, tok = cand_lists[pos - 1][ci][0], tokens[pos - 1]
            result[pos - 1] = form if len(form) == len(tok) else tok
            key = back
        return result

    def _start_key(self, cls_lms: list):
        """The state before the first token (``<s>``, or no context with a ``mask`` first word)."""
        states = []
        for model in [self.model.lm_] + [clm for clm, _, _ in cls_lms]:
            states.append(kenlm.State())
            if self.scores.params.first_word.startswith("mask"):
                model.NullContextWrite(states[-1])
            else:
                model.BeginSentenceWrite(states[-1])
        return tuple(states) if cls_lms else states[0]

    def _emissions(self, tok: str, cands: list, oov_scores: dict, phrase: list | None, cls_lms: list):
        """(each candidate's emission score: the weighted OOV score, the added ``phrase`` score and
        each class LM's weighted log10 P(w | c); per class LM, each candidate's (class, log10 P(w | c)))."""
        w = self.scores.params.oov_weight
        em = [w * oov_scores[tok.lower()][cls] if cls is not None and oov_scores else 0.0 for _, _, cls in cands]
        if phrase:
            em = [a + b for a, b in zip(em, phrase)]
        classes = []
        for _, table, mu in cls_lms:
            classes.append([table.lookup(lmw) for _, lmw, _ in cands])
            em = [a + mu * e for a, (_, e) in zip(em, classes[-1])]   # the C++ search's inputs add it last too
        return em, classes

    @staticmethod
    def _class_step(key: tuple, out, ci: int, classes: list, cls_lms: list):
        """(the class LMs' weighted log10 P(class of candidate ``ci`` | their states in ``key``), the
        next state: the word LM's ``out`` with each class LM's)."""
        outs, s = [out], 0.0
        for j, (clm, _, mu) in enumerate(cls_lms):
            outs.append(kenlm.State())
            s += mu * clm.BaseScore(key[j + 1], classes[j][ci][0], outs[-1])
        return s, tuple(outs)

    def _end_score(self, key, cls_lms: list) -> float:
        """The score of ``</s>`` after the state ``key``."""
        lm = self.model.lm_
        if not cls_lms:
            return lm.BaseScore(key, lmmod.EOS, kenlm.State())
        s = lm.BaseScore(key[0], lmmod.EOS, kenlm.State())
        for j, (clm, _, mu) in enumerate(cls_lms):
            s += mu * clm.BaseScore(key[j + 1], lmmod.EOS, kenlm.State())
        return s
