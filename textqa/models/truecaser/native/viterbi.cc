// Exact Viterbi over the truecasing trellis (Lita et al. 2003, figure 1 and eq. 2) in C++ over
// KenLM, the same search as PythonSearch.viterbi in python_search.py, step for step: paths are merged on
// equal KenLM states (the first path reaching a state is kept unless a later one scores strictly
// higher), scores are summed in double from KenLM's float log10 probabilities, the best final
// state (sentence end included) is the first of the strictly best.  With a class LM beside the word
// LM (textqa/models/truecaser/classes.py) the states are pairs (word-LM state, class-LM state), as
// in PythonSearch.viterbi.  Built by the Makefile with KenLM's query-only sources; loaded by
// textqa/models/truecaser/native.py through ctypes.
#include "lm/model.hh"
#include "lm/state.hh"
#include "lm/vocab.hh"

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace {

// One hypothesis of a trellis layer: its LM states are ids into the layer's Interners (wid: the
// word LM's, cid: the class LM's, always 0 without a class LM).
struct Hyp {
  double score;
  int wid, cid;
  int cand;   // candidate index within its token
  int back;   // index of the previous hypothesis in the previous layer
};

// The distinct KenLM states of one layer, each with a small id (a linear scan on hashes: a layer
// holds a few states, 2-4 on average, at most a few hundred).
struct Interner {
  std::vector<lm::ngram::State> states;
  std::vector<uint64_t> hashes;
  void Clear() {
    states.clear();
    hashes.clear();
  }
  int Id(const lm::ngram::State &s) {
    const uint64_t h = lm::ngram::hash_value(s);
    for (size_t i = 0; i < hashes.size(); ++i)
      if (hashes[i] == h && states[i] == s) return static_cast<int>(i);
    states.push_back(s);
    hashes.push_back(h);
    return static_cast<int>(states.size()) - 1;
  }
};

// Scores of every candidate [c0, c1) after every state of ``prev``: score[u*nc+k] and the id in
// ``cur`` of the state it leads to, out[u*nc+k].  Each (state, word) pair is asked once, however
// many hypotheses share the state.
void ScoreLayer(const lm::base::Model &model, const Interner &prev, Interner *cur, const unsigned *ids, int c0, int c1,
                std::vector<float> *score, std::vector<int> *out) {
  const int nc = c1 - c0;
  score->resize(prev.states.size() * nc);
  out->resize(prev.states.size() * nc);
  lm::ngram::State next;
  for (size_t u = 0; u < prev.states.size(); ++u) {
    for (int k = 0; k < nc; ++k) {
      (*score)[u * nc + k] = model.BaseScore(&prev.states[u], ids[c0 + k], &next);
      (*out)[u * nc + k] = cur->Id(next);
    }
  }
}

struct Decoder {
  lm::base::Model *model;
  lm::WordIndex eos;
};

// The search over the sentences of one batch (tc_viterbi's arguments).  kClasses: with the class
// LM ``dc`` (ids cids[], weight mu) beside the word LM, scored in the order score + word LM +
// mu * class LM + em[c], and paths merged on pairs of states; without it, on word-LM states alone.
// Each layer asks each LM once per (distinct state, candidate) and merges paths on state ids.
template <bool kClasses>
int Search(const Decoder *d, const Decoder *dc, int n_sent, const int *sent_off, const int *cand_off,
           const unsigned *ids, const unsigned *cids, const double *em, double mu, int begin, int *choice) {
  const lm::base::Model &m = *d->model;
  std::vector<std::vector<Hyp>> layers;
  Interner pw, cw, pc, cc;           // the word LM's and the class LM's states: previous and current layer
  std::vector<float> ws, cs;
  std::vector<int> wo, co, slot;
  lm::ngram::State s0, out;
  for (int s = 0; s < n_sent; ++s) {
    const int t0 = sent_off[s], t1 = sent_off[s + 1];
    if (t1 <= t0) continue;
    layers.resize(t1 - t0);
    pw.Clear();
    pc.Clear();
    if (begin) m.BeginSentenceWrite(&s0); else m.NullContextWrite(&s0);
    pw.Id(s0);
    if constexpr (kClasses) {
      if (begin) dc->model->BeginSentenceWrite(&s0); else dc->model->NullContextWrite(&s0);
      pc.Id(s0);
    }
    std::vector<Hyp> first(1, Hyp{0.0, 0, 0, -1, -1});
    const std::vector<Hyp> *prev = &first;
    for (int t = t0; t < t1; ++t) {
      std::vector<Hyp> &layer = layers[t - t0];
      layer.clear();
      const int c0 = cand_off[t], c1 = cand_off[t + 1], nc = c1 - c0;
      cw.Clear();
      ScoreLayer(m, pw, &cw, ids, c0, c1, &ws, &wo);
      int n_cls = 1;
      if constexpr (kClasses) {
        cc.Clear();
        ScoreLayer(*dc->model, pc, &cc, cids, c0, c1, &cs, &co);
        n_cls = static_cast<int>(cc.states.size());
      }
      slot.assign(cw.states.size() * n_cls, -1);       // (word state, class state) -> hypothesis
      for (int bi = 0; bi < static_cast<int>(prev->size()); ++bi) {
        const Hyp &p = (*prev)[bi];
        for (int k = 0; k < nc; ++k) {
          double sc = p.score + static_cast<double>(ws[p.wid * nc + k]);
          const int w = wo[p.wid * nc + k];
          int cl = 0;
          if constexpr (kClasses) {
            sc = sc + mu * static_cast<double>(cs[p.cid * nc + k]);
            cl = co[p.cid * nc + k];
          }
          sc = sc + em[c0 + k];
          int &at = slot[w * n_cls + cl];
          if (at < 0) {
            at = static_cast<int>(layer.size());
            layer.push_back(Hyp{sc, w, cl, k, bi});
          } else if (sc > layer[at].score) {
            Hyp &cur = layer[at];
            cur.score = sc;
            cur.cand = k;
            cur.back = bi;
          }
        }
      }
      std::swap(pw, cw);
      if constexpr (kClasses) std::swap(pc, cc);
      prev = &layer;
    }
    std::vector<float> weos(pw.states.size()), ceos(kClasses ? pc.states.size() : 0);
    for (size_t u = 0; u < pw.states.size(); ++u) weos[u] = m.BaseScore(&pw.states[u], d->eos, &out);
    if constexpr (kClasses)
      for (size_t u = 0; u < pc.states.size(); ++u) ceos[u] = dc->model->BaseScore(&pc.states[u], dc->eos, &out);
    double best = -1e300;
    int best_i = 0;
    for (int i = 0; i < static_cast<int>(prev->size()); ++i) {
      const Hyp &p = (*prev)[i];
      double sc = p.score + static_cast<double>(weos[p.wid]);
      if constexpr (kClasses) sc = sc + mu * static_cast<double>(ceos[p.cid]);
      if (sc > best) {
        best = sc;
        best_i = i;
      }
    }
    int idx = best_i;
    for (int t = t1 - 1; t >= t0; --t) {
      const Hyp &hyp = layers[t - t0][idx];
      choice[t] = hyp.cand;
      idx = hyp.back;
    }
  }
  return 0;
}

}  // namespace

