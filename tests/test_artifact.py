"""Artifact directories: manifest, checksums verified before loading, atomic replacement."""
import gzip
import json

import pytest

from textqa.models.artifact import ArtifactError, load_manifest, read_json, write_artifact


def make(dest, payload="v1", **kw):
    with write_artifact(dest, "demo", 1, hyper_parameters={"k": 3}, metrics={"f1": 0.5},
                        data_fingerprint="abc", **kw) as tmp:
        (tmp / "params.json").write_text(json.dumps({"payload": payload}))
        (tmp / "sub").mkdir()
        (tmp / "sub" / "x.bin").write_bytes(b"\x00\x01")


def test_manifest_fields(tmp_path):
    make(tmp_path / "demo")
    m = load_manifest(tmp_path / "demo", expect_name="demo")
    for key in ("name", "format_version", "package_version", "created_at", "training_data_fingerprint",
                "hyper_parameters", "metrics", "files"):
        assert key in m
    assert set(m["files"]) == {"params.json", "sub/x.bin"}
    assert len(m["files"]["params.json"]["sha256"]) == 64


def test_tampering_is_refused(tmp_path):
    make(tmp_path / "demo")
    (tmp_path / "demo" / "sub" / "x.bin").write_bytes(b"evil")
    with pytest.raises(ArtifactError, match="checksum mismatch for sub/x.bin"):
        load_manifest(tmp_path / "demo")
    (tmp_path / "demo" / "sub" / "x.bin").unlink()
    with pytest.raises(ArtifactError, match="missing"):
        load_manifest(tmp_path / "demo")


def test_wrong_name_and_future_format(tmp_path):
    make(tmp_path / "demo")
    with pytest.raises(ArtifactError, match="expected 'other'"):
        load_manifest(tmp_path / "demo", expect_name="other")
    with pytest.raises(ArtifactError, match="newer"):
        load_manifest(tmp_path / "demo", max_format_version=0)
    with pytest.raises(ArtifactError, match="not a model artifact"):
        load_manifest(tmp_path / "nothing")


def test_failed_write_leaves_previous_untouched(tmp_path):
    make(tmp_path / "demo", payload="old")
    with pytest.raises(RuntimeError):
        with write_artifact(tmp_path / "demo", "demo", 1, hyper_parameters={}) as tmp:
            (tmp / "params.json").write_text("half-written")
            raise RuntimeError("training crashed")
    load_manifest(tmp_path / "demo")
    assert json.loads((tmp_path / "demo" / "params.json").read_text()) == {"payload": "old"}
    assert [p.name for p in tmp_path.iterdir()] == ["demo"]      # no temp dirs left behind


def test_replacement(tmp_path):
    make(tmp_path / "demo", payload="old")
    make(tmp_path / "demo", payload="new")
    assert json.loads((tmp_path / "demo" / "params.json").read_text()) == {"payload": "new"}
    load_manifest(tmp_path / "demo")


def test_outdated_formats_are_recognised_for_retraining(tmp_path):
    """``textqa train all`` retrains an artifact whose format this textqa no longer loads: ICD-9 and QA
    format 2 computed other features (other negation triggers, no WordNet features)."""
    import json

    from textqa.api import outdated_format
    from textqa.models.icd9.store import FORMAT_VERSION as ICD9_FORMAT
    from textqa.models.qa.store import FORMAT_VERSION as QA_FORMAT
    for name, current in (("icd9", ICD9_FORMAT), ("qa", QA_FORMAT)):
        folder = tmp_path / name
        folder.mkdir()
        for version, expected in ((2, 2), (current, None)):
            (folder / "manifest.json").write_text(json.dumps({"name": name, "format_version": version}))
            assert outdated_format(name, folder) == expected, (name, version)
    (tmp_path / "icd9" / "manifest.json").write_text("not json")
    assert outdated_format("icd9", tmp_path / "icd9") is None          # unreadable: loading says why


def test_read_json_reads_what_the_standard_library_reads(tmp_path):
    """orjson parses; what it refuses but ``json`` reads (NaN, big integers, lone surrogates) is
    still read; what neither reads raises ValueError."""
    p = tmp_path / "t.json"
    for value in ({"forms": {"é": [["É", 3]]}, "x": 1.5}, [2 ** 70, -(2 ** 65)], {"s": "\ud800"}):
        p.write_text(json.dumps(value), encoding="utf-8")
        assert read_json(p) == value
    p.write_text('{"w": NaN}', encoding="utf-8")
    assert read_json(p)["w"] != read_json(p)["w"]                     # NaN
    for bad in (b'{"a": 1', b"\xff\xfe{}", b"", b"[" * 100_000 + b"]" * 100_000):
        p.write_bytes(bad)
        with pytest.raises(ValueError):
            read_json(p)
    with pytest.raises(OSError):
        read_json(tmp_path / "missing.json")


