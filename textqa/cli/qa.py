"""``textqa qa answer``, ``answer-type``, ``select``, ``resources`` and ``expansion``."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from textqa.cli.eval import print_json
from textqa.errors import InputError
from textqa.models.qa import expansion as E
from textqa.models.qa import resources as R
from textqa.models.qa.frames import FrameClusters
from textqa.models.qa.nlp import parse
from textqa.models.qa.resources import QUESTION_SETS
from textqa.models.qa.trecqa import TrecQAError, read_trecqa
from textqa.registry import BY_NAME
from textqa.runtime.json_input import parse_json_line

from .io import add_model_arguments, add_options, decode_partition, load_model, stdin_lines

ENTRY = BY_NAME["qa"]
HELP = "use the trained QA models"
DESCRIPTION = "Question answering models (Lita & Carbonell 2004, 2008)."


def add_common(p) -> None:
    add_model_arguments(p, ENTRY)


def _load(args):
    return load_model(args, ENTRY)


def check_question(where: str, q: str) -> str:
    from textqa.models.qa.store import MAX_QUESTION_WORDS  # deferred: loads orjson, numpy
    if not q.strip():
        raise InputError(f"{where}: empty question")
    n = len(q.split())
    if n > MAX_QUESTION_WORDS:
        raise InputError(f"{where}: question of {n} words is over the limit of {MAX_QUESTION_WORDS}")
    return q


def run_answer_type(args) -> int:
    model = _load(args)
    questions = [check_question(f"<stdin>:{i}", l) for i, l in enumerate(stdin_lines(), start=1)]
    if not questions:
        return 0
    for label in model.answer_types.predict(parse(questions)):
        sys.stdout.write(label + "\n")
    return 0


def run_select(args) -> int:
    model = _load(args)
    try:
        pairs = read_trecqa(args.trecqa)
    except TrecQAError as e:
        raise InputError(str(e)) from e
    docs = parse([p.question.text for p in pairs])
    qtypes, fines = model.answer_types.distribution(docs), model.answer_types.predict(docs)
    for p, qt, fine in zip(pairs, qtypes, fines):
        scores = model.selector.scores(p.question, [c for _, c in p.candidates], qt, fine)
        for i, s in enumerate(scores):
            sys.stdout.write(f"{p.qid}\t{i}\t{s:.6f}\n")
    return 0


def read_questions(lines: list[str], name: str = "<stdin>", first: int = 1) -> list[tuple[str, str]]:
    """(id, question) from plain lines (id = line number) or JSONL {"id", "question"} lines; ``first``
    is the number of the first line (a partition of a larger file)."""
    out = []
    for i, line in enumerate(lines, start=first):
        where = f"{name}:{i}"
        if line.lstrip().startswith("{"):
            obj = parse_json_line(line, where, InputError)
            if not isinstance(obj, dict) or not isinstance(obj.get("question"), str):
                raise InputError(f"{where}: expected {{\"id\": ..., \"question\": \"...\"}}")
            out.append((str(obj.get("id", i)), check_question(where, obj["question"])))
        else:
            out.append((str(i), check_question(where, line)))
    return out


def check_top_k(top_k: int) -> None:
    if not 1 <= top_k <= 100:
        raise InputError("--top-k must be between 1 and 100")


def run_answer(args) -> int:

    from textqa.models.artifact import ArtifactError  # deferred: loads orjson, numpy
    from textqa.models.qa.store import NoContentWords, UnknownCollection  # deferred: loads orjson, numpy
    model = _load(args)
    check_top_k(args.top_k)
    try:
        model.sources(args.collection)              # an unknown collection fails before any question
    except (UnknownCollection, ArtifactError) as e:
        raise InputError(str(e)) from e
    questions = read_questions(stdin_lines())
    if not questions:
        return 0
    try:
        results = model.answer([q for _, q in questions], args.top_k, args.collection)
    except NoContentWords as e:
        raise InputError(f"<stdin>: question {questions[e.index][0]}: {e}") from None
    except ArtifactError as e:
        raise InputError(str(e)) from e
    for (qid, _), res in zip(questions, results):
        sys.stdout.write(json.dumps({"id": qid, **res}) + "\n")
    return 0


def run_index(args) -> int:
    """``textqa qa index NAME PATH...``: a collection built offline, as training is; ``textqa qa index
    wikipedia`` with no PATH: the bundled Wikipedia articles, QA's default collection."""
    from textqa.models.qa.documents import DocumentError  # deferred: loads orjson
    from textqa.models.qa.passages import (WIKIPEDIA, WIKIPEDIA_DESCRIPTION, WIKIPEDIA_SOURCES, build_collection,
                                           check_name, collections_root)
    from textqa.runtime.paths import artifacts_dir
    try:
        name = check_name(args.name)
    except ValueError as e:
        raise InputError(str(e)) from None
    paths, description = args.paths, args.description
    if not paths:
        if name != WIKIPEDIA:
            raise InputError(f"qa index {name}: give the documents to index (PATH...); only '{WIKIPEDIA}' has "
                             f"a default, the bundled Wikipedia articles")
        paths, description = WIKIPEDIA_SOURCES, description or WIKIPEDIA_DESCRIPTION
    dest = collections_root(artifacts_dir(args.artifacts)) / name
    t0 = time.perf_counter()

    def progress(docs: int, paras: int) -> None:
        if not args.quiet:
            print(f"\r[qa index {time.perf_counter() - t0:6.1f}s] {docs:,} documents, {paras:,} paragraphs",
                  end="", file=sys.stderr, flush=True)
    try:
        info = build_collection(dest, name, paths, description=description, progress=progress)
    except (DocumentError, ValueError) as e:
        if not args.quiet:
            print(file=sys.stderr)
        raise InputError(f"{e}; nothing written to {dest}") from None
    if not args.quiet:
        print(f"\r[qa index {time.perf_counter() - t0:6.1f}s] {info['documents']:,} documents, "
              f"{info['paragraphs']:,} paragraphs: wrote {dest}", file=sys.stderr)
    if args.no_analyse:
        if not args.quiet:
            print(f"qa index: {name} is not analysed: it answers with each question's sentences analysed when "
                  f"asked, until 'textqa qa analyse {name}' has run", file=sys.stderr)
        return 0
    return _analyse(dest, args)


