"""gridcoll._core against the C++ command line: the same registry, the same numbers."""
import csv
import io
import os
import subprocess

import pytest

from conftest import BUILD, ROOT


def gridcoll_cli(*args):
    return subprocess.run([str(BUILD / "bin" / "gridcoll"), *args], capture_output=True, text=True, check=True).stdout


def test_registry_matches_the_command_line(gc):
    listed = gridcoll_cli("algorithms")
    for row in gc.algorithms():
        assert f"  {row['name']} " in listed, row
    assert {r["collective"] for r in gc.algorithms()} == set(gc.collectives())
    assert all(r["needs_topology"] for r in gc.algorithms("bcast") if r["name"] in ("magpie", "multitree"))


def test_unknown_names_raise_error_listing_the_valid_ones(gc):
    with pytest.raises(gc.Error, match="valid: .*binomial"):
        gc.canonical_method("bcast", "binomail")
    with pytest.raises(ValueError):  # gridcoll.Error is a ValueError
        gc.algorithms("bcastt")
    assert gc.canonical_method("bcast", "kary:k=2:seg=0") == "kary"


def test_topology_round_trips_and_placement_changes_it(gc, das2):
    block = gc.Platform(das2, placement="block").topology
    robin = gc.Platform(das2, placement="round-robin").topology
    assert block.size == robin.size == 8
    assert block.level_names == ["wan", "lan", "node"]
    assert block.common_level(0, 1) == 1 and block.common_level(0, 2) == 0  # ranks 0, 1 share a cluster; 2 is across the WAN
    again = gc.Topology.from_text(block.to_text())
    assert again.to_text() == block.to_text()
    assert block.link(0)[0] == pytest.approx(0.01)
    with pytest.raises(gc.Error, match="round-robin"):
        gc.Platform(das2, placement="diagonal")


def test_event_backend_gives_the_command_lines_numbers(gc, das2):
    rows = gc.run_batch("event", das2, "bcast", ["binomial", "multitree"], ["64K", "1M"])
    out = gridcoll_cli("simulate", "--backend", "event", "-p", das2, "-c", "bcast", "-a", "binomial,multitree",
                       "-b", "64K,1M", "--root", "0", "-r", "1")
    cli = {(r["method"], int(r["bytes"])): float(r["time_s"]) for r in csv.DictReader(io.StringIO(out))}
    assert len(rows) == 4
    for r in rows:
        assert r["time_s"] == pytest.approx(cli[(r["method"], r["bytes"])], rel=1e-6)


def test_closed_forms_agree_with_predict_and_the_optimiser(gc, das2):
    ps = gc.ParamSet.load(das2)
    lvl = ps.level("wan")
    [row] = gc.run_batch("closed", das2, "bcast", ["binomial"], [65536], ranks=8, settings={"level": "wan"})
    assert row["time_s"] == pytest.approx(gc.predict("plogp", "bcast", "binomial", 8, 65536, level=lvl))
    one = gc.optimize_single_layer(1 << 20, 8, lvl)
    assert one["time"] <= gc.predict("plogp", "bcast", "kary", 8, 1 << 20, segment=one["segment"] * 2,
                                     fanout=1, level=lvl) + 1e-12
    ex = gc.optimize_single_layer(1 << 20, 8, lvl, search="exhaustive", max_segments=64)
    he = gc.optimize_single_layer(1 << 20, 8, lvl, max_segments=64)
    assert ex["time"] <= he["time"] + 1e-12
    assert gc.predict("plogp", "allreduce", "ring", 8, 1024, level=lvl) is None
    for bad in ({"gamma": -1.0}, {"gamma": float("nan")}, {"segment": 0.5}, {"bytes": -8.0}):  # were predicted as if 0
        args = {"bytes": 1024.0, **bad}
        with pytest.raises(gc.Error, match="must be"):
            gc.predict("plogp", "reduce", "binomial", 8, level=lvl, **args)


