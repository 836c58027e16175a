"""Issue 33's figures as a picture: per platform and collective, packed's time over the bound
beside the best SimGrid built-in's and the issue's limit (validation/packing_figures.py draws it
into DIR/x-bound.png, or x-bound-sync.png with --timing sync)."""
from __future__ import annotations

from pathlib import Path

COLOURS = {"bcast": "tab:blue", "allgather": "tab:orange", "allreduce": "tab:green"}


def plot_x_bound(done: dict[tuple, float | None], bounds: dict[str, dict[str, float]], limits: dict[str, float],
                 path: Path) -> bool:
    """Bars: packed / bound per platform (x axis) and collective; a hollow diamond: the best built-in
    run / bound; a dash: the issue's limit. `done` maps (platform, collective, method) to seconds,
    `bounds` a platform to its bound per collective. Returns False (and draws nothing) when
    matplotlib is missing or no point has both a time and a bound."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.patches
        import matplotlib.ticker
    except ImportError:
        return False
    platforms = list(bounds)
    colls = list(limits)
    width = 0.8 / len(colls)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(platforms) + 2), 4.2))
    drawn = False
    for k, coll in enumerate(colls):
        for i, p in enumerate(platforms):
            bound = bounds[p].get(coll)
            packed = done.get((p, coll, "packed"))
            if not bound or packed is None:
                continue
            x = i - 0.4 + width * (k + 0.5)
            ratio = packed / bound
            met = ratio <= limits[coll]
            ax.bar(x, ratio - 1, width * 0.9, bottom=1, color=COLOURS.get(coll, "grey"), alpha=1.0 if met else 0.45,
                   edgecolor="black" if met else "red")
            ax.hlines(limits[coll], x - width / 2, x + width / 2, colors="black", linestyles="dashed", linewidth=1)
            theirs = [t for (pp, c, m), t in done.items() if pp == p and c == coll and m.startswith("simgrid:") and t]
            if theirs:
                ax.plot(x, min(theirs) / bound, marker="D", markerfacecolor="none", markeredgecolor="black")
            drawn = True
    if not drawn:
        plt.close(fig)
        return False
    handles = [matplotlib.patches.Patch(facecolor=COLOURS.get(c, "grey"), edgecolor="black", label=c) for c in colls]
    ax.legend(handles=handles, loc="upper left", fontsize=8, title="packed (faded: missed)", title_fontsize=8)
    ax.set_xticks(range(len(platforms)), [Path(p).stem for p in platforms], rotation=30, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylim(bottom=1.0)
    ticks = [1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100, 200]
    ax.set_yticks([t for t in ticks if t <= max(2.0, ax.get_ylim()[1])])
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.grid(axis="y", linewidth=0.3)
    ax.set_ylabel("time / bound (log)")
    ax.set_title("packed trees under SMPI, time over the bound\n"
                 "dashes: the issue's limit; diamonds: the best SimGrid built-in run", fontsize=9)
    fig.tight_layout()
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    tmp.replace(path)  # never a half-written picture
    return True