def make_with_arrays(dest):
    import numpy as np

    from textqa.models.artifact import save_arrays
    with write_artifact(dest, "demo", 1, hyper_parameters={}, metrics={}, data_fingerprint="abc") as tmp:
        save_arrays(tmp / "a.npz", {"x": np.arange(5000), "y": np.linspace(0, 1, 7)})
        (tmp / "t.json.gz").write_bytes(gzip.compress(json.dumps({"k": [1, 2, 3]}).encode()))
        (tmp / "z.bin").write_bytes(b"\x00" * 100)


def test_read_ahead_gives_what_the_loader_reads_itself(tmp_path, monkeypatch):
    """The read-ahead thread's results are the plain reads' and each payload is read once: the
    loader takes them even when it asks before the thread has reached the file (the last one first)."""
    import numpy as np

    import textqa.models.artifact as artifact
    make_with_arrays(tmp_path / "demo")
    plain = (load_manifest(tmp_path / "demo"), artifact.load_arrays(tmp_path / "demo" / "a.npz"),
             read_json(tmp_path / "demo" / "t.json.gz"))
    calls = []
    for name in ("_read_arrays", "_hash_file", "_json_bytes"):
        real = getattr(artifact, name)
        monkeypatch.setattr(artifact, name, lambda p, *a, real=real, name=name: calls.append((name, p)) or real(p, *a))
    for i in range(20):
        calls.clear()
        # every file hashed at every load (TEXTQA_VERIFY=always), or only those whose identity is not
        # remembered as good (here none: the plain load above remembered them)
        always = i % 2 == 0
        monkeypatch.setenv("TEXTQA_VERIFY", "always" if always else "")
        with artifact.read_ahead(tmp_path / "demo"):
            js = read_json(tmp_path / "demo" / "t.json.gz")
            arrays = artifact.load_arrays(tmp_path / "demo" / "a.npz")
            manifest = load_manifest(tmp_path / "demo")
        assert manifest == plain[0] and js == plain[2]
        assert arrays.keys() == plain[1].keys() and all(np.array_equal(arrays[k], plain[1][k]) for k in arrays)
        # the thread hashes z.bin, and hashes then parses the other two from one read of their bytes
        assert sorted(n for n, _ in calls) == ["_hash_file"] * always + ["_json_bytes", "_read_arrays"], calls
        assert artifact._AHEAD == {}                    # nothing left behind the block


def test_read_ahead_never_lets_a_changed_payload_through(tmp_path):
    """A payload changed after the thread hashed it is hashed again (its identity differs), so the
    checksum still refuses it; the same for one changed before."""
    import time

    import textqa.models.artifact as artifact
    make_with_arrays(tmp_path / "demo")
    with artifact.read_ahead(tmp_path / "demo"):
        for fut in list(artifact._AHEAD.values()):
            fut.result()                                # the thread has read everything
        time.sleep(0.01)
        (tmp_path / "demo" / "z.bin").write_bytes(b"\x01" * 100)        # same size
        with pytest.raises(ArtifactError, match="checksum mismatch for z.bin"):
            load_manifest(tmp_path / "demo")
    (tmp_path / "demo" / "z.bin").write_bytes(b"\x02" * 7)
    with artifact.read_ahead(tmp_path / "demo"):
        with pytest.raises(ArtifactError, match="checksum mismatch for z.bin"):
            load_manifest(tmp_path / "demo")


def test_read_ahead_of_a_folder_without_manifest_does_nothing(tmp_path):
    import textqa.models.artifact as artifact
    with artifact.read_ahead(tmp_path):
        with pytest.raises(ArtifactError, match="not a model artifact"):
            load_manifest(tmp_path)
    assert artifact._AHEAD == {}


def test_read_ahead_parses_nothing_whose_checksum_differs(tmp_path, monkeypatch):
    import textqa.models.artifact as artifact
    make_with_arrays(tmp_path / "demo")
    (tmp_path / "demo" / "a.npz").write_bytes(b"PK\x03\x04 not the arrays the manifest names")
    parsed = []
    monkeypatch.setattr(artifact, "_read_arrays", lambda *a: parsed.append(a))
    with artifact.read_ahead(tmp_path / "demo"):
        for fut in list(artifact._AHEAD.values()):
            try:
                fut.result()
            except Exception:
                pass
        with pytest.raises(ArtifactError, match="checksum mismatch for a.npz"):
            load_manifest(tmp_path / "demo")
    assert parsed == []