def test_decisions_and_checker(gc, das2):
    lvl = gc.ParamSet.load(das2).level("lan")
    t = gc.decide_by_model("plogp", "bcast", [1024, 1 << 22], [8], lvl)
    assert [d["bytes"] for d in t] == [1024, 1 << 22]
    assert all(d["compared"] > 1 for d in t)
    assert gc.check("reduce", "binomial", 13, root=5, bytes=1000)["ok"]
    topo = gc.Platform(das2).topology
    assert gc.check("bcast", "multitree", 8, bytes=4096, topology=topo)["ok"]
    assert "send" in gc.schedule_text("bcast", "binomial", 8, 0, bytes=64).lower()


def test_smpi_backend_runs_the_mpi_code(gc, das2):
    [row] = gc.run_batch("smpi", das2, "bcast", ["binomial"], ["64K"])
    assert row["backend"] == "smpi" and row["verified"] == "yes" and row["time_s"] > 0.01  # crosses a 10 ms WAN


@pytest.mark.skipif(os.geteuid() != 0, reason="the emulated testbed needs root (network namespaces)")
def test_emulated_backend_runs_from_python(gc, das2):
    # The delay line is found beside the other programs (bin_dir), not beside python3.
    [row] = gc.run_batch("emulated", das2, "bcast", ["binomial"], ["8"], settings={"check": "false"})
    assert row["backend"] == "emulated" and row["verified"] == "yes" and row["time_s"] > 0.01  # crosses a 10 ms WAN


def test_smpi_sync_timing_counts_the_collective_alone(gc, das2):
    # Every rank starts at one simulated instant and the time ends with the last rank: neither the
    # release's skew nor the report's WAN latency (10 ms on das-2) that the root's clock counts.
    [root] = gc.run_batch("smpi", das2, "bcast", ["binomial"], ["64K"], root=0)
    [sync] = gc.run_batch("smpi", das2, "bcast", ["binomial"], ["64K"], root=0, timing="sync")
    assert sync["timing"] == "sync" and sync["verified"] == "yes"
    assert 0.01 < sync["time_s"] < root["time_s"] - 0.009
    [alone] = gc.run_batch("event", das2, "bcast", ["binomial"], ["64K"], root=0, timing="sync")
    assert alone["time_s"] > 0.01
    with pytest.raises(gc.Error, match="sync timing is the event simulator's own"):
        gc.run_batch("event", das2, "bcast", ["binomial"], ["64K"], timing="sync", settings={"bench_timing": True})


def test_event_backend_times_as_the_bench_does(gc, das2):
    [alone] = gc.run_batch("event", das2, "bcast", ["multitree"], ["64K"])
    [timed] = gc.run_batch("event", das2, "bcast", ["multitree"], ["64K"], settings={"bench_timing": True})
    assert timed["backend"] == "event-plogp-benchtimed" and alone["backend"] == "event-plogp"
    assert timed["time_s"] > alone["time_s"] + 0.005  # the reports cross das-2's 10 ms WAN


def test_event_backend_rendezvous_waits_for_late_receivers(gc, das2):
    # With the bench's release a remote rank posts its receives one WAN latency late; under
    # SimGrid's matching (rendezvous) the root's segments to it wait for those posts.
    base = {"bench_timing": True, "sync_sends": True, "sync_from": "64K", "shared_links": "wan"}
    [eager] = gc.run_batch("event", das2, "bcast", ["multitree"], ["64K"], settings=base)
    [rdv] = gc.run_batch("event", das2, "bcast", ["multitree"], ["64K"], settings={**base, "rendezvous": True})
    assert rdv["backend"] == "event-plogp-links-rdv-benchtimed"
    assert rdv["time_s"] > eager["time_s"] + 0.005  # about one 10 ms WAN latency more


