#!/usr/bin/env python3
"""Where a packed collective's time over the bound comes from (issue 33): each point five ways.

  validation/packing_decompose.py [-c bcast,allgather,allreduce] PLATFORM [PLATFORM ...]

PLATFORM: a shipped platform's name or a description's path (validation/random_wan_graphs.py
writes some). For every collective (bcast 4 MiB from rank 0, allgather 64 KiB a rank, allreduce
4 MiB: packing_figures.py's points) `packed`'s time, and its ratio to the bound, as
  planned     the planner's prediction (`gridcoll platform show`);
  event       the event simulator with SimGrid's options (links shared per message, sends that
              complete on arrival, transfers that start once the receive is posted, 5 % of each
              message on its link's other direction);
  one node    SMPI on the same description with every site one node of one core (no LAN at all;
              the allgather's block times a site's ranks, so the WAN carries the same bytes; only
              where every site has as many ranks);
  no cross    SMPI with `--cfg network/crosstraffic:0`;
  SMPI        SMPI as packing_figures.py --timing sync grades it.
All SMPI and event times are simulated, every rank starting at one instant (sync timing), so the
load on this machine does not change them. The result is a Markdown table on stdout; progress on
stderr. docs/design/tree-packing-misses.md ("The misses taken apart") reads one."""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from packing_figures import POINTS, description, known_collectives, planned, run_point

EVENT = ["--backend", "event", "--shared-links", "wan", "--sync-sends", "--rendezvous", "--cross-traffic", "0.05"]


def one_node_variant(platform: Path, into: Path) -> tuple[Path, int] | None:
    """The description with every site one node of one core, and the ranks a site had (None where
    the sites differ in ranks or the description says nothing of nodes)."""
    text = platform.read_text()
    nodes = [int(n) for n in re.findall(r"(?m)^nodes\s*=\s*(\d+)", text)]
    cores = [int(c) for c in re.findall(r"(?m)^cores\s*=\s*(\d+)", text)] or [1]
    if not nodes or len(set(nodes)) != 1 or len(set(cores)) != 1:
        return None
    text = re.sub(r"(?m)^nodes\s*=\s*\d+", "nodes = 1", text)
    text = re.sub(r"(?m)^cores\s*=\s*\d+", "cores = 1", text)
    path = into / f"{platform.stem}-one-node.toml"
    path.write_text(text)
    return path, nodes[0] * cores[0]


def scaled(bytes_: str, factor: int) -> str:
    """A size like 64K times factor, in the same unit."""
    m = re.fullmatch(r"(\d+)([KMG]?)", bytes_)
    return f"{int(m.group(1)) * factor}{m.group(2)}" if m else bytes_


def decompose(platform: str, colls: list[str], scratch: Path) -> list[str]:
    path = description(platform)
    plan = planned(str(path))
    variant = one_node_variant(path, scratch)
    rows = []
    for coll in colls:
        bytes_ = POINTS[coll][0]
        bound, predicted = plan.get(coll, (None, None))
        times = {"planned": predicted}
        times["event"] = run_point(str(path), coll, bytes_, "packed", None, "sync", EVENT)
        if variant:
            one_bytes = scaled(bytes_, variant[1]) if coll == "allgather" else bytes_
            times["one node"] = run_point(str(variant[0]), coll, one_bytes, "packed", None, "sync")
        times["no cross"] = run_point(str(path), coll, bytes_, "packed", None, "sync", ["--cfg", "network/crosstraffic:0"])
        times["SMPI"] = run_point(str(path), coll, bytes_, "packed", None, "sync")
        print(f"  {path.stem} {coll}: " + ", ".join(f"{k} {v}" for k, v in times.items()), file=sys.stderr, flush=True)

        def cell(k: str) -> str:
            t = times.get(k)
            if t is None:
                return "-"
            return f"{t:.3f} s ({t / bound:.2f}x)" if bound else f"{t:.3f} s"

        rows.append(f"| {path.stem} | {coll} {bytes_} | " + (f"{bound:.3f} s" if bound else "-") + " | "
                    + " | ".join(cell(k) for k in ("planned", "event", "one node", "no cross", "SMPI")) + " |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("platforms", nargs="+")
    ap.add_argument("-c", "--collectives", default=",".join(POINTS))
    a = ap.parse_args()
    colls = a.collectives.split(",")
    if not known_collectives(colls, "packing_decompose"):
        return 2
    for p in a.platforms:
        if not description(p).is_file():
            print(f"packing_decompose: no platform description {description(p)}", file=sys.stderr)
            return 2
    print("| platform | collective | bound | planned | event | SMPI, one node a site | SMPI, no cross-traffic | SMPI |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for p in a.platforms:
            for row in decompose(p, colls, Path(d)):
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
