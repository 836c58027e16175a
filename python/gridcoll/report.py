"""One self-contained HTML report of a sweep: the figures against their targets, completion
time vs message size per algorithm and backend, relative-error tables and heat maps between
backends, decision maps, failed and not-applicable points, the environment and the commands
to rerun. Plots are matplotlib PNGs inlined as data: URIs; a small script marks the page once
every plot has loaded (data-plots-loaded, checked by the test suite in headless Chromium)."""
from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import _core  # noqa: E402
from ._core import format_bytes  # noqa: E402

# Which backend is the reference when two are compared: measurement, then simulation, then models.
_RANK = {"emulated": 0, "smpi": 1, "event": 2, "closed": 3, "python": 4}


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


class _Page:
    def __init__(self):
        self.parts: list[str] = []
        self.plots = 0

    def h(self, level: int, text: str, anchor: str = "") -> None:
        a = f' id="{html.escape(anchor)}"' if anchor else ""
        self.parts.append(f"<h{level}{a}>{html.escape(text)}</h{level}>")

    def p(self, text: str, raw: bool = False) -> None:
        self.parts.append(f"<p>{text if raw else html.escape(text)}</p>")

    def pre(self, text: str) -> None:
        self.parts.append(f"<pre>{html.escape(text)}</pre>")

    def table(self, df: pd.DataFrame, cls: str = "") -> None:
        self.parts.append(df.to_html(index=False, border=0, classes=cls, na_rep="–", escape=True))

    def plot(self, fig, alt: str) -> None:
        self.plots += 1
        self.parts.append(f'<figure><img class="plot" alt="{html.escape(alt)}" src="data:image/png;base64,{_png(fig)}">'
                          f"<figcaption>{html.escape(alt)}</figcaption></figure>")


def _fmt_s(t: float) -> str:
    if t is None or not np.isfinite(t):
        return "–"
    return f"{t * 1e3:.3f} ms" if t < 1 else f"{t:.3f} s"


def backend_kinds(df: pd.DataFrame) -> dict[str, str]:
    return dict(zip(df["backend"], df["kind"]))