def _analyse(folder: Path, args) -> int:
    """The stored analysis of the collection in ``folder`` (:mod:`textqa.models.qa.analysis`), in
    ``--jobs`` processes or on the ``--scheduler``'s Dask cluster; resumes an interrupted one."""
    from textqa.models.artifact import ArtifactError  # deferred: loads orjson, numpy
    from textqa.models.qa.analysis import analyse_collection  # deferred: loads numpy
    from textqa.runtime import dask_cluster

    def run(client):
        progress = (lambda done, total: None) if args.quiet else None
        return analyse_collection(folder, n_process=args.jobs, client=client, progress=progress)
    try:
        if args.scheduler:
            with dask_cluster.cluster(args.scheduler, args.workers, "qa analyse",
                                      preload=("textqa.models.qa.analysis",)) as client:
                info = run(client)
        else:
            info = run(None)
    except ArtifactError as e:
        raise InputError(str(e)) from None
    if not args.quiet:
        print(f"qa analyse: {folder.name}: {info.get('sentences', 0):,} sentences, {info.get('candidates', 0):,} "
              f"candidates, {info.get('bytes', 0) / 1e6:,.1f} MB in {info.get('seconds', 0):,.0f} s", file=sys.stderr)
    return 0


def run_analyse(args) -> int:
    """``textqa qa analyse NAME``: analyse a built collection now (or finish an interrupted analysis)."""
    from textqa.models.qa.passages import check_name, collections_root, has_collection
    from textqa.runtime.paths import artifacts_dir
    try:
        name = check_name(args.name)
    except ValueError as e:
        raise InputError(str(e)) from None
    root = collections_root(artifacts_dir(args.artifacts))
    if not has_collection(root, name):
        raise InputError(f"qa analyse: no collection {name!r} under {root} (build it with 'textqa qa index {name}')")
    return _analyse(root / name, args)


def run_collections(args) -> int:
    model = _load(args)
    rows = model.describe_collections()
    if args.json:
        print_json({"collections": rows})
        return 0
    for r in rows:
        print(f"{r['name']:<16} {r['documents']:>9,} documents {r['paragraphs']:>10,} paragraphs  {r['description']}")
    return 0


