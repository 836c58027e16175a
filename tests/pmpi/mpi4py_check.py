"""A Python MPI program (mpi4py at its default thread level, MPI_THREAD_MULTIPLE) that knows
nothing of gridcoll: buffer-based collectives, blocking and non-blocking, checked with numpy.
Rank 0 prints "mpi4py_check: <n> checks passed on <p> ranks" (pmpi_tests.sh, case mpi4py)."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
checks = failures = 0


def expect(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print(f"mpi4py_check[{rank}]: WRONG {what}", file=sys.stderr)


def contribution(r, n):
    return (np.arange(n, dtype=np.float64) * 3 + r * 7) % 11


provided = MPI.Query_thread()
for n in (1, 1000, 40000):
    mine = contribution(rank, n)
    total = sum(contribution(r, n) for r in range(size))
    out = np.empty(n)
    comm.Allreduce(mine, out, op=MPI.SUM)
    expect(np.array_equal(out, total), f"Allreduce n={n}")
    req = comm.Iallreduce(mine, out, op=MPI.SUM)
    req.Wait()
    expect(np.array_equal(out, total), f"Iallreduce n={n}")
    buf = contribution(0, n) if rank == 0 else np.zeros(n)
    comm.Bcast(buf, root=0)
    expect(np.array_equal(buf, contribution(0, n)), f"Bcast n={n}")
    buf = contribution(size - 1, n) if rank == size - 1 else np.zeros(n)
    comm.Ibcast(buf, root=size - 1).Wait()
    expect(np.array_equal(buf, contribution(size - 1, n)), f"Ibcast n={n}")
    whole = np.concatenate([contribution(rank, n) + j for j in range(size)])
    part = np.empty(n)
    comm.Reduce_scatter_block(whole, part, op=MPI.SUM)
    expect(np.array_equal(part, sum(contribution(r, n) for r in range(size)) + size * rank), f"Reduce_scatter_block n={n}")
    gathered = np.empty(n * size)
    comm.Allgather(mine, gathered)
    expect(np.array_equal(gathered, np.concatenate([contribution(r, n) for r in range(size)])), f"Allgather n={n}")
    # Blocks with a gap after each, so the library unpacks them at completion; mpi4py 3.1 frees the
    # counts and displacements it made for the call as the call returns.
    spaced = np.full((n + 1) * size, -1.0)
    comm.Iallgatherv(mine, [spaced, ([n] * size, [(n + 1) * j for j in range(size)]), MPI.DOUBLE]).Wait()
    want = np.concatenate([np.append(contribution(r, n), -1.0) for r in range(size)])
    expect(np.array_equal(spaced, want), f"Iallgatherv into spaced blocks n={n}")
    # All-to-all with a datatype per block and byte displacements, into spaced blocks: blocking,
    # then non-blocking (its arrays, made by mpi4py for the call, freed as the call returns).
    blocks = np.concatenate([contribution(rank, n) + j for j in range(size)])
    sending = [blocks, ([n] * size, [8 * n * j for j in range(size)]), [MPI.DOUBLE] * size]
    want = np.concatenate([np.append(contribution(r, n) + rank, -1.0) for r in range(size)])
    for call in (comm.Alltoallw, comm.Ialltoallw):
        spaced = np.full((n + 1) * size, -1.0)
        req = call(sending, [spaced, ([n] * size, [8 * (n + 1) * j for j in range(size)]), [MPI.DOUBLE] * size])
        if req is not None:
            req.Wait()
        expect(np.array_equal(spaced, want), f"{call.__name__} into spaced blocks n={n}")
    prefix = np.zeros(n)
    comm.Exscan(mine, prefix, op=MPI.SUM)
    if rank > 0:
        expect(np.array_equal(prefix, sum(contribution(r, n) for r in range(rank))), f"Exscan n={n}")
    comm.Barrier()

failures = comm.allreduce(failures)
if rank == 0:
    level = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled", MPI.THREAD_SERIALIZED: "serialized",
             MPI.THREAD_MULTIPLE: "multiple"}[provided]
    print(f"mpi4py_check: {checks} checks {'FAILED' if failures else 'passed'} on {size} ranks (thread level {level})")
sys.exit(1 if failures else 0)
