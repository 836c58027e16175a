"""The experiment spec: the cross product it stands for, and errors that name file and key."""
import pytest

from conftest import small_spec


def test_cross_product_and_not_applicable_points(gc, tmp_path):
    from gridcoll import spec
    s = spec.load(small_spec(tmp_path))
    # 3 methods x 2 sizes x 2 backends, less multitree's 2 points under the closed forms
    assert len(s.points) == 10
    assert len(s.skipped) == 2 and all("closed form" in why for _, why in s.skipped)
    assert len({p.key for p in s.points}) == len(s.points)
    assert {p.method for p in s.points} == {"binomial", "pipeline:seg=64K", "multitree"}


@pytest.mark.parametrize("body, message", [
    ('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomail"]\nsizes=["1K"]\nbackends=["event"]',
     "experiment 1: algorithms: unknown bcast algorithm 'binomail'"),
    ('[[experiment]]\nplatforms=["nowhere"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\nsizes=["1K"]\nbackends=["event"]',
     "platform 'nowhere'"),
    ('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\nsizes=["1Q"]\nbackends=["event"]',
     "sizes"),
    ('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\nsizes=["1K"]\nbackends=["hal"]',
     "backend 'hal'"),
    ('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\nsizes=["1K"]\nbackends=["event"]\nreps=0',
     "'reps' = 0"),
    ('[[experiment]]\nplatform=["das-4x2"]', "unknown key 'platform'"),
    ('name = "x"', "no [[experiment]]"),
    ('[backend.x]\nkind = "quantum"\n[[experiment]]', "kind 'quantum'"),
    ('name = ', "small.toml"),
    ('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\nsizes=["1K"]\nbackends=["event"]\nroot=99',
     "root = 99, but das-4x2.toml places 8 ranks"),
    ('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\nsizes=["1K"]\nbackends=["event"]\nranks=[100000]',
     "das-4x2.toml"),
])
def test_errors_name_the_file_and_key(gc, tmp_path, body, message):
    from gridcoll import spec
    f = tmp_path / "small.toml"
    f.write_text(body)
    with pytest.raises(gc.Error) as e:
        spec.load(f)
    assert str(f) in str(e.value)
    assert message in str(e.value)


def test_a_changed_backend_setting_is_a_new_point(gc, tmp_path):
    from gridcoll import spec
    a = spec.load(small_spec(tmp_path, backends=("event",)))
    b = spec.load(small_spec(tmp_path, backends=("event",), extra='[backend.event]\nsync_sends = true'))
    assert {p.key for p in a.points}.isdisjoint({p.key for p in b.points})


def test_a_dilated_testbed_is_a_spec_setting_and_the_report_states_k(gc, tmp_path):
    """A spec asks for a dilated testbed through [backend.X] dilation; the run's environment
    (stored with it and printed in the report) states K and where the hosts ran; a bad K is an
    error naming the value. Nothing is brought up: this only plans."""
    from gridcoll import provenance, spec
    f = tmp_path / "dilated.toml"
    f.write_text('[backend.dilated]\nkind = "emulated"\ndilation = "3"\n'
                 '[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\n'
                 'sizes=["1K"]\nbackends=["dilated", "event"]')
    s = spec.load(f)
    env = provenance.testbeds(s.points)
    assert list(env) == ["testbed: dilated on das-4x2.toml"]
    assert env["testbed: dilated on das-4x2.toml"].startswith("dilation x3 (setting 3")
    assert "8 hosts, all on this machine" in env["testbed: dilated on das-4x2.toml"]
    f.write_text(f.read_text().replace('dilation = "3"', 'dilation = "0.5"'))
    bad = provenance.testbeds(spec.load(f).points)
    assert "'0.5'" in bad["testbed: dilated on das-4x2.toml"] and "unknown" in bad["testbed: dilated on das-4x2.toml"]


def test_a_testbed_over_machines_is_a_spec_setting_and_the_report_states_where_hosts_ran(gc, tmp_path):
    """[backend.X] machines spreads the testbed over stand-in machines; the report's environment
    says which hosts ran on which; a bad count is an error naming the value. Only plans."""
    from gridcoll import provenance, spec
    f = tmp_path / "spread.toml"
    f.write_text('[backend.spread]\nkind = "emulated"\nmachines = "2"\n'
                 '[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\n'
                 'sizes=["1K"]\nbackends=["spread", "event"]')
    env = provenance.testbeds(spec.load(f).points)
    layout = env["testbed: spread on das-4x2.toml"]
    assert "8 hosts, hosts on 2 stand-in machines (m0: 4 hosts c0-0..c1-1, m1: 4 hosts c2-0..c3-1)" in layout
    f.write_text(f.read_text().replace('machines = "2"', 'machines = "99"'))
    bad = provenance.testbeds(spec.load(f).points)
    assert "--machines 99" in bad["testbed: spread on das-4x2.toml"]


def test_timing_is_an_experiment_setting(gc, tmp_path):
    from gridcoll import spec
    body = ('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["allreduce", "barrier"]\nalgorithms=["native", "auto"]\n'
            'sizes=["8", "1K"]\nbackends=["smpi", "event"]\ntiming="per-rank"')
    f = tmp_path / "timed.toml"
    f.write_text(body)
    s = spec.load(f)
    assert {p.timing for p in s.points} == {"per-rank"}
    # per-rank timing is each MPI rank's clock: the event simulator's points are listed, not run
    assert {p.backend.kind for p in s.points} == {"smpi"}
    assert any("per-rank timing" in why for p, why in s.skipped if p.backend.kind == "event")
    # a barrier moves no data: one size, 0
    assert sorted(p.bytes for p in s.points if p.collective == "barrier") == [0, 0]
    root = spec.load(small_spec(tmp_path, backends=("smpi",)))
    assert {p.timing for p in root.points} == {"root"} and all("timing" not in p.key for p in root.points)
    assert all(p.key.endswith("|timing=per-rank") for p in s.points)
    f.write_text(body.replace('"per-rank"', '"wall"'))
    with pytest.raises(gc.Error) as e:
        spec.load(f)
    assert str(f) in str(e.value) and "timing = 'wall'" in str(e.value)


def test_a_spec_that_is_not_text_is_named(gc, tmp_path):
    from gridcoll import spec
    f = tmp_path / "garbage.toml"
    f.write_bytes(b"name = \x89\xff\x00 junk")
    with pytest.raises(spec.SpecError, match="garbage.toml: not a TOML text file"):
        spec.load(f)


def test_validate_refuses_a_file_as_output_folder_and_a_bad_scheduler(gc, tmp_path, capsys):
    from gridcoll import validate
    taken = tmp_path / "taken"
    taken.write_text("mine")
    assert validate.main([str(small_spec(tmp_path)), "-o", str(taken)]) == 2
    assert "output folder" in capsys.readouterr().err and taken.read_text() == "mine"
    with pytest.raises(SystemExit) as e:
        validate.main([str(small_spec(tmp_path)), "--scheduler", "bogus"])
    assert e.value.code == 2 and "expected an address like tcp://host:8786" in capsys.readouterr().err
