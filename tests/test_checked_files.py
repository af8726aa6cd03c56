"""A payload's checksum is computed once per file identity, and a changed file is never used
silently: a byte flipped with the file's size and modification time restored is refused by the load
and by ``textqa verify``.  The artifact is a small synthetic one written by ``write_artifact``."""
import gzip
import json
import os

import numpy as np
import pytest

from textqa.cli import main
from textqa.models import artifact
from textqa.models.artifact import ArtifactError, load_manifest, read_ahead, write_artifact
from textqa.models.checked_files import CheckedFiles, file_identity


@pytest.fixture
def small_artifact(tmp_path):
    dest = tmp_path / "art"
    with write_artifact(dest, "demo", 1, hyper_parameters={}) as tmp:
        artifact.save_arrays(tmp / "table.npz", {"x": np.arange(1000)})
        (tmp / "lm.binary").write_bytes(bytes(range(256)) * 40)
        with gzip.open(tmp / "forms.json.gz", "wt") as f:
            json.dump({"a": [1, 2, 3]}, f)
    return dest


def flip_keeping_size_and_mtime(path):
    st = os.stat(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)


def test_a_good_load_is_remembered_and_not_hashed_again(small_artifact, monkeypatch):
    load_manifest(small_artifact, expect_name="demo")
    checked = CheckedFiles.default()
    files = load_manifest(small_artifact, verify=False)["files"]
    assert all(checked.holds(small_artifact / rel, meta["sha256"]) for rel, meta in files.items())
    hashed = []
    monkeypatch.setattr(artifact, "_hash_file", lambda p: hashed.append(p) or "0" * 64)
    load_manifest(small_artifact, expect_name="demo")
    assert hashed == []


@pytest.mark.parametrize("name", ["table.npz", "lm.binary", "forms.json.gz"])
def test_a_flipped_byte_with_size_and_mtime_restored_is_refused_by_the_load_and_by_verify(small_artifact, name,
                                                                                         capsys):
    with read_ahead(small_artifact):
        load_manifest(small_artifact, expect_name="demo")          # remembered as good
    before = file_identity(small_artifact / name)
    flip_keeping_size_and_mtime(small_artifact / name)
    assert file_identity(small_artifact / name) != before           # the status-change time moved
    with pytest.raises(ArtifactError, match=f"checksum mismatch for {name}"):
        with read_ahead(small_artifact):
            load_manifest(small_artifact, expect_name="demo")
    assert main(["verify", str(small_artifact)]) == 1
    err = capsys.readouterr().err
    assert f"checksum mismatch for {name}" in err and "FAILED demo" in err


def test_verify_hashes_everything_whatever_is_remembered(small_artifact, capsys, monkeypatch):
    load_manifest(small_artifact)
    hashed = []
    real = artifact._hash_file
    monkeypatch.setattr(artifact, "_hash_file", lambda p: hashed.append(p.name) or real(p))
    assert main(["verify", str(small_artifact)]) == 0
    assert sorted(hashed) == ["forms.json.gz", "lm.binary", "table.npz"]
    assert "ok demo" in capsys.readouterr().out


def test_verify_every_load_when_asked(small_artifact, monkeypatch):
    load_manifest(small_artifact)
    monkeypatch.setenv("TEXTQA_VERIFY", "always")
    hashed = []
    real = artifact._hash_file
    monkeypatch.setattr(artifact, "_hash_file", lambda p: hashed.append(p.name) or real(p))
    load_manifest(small_artifact)
    assert len(hashed) == 3


def test_verify_names_what_is_no_artifact(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 2
    assert "not a model artifact" in capsys.readouterr().err