extern "C" {

// The version of this library's interface: textqa/models/truecaser/native.py checks it once, when it
// loads the library, and decodes in Python (saying to run make) when it is not the one it speaks.
int tc_version() { return 2; }

void *tc_load(const char *path, char *err, int errlen) {
  try {
    lm::ngram::Config config;
    config.load_method = util::LAZY;        // mmap: the pages are shared with every other reader of the file
    lm::base::Model *m = lm::ngram::LoadVirtual(path, config);
    if (m->StateSize() != sizeof(lm::ngram::State)) {
      delete m;
      std::strncpy(err, "unexpected KenLM state size", errlen - 1);
      return nullptr;
    }
    Decoder *d = new Decoder{m, m->BaseVocabulary().Index("</s>")};
    return d;
  } catch (const std::exception &e) {
    std::strncpy(err, e.what(), errlen - 1);
    err[errlen - 1] = 0;
    return nullptr;
  }
}

void tc_free(void *h) {
  Decoder *d = static_cast<Decoder *>(h);
  if (d) {
    delete d->model;
    delete d;
  }
}

// One past the largest id of the LM's vocabulary (0: a vocabulary of another kind), so that ids
// stored with the model are checked before any is used.
unsigned tc_vocab_size(void *h) {
  const lm::base::Vocabulary *v = &static_cast<Decoder *>(h)->model->BaseVocabulary();
  if (const auto *sorted = dynamic_cast<const lm::ngram::SortedVocabulary *>(v)) return sorted->Bound();
  if (const auto *probing = dynamic_cast<const lm::ngram::ProbingVocabulary *>(v)) return probing->Bound();
  return 0;
}

unsigned tc_index(void *h, const char *word) {
  return static_cast<Decoder *>(h)->model->BaseVocabulary().Index(word);
}

// The KenLM ids of n words written one after the other in text[0, len), each ended by '\n'.
// Returns the number of words read (n unless the text ends early).
int tc_index_many(void *h, const char *text, long len, int n, unsigned *out) {
  const lm::base::Vocabulary &vocab = static_cast<Decoder *>(h)->model->BaseVocabulary();
  const char *p = text, *end = text + len;
  for (int i = 0; i < n; ++i) {
    const char *q = static_cast<const char *>(memchr(p, '\n', end - p));
    if (!q) return i;
    out[i] = vocab.Index(StringPiece(p, q - p));
    p = q + 1;
  }
  return n;
}

// Decode n_sent sentences.  Sentence s has tokens [sent_off[s], sent_off[s+1]); token t has
// candidates [cand_off[t], cand_off[t+1]) with KenLM word ids ids[] and emission scores em[]
// (added to the LM's log10 probability).  begin: 1 = <s> context, 0 = null context.
// Writes each token's chosen candidate (0-based within the token) to choice[t].  Returns 0.
int tc_viterbi(void *h, int n_sent, const int *sent_off, const int *cand_off, const unsigned *ids,
               const double *em, int begin, int *choice) {
  return Search<false>(static_cast<Decoder *>(h), nullptr, n_sent, sent_off, cand_off, ids, nullptr, em, 0.0,
                       begin, choice);
}

// tc_viterbi with the class LM hc beside the word LM h: candidate c also has the class LM's id
// cids[c], and the class LM's log10 probability weighs mu.
int tc_viterbi_classes(void *h, void *hc, int n_sent, const int *sent_off, const int *cand_off,
                       const unsigned *ids, const unsigned *cids, const double *em, double mu, int begin,
                       int *choice) {
  return Search<true>(static_cast<Decoder *>(h), static_cast<Decoder *>(hc), n_sent, sent_off, cand_off, ids, cids,
                      em, mu, begin, choice);
}

}  // extern "C"
