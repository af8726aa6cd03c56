"""Plots of evaluation results (matplotlib, written to PNG; no display needed)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")                     # files only: no display on servers or CI
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np

from textqa.runtime.files import replaced_whole


def _save(fig, path) -> None:
    """The figure, written whole or not at all (a failed save leaves no partial PNG)."""
    with replaced_whole(path) as tmp:
        fig.savefig(tmp)


def reference_vs_estimate(names: list[str], reference: list[float], estimate: list[float],
                          intervals: list[tuple[float, float]], path, xlabel: str = "official F",
                          ylabel: str = "Nuggeteer F", title: str | None = None) -> int:
    """Marton & Radul 2006 figure 5: each run's reference score against the estimated score,
    with the estimate's 95% interval as an error bar and the diagonal y = x.

    Returns how many reference scores fall outside their run's interval.
    """
    outside = sum(1 for r, (lo, hi) in zip(reference, intervals) if not lo <= r <= hi)
    fig, ax = plt.subplots(figsize=(5, 5), dpi=100)
    lower = [e - lo for e, (lo, _) in zip(estimate, intervals)]
    upper = [hi - e for e, (_, hi) in zip(estimate, intervals)]
    ax.errorbar(reference, estimate, yerr=[lower, upper], fmt="o", ms=4, capsize=2, lw=0.8)
    top = max([1e-9] + list(reference) + [hi for _, hi in intervals]) * 1.05
    ax.plot([0, top], [0, top], color="grey", lw=0.6, ls="--")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title or f"{len(names)} runs, {outside} reference scores outside the 95% interval", fontsize=9)
    if len(names) <= 20:
        for n, x, y in zip(names, reference, estimate):
            ax.annotate(n, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
    return outside


def metric_vs_human(groups: dict, path, xlabel: str = "BLANC", ylabel: str = "human score") -> None:
    """One scatter panel per language pair: metric score against human score with the fitted
    least-squares line, Pearson r in the title.

    ``groups``: {name: (metric scores, human scores)}.
    """
    n = len(groups)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.4 * rows), dpi=100, squeeze=False)
    for ax, (name, (x, y)) in zip(axes.ravel(), sorted(groups.items())):
        x, y = np.asarray(x, float), np.asarray(y, float)
        r = float(np.corrcoef(x, y)[0, 1]) if len(x) > 2 and x.std() > 0 and y.std() > 0 else float("nan")
        big = len(x) > 2000
        ax.scatter(x, y, s=2 if big else 8, alpha=0.25 if big else 0.7, lw=0)
        if len(x) > 2 and x.std() > 0:
            slope, icept = np.polyfit(x, y, 1)          # least-squares line of human on metric
            xs = np.array([x.min(), x.max()])
            ax.plot(xs, slope * xs + icept, color="crimson", lw=1.2, label=f"fit: {slope:.2f} x {icept:+.2f}")
            ax.legend(fontsize=7, loc="lower right")
        ax.set_title(f"{name}: r = {r:.3f} (n = {len(x)})", fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def roc_curves(curves: dict, path, title: str = "") -> None:
    """ROC curves, one per label (Lita et al. 2008 figures 1-2): {label: (y_true, scores)}."""
    from sklearn.metrics import roc_auc_score, roc_curve  # deferred: loads sklearn, scipy, joblib
    fig, ax = plt.subplots(figsize=(4.5, 4.5), dpi=100)
    for label, (y, s) in curves.items():
        fpr, tpr, _ = roc_curve(y, s)
        ax.plot(fpr, tpr, lw=1.2, label=f"{label} (AUC {roc_auc_score(y, s):.3f})")
    ax.plot([0, 1], [0, 1], color="grey", lw=0.6, ls="--")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def reliability_diagram(curves: dict, path, title: str = "") -> None:
    """Calibration: observed frequency against mean predicted probability per bin, one line per
    curve (``{name: (bin centres, mean predicted, observed frequency, counts)}``), the diagonal
    dashed, and the number of pairs per bin as a bar chart below."""
    fig, (ax, hx) = plt.subplots(2, 1, figsize=(5, 6), dpi=100, gridspec_kw={"height_ratios": [3, 1]}, sharex=True)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.6, ls="--")
    for name, (centres, mean_p, freq, counts) in curves.items():
        ok = np.asarray(counts) > 0
        ax.plot(np.asarray(mean_p)[ok], np.asarray(freq)[ok], marker="o", ms=4, lw=1, label=name)
    width = 1.0 / max(len(next(iter(curves.values()))[0]), 1)
    for k, (name, (centres, _, _, counts)) in enumerate(curves.items()):
        hx.bar(np.asarray(centres) + (k - (len(curves) - 1) / 2) * width / len(curves), counts,
               width=width / len(curves), label=name)
    hx.set_yscale("log")
    hx.set_xlabel("predicted probability")
    hx.set_ylabel("pairs")
    ax.set_ylabel("observed frequency")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def confusion_heatmap(confusion: dict, path, title: str = "", classes=None) -> None:
    """Rows gold class, columns predicted class: colour = share of the row, text = count."""
    classes = list(classes or confusion)
    counts = np.array([[confusion[g].get(p, 0) for p in classes] for g in classes], float)
    share = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(4.6, 4), dpi=100)
    im = ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
    for i in range(len(classes)):
        for j in range(len(classes)):
            ax.text(j, i, f"{int(counts[i, j]):,}\n{100 * share[i, j]:.1f}%", ha="center", va="center", fontsize=7,
                    color="white" if share[i, j] > 0.6 else "black")
    ax.set_xticks(range(len(classes)), classes)
    ax.set_yticks(range(len(classes)), classes)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("gold class")
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="share of the gold class")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def bars_with_counts(labels: list[str], series: dict, counts: list[int], path, ylabel: str, xlabel: str = "",
                     title: str = "", ylim=None, count_label: str = "n") -> None:
    """Grouped bars (``series``: {name: values per label}) with each label's count written above it."""
    x = np.arange(len(labels))
    k = max(len(series), 1)
    width = 0.8 / k
    fig, ax = plt.subplots(figsize=(max(5, 0.75 * len(labels) + 2), 3.8), dpi=100)
    for n, (name, values) in enumerate(series.items()):
        ax.bar(x + (n - (k - 1) / 2) * width, values, width=width, label=name)
    top = ylim[1] if ylim else max([v for vs in series.values() for v in vs] + [1e-9]) * 1.15
    for xi, c in zip(x, counts):
        ax.text(xi, top * 0.98, f"{count_label}={c:,}" if isinstance(c, int) else f"{count_label}={c}",
                ha="center", va="top", fontsize=7, color="dimgray")
    ax.set_xticks(x, labels, fontsize=8, rotation=30 if max(map(len, labels), default=0) > 8 else 0,
                  ha="right" if max(map(len, labels), default=0) > 8 else "center")
    ax.set_ylim(*(ylim or (0, top)))
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=9)
    if len(series) > 1:
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def climb_traces(traces: dict, path, ylabel: str, chosen=None, selection: dict | None = None,
                 selection_label: str = "", title: str = "") -> None:
    """Hill-climbing traces: the objective after each step, one line per restart (``traces``:
    {name: values}); ``chosen`` = (name, step) is marked; ``selection`` ({name: values}) adds a
    second panel with the selection data's value at each point of the climbs."""
    rows = 2 if selection else 1
    fig, axes = plt.subplots(rows, 1, figsize=(6.5, 3.2 * rows), dpi=100, sharex=True, squeeze=False)
    panels = [(axes[0, 0], traces, ylabel)] + ([(axes[1, 0], selection, selection_label)] if selection else [])
    for ax, data, label in panels:
        for name, values in data.items():
            ax.plot(range(len(values)), values, marker=".", ms=3, lw=1, label=name)
            if chosen and chosen[0] == name and chosen[1] < len(values):
                ax.plot([chosen[1]], [values[chosen[1]]], marker="*", ms=14, color="crimson", zorder=5)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7, ncol=3, loc="lower right")
    axes[-1, 0].set_xlabel("hill-climbing step (0 = starting point); star = the parameters kept")
    axes[0, 0].set_title(title, fontsize=9)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
