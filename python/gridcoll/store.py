"""The results database (SQLite): one row per point, written the moment the point finishes, so
an interrupted sweep (Ctrl-C, kill -9, a crashed point) loses nothing finished. Several
processes may write at once (WAL mode). A point whose status is 'ok' is done; a 'failed' one
carries its error and is tried again by the next run."""
from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pandas as pd

from .spec import Point

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT, spec_path TEXT, spec_text TEXT, provenance TEXT);
CREATE TABLE IF NOT EXISTS points (
    key TEXT PRIMARY KEY, run_id INTEGER, backend TEXT, kind TEXT, settings TEXT, platform TEXT, placement TEXT,
    ranks INTEGER, collective TEXT, method TEXT, algorithm TEXT, bytes INTEGER, root INTEGER, reps INTEGER,
    status TEXT, time_s REAL, min_s REAL, max_s REAL, verified TEXT, choice TEXT, error TEXT, wall_s REAL,
    finished_at TEXT, timing TEXT);
"""


def connect(path: str | Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=120, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(_SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(points)")}
    if "timing" not in columns:  # a database from before per-rank timing: every point was timed at the root
        db.execute("ALTER TABLE points ADD COLUMN timing TEXT DEFAULT 'root'")
    return db


def start_run(db: sqlite3.Connection, spec_path: str, spec_text: str, provenance: dict) -> int:
    cur = db.execute("INSERT INTO runs (started_at, spec_path, spec_text, provenance) VALUES (?, ?, ?, ?)",
                     (time.strftime("%Y-%m-%dT%H:%M:%S"), spec_path, spec_text, json.dumps(provenance)))
    return int(cur.lastrowid)


def done_keys(db: sqlite3.Connection) -> set[str]:
    return {k for (k,) in db.execute("SELECT key FROM points WHERE status = 'ok'")}


def run_counts(path: str | Path, run_id: int, keys: set[str]) -> tuple[int, int]:
    """(ok, failed) among `keys` as stored by run `run_id`."""
    db = connect(path)
    try:
        rows = db.execute("SELECT key, status FROM points WHERE run_id = ?", (run_id,)).fetchall()
    finally:
        db.close()
    ok = sum(1 for k, s in rows if k in keys and s == "ok")
    return ok, sum(1 for k, s in rows if k in keys and s != "ok")


def record(db: sqlite3.Connection, run_id: int, p: Point, status: str, row: dict | None = None, error: str = "",
           wall_s: float = 0.0) -> None:
    """Stores one finished point (replacing an earlier failed attempt)."""
    row = row or {}
    choice = row.get("choice", "")
    if row.get("method") and row["method"] != p.method:  # 'auto': what it chose
        choice = f"{choice} → {row['method']}" if choice else row["method"]
    db.execute(
        "INSERT OR REPLACE INTO points VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (p.key, run_id, p.backend.name, p.backend.kind, json.dumps(p.backend.settings_dict(), sort_keys=True), p.platform,
         p.placement, int(row.get("ranks", p.ranks)), p.collective, p.method, p.method.split(":")[0].split("[")[0],
         p.bytes, p.root, p.reps, status, row.get("time_s"), row.get("min_s"), row.get("max_s"), row.get("verified", ""),
         choice, error, wall_s, time.strftime("%Y-%m-%dT%H:%M:%S"), p.timing))


def results(path: str | Path, keys: set[str] | None = None) -> pd.DataFrame:
    """Every stored point (or those of `keys`) with the provenance of the run that produced it:
    git revision, versions, command line (columns prefixed ``prov_``)."""
    db = connect(path)
    try:
        df = pd.read_sql_query("SELECT * FROM points", db)
        runs = pd.read_sql_query("SELECT id, provenance FROM runs", db)
    finally:
        db.close()
    if keys is not None:
        df = df[df["key"].isin(keys)]
    prov = {int(r.id): json.loads(r.provenance) for r in runs.itertuples()}
    for field in ("git_revision", "gridcoll_version", "simgrid_version", "openmpi_version", "command"):
        df["prov_" + field] = [prov.get(int(i), {}).get(field, "") for i in df["run_id"]]
    df["platform_name"] = [Path(p).stem for p in df["platform"]]
    return df.reset_index(drop=True)


def export_csv(df: pd.DataFrame, path: str | Path) -> None:
    df.drop(columns=["key"]).to_csv(path, index=False)
