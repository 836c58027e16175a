// The operands pmpi_check and pmpi_more contribute, and the non-commutative user operation they
// reduce with: each program checks every result against these.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace pmpi_operands {

// The value rank r contributes at index i (small: sums over ranks stay exact in every type).
inline int value(int r, long i, int salt) { return static_cast<int>((r * 7 + i * 13 + salt) % 101) - 50; }

// Affine maps x -> a x + b (mod 2^32) composed: associative, not commutative. MPI applies
// inoutbuf = in op inoutbuf with `in` from lower ranks; op(in, io) = "first in, then io":
// io' = io o in, i.e. a = io.a * in.a, b = io.a * in.b + io.b.
inline void affine(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* x = static_cast<std::uint32_t*>(in);
    auto* y = static_cast<std::uint32_t*>(inout);
    for (int k = 0; k < *len; ++k) {
        const std::uint32_t a = y[2 * k] * x[2 * k], b = y[2 * k] * x[2 * k + 1] + y[2 * k + 1];
        y[2 * k] = a;
        y[2 * k + 1] = b;
    }
}
// Rank r's map at index i.
inline void affine_of(int r, long i, std::uint32_t* p) {
    p[0] = static_cast<std::uint32_t>(2 * ((r + i) % 5) + 1);
    p[1] = static_cast<std::uint32_t>(r * 31 + i);
}
// Ranks lo..hi folded in order: first lo's map, then lo+1's, ...
inline void affine_fold(int lo, int hi, long i, std::uint32_t* p) {
    affine_of(lo, i, p);
    for (int r = lo + 1; r <= hi; ++r) {
        std::uint32_t q[2];
        affine_of(r, i, q);
        int one = 1;
        affine(p, q, &one, nullptr);
        p[0] = q[0];
        p[1] = q[1];
    }
}

}  // namespace pmpi_operands
