"""Builds the truecaser's C++ search into the package, so that any install (``pip install .``, a
wheel from ``python -m build``) decodes with it.

KenLM's sources are the pinned ``kenlm`` source package, vendored unchanged in
``third_party/kenlm/`` (LGPL; its sha256 is checked before it is unpacked), so a build needs no
network and nothing in the installing virtualenv beyond what ``pyproject.toml`` asks for
(``$TEXTQA_KENLM_SOURCE`` names an unpacked KenLM source tree instead).  Its
``compile_query_only.sh`` compiles KenLM with g++ alone (no Boost); then
``textqa/models/truecaser/native/viterbi.cc`` is linked with it into ``libtextqa_viterbi.so``, and
KenLM's ``build_binary`` (needed only for training) is copied beside it.  Everything else is in
``pyproject.toml``.  A build without g++ fails and says so: the package never falls back silently
(and at run time the truecaser says on stderr and in ``/v1/models`` when its library cannot load).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

KENLM_VERSION = "0.3.0"
HERE = Path(__file__).resolve().parent
NATIVE = Path("textqa") / "models" / "truecaser" / "native"
LIBRARY = "libtextqa_viterbi.so"


KENLM_ARCHIVE = HERE / "third_party" / "kenlm" / f"kenlm-{KENLM_VERSION}.tar.gz"
KENLM_SHA256 = "c4628bb9fb63c8a6f9240035b8b037385cfc404cb72e933cf48878291edac1e8"
KENLM_LICENCES = ("LICENSE", "COPYING.LESSER.3")


def kenlm_source(tmp: Path) -> Path:
    """An unpacked KenLM source tree of the pinned version, in ``tmp`` (a copy: the build writes into it)."""
    given = os.environ.get("TEXTQA_KENLM_SOURCE")
    if given:
        if not (Path(given) / "compile_query_only.sh").is_file():
            raise SystemExit(f"textqa build: TEXTQA_KENLM_SOURCE={given} is not a KenLM source tree "
                                     "(no compile_query_only.sh)")
        shutil.copytree(given, tmp / "kenlm", ignore=shutil.ignore_patterns("*.o", "bin"))
        return tmp / "kenlm"
    try:
        data = KENLM_ARCHIVE.read_bytes()
    except OSError:
        raise SystemExit(f"textqa build: cannot get KenLM's source: {KENLM_ARCHIVE} is missing; "
                                 "restore it from the repository or set TEXTQA_KENLM_SOURCE to an unpacked "
                                 f"kenlm-{KENLM_VERSION} source tree") from None
    if hashlib.sha256(data).hexdigest() != KENLM_SHA256:
        raise SystemExit(f"textqa build: {KENLM_ARCHIVE} does not match its sha256 ({KENLM_SHA256}); "
                                 "restore it from the repository or set TEXTQA_KENLM_SOURCE to an unpacked "
                                 f"kenlm-{KENLM_VERSION} source tree")
    with tarfile.open(KENLM_ARCHIVE) as tar:
        tar.extractall(tmp, filter="data")
    return tmp / f"kenlm-{KENLM_VERSION}"


def build_native(dest: Path) -> None:
    """``libtextqa_viterbi.so`` and ``build_binary`` into ``dest`` (as the Makefile builds them)."""
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        raise SystemExit(f"textqa build: the C++ compiler {cxx!r} is not installed; the truecaser's C++ search "
                         "needs it (apt-get install g++)")
    with tempfile.TemporaryDirectory(prefix="textqa-kenlm-") as tmp:
        src = kenlm_source(Path(tmp))
        print("textqa build: compiling KenLM and the truecaser's C++ search (about a minute)", file=sys.stderr)
        env = dict(os.environ, CXXFLAGS="-fPIC")
        with open(Path(tmp) / "compile.log", "wb") as log:
            r = subprocess.run(["bash", "compile_query_only.sh"], cwd=src, env=env, stdout=log, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise SystemExit("textqa build: compiling KenLM failed:\n" + (Path(tmp) / "compile.log").read_text()[-3000:])
        objects = sorted(str(p) for d in ("util/double-conversion", "util", "lm") for p in (src / d).glob("*.o")
                         if not p.name.endswith(("main.o", "test.o")))
        dest.mkdir(parents=True, exist_ok=True)
        subprocess.run([cxx, "-shared", "-fPIC", "-I.", "-O3", "-ffp-contract=off", "-DNDEBUG", "-DKENLM_MAX_ORDER=6",
                        str(HERE / NATIVE / "viterbi.cc"), *objects, "-o", str(dest / LIBRARY), "-lrt"],
                       cwd=src, check=True)
        shutil.copy2(src / "bin" / "build_binary", dest / "build_binary")
        for name in KENLM_LICENCES:                 # KenLM's code is linked in: its licence travels with it
            shutil.copy2(src / name, dest / f"KENLM_{name}")


class BuildWithNative(build_py):
    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):     # an editable install (make venv): make builds it
            build_native((Path(self.build_lib) / NATIVE).resolve())


class BinaryDistribution(Distribution):
    """A wheel with a compiled library is specific to its platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithNative}, distclass=BinaryDistribution)