def test_event_backend_cross_traffic_loads_the_reverse_direction(gc, das2):
    # wanstream streams over both directions of every WAN link at once: with SimGrid's cross
    # traffic each direction also carries 5 % of a share for the other's messages.
    base = {"sync_sends": True, "shared_links": "wan", "rendezvous": True}
    [plain] = gc.run_batch("event", das2, "bcast", ["wanstream"], ["1M"], settings=base)
    [cross] = gc.run_batch("event", das2, "bcast", ["wanstream"], ["1M"], settings={**base, "cross_traffic": 0.05})
    assert cross["backend"] == "event-plogp-links-cross-rdv"
    assert cross["time_s"] > plain["time_s"] * 1.02
    with pytest.raises(gc.Error, match="needs shared links"):
        gc.run_batch("event", das2, "bcast", ["wanstream"], ["1M"], settings={"cross_traffic": 0.05})


def test_bad_settings_are_named(gc, das2):
    with pytest.raises(gc.Error, match="no setting 'colour'"):
        gc.run_batch("event", das2, "bcast", ["binomial"], ["1K"], settings={"colour": "red"})
    with pytest.raises(gc.Error, match="unknown backend"):
        gc.run_batch("magic", das2, "bcast", ["binomial"], ["1K"])
    with pytest.raises(gc.Error, match="sync_from needs sync_sends"):
        gc.run_batch("event", das2, "bcast", ["binomial"], ["1K"], settings={"sync_from": "64K"})


def test_irregular_collectives_run_from_python(gc, das2):
    # The v-variants and reduce-scatter take their per-rank blocks from a count pattern.
    rows = gc.run_batch("event", das2, "reduce_scatter", ["leaders", "ring"], ["1K"], counts="zeros")
    assert [r["method"] for r in rows] == ["leaders", "ring"]
    assert all(r["counts"] == "zeros" and r["time_s"] > 0.01 for r in rows)  # crosses a 10 ms WAN
    [even] = gc.run_batch("event", das2, "allgatherv", ["leaders"], ["64K"])
    [ramp] = gc.run_batch("event", das2, "allgatherv", ["leaders"], ["64K"], counts="ramp")
    assert even["counts"] == "even" and ramp["counts"] == "ramp" and even["time_s"] != ramp["time_s"]
    with pytest.raises(gc.Error, match="count pattern 'lumpy'"):
        gc.run_batch("event", das2, "gatherv", ["linear"], ["1K"], counts="lumpy")


def test_spec_runs_irregular_collectives_with_a_count_pattern(gc, das2, tmp_path):
    from gridcoll import spec as specmod
    text = f'''name = "v"
[[experiment]]
platforms = ["{das2}"]
collectives = ["gatherv", "reduce_scatter"]
algorithms = ["leaders"]
sizes = ["1K"]
backends = ["event"]
counts = "ramp"
'''
    path = tmp_path / "v.toml"
    path.write_text(text)
    s = specmod.load(path)
    assert {p.collective for p in s.points} == {"gatherv", "reduce_scatter"}
    assert all(p.counts == "ramp" and p.key.endswith("|counts=ramp") for p in s.points)
    path.write_text(text.replace('"ramp"', '"lumpy"'))
    with pytest.raises(specmod.SpecError, match="counts = 'lumpy'"):
        specmod.load(path)


def test_out_of_range_requests_are_errors_not_crashes(gc):
    t = gc.Topology.flat(4)
    for rank in (4, 10**6, -1):  # an unchecked index read past the vector (a crash at 10**6)
        with pytest.raises(gc.Error, match="out of range"):
            t.depth(rank)
    assert gc.check("bcast", "binomial", 0, bytes=8)["error"] == "communicator size must be >= 1 (got 0)"
    assert "beyond the 16777216 ranks" in gc.check("bcast", "binomial", 2**30 + 1, bytes=8)["error"]  # looped for ever
    four = gc.Topology([[0, 0], [0, 1], [1, 2], [1, 3]], ["wan", "lan"])
    with pytest.raises(gc.Error, match="the Topology has 4 ranks, the communicator 8"):
        gc.schedule_text("bcast", "multilevel", 8, 5, bytes=8, topology=four)
    assert "the Topology has 4 ranks" in gc.check("bcast", "multilevel", 6, bytes=8, topology=four)["error"]
