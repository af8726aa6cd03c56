"""The truecaser's artifact (format 9): the C++ search's inputs stored, read at load as the search
would make them; a payload changed in any way is refused by the load and by ``textqa verify``."""
import os

import numpy as np
import pytest

from textqa.cli import main
from textqa.models.artifact import ArtifactError, save_arrays


def test_the_stored_search_inputs_are_those_the_search_makes(truecaser_artifact):
    from textqa.models.truecaser.native_search import table_inputs
    from textqa.models.truecaser.store import load_truecaser
    model = load_truecaser(truecaser_artifact / "truecaser")
    stored = model.search_inputs_
    made = table_inputs(model, model.native_decoder())
    assert stored.keys() == made.keys() and "lm_ids" in stored
    for k in made:
        assert stored[k].dtype == made[k].dtype and np.array_equal(stored[k], made[k]), k
    lines = ["the president of the united states visited new york .", "he said : `` i went to paris . ''"]
    rebuilt = load_truecaser(truecaser_artifact / "truecaser")
    rebuilt.search_inputs_ = None                       # made at load, as for a format-8 artifact
    assert model.predict(lines) == rebuilt.predict(lines)


def test_search_inputs_that_do_not_fit_the_lm_are_refused_naming_them(truecaser_artifact, copy_root, resign):
    from textqa.models.truecaser.store import load_truecaser
    folder = copy_root(truecaser_artifact) / "truecaser"
    with np.load(folder / "search.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["lm_ids"][7] = np.uint32(2**31)              # past the LM's vocabulary
    save_arrays(folder / "search.npz", arrays)
    resign(folder, "search.npz")
    with pytest.raises(ArtifactError, match=r"search\.npz.*do not fit"):
        load_truecaser(folder).prepare()


def test_every_payload_changed_with_its_size_and_mtime_restored_is_refused(truecaser_artifact, copy_root, capsys):
    from textqa.models.artifact import read_manifest
    from textqa.models.truecaser.store import load_truecaser
    folder = copy_root(truecaser_artifact) / "truecaser"
    load_truecaser(folder)                              # every payload remembered as good
    for rel in read_manifest(folder)["files"]:
        path = folder / rel
        st = os.stat(path)
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x20
        path.write_bytes(bytes(data))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (st.st_size, st.st_mtime_ns)
        with pytest.raises(ArtifactError, match=f"checksum mismatch for {rel}"):
            load_truecaser(folder)
        assert main(["verify", str(folder)]) == 1
        assert f"checksum mismatch for {rel}" in capsys.readouterr().err
        data[len(data) // 2] ^= 0x20                    # put back: the next file is the only change
        path.write_bytes(bytes(data))
    assert main(["verify", str(folder)]) == 0


def test_a_format_8_artifact_loads_builds_its_indexes_says_so_and_decodes_the_same(truecaser_artifact, copy_root,
                                                                                  resign, caplog):
    """Format 8 stored no indexes: it still loads (they are built at each load, as before), with a
    warning that says to retrain, and decodes as the format-9 artifact of the same tables does."""
    import json

    from textqa.models.truecaser.store import load_truecaser
    folder = copy_root(truecaser_artifact) / "truecaser"
    with np.load(folder / "phrases.npz") as z:
        arrays = {k: z[k] for k in z.files if not k.startswith("search_")}
    save_arrays(folder / "phrases.npz", arrays, compress=True)
    resign(folder, "phrases.npz")
    (folder / "search.npz").unlink()
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["files"]["search.npz"]
    manifest["format_version"] = 8
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with caplog.at_level("WARNING"):
        old = load_truecaser(folder)
    assert "format 8 stores no indexes" in caplog.text and "textqa train truecaser" in caplog.text
    assert old.search_inputs_ is None
    lines = ["the president of the united states visited new york .", "he said : `` i went to paris . ''",
             "the bank of new york and the lord of the rings ."]
    assert old.predict(lines) == load_truecaser(truecaser_artifact / "truecaser").predict(lines)
