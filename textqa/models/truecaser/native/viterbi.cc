// Exact Viterbi over the truecasing trellis (Lita et al. 2003, figure 1 and eq. 2) in C++ over
// KenLM, the same search as Truecaser._viterbi in model.py, step for step: paths are merged on
// equal KenLM states (the first path reaching a state is kept unless a later one scores strictly
// higher), scores are summed in double from KenLM's float log10 probabilities, the best final
// state (sentence end included) is the first of the strictly best.  With a class LM beside the word
// LM (textqa/models/truecaser/classes.py) the states are pairs (word-LM state, class-LM state), as
// in Truecaser._viterbi_classes.  Built by the Makefile with KenLM's query-only sources; loaded by
// textqa/models/truecaser/native.py through ctypes.
#include "lm/model.hh"
#include "lm/state.hh"

#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

template <bool kClasses>
struct Hyp {
  double score;
  lm::ngram::State state;   // word-LM state
  int cand;   // candidate index within its token
  int back;   // index of the previous hypothesis in the previous layer
};

template <>
struct Hyp<true> {          // with a class LM: the class LM's state too
  double score;
  lm::ngram::State state, cstate;
  int cand;
  int back;
};

struct StateHash {
  size_t operator()(const lm::ngram::State &s) const { return lm::ngram::hash_value(s); }
};

struct PairHash {
  size_t operator()(const std::pair<lm::ngram::State, lm::ngram::State> &p) const {
    return lm::ngram::hash_value(p.first) * 1000003u ^ lm::ngram::hash_value(p.second);
  }
};

struct Decoder {
  lm::base::Model *model;
  lm::WordIndex eos;
};

// The search over the sentences of one batch (tc_viterbi's arguments).  kClasses: with the class
// LM ``dc`` (ids cids[], weight mu) beside the word LM, scored in the order score + word LM +
// mu * class LM + em[c], and paths merged on pairs of states; without it, on word-LM states alone.
template <bool kClasses>
int Search(const Decoder *d, const Decoder *dc, int n_sent, const int *sent_off, const int *cand_off,
           const unsigned *ids, const unsigned *cids, const double *em, double mu, int begin, int *choice) {
  using Key = typename std::conditional<kClasses, std::pair<lm::ngram::State, lm::ngram::State>,
                                        lm::ngram::State>::type;
  using Hash = typename std::conditional<kClasses, PairHash, StateHash>::type;
  const lm::base::Model &m = *d->model;
  using H = Hyp<kClasses>;
  std::vector<std::vector<H>> layers;
  std::unordered_map<Key, int, Hash> at;
  for (int s = 0; s < n_sent; ++s) {
    const int t0 = sent_off[s], t1 = sent_off[s + 1];
    if (t1 <= t0) continue;
    layers.resize(t1 - t0);
    H start;
    start.score = 0.0;
    start.cand = -1;
    start.back = -1;
    if (begin) m.BeginSentenceWrite(&start.state); else m.NullContextWrite(&start.state);
    if constexpr (kClasses) {
      if (begin) dc->model->BeginSentenceWrite(&start.cstate); else dc->model->NullContextWrite(&start.cstate);
    }
    std::vector<H> first(1, start);
    const std::vector<H> *prev = &first;
    lm::ngram::State out{}, cout{};
    for (int t = t0; t < t1; ++t) {
      std::vector<H> &layer = layers[t - t0];
      layer.clear();
      at.clear();
      const int c0 = cand_off[t], c1 = cand_off[t + 1];
      for (int bi = 0; bi < static_cast<int>(prev->size()); ++bi) {
        const H &p = (*prev)[bi];
        for (int c = c0; c < c1; ++c) {
          double sc = p.score + static_cast<double>(m.BaseScore(&p.state, ids[c], &out));
          Key key;
          if constexpr (kClasses) {
            sc = sc + mu * static_cast<double>(dc->model->BaseScore(&p.cstate, cids[c], &cout));
            key = std::make_pair(out, cout);
          } else {
            key = out;
          }
          sc = sc + em[c];
          auto found = at.find(key);
          if (found == at.end()) {
            at.emplace(key, static_cast<int>(layer.size()));
            if constexpr (kClasses) layer.push_back(H{sc, out, cout, c - c0, bi});
            else layer.push_back(H{sc, out, c - c0, bi});
          } else if (sc > layer[found->second].score) {
            H &cur = layer[found->second];
            cur.score = sc;
            cur.cand = c - c0;
            cur.back = bi;
          }
        }
      }
      prev = &layer;
    }
    double best = -1e300;
    int best_i = 0;
    for (int i = 0; i < static_cast<int>(prev->size()); ++i) {
      const H &p = (*prev)[i];
      double sc = p.score + static_cast<double>(m.BaseScore(&p.state, d->eos, &out));
      if constexpr (kClasses) sc = sc + mu * static_cast<double>(dc->model->BaseScore(&p.cstate, dc->eos, &cout));
      if (sc > best) {
        best = sc;
        best_i = i;
      }
    }
    int idx = best_i;
    for (int t = t1 - 1; t >= t0; --t) {
      const H &hyp = layers[t - t0][idx];
      choice[t] = hyp.cand;
      idx = hyp.back;
    }
  }
  return 0;
}

}  // namespace

extern "C" {

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

unsigned tc_index(void *h, const char *word) {
  return static_cast<Decoder *>(h)->model->BaseVocabulary().Index(word);
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
