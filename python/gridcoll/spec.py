"""One experiment spec (TOML) and the points it stands for.

A spec holds one or more ``[[experiment]]`` tables; each is a cross product::

    name = "das"                         # used in file names and the report's title
    [[experiment]]
    platforms   = ["das-4x32"]           # a shipped name or a path (relative to the spec file)
    collectives = ["bcast"]
    algorithms  = ["binomial", "pipeline:seg=64K", "multitree:k=1:seg=64K"]   # method texts
    sizes       = ["64K", "1M"]
    ranks       = [0]                    # 0: every slot of the placement
    placements  = [""]                   # "", "block" or "round-robin" ("": the platform's own)
    backends    = ["closed", "event", "smpi"]
    reps        = 1                      # timed repetitions per point
    root        = 0                      # -1: every rank in turn
    counts      = "even"                 # v-variants, reduce_scatter: even, ramp or zeros blocks
    timing      = "root"                 # root: the root's clock between a release and the reports;
                                         # per-rank: each rank's own clock around back-to-back calls
                                         # (OSU's way; MPI backends: smpi, emulated); sync:
                                         # simulated time from a simultaneous start (smpi, event)

    [backend.smpi]                       # settings of a backend (gridcoll.run_batch's)
    cfg = ["smpi/send-is-detached-thresh:0"]
    [backend.smpi-rdv]                   # a named variant: kind says which backend runs it
    kind = "smpi"
    [backend.emulated]                   # the testbed: stall_timeout = "60s", and a WAN fault schedule
    faults = "outages.txt"               # carried out during each run (path relative to the spec)
    [backend.mine]                       # kind "python": a function "module:function" runs it
    kind = "python"
    function = "mypkg.model:run"

Every error names the spec file and the key at fault.
"""
from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import _core
from .paths import source_dir

# The backends of this build (backends/ declares them and their settings), "emulated" even where
# this build has none (validate then leaves its points out and says why), and "python" (a user's
# function per point).
KINDS = tuple(dict.fromkeys([*_core.backends(), "emulated", "python"]))
_EXPERIMENT_KEYS = {"platforms", "collectives", "algorithms", "sizes", "ranks", "placements", "backends", "reps", "root",
                    "warmup", "type", "op", "counts", "timing"}
TIMINGS = ("root", "per-rank", "sync")


