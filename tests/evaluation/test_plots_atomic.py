"""Plots are written atomically: a failure while saving leaves no partial PNG and keeps an old one."""
import pytest

from textqa.evaluation import plots


def test_a_failed_save_keeps_the_old_file_and_leaves_no_partial(tmp_path, monkeypatch):
    target = tmp_path / "roc.png"
    plots.roc_curves({"a": ([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])}, target, title="t")
    good = target.read_bytes()
    assert good.startswith(b"\x89PNG")

    from matplotlib.figure import Figure
    real = Figure.savefig

    def half_then_fail(self, fname, *a, **k):
        real(self, fname, *a, **k)
        with open(fname, "r+b") as f:           # a partial file on disk, then the failure
            f.truncate(100)
        raise OSError("No space left on device")
    monkeypatch.setattr(Figure, "savefig", half_then_fail)
    with pytest.raises(OSError):
        plots.roc_curves({"a": ([0, 1], [0.2, 0.9])}, target, title="t")
    assert target.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roc.png"]
