"""Versioned model artifacts: a directory with ``manifest.json`` and payload files.

The manifest records the model name, format version, package version, creation
time, training-data fingerprint, hyper-parameters, held-out metrics and the
sha256 of every payload file.  ``load_manifest``/``verify`` check every checksum
*before* any payload is read.  Payloads carry data only (JSON, ``.npz`` read with
``allow_pickle=False``, KenLM binaries, SQLite): loading an artifact never runs code.
``write_artifact`` builds the directory next to its destination and renames it
into place, so an interrupted or failed training never damages the artifact the
service is reading; the previous version is kept as ``<dir>.previous`` until the
swap has succeeded.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import tempfile
import threading
import time
import zlib
from concurrent.futures import Future
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

import numpy as np
import orjson

from textqa.runtime.json_input import JSONInputError, parse_json

from .checked_files import CheckedFiles, file_identity

MANIFEST = "manifest.json"


class ArtifactError(Exception):
    """An artifact is missing, incomplete, tampered with or of an unknown format."""


def read_manifest(folder: str | os.PathLike) -> dict:
    """The manifest of the artifact (or collection) in ``folder``, read through the one path for JSON
    from outside (:func:`textqa.runtime.json_input.parse_json`); ``ArtifactError`` naming the file if it
    is missing, unreadable, hostile JSON or not an object."""
    mf = Path(folder) / MANIFEST
    try:
        manifest = parse_json(mf.read_bytes())
    except FileNotFoundError:
        raise ArtifactError(f"{folder}: not a model artifact (no {MANIFEST}); train one with 'textqa train'") \
            from None
    except OSError as e:
        raise ArtifactError(f"{mf}: unreadable manifest ({e.strerror or e})") from None
    except JSONInputError as e:
        raise ArtifactError(f"{mf}: unreadable manifest ({e})") from None
    if not isinstance(manifest, dict):
        raise ArtifactError(f"{mf}: unreadable manifest (a JSON object expected, got {type(manifest).__name__})")
    return manifest


def read_json(path: str | os.PathLike):
    """The JSON value stored in ``path``.  Parsed with orjson, which reads the truecaser's large
    tables faster than the standard library ("Figures behind the code" in docs/experiments/truecaser.md); what orjson refuses but ``json`` reads
    (``NaN``, integers beyond 64 bits) is read by ``json``.  Raises ``OSError`` or ``ValueError``
    (also for a value nested too deeply for either parser)."""
    data = _take_read_ahead(path, "json")
    if data is None:
        data = _json_bytes(path)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        try:
            return json.loads(data)
        except RecursionError as e:
            raise ValueError(f"{path}: JSON nested too deeply") from e


def _json_bytes(path: str | os.PathLike, data: bytes | None = None) -> bytes:
    """The bytes of a JSON file (``data``, if already read), decompressed if it ends in ``.gz``."""
    if data is None:
        data = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (EOFError, gzip.BadGzipFile, zlib.error) as e:
            raise ValueError(f"{path}: truncated or corrupt gzip file ({e})") from e
    return data


def sha256_file(path: str | os.PathLike) -> str:
    ahead = _take_read_ahead(path, "sha256")
    return ahead if ahead is not None else _hash_file(path)


def _package_version() -> str:
    try:
        return version("textqa")
    except Exception:  # not installed (running from a source tree)
        return "0+unknown"


@contextmanager
def write_artifact(dest: str | os.PathLike, name: str, format_version: int, *, hyper_parameters: dict,
                   metrics: dict | None = None, data_fingerprint: str | None = None, extra: dict | None = None,
                   files: dict | None = None):
    """Context manager yielding a temporary directory to write payload files into.
    ``files`` ({name in the artifact: source path}, e.g. training plots) are copied in after the
    payload, and checksummed with it.

    On normal exit the manifest is written (with checksums of every file in the
    directory) and the directory atomically replaces ``dest``.  On an exception
    the temporary directory is removed and ``dest`` is left untouched.

    >>> with write_artifact("artifacts/truecaser", "truecaser", 1, hyper_parameters={}) as tmp:
    ...     (tmp / "params.json").write_text("{}")            # doctest: +SKIP
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    recover_interrupted(dest)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-{os.getpid()}-", dir=dest.parent))
    os.chmod(tmp, 0o755)                # mkdtemp makes it private; the service may run as another user
    try:
        yield tmp
        for rel, src in (files or {}).items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, tmp / rel)
        checksums = {}
        for p in sorted(tmp.rglob("*")):
            if p.is_file():
                rel = p.relative_to(tmp).as_posix()
                checksums[rel] = {"sha256": sha256_file(p), "bytes": p.stat().st_size}
        manifest = {
            "name": name,
            "format_version": format_version,
            "package_version": _package_version(),
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "training_data_fingerprint": data_fingerprint,
            "hyper_parameters": hyper_parameters,
            "metrics": metrics or {},
            "files": checksums,
            **(extra or {}),
        }
        with open(tmp / MANIFEST, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2, sort_keys=True, default=str)
            f.flush()
            os.fsync(f.fileno())
        _swap_into_place(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def artifact_id(manifest: dict) -> str:
    """A short id of an artifact's payload: sha256 over the manifest's file checksums (12 hex digits)."""
    return hashlib.sha256(json.dumps(manifest.get("files", {}), sort_keys=True).encode()).hexdigest()[:12]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:         # someone else's live process
        return True
    return True


def recover_interrupted(dest: str | os.PathLike) -> list[Path]:
    """Undo what a training killed with SIGKILL (or a power cut) left next to ``dest``: temporary
    folders of writers that no longer run are removed, and a ``dest.previous`` whose swap was cut
    between its two renames is put back as ``dest``.  Returns what was removed or restored."""
    dest = Path(dest)
    done = []
    for tmp in dest.parent.glob(f".{dest.name}.tmp-*"):
        parts = tmp.name[len(f".{dest.name}.tmp-"):].split("-", 1)
        owner = int(parts[0]) if len(parts) == 2 and parts[0].isdigit() else None
        if tmp.is_dir() and (owner is None or not _alive(owner)):
            shutil.rmtree(tmp, ignore_errors=True)
            done.append(tmp)
    old = dest.with_name(dest.name + ".previous")
    if old.is_dir() and not dest.exists():
        os.rename(old, dest)
        done.append(dest)
    return done


def _swap_into_place(tmp: Path, dest: Path) -> None:
    """Rename ``tmp`` to ``dest``; an existing ``dest`` is moved aside first and removed after."""
    old = dest.with_name(dest.name + ".previous")
    if old.exists():
        shutil.rmtree(old)
    if dest.exists():
        os.rename(dest, old)
    try:
        os.rename(tmp, dest)
    except BaseException:
        if old.exists() and not dest.exists():
            os.rename(old, dest)
        raise
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)


PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle")


def save_arrays(path: str | os.PathLike, arrays: dict, compress: bool | frozenset = False) -> None:
    """numpy arrays to an ``.npz`` file, each zip-deflated with ``compress`` (True: all; a set: the
    arrays of those names, typically text, which shrinks several times, while numbers that hardly
    shrink are stored as they are and read without inflating); object arrays (which would be
    pickled) are refused."""
    import zipfile

    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    bad = [k for k, v in arrays.items() if v.dtype.hasobject]
    if bad:
        raise TypeError(f"object arrays would be pickled: {', '.join(bad[:5])}")
    with open(path, "wb") as f, zipfile.ZipFile(f, "w", allowZip64=True) as z:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            deflate = compress is True or (not isinstance(compress, bool) and name in compress)
            info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
            with z.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def load_arrays(path: str | os.PathLike) -> dict:
    """The arrays of an ``.npz`` file, read with ``allow_pickle=False``: data only, never code."""
    ahead = _take_read_ahead(path, "arrays")
    if ahead is not None:
        return ahead
    return _read_arrays(path)


def _read_arrays(path: str | os.PathLike, data: bytes | None = None) -> dict:
    """:func:`load_arrays`' read of ``path`` (or of its bytes ``data``, already read)."""
    try:
        with np.load(path if data is None else io.BytesIO(data), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except ValueError as e:             # an object array inside: numpy refuses to unpickle it
        raise ArtifactError(f"{path}: holds pickled objects, which textqa never loads ({e})") from e


def load_manifest(path: str | os.PathLike, expect_name: str | None = None,
                  max_format_version: int | None = None, verify: bool = True,
                  min_format_version: int | None = None, checked: CheckedFiles | None = None) -> dict:
    """Read and check an artifact's manifest; verify every payload checksum (``checked``: the payloads
    already found equal to their checksums, by file identity, which are not hashed again
    (:mod:`.checked_files`); default :meth:`.CheckedFiles.default`).

    ``min_format_version``: older formats stored Python pickles; they are refused with a message
    to retrain, never unpickled.  Raises ``ArtifactError`` naming the directory and the problem.
    """
    path = Path(path)
    mf = path / MANIFEST
    if not mf.is_file():
        raise ArtifactError(f"{path}: not a model artifact (no {MANIFEST}); train one with 'textqa train'")
    manifest = read_manifest(path)
    for key in ("name", "format_version", "files"):
        if key not in manifest:
            raise ArtifactError(f"{mf}: manifest lacks {key!r}")
    if expect_name and manifest["name"] != expect_name:
        raise ArtifactError(f"{path}: holds model {manifest['name']!r}, expected {expect_name!r}")
    if max_format_version is not None and manifest["format_version"] > max_format_version:
        raise ArtifactError(f"{path}: format version {manifest['format_version']} is newer than this code "
                            f"reads ({max_format_version}); upgrade textqa")
    if min_format_version is not None and manifest["format_version"] < min_format_version:
        raise ArtifactError(f"{path}: format version {manifest['format_version']} stores Python pickles, which "
                            f"textqa no longer loads (unpickling can run code); retrain it with "
                            f"'textqa train {manifest['name']}'")
    pickles = [rel for rel in manifest["files"] if rel.endswith(PICKLE_SUFFIXES)]
    if pickles:
        raise ArtifactError(f"{path}: payload {pickles[0]} is a pickle, which textqa never loads; "
                            f"retrain it with 'textqa train {manifest['name']}'")
    if verify:
        verify_payloads(path, manifest, CheckedFiles.default() if checked is None else checked)
    return manifest


def verify_payloads(path: Path, manifest: dict, checked: CheckedFiles, remedy: str = "retrain it") -> None:
    """Every payload of the artifact at ``path`` against its manifest checksum, but those ``checked``
    holds as they are now; those hashed are remembered there."""
    for rel, meta in manifest["files"].items():
        if not checked.holds(path / rel, meta["sha256"]):
            verify_and_remember(path, manifest, rel, checked, remedy)
    checked.save()


def verify_and_remember(path: Path, manifest: dict, rel: str, checked: CheckedFiles, remedy: str = "retrain it") -> int:
    """:func:`verify_payload`, and the payload remembered in ``checked`` by its identity as it was
    before it was read; its size in bytes."""
    p = path / rel
    try:
        identity = file_identity(p)
    except OSError:                     # missing or unreadable: verify_payload names what is wrong
        identity = None
    verify_payload(path, manifest, rel, remedy)
    if identity is None:                # it appeared while it was checked: hashed again next time
        return p.stat().st_size
    checked.remember(p, manifest["files"][rel]["sha256"], identity)
    return identity[2]


def verify_payload(path: Path, manifest: dict, rel: str, remedy: str = "retrain it") -> None:
    """Check one payload file of the artifact at ``path`` against its manifest checksum (``load_manifest``
    checks all of them; a payload read later, on first use, is checked again then); ``remedy``: what the
    error tells the user to do."""
    meta = manifest["files"].get(rel)
    p = path / rel
    if meta is None:
        raise ArtifactError(f"{path}: payload file {rel} is not in the manifest")
    if not p.is_file():
        raise ArtifactError(f"{path}: payload file {rel} is missing")
    digest = sha256_file(p)
    if digest != meta["sha256"]:
        raise ArtifactError(f"{path}: checksum mismatch for {rel} (manifest {meta['sha256'][:12]}…, "
                            f"file {digest[:12]}…); the artifact was modified or corrupted: {remedy}")


# ------------------------------------------------------------------ read-ahead
#: (file, what) -> Future of (the file's identity when it was read, the value): what :func:`read_ahead`'s
#: thread has computed, each taken once by :func:`sha256_file` or :func:`load_arrays`.
_AHEAD: dict[tuple[str, str], Future] = {}
_AHEAD_LOCK = threading.Lock()
READ_AHEAD_THREAD = "textqa-read-ahead"     # the name of read_ahead's threads
#: read_ahead's threads, each taking the next payload: two, so that a large compressed payload
#: (inflated outside the GIL) does not hold up the ones after it
READ_AHEAD_THREADS = 2


def _take_read_ahead(path, what: str):
    """The value :func:`read_ahead` computed for ``path`` (waiting for it if it is under way), or None
    (nothing read ahead, it failed, or the file has changed since: the caller reads it itself)."""
    with _AHEAD_LOCK:
        fut = _AHEAD.pop((os.path.abspath(path), what), None)
    if fut is None:
        return None
    try:
        ident, value = fut.result()
        return value if ident == file_identity(path) else None
    except Exception:       # the caller's own read raises what it raises, with its own message
        return None


@contextmanager
def read_ahead(folder: str | os.PathLike, hash_only: tuple = (), checked: CheckedFiles | None = None,
               first: tuple = ()):
    """While the block runs (typically: importing the model's code, then its loader), background
    threads (:data:`READ_AHEAD_THREADS`) hash the payloads of the artifact in ``folder``; an ``.npz`` or ``.json.gz`` payload whose
    bytes match the manifest's checksum it then parses (the arrays, read with ``allow_pickle=False``)
    or decompresses, from the bytes it hashed.  That work runs mostly outside the GIL (hashlib and zlib
    release it) while the import holds it.  The loader's :func:`sha256_file`, :func:`load_arrays` and
    :func:`read_json` take the results, each once, if the file is still the one read (same device,
    inode, size and modification time), and otherwise read it themselves; what the block did not take
    is dropped at its end.  So nothing is parsed before its checksum has matched, and the loader
    still checks every checksum (:func:`load_manifest`) before it uses any payload.  The payloads
    named in ``hash_only`` (read by the model when first used, if ever) are hashed, not parsed.  A
    payload ``checked`` holds as it is now (:mod:`.checked_files`; default
    :meth:`.CheckedFiles.default`) is not hashed: the loader will not ask for its hash.  The payloads
    named in ``first`` are read first, in that order (the loader's: it then rarely waits), the
    others after them in the manifest's order."""
    folder = Path(folder)
    checked = CheckedFiles.default() if checked is None else checked
    try:
        files = {rel: meta["sha256"] for rel, meta in read_manifest(folder)["files"].items()}
        files = {**{rel: files[rel] for rel in first if rel in files}, **files}
    except Exception:       # no readable manifest: the loader reports it
        yield
        return
    parse = {rel: ("arrays", _read_arrays) if rel.endswith(".npz") else ("json", _json_bytes)
             for rel in files if rel.endswith((".npz", ".json.gz")) and rel not in hash_only}
    futures = {rel: {what: Future() for what in ("sha256", *parse.get(rel, ())[:1])} for rel in files}
    keys = {(os.path.abspath(folder / rel), what): fut for rel, mine in futures.items() for what, fut in mine.items()}
    with _AHEAD_LOCK:
        _AHEAD.update(keys)

    queue, queue_lock = iter(list(files.items())), threading.Lock()

    def next_file():
        with queue_lock:
            return next(queue, None)

    def work():     # a future taken by the loader is still this one: it is set whoever holds it
        for rel, expected in iter(next_file, None):
            mine = futures[rel]
            # the block's end cancels what is still pending: whoever waits on one reads the file itself
            if not all([fut.set_running_or_notify_cancel() for fut in mine.values()]):
                for fut in mine.values():
                    if fut.running():
                        fut.set_exception(RuntimeError("not read ahead"))
                continue
            path = folder / rel
            try:
                ident = file_identity(path)
                if checked.holds(path, expected):
                    if rel not in parse:
                        mine["sha256"].set_result((ident, expected))
                        continue
                    data, digest = path.read_bytes(), expected
                elif rel in parse:
                    data = path.read_bytes()
                    digest = hashlib.sha256(data).hexdigest()
                else:
                    data, digest = None, _hash_file(path)
                mine["sha256"].set_result((ident, digest))
            except BaseException as e:
                for fut in mine.values():
                    fut.set_exception(e)
                continue
            if rel in parse:
                what, fn = parse[rel]
                try:
                    if digest != expected:
                        raise ValueError("checksum mismatch: not parsed")
                    mine[what].set_result((ident, fn(path, data)))
                except BaseException as e:
                    mine[what].set_exception(e)

    for _ in range(READ_AHEAD_THREADS):
        threading.Thread(target=work, name=READ_AHEAD_THREAD, daemon=True).start()
    try:
        yield
    finally:
        with _AHEAD_LOCK:
            for key, fut in keys.items():
                if _AHEAD.get(key) is fut:          # not another read-ahead's of the same folder
                    del _AHEAD[key]
                fut.cancel()


def _hash_file(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