@dataclass(frozen=True)
class Backend:
    """A backend as a spec names it: its label in results, the kind that runs it, its settings."""
    name: str
    kind: str
    settings: tuple = ()  # sorted (key, value) pairs, values JSON-encoded

    def settings_dict(self) -> dict:
        return {k: json.loads(v) for k, v in self.settings}

    def digest(self) -> str:
        return hashlib.sha1(json.dumps([self.kind, self.settings]).encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Point:
    """One measurement: a method at one size on one platform through one backend."""
    backend: Backend
    platform: str  # path
    placement: str
    ranks: int
    collective: str
    method: str  # canonical text
    bytes: int
    root: int
    reps: int
    warmup: int = 0
    type: str = "int32"
    op: str = "sum"
    counts: str = "even"  # irregular collectives: how the blocks vary per rank (even, ramp, zeros)
    timing: str = "root"  # root, per-rank or sync (spec.TIMINGS)

    @property
    def key(self) -> str:
        """Identifies the point in the results database (a changed setting makes a new point)."""
        key = "|".join(str(x) for x in (self.backend.name, self.backend.digest(), self.platform, self.placement,
                                         self.ranks, self.collective, self.method, self.bytes, self.root, self.reps,
                                         self.warmup, self.type, self.op))
        key = key if self.counts == "even" else key + "|counts=" + self.counts
        return key if self.timing == "root" else key + "|timing=" + self.timing

    @property
    def task_key(self) -> tuple:
        """Points with equal task keys run in one backend call (one smpirun, one testbed)."""
        return (self.backend, self.platform, self.placement, self.ranks, self.collective, self.method, self.root,
                self.reps, self.warmup, self.type, self.op, self.counts, self.timing)


@dataclass
class Spec:
    name: str
    path: str  # the file, or "<built-in default>"
    text: str  # as read, stored with the results
    points: list[Point] = field(default_factory=list)
    skipped: list[tuple[Point, str]] = field(default_factory=list)  # not applicable, with why

    def backends(self) -> list[Backend]:
        seen = {}
        for p in self.points:
            seen.setdefault(p.backend.name, p.backend)
        return list(seen.values())


class SpecError(_core.Error):
    pass


def _list(table: dict, key: str, origin: str, default=None, kind=str) -> list:
    v = table.get(key, default)
    if v is None:
        raise SpecError(f"{origin}: missing key '{key}'")
    if not isinstance(v, list):
        v = [v]
    if not v:
        raise SpecError(f"{origin}: '{key}' is empty")
    for x in v:
        if not isinstance(x, kind) or isinstance(x, bool):
            names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise SpecError(f"{origin}: '{key}' holds {x!r}; expected {names} values")
    return v


def resolve_platform(name: str, base: Path, origin: str) -> str:
    """A shipped name ("das-4x32") or a path, relative to the spec's folder."""
    candidates = [base / name] if ("/" in name or name.endswith((".toml", ".xml"))) else []
    candidates += [Path(source_dir()) / "platforms" / "shipped" / f"{name}.toml"]
    for c in candidates:
        if c.exists():
            return str(c.resolve())
    raise SpecError(f"{origin}: platform '{name}' is neither a file nor a shipped platform")


def _sizes(e: dict, origin: str) -> list[int]:
    try:
        return [int(s) if isinstance(s, int) else _core.parse_bytes(str(s)) for s in _list(e, "sizes", origin, kind=(str, int))]
    except _core.Error as err:
        raise SpecError(f"{origin}: sizes: {err}") from None


def _check_placed(platform: str, placement: str, ranks: int, root: int, origin: str) -> None:
    """A description that does not load, or a root it does not place, is the spec's error before
    anything runs (SimGrid XML needs its hostfile, which the backends find: not checked here)."""
    if not platform.endswith(".toml"):
        return
    try:
        placed = _core.Platform(platform, "", ranks, placement)
    except _core.Error as err:
        raise SpecError(f"{origin}: platform {platform}: {err}") from None
    if root >= placed.ranks:
        raise SpecError(f"{origin}: root = {root}, but {Path(platform).name} places {placed.ranks} ranks")


def _backends(doc: dict, origin: str, base: Path) -> dict[str, Backend]:
    table = doc.get("backend", {})
    if not isinstance(table, dict):
        raise SpecError(f"{origin}: 'backend' must be a table of backend settings")
    out = {}
    for name, settings in table.items():
        if not isinstance(settings, dict):
            raise SpecError(f"{origin}: [backend.{name}] must be a table")
        settings = dict(settings)
        kind = settings.pop("kind", name)
        if kind not in KINDS:
            raise SpecError(f"{origin}: [backend.{name}] kind '{kind}' is not one of {', '.join(KINDS)}")
        if kind == "python" and ":" not in str(settings.get("function", "")):
            raise SpecError(f"{origin}: [backend.{name}] needs function = \"module:function\"")
        if kind in _core.backends():  # its settings table: a key it does not have is named here
            known = {s["key"] for s in _core.backend_settings(kind)} | {"bin_dir"}
            for key in settings:
                if key not in known:
                    raise SpecError(f"{origin}: [backend.{name}] has a setting '{key}' the {kind} backend does not take "
                                    f"(it takes: {', '.join(sorted(known - {'bin_dir'}))})")
        if kind == "emulated" and settings.get("faults"):  # a fault schedule: relative to the spec
            faults = base / str(settings["faults"])
            if not faults.is_file():
                raise SpecError(f"{origin}: [backend.{name}] faults: no file {faults}")
            settings["faults"] = str(faults.resolve())
        out[name] = Backend(name, kind, tuple(sorted((k, json.dumps(v)) for k, v in settings.items())))
    return out


def parse(text: str, path: str = "<text>", base: Path | None = None) -> Spec:
    """Reads a spec; errors name `path` and the key."""
    base = base or (Path(path).parent if not path.startswith("<") else Path.cwd())
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: {e}") from None
    unknown = set(doc) - {"name", "description", "experiment", "backend"}
    if unknown:
        raise SpecError(f"{path}: unknown key '{sorted(unknown)[0]}' (valid: name, description, experiment, backend)")
    named = _backends(doc, path, base)
    experiments = doc.get("experiment")
    if not isinstance(experiments, list) or not experiments:
        raise SpecError(f"{path}: no [[experiment]] table")
    spec = Spec(name=str(doc.get("name", Path(path).stem)), path=path, text=text)
    seen = set()
    for i, e in enumerate(experiments, 1):
        origin = f"{path}: experiment {i}"
        bad = set(e) - _EXPERIMENT_KEYS
        if bad:
            raise SpecError(f"{origin}: unknown key '{sorted(bad)[0]}' (valid: {', '.join(sorted(_EXPERIMENT_KEYS))})")
        platforms = [resolve_platform(p, base, origin) for p in _list(e, "platforms", origin)]
        colls = _list(e, "collectives", origin)
        algos = _list(e, "algorithms", origin)
        sizes = _sizes(e, origin)
        ranks = _list(e, "ranks", origin, [0], int)
        placements = _list(e, "placements", origin, [""])
        for pl in placements:
            if pl not in ("", "block", "round-robin"):
                raise SpecError(f"{origin}: placement '{pl}' is not '', 'block' or 'round-robin'")
        backends = []
        for b in _list(e, "backends", origin):
            if b in named:
                backends.append(named[b])
            elif b in KINDS and b != "python":
                backends.append(Backend(b, b))
            else:
                raise SpecError(f"{origin}: backend '{b}' is neither a kind ({', '.join(k for k in KINDS if k != 'python')}) "
                               f"nor a [backend.{b}] table")
        reps, root, warmup = e.get("reps", 1), e.get("root", 0), e.get("warmup", 0)
        for k, v in (("reps", reps), ("root", root), ("warmup", warmup)):
            if not isinstance(v, int) or isinstance(v, bool) or v < (1 if k == "reps" else -1 if k == "root" else 0):
                raise SpecError(f"{origin}: '{k}' = {v!r} is out of range")
        typ, op = str(e.get("type", "int32")), str(e.get("op", "sum"))
        counts = str(e.get("counts", "even"))
        if counts not in ("even", "ramp", "zeros"):
            raise SpecError(f"{origin}: counts = {counts!r}: expected even, ramp or zeros")
        timing = str(e.get("timing", "root"))
        if timing not in TIMINGS:
            raise SpecError(f"{origin}: timing = {timing!r}: expected {' or '.join(TIMINGS)}")
        for coll in colls:
            if coll not in _core.collectives():
                raise SpecError(f"{origin}: unknown collective '{coll}' (valid: {', '.join(_core.collectives())})")
            methods = []
            for a in algos:
                try:
                    methods.append(_core.canonical_method(coll, a))
                except _core.Error as err:
                    raise SpecError(f"{origin}: algorithms: {err}") from None
            for plat in platforms:
                for pl in placements:
                    for n in ranks:
                        _check_placed(plat, pl, n, root, origin)
                        for b in backends:
                            for m in methods:
                                for size in ([0] if coll == "barrier" else sizes):  # a barrier moves no data
                                    pt = Point(b, plat, pl, n, coll, m, size, root, reps, warmup, typ, op, counts, timing)
                                    if pt.key in seen:
                                        continue
                                    seen.add(pt.key)
                                    why = not_applicable(pt)
                                    if why:
                                        spec.skipped.append((pt, why))
                                    else:
                                        spec.points.append(pt)
    return spec


def load(path: str | Path) -> Spec:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark, as some editors write, dropped
    except OSError as e:
        raise SpecError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise SpecError(f"{path}: not a TOML text file (byte {e.start} is not UTF-8)") from None
    return parse(text, str(path), path.parent)


def not_applicable(p: Point) -> str:
    """Why a backend cannot run a point by its nature ('' when it can): no closed form for the
    algorithm, 'native' outside MPI, ... These points are listed in the report, not run."""
    algorithm = p.method.split(":")[0].split("[")[0]
    settings = p.backend.settings_dict()
    if p.backend.kind == "closed":
        model = settings.get("model", "plogp")
        if algorithm in ("native", "auto") or not _core.has_formula(model, p.collective, algorithm):
            return f"the {model} model has no closed form for {p.collective} '{algorithm}'"
    if p.backend.kind == "event" and algorithm == "native":
        return "'native' is the MPI library's own collective: only MPI backends run it"
    if p.timing != "root" and p.backend.kind not in ("smpi", "emulated", "openmpi"):
        return f"{p.timing} timing is each MPI rank's own clock: only MPI backends time so"
    return ""
