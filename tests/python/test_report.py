"""The HTML report opens in headless Chromium without errors and every plot is present; the
validate command writes database, CSV and report, and names a bad spec."""
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, ROOT, small_spec


def run_validate(*args, cwd):
    return subprocess.run([str(BUILD / "bin" / "gridcoll"), "validate", *args], capture_output=True, text=True, cwd=cwd)


def test_validate_writes_everything_and_report_opens_in_chromium(gc, tmp_path):
    spec = small_spec(tmp_path, backends=("closed", "event", "smpi"), sizes='["64K", "256K", "1M"]')
    r = run_validate(str(spec), "-o", "out", "--no-progress", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    for f in ("results.sqlite", "results.csv", "figures.json", "report.html"):
        assert (out / f).stat().st_size > 0, f
    assert "report: " in r.stdout
    page = (out / "report.html").read_text()
    plots = int(re.search(r'data-plots="(\d+)"', page).group(1))
    # one time plot, three error heat maps (event and closed vs smpi, closed vs event), one decision map
    assert plots == 5 and page.count("<img") == plots
    assert "relative error" in page.lower() and "gridcoll validate" in page and "git_revision" in page
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("chromium is not installed (scripts/install-deps.sh installs it)")
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                          "--dump-dom", (out / "report.html").as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    loaded = re.search(r'data-plots-loaded="(\d+)/(\d+)"', dom.stdout)
    assert loaded, "the report's load check did not run"
    assert loaded.group(1) == loaded.group(2) == str(plots)
    assert not re.search(r"<body[^>]*data-error", dom.stdout), "a script error in the report"


def test_validate_names_a_bad_spec(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["x"]\nsizes=["1K"]\n'
                   'backends=["event"]\n')
    r = run_validate(str(bad), "-o", "out", cwd=tmp_path)
    assert r.returncode == 2 and str(bad) in r.stderr and "unknown bcast algorithm 'x'" in r.stderr
    assert not (tmp_path / "out").exists()


def test_validate_says_why_emulation_did_not_run(tmp_path):
    spec = tmp_path / "emu.toml"
    spec.write_text('[[experiment]]\nplatforms=["das-4x2"]\ncollectives=["bcast"]\nalgorithms=["binomial"]\n'
                    'sizes=["1K"]\nbackends=["event", "emulated"]\n')
    r = run_validate(str(spec), "-o", "out", "--no-progress", "--no-emulation", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "1 points not run — left out (--no-emulation)" in r.stderr
    row = next(line for line in r.stdout.splitlines() if "vs emulation" in line)
    assert row.rstrip().endswith("not run: left out (--no-emulation)"), row


def test_small_messages_are_counted_in_wan_latencies(gc):
    import pandas as pd
    from gridcoll import report
    das = str(ROOT / "platforms" / "shipped" / "das-4x32.toml")
    row = dict(platform=das, platform_name="das-4x32", backend="smpi", collective="allreduce", bytes=8, status="ok")
    df = pd.DataFrame([
        dict(row, method="native", algorithm="native", time_s=0.030, max_s=0.040, choice="", timing="per-rank"),
        dict(row, method="auto", algorithm="auto", time_s=0.012, max_s=0.050, choice="auto:builtin → leaders",
             timing="per-rank"),
        dict(row, method="auto", algorithm="auto", time_s=0.031, max_s=0.031, choice="auto:builtin → leaders",
             timing="root"),
        dict(row, method="auto", algorithm="auto", time_s=0.5, max_s=0.5, bytes=65536, choice="", timing="per-rank"),
    ])
    t = report.small_message_table(df)
    # das-4x32's WAN latency is 10 ms; the root-timed point has no native beside it, 64 KiB is not small
    assert len(t) == 1
    r = t.iloc[0]
    assert (r["timing"], r["native"], r["time"], r["method / native"]) == ("per-rank", "3.00", "1.20", "0.400")
    assert r["method"] == "auto (leaders)" and r["slowest: method / native"] == "1.250"
    assert report.small_message_table(df[df["method"] != "native"]).empty


def test_a_database_from_before_per_rank_timing_is_read_as_root_timed(tmp_path):
    import sqlite3
    from gridcoll import store
    db = sqlite3.connect(str(tmp_path / "old.sqlite"))
    db.executescript(store._SCHEMA.replace(", timing TEXT", ""))
    db.execute("INSERT INTO points (key, run_id, platform, status) VALUES ('k', 1, 'x/das-4x2.toml', 'ok')")
    db.commit()
    db.close()
    df = store.results(tmp_path / "old.sqlite")
    assert list(df["timing"]) == ["root"]
