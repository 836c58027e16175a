"""gridcoll: topology-aware collective communication for clusters of clusters, from Python.

The C++ core (``gridcoll._core``, pybind11) gives the registry, schedules and the checker,
Topology and platforms, the models' parameters and closed forms, paper 000's P-LogP optimiser,
paper 002's decision functions, and every backend (closed form, event simulator, SMPI, the
emulated testbed). On top of it:

- :mod:`gridcoll.spec`     one experiment spec (TOML): platforms x collectives x algorithms x
                           sizes x rank counts x placements x repetitions x backends;
- :mod:`gridcoll.sweep`    sweeps that survive: parallel (local processes or Dask), progress
                           with ETA, every finished point stored at once in SQLite, resumable;
- :mod:`gridcoll.report`   one self-contained HTML report with plots;
- :mod:`gridcoll.validate` ``gridcoll validate [SPEC]``, the project's main job.

From a build tree: ``PYTHONPATH=build/python /usr/bin/python3 -c 'import gridcoll'``.
"""
from . import _core
from ._core import (Error, Platform, ParamSet, LevelParams, Topology, algorithms, backends, canonical_method, check,
                    collectives, decide_by_model, format_bytes, has_formula, models, optimize_single_layer,
                    optimize_two_layer, parse_bytes, predict, schedule_text)
from .paths import bin_dir, source_dir, shipped_platform

__version__ = "0.1"

__all__ = [
    "Error", "Platform", "ParamSet", "LevelParams", "Topology", "algorithms", "backends", "canonical_method", "check",
    "collectives", "decide_by_model", "format_bytes", "has_formula", "models", "optimize_single_layer",
    "optimize_two_layer", "parse_bytes", "predict", "schedule_text", "run_batch", "bin_dir", "source_dir",
    "shipped_platform", "__version__",
]


def run_batch(backend, platform, collective, methods, sizes, *, root=0, reps=1, warmup=0, type="int32", op="sum",
              verify=True, placement="", ranks=0, counts="even", timing="root", settings=None, sink=None):
    """Runs ``methods`` x ``sizes`` of one collective on ``platform`` through ``backend``.

    ``backend`` is ``closed``, ``event``, ``smpi`` or ``emulated`` (root, namespaces). Sizes are
    texts (``"64K"``) or integers. Returns the result rows (dicts: backend, collective, method,
    algorithm, ranks, bytes, root, reps, time_s, min_s, max_s, verified, choice, timing); ``counts`` (even,
    ramp, zeros) makes the per-rank blocks of an irregular collective (v-variants, reduce_scatter);
    ``timing`` is ``root`` (the root's clock between a release and every rank's report) or
    ``per-rank`` (each rank's own clock around back-to-back calls, OSU's way; MPI backends) or ``sync``
    (simulated time from a simultaneous start to the last rank's end: smpi, event); ``sink``, if
    given, also receives each row as soon as it is known. Raises :class:`gridcoll.Error` for bad
    input, naming the value.
    """
    settings = dict(settings or {})
    settings.setdefault("bin_dir", bin_dir())
    rows = []

    def collect(row):
        rows.append(row)
        if sink is not None:
            sink(row)

    _core.run_batch(backend, str(platform), collective, list(methods), [str(s) for s in sizes], root=root, reps=reps,
                    warmup=warmup, type=type, op=op, verify=verify, placement=placement, ranks=ranks,
                    counts=counts, timing=timing, settings=settings, sink=collect)
    return rows