def run_resources(args) -> int:
    """Lita, Hunt & Nyberg's resource analysis: WordNet and gazetteers as answer sources."""

    from tqdm import tqdm  # deferred: loads tqdm

    t0 = time.perf_counter()
    try:
        questions = [q for name in args.sets for q in R.read_question_set(name, args.limit)]
    except R.QuestionSetError as e:
        raise InputError(str(e)) from e
    type_rows = None
    if not args.no_types:
        model = _load(args)
        labels = model.answer_types.predict(parse([q.question for q in questions]))
        for q, label in zip(questions, labels):
            q.answer_type = model.answer_types.coarse(label)
    with tqdm(total=len(questions), desc="questions", unit="q", file=sys.stderr, disable=args.quiet) as bar:
        R.analyse(questions, progress=bar.update)
    wn_rows, gaz_rows = R.wordnet_table(questions), R.gazetteer_table(questions)
    if not args.no_types:
        type_rows = R.by_type_table(questions)
    if args.json:
        out = {"wordnet": wn_rows, "gazetteers": gaz_rows, "by_type": type_rows,
               "paper": {"wordnet": R.PAPER_WORDNET, "gazetteers": R.PAPER_GAZETTEERS}}
        if args.details:
            out["questions"] = [{"qid": q.qid, "year": q.year, "question": q.question, "answer_type": q.answer_type,
                                 "found": q.found} for q in questions]
        print_json(out)
    else:
        print(R.format_report(wn_rows, gaz_rows, type_rows))
    if not args.quiet:
        print(f"[qa resources] {len(questions)} questions of {', '.join(args.sets)} in "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


def run_expansion(args) -> int:
    """The cluster-based query expansion paper's comparison of four query expansions."""

    from tqdm import tqdm  # deferred: loads tqdm

    t0 = time.perf_counter()
    try:
        train = [q for name in args.train_sets for q in R.read_question_set(name, args.limit)]
        test = [q for name in args.test_sets for q in R.read_question_set(name, args.limit)]
    except R.QuestionSetError as e:
        raise InputError(str(e)) from e
    seen = {q.question.strip().lower() for q in train}
    test = [q for q in test if q.question.strip().lower() not in seen]
    if args.temporal:
        test = [q for q in test if E.is_temporal(q.question)]
    if not test:
        raise InputError("no test questions left (after removing those also in the training sets)")
    model = _load(args)
    if model.index is None:
        raise InputError("this QA artifact has no collection (trained with --no-instance)")
    say = (lambda m: None) if args.quiet else (lambda m: print(f"[qa expansion] {m}", file=sys.stderr, flush=True))
    say(f"parsing {len(train)} training and {len(test)} test questions")
    train_docs, test_docs = parse([q.question for q in train]), parse([q.question for q in test])
    frame_clusters = FrameClusters(args.min_cluster).fit(train_docs, [q.qid for q in train])
    clusters, sizes = frame_clusters.clusters_, frame_clusters.sizes()
    with tqdm(total=len(sizes), desc="cluster query-content models", unit="cluster", file=sys.stderr,
              disable=args.quiet) as bar:
        features = E.learn_cluster_features(train, train_docs, model.index, clusters, args.k, progress=bar.update)
    with tqdm(total=len(test), desc="test questions", unit="q", file=sys.stderr, disable=args.quiet) as bar:
        results = {"all": E.compare(test, test_docs, model.index, features, sizes, progress=bar.update)}
    temporal = [i for i, q in enumerate(test) if E.is_temporal(q.question)]
    if not args.temporal and temporal:
        results["temporal"] = E.compare([test[i] for i in temporal], [test_docs[i] for i in temporal], model.index,
                                        features, sizes)
    if args.json:
        print_json({"train_sets": args.train_sets, "test_sets": args.test_sets, "clusters": len(sizes),
                    "clusters_with_features": len(features), "results": results, "paper_table2": E.PAPER_TABLE2})
    else:
        print(E.format_report(results))
    say(f"{len(test)} test questions, {len(features)} of {len(sizes)} training clusters with expansions, "
        f"{time.perf_counter() - t0:.1f} s")
    return 0


def _at_least_one(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def run(args) -> int:
    return args.func(args)


def run_partition(model, options: dict, label: str, first_line: int, newline_first: int, byte_offset: int,
                  data: bytes):
    """One partition of ``textqa batch qa``: the JSONL ``textqa qa answer`` writes for its questions."""

    from textqa.models.artifact import ArtifactError  # deferred: loads orjson, numpy
    questions = read_questions(decode_partition(data, label, newline_first, byte_offset), label, first_line)
    from textqa.models.qa.store import NoContentWords, UnknownCollection  # deferred: loads orjson, numpy
    try:
        results = model.answer([q for _, q in questions], options["top_k"], options.get("collection")) \
            if questions else []
    except NoContentWords as e:
        raise InputError(f"{label}: question {questions[e.index][0]}: {e}") from None
    except (UnknownCollection, ArtifactError) as e:
        raise InputError(str(e)) from e
    return "".join(json.dumps({"id": qid, **res}) + "\n" for (qid, _), res in zip(questions, results)
                   ).encode("utf-8"), []


def add_arguments(qa) -> None:
    qs = qa.add_subparsers(dest="action", required=True, metavar="ACTION")
    at = qs.add_parser("answer-type", help="UIUC COARSE:fine answer types of questions (stdin, one a line)",
                       description="Read questions from stdin, one a line; write their COARSE:fine answer types.")
    add_common(at)
    at.set_defaults(func=run_answer_type)
    se = qs.add_parser("select", help="score TrecQA candidate sentences",
                       description="Score every candidate sentence of a TrecQA file; write "
                                   "'qid<TAB>index<TAB>score', index = the candidate's 0-based position in its "
                                   "<QApairs> block in file order.")
    add_common(se)
    se.add_argument("--trecqa", type=Path, required=True, help="TrecQA XML (.gz accepted)")
    se.set_defaults(func=run_select)
    an = qs.add_parser("answer", help="answer questions (stdin: one a line, or JSONL {\"id\", \"question\"})",
                       description="Answer questions from a collection (--collection; default: Wikipedia, when "
                                   "built, and the news pool) with the instance-based system. Writes JSONL "
                                   "{\"id\", \"question\", \"answers\": [{\"answer\", \"score\", \"sentence\", "
                                   "\"start\", \"end\", \"document\": {\"id\", \"title\", \"url\"}, "
                                   "\"clusters\"}], \"answer_type\": {...}, \"uiuc_type\", \"clusters\", "
                                   "\"collection\"}.")
    add_common(an)
    add_options(an, ENTRY)
    an.set_defaults(func=run_answer)
    _add_index(qs)
    co = qs.add_parser("collections", help="list the collections QA can answer from",
                       description="The collections of the QA model (its default and the news pool) and those "
                                   "'textqa qa index' built, with their sizes.")
    add_common(co)
    co.add_argument("--json", action="store_true", help="print JSON instead of a table")
    co.set_defaults(func=run_collections)
    _add_resources(qs)
    _add_expansion(qs)


def _add_index(qs) -> None:
    """``textqa qa index NAME [PATH ...]``."""
    ix = qs.add_parser("index", help="build a named collection of your documents to answer from, and analyse it",
                       description="Index documents into the collection NAME under <artifacts>/collections/NAME "
                                   "(written beside it and renamed into place; a failure leaves the old one). "
                                   "PATH: a folder of .txt, .md and .html files, JSONL {\"id\", \"title\", "
                                   "\"text\", \"url\"?} lines, TrecQA XML, or WikiExtractor output (.xz/.gz "
                                   "accepted). Then: textqa qa answer --collection NAME. 'textqa qa index "
                                   "wikipedia' with no PATH (re)builds the default collection's Wikipedia index "
                                   "from the bundled articles.")
    ix.add_argument("name", help="the collection's name: letters, digits, '_', '.', '-'")
    ix.add_argument("paths", type=Path, nargs="*", metavar="PATH",
                    help="documents to index (none for 'wikipedia': the bundled articles)")
    ix.add_argument("--description", default="", help="a line saying what the collection holds")
    ix.add_argument("--artifacts", type=Path, default=None,
                    help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")
    ix.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ix.add_argument("--no-analyse", action="store_true",
                    help="index only; answers then analyse each question's sentences when asked, until 'textqa qa "
                         "analyse NAME' has run (the analysis is on by default)")
    _analysis_arguments(ix)
    ix.set_defaults(func=run_index)
    an = qs.add_parser("analyse", help="analyse a built collection once, so that answering parses none of its text",
                       description="Split every paragraph of the collection NAME into sentences and store each "
                                   "sentence's answer candidates (named entities and numbers, typed) beside its "
                                   "index; QA then reads them instead of analysing sentences when a question is "
                                   "asked. Interrupted (Ctrl-C), it resumes where it stopped when run again; the "
                                   "collection joins the analysis to its manifest only when it is finished.")
    an.add_argument("name", help="the collection's name ('wikipedia': QA's default collection)")
    an.add_argument("--artifacts", type=Path, default=None,
                    help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")
    an.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _analysis_arguments(an)
    an.set_defaults(func=run_analyse)


def _analysis_arguments(p) -> None:
    from textqa.runtime import dask_cluster
    p.add_argument("--jobs", type=int, default=2,
                   help="processes that analyse the paragraphs (1: this process; 2 or more: two worker processes; "
                        "default 2)")
    dask_cluster.add_arguments(p, None, "analyse the paragraphs")


def _add_resources(qs) -> None:
    """``textqa qa resources``: the resource analysis of Lita, Hunt & Nyberg 2004."""
    rs = qs.add_parser("resources", help="how many TREC questions WordNet and gazetteers answer (Lita et al. 2004)",
                       description="Resource analysis for QA (Lita, Hunt & Nyberg 2004): for every TREC question "
                                   "with NIST answer patterns, the WordNet text of its terms and phrases (glosses, "
                                   "synonyms, hypernyms/hyponyms) and a gazetteer extractor (GeoNames countries, "
                                   "US states, cities, continents) are checked against the patterns; tables by "
                                   "TREC set (the paper's tables 1 and 2, its numbers beside) and by the QA "
                                   "model's answer type (table 4). Needs the QA artifact for the answer types "
                                   "unless --no-types.")
    add_common(rs)
    rs.add_argument("--sets", nargs="+", default=list(QUESTION_SETS), choices=list(QUESTION_SETS), metavar="SET",
                    help=f"TREC question sets (default: all of {', '.join(QUESTION_SETS)})")
    rs.add_argument("--limit", type=_at_least_one, default=None, help="at most this many questions per set")
    rs.add_argument("--no-types", action="store_true", help="no answer-type table (no QA model needed)")
    rs.add_argument("--json", action="store_true", help="print JSON instead of tables")
    rs.add_argument("--details", action="store_true", help="with --json: every question's findings too")
    rs.add_argument("--quiet", action="store_true", help="no progress bar or summary on stderr")
    rs.set_defaults(func=run_resources)


def _add_expansion(qs) -> None:
    """``textqa qa expansion``: the query-expansion comparison of Lita & Carbonell."""
    ex = qs.add_parser("expansion", help="compare simple, synonym, inflectional and cluster-based query expansion",
                       description="Cluster-based query expansion (Lita & Carbonell): learn each training "
                                   "cluster's query-content model on the training sets, then for every test "
                                   "question retrieve sentences from the QA artifact's collection with the simple "
                                   "(content words), synonym (WordNet), inflectional (lemminflect) and cluster-based "
                                   "queries; report recall@k of answer-bearing sentences (NIST patterns; pooled "
                                   "over the strategies), the fraction of questions that gain relevant sentences "
                                   "the simple query misses, and the paper's table 2. Test questions that also "
                                   "occur in the training sets are dropped.")
    add_common(ex)
    ex.add_argument("--train-sets", nargs="+", default=["trec8", "trec9"], choices=list(QUESTION_SETS),
                    metavar="SET", help="sets the clusters are learned on (default: trec8 trec9)")
    ex.add_argument("--test-sets", nargs="+", default=["trec2002"], choices=list(QUESTION_SETS), metavar="SET",
                    help="sets the strategies are compared on (default: trec2002)")
    ex.add_argument("--limit", type=_at_least_one, default=None, help="at most this many questions per set")
    ex.add_argument("--temporal", action="store_true", help="only temporal test questions (the paper's choice)")
    ex.add_argument("--min-cluster", type=_at_least_one, default=3,
                    help="a cluster needs more than this many training questions (default 3: the paper's 4+)")
    ex.add_argument("--k", type=_at_least_one, default=20, help="sentences per query when learning (default 20)")
    ex.add_argument("--json", action="store_true", help="print JSON instead of tables")
    ex.add_argument("--quiet", action="store_true", help="no progress bars or summary on stderr")
    ex.set_defaults(func=run_expansion)