def with_timing(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with a timing column ('root' where a row has none: results from before per-rank timing)."""
    if "timing" not in df:
        return df.assign(timing="root")
    return df.assign(timing=df["timing"].fillna("root").replace("", "root"))


def relative_errors(ok: pd.DataFrame, other: str, reference: str) -> pd.DataFrame:
    """(other - reference) / reference per point both backends have, on the same platform,
    placement, ranks, collective, method, size and timing."""
    ok = with_timing(ok)
    keys = ["platform_name", "placement", "ranks", "collective", "method", "bytes", "timing"]
    a = ok[ok["backend"] == other][keys + ["time_s"]]
    b = ok[ok["backend"] == reference][keys + ["time_s"]]
    m = a.merge(b, on=keys, suffixes=("_other", "_ref"))
    m = m[m["time_s_ref"] > 0]
    m["rel_error"] = (m["time_s_other"] - m["time_s_ref"]) / m["time_s_ref"]
    return m


def backend_pairs(ok: pd.DataFrame) -> list[tuple[str, str]]:
    kinds = backend_kinds(ok)
    names = sorted(kinds, key=lambda n: (_RANK.get(kinds[n], 9), n))  # two SMPI variants: the plain name first
    return [(o, r) for i, r in enumerate(names) for o in names[i + 1:] if not relative_errors(ok, o, r).empty]


def figure_rows(ok: pd.DataFrame, figures: list[dict]) -> pd.DataFrame:
    """The issue's figures: median |relative error| between two backends on a platform set and
    size range, against the target."""
    rows = []
    for f in figures:
        m = relative_errors(ok, f["other"], f["reference"])
        m = m[m["platform_name"].str.match(f.get("platforms", ".*")) & (m["bytes"] >= f.get("min_bytes", 0))]
        med = float(np.median(np.abs(m["rel_error"]))) if len(m) else float("nan")
        what = f"{100 * med:.1f} %"
        if f.get("every_algorithm") and len(m):  # the target holds per algorithm: the worst one decides
            per = m.groupby("method")["rel_error"].agg(lambda x: np.median(np.abs(x)))
            med = float(per.max())
            what = f"{what} (worst algorithm: {per.idxmax()} {100 * med:.1f} %)"
        rows.append({"figure": f["title"], "points": len(m),
                     "median |error|": what if len(m) else "not measured",
                     "target": f"≤ {100 * f['target']:.0f} %",
                     "result": ("met" if med <= f["target"] else "MISSED") if len(m) else f.get("missing", "not run")})
    return pd.DataFrame(rows)


def _time_plot(sub: pd.DataFrame, title: str):
    fig, ax = plt.subplots(figsize=(8.5, 5))
    methods = sorted(sub["method"].unique())
    backends = sorted(sub["backend"].unique(), key=lambda b: _RANK.get(sub[sub["backend"] == b]["kind"].iloc[0], 9))
    colours = plt.cm.tab10(np.linspace(0, 1, max(10, len(methods))))
    styles = ["-", "--", ":", "-."]
    markers = ["o", "s", "^", "x", "D"]
    for i, m in enumerate(methods):
        for j, b in enumerate(backends):
            s = sub[(sub["method"] == m) & (sub["backend"] == b)].sort_values("bytes")
            if s.empty:
                continue
            ax.plot(s["bytes"], s["time_s"], styles[j % 4], marker=markers[j % 5], color=colours[i % len(colours)],
                    label=f"{m} · {b}", markersize=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("completion time (s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    return fig


def _error_heatmap(m: pd.DataFrame, title: str):
    pivot = m.pivot_table(index="method", columns="bytes", values="rel_error", aggfunc="median")
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * pivot.shape[1], 0.8 + 0.45 * pivot.shape[0]))
    data = 100 * pivot.values
    lim = max(10.0, float(np.nanmax(np.abs(data))) if data.size else 10.0)
    im = ax.imshow(data, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(pivot.shape[1]), [format_bytes(int(b)) for b in pivot.columns])
    ax.set_yticks(range(pivot.shape[0]), pivot.index, fontsize=8)
    for (y, x), v in np.ndenumerate(data):
        if np.isfinite(v):
            ax.text(x, y, f"{v:+.0f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax, label="relative error (%)")
    ax.set_title(title, fontsize=9)
    return fig


def _decision_map(sub: pd.DataFrame, title: str):
    best = sub.loc[sub.groupby(["backend", "bytes"])["time_s"].idxmin()]
    backends = sorted(best["backend"].unique())
    sizes = sorted(best["bytes"].unique())
    methods = sorted(best["method"].unique())
    idx = {m: i for i, m in enumerate(methods)}
    grid = np.full((len(backends), len(sizes)), np.nan)
    for r in best.itertuples():
        grid[backends.index(r.backend), sizes.index(r.bytes)] = idx[r.method]
    fig, ax = plt.subplots(figsize=(1.5 + 0.9 * len(sizes), 1.0 + 0.5 * len(backends)))
    cmap = plt.get_cmap("tab10", max(len(methods), 2))
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=max(len(methods), 2) - 0.5, aspect="auto")
    ax.set_xticks(range(len(sizes)), [format_bytes(int(b)) for b in sizes])
    ax.set_yticks(range(len(backends)), backends)
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(i)) for i in range(len(methods))]
    ax.legend(handles, methods, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(title, fontsize=9)
    return fig


_CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;font-size:13px;margin:0.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#eee}pre{background:#f6f6f6;padding:0.6em;overflow-x:auto}figure{margin:1em 0}
img.plot{max-width:100%}.met{color:#070}.MISSED{color:#b00}"""

_CHECK = """<script>
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img.plot'), ok = 0;
  imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) ok++; });
  document.body.setAttribute('data-plots-loaded', ok + '/' + imgs.length);
});
window.addEventListener('error', function (e) { document.body.setAttribute('data-error', String(e.message)); });
</script>"""


def _figures_section(page: _Page, ok: pd.DataFrame, figures: list[dict]) -> None:
    page.h(2, "Figures", "figures")
    fr = figure_rows(ok, figures)
    if not fr.empty:
        page.table(fr, "figures")
    for f in figures:
        m = relative_errors(ok, f["other"], f["reference"])
        m = m[m["platform_name"].str.match(f.get("platforms", ".*")) & (m["bytes"] >= f.get("min_bytes", 0))]
        if m.empty:
            continue
        per = m.groupby("method")["rel_error"].agg(lambda x: np.median(np.abs(x))).reset_index()
        per["median |error|"] = [f"{100 * v:.1f} %" for v in per.pop("rel_error")]
        page.p(f"{f['title']}, per algorithm:")
        page.table(per)


def _timed(timing: str) -> str:
    return "" if timing == "root" else f", {timing} timing"


def wan_latency(platform: str) -> float | None:
    """The latency of a platform's top level (its WAN), or None when it has no such number."""
    try:
        topology = _core.Platform(platform).topology
        link = topology.link(0) if topology is not None and topology.levels > 1 else None
    except _core.Error:
        return None
    return link[0] if link and link[0] > 0 else None


def small_message_table(ok: pd.DataFrame, max_bytes: int = 4096) -> pd.DataFrame:
    """Small collectives counted in WAN latencies: per platform, backend, timing, collective and
    size up to `max_bytes`, the MPI library's own method ('native') beside each other method
    measured with it, both over the platform's WAN latency, and their ratio; also the ratio of
    the slowest (per-rank timing: the slowest rank, a rooted collective's root; root timing: the
    slowest call)."""
    ok = with_timing(ok)
    rows = []
    keys = ["platform_name", "backend", "timing", "collective", "bytes"]
    for (plat, backend, timing, coll, size), g in ok[ok["bytes"] <= max_bytes].groupby(keys, sort=True):
        native = g[g["algorithm"] == "native"]
        latency = wan_latency(g["platform"].iloc[0])
        if native.empty or len(g) < 2 or latency is None:
            continue
        t0, slowest0 = float(native["time_s"].iloc[0]), float(native["max_s"].iloc[0])
        for r in g[g["algorithm"] != "native"].itertuples():
            chosen = str(r.choice).split("→")[-1].strip() if "→" in str(r.choice) else ""
            rows.append({"platform": plat, "backend": backend, "timing": timing, "collective": coll,
                         "bytes": format_bytes(int(size)), "native": f"{t0 / latency:.2f}",
                         "method": r.method + (f" ({chosen})" if chosen else ""), "time": f"{r.time_s / latency:.2f}",
                         "method / native": f"{r.time_s / t0:.3f}" if t0 > 0 else "–",
                         "slowest: method / native": f"{r.max_s / slowest0:.3f}" if slowest0 > 0 else "–"})
    return pd.DataFrame(rows)


def _small_messages_section(page: _Page, ok: pd.DataFrame) -> None:
    t = small_message_table(ok)
    if t.empty:
        return
    page.h(2, "Small messages in WAN latencies", "small")
    page.p("Times of messages up to 4 KiB divided by the platform's WAN latency: the MPI library's own method (native) "
           "and each other method measured beside it (auto: the method it chose in brackets), with their ratio "
           "(per-rank timing: the average over ranks, as OSU prints it; 'slowest': the slowest rank's, for a rooted "
           "collective its root's). "
           "Across a full mesh of sites the limit is one WAN latency plus the LAN steps; root timing adds about two "
           "for the bench's release and report, per-rank timing does not.")
    page.table(t)


def _times_section(page: _Page, groups) -> None:
    page.h(2, "Completion time vs message size", "times")
    page.p("Root timing: the root's clock around each call, between a release and every rank's report (about two "
           "WAN latencies of its own across sites); per-rank timing: each rank's own clock around back-to-back calls, "
           "the average over ranks (as the OSU micro-benchmarks time).")
    for (plat, place, coll, timing), sub in groups:
        ranks = ",".join(str(r) for r in sorted(sub["ranks"].unique()))
        what = f"{coll} on {plat}{' (' + place + ')' if place else ''}, {ranks} ranks{_timed(timing)}"
        page.h(3, what)
        if sub["bytes"].nunique() > 1:  # a barrier's one size: the table says it all
            page.plot(_time_plot(sub, what),
                      f"{coll} on {plat}{_timed(timing)}: completion time per algorithm (colour) and backend (line style)")
        wide = sub.pivot_table(index=["method", "bytes"], columns="backend", values="time_s").reset_index()
        wide["bytes"] = [format_bytes(int(b)) for b in wide["bytes"]]
        for b in wide.columns[2:]:
            wide[b] = [_fmt_s(v) for v in wide[b]]
        page.table(wide)


def _errors_section(page: _Page, ok: pd.DataFrame) -> None:
    page.h(2, "Relative error between backends", "errors")
    page.p("(other − reference) / reference; the reference is the more direct measurement: emulated, then SMPI, "
           "then the event simulator, then the closed forms.")
    for other, ref in backend_pairs(ok):
        m = relative_errors(ok, other, ref)
        for (plat, coll), sub in m.groupby(["platform_name", "collective"]):
            page.h(3, f"{other} vs {ref}: {coll} on {plat}")
            t = sub.pivot_table(index="method", columns="bytes", values="rel_error", aggfunc="median")
            t.columns = [format_bytes(int(b)) for b in t.columns]
            t = (100 * t).round(1).reset_index()
            page.table(t)
            page.plot(_error_heatmap(sub, f"{other} vs {ref}, {coll} on {plat} (%)"),
                      f"heat map: {other} vs {ref}, {coll} on {plat}")


def _closing_sections(page: _Page, groups, failed: pd.DataFrame, skipped, environment: dict | None,
                      commands: list[str]) -> None:
    page.h(2, "Decision maps", "decisions")
    page.p("The fastest method at each size, as each backend sees it (paper 002 Figure 6's view).")
    for (plat, place, coll, timing), sub in groups:
        if sub["method"].nunique() > 1:
            page.plot(_decision_map(sub, f"best {coll} method on {plat}{_timed(timing)}"),
                      f"decision map: {coll} on {plat}{_timed(timing)}")
    if len(failed):
        page.h(2, "Failed points", "failed")
        page.table(failed[["backend", "platform_name", "collective", "method", "bytes", "error"]])
    if skipped:
        page.h(2, "Not applicable (not run)", "skipped")
        rows = pd.DataFrame([{"backend": p.backend.name, "collective": p.collective, "method": p.method, "why": why}
                             for p, why in skipped]).drop_duplicates()
        page.table(rows)
    page.h(2, "Environment", "environment")
    env = environment or {}
    page.table(pd.DataFrame({"": list(env.keys()), "value": [str(v) for v in env.values()]}))
    page.h(2, "Rerun", "rerun")
    page.pre("\n".join(commands))


def write(df: pd.DataFrame, path: str | Path, *, title: str, figures: list[dict], skipped: list[tuple] = (),
          notes: list[str] = (), commands: list[str] = (), environment: dict | None = None,
          wall_s: float | None = None) -> int:
    """Writes the report; returns the number of plots in it. `df` is store.results()."""
    page = _Page()
    df = with_timing(df)
    ok = df[df["status"] == "ok"]
    failed = df[df["status"] != "ok"]
    page.h(1, title)
    page.p(f"{len(ok)} points measured or predicted, {len(failed)} failed, {len(skipped)} not applicable"
           + (f"; wall time of this run {wall_s:.0f} s" if wall_s is not None else "") + ".")
    for n in notes:
        page.p(n, raw=True)
    _figures_section(page, ok, figures)
    groups = ok.groupby(["platform_name", "placement", "collective", "timing"], sort=True)
    _small_messages_section(page, ok)
    _times_section(page, groups)
    _errors_section(page, ok)
    _closing_sections(page, groups, failed, skipped, environment, commands)
    body = "\n".join(page.parts)
    doc = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
           f"<style>{_CSS}</style>{_CHECK}</head>\n<body data-plots=\"{page.plots}\">\n{body}\n</body></html>\n")
    path = Path(path)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(doc)
    tmp.replace(path)  # never half-written
    return page.plots


def figures_json(df: pd.DataFrame, figures: list[dict]) -> str:
    return json.dumps(figure_rows(df[df["status"] == "ok"], figures).to_dict(orient="records"), indent=1)
