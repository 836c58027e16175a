#include "gridcoll/runtime/data_pattern.hpp"

#include <cstring>
#include <vector>

namespace gridcoll {

namespace {

constexpr std::byte kPoison{0xEE};

std::uint8_t pattern_byte(int rank, std::uint64_t i, int rep) {
    std::uint64_t z = (static_cast<std::uint64_t>(rank) << 40) ^ (i * 0x9E3779B97F4A7C15ull) ^ static_cast<std::uint64_t>(rep);
    z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ull;
    return static_cast<std::uint8_t>(z >> 56);
}

// Small integer inputs for element i of rank r.
long element_value(ReduceOp op, int size, int r, std::uint64_t i, int rep) {
    const auto x = static_cast<long>((static_cast<std::uint64_t>(r) * 3 + i + static_cast<std::uint64_t>(rep)) % 1000003);
    switch (op) {
        case ReduceOp::Sum: return 1 + x % 5;
        case ReduceOp::Prod:  // exactly one rank contributes 2 per element, some contribute -1
            return (static_cast<std::uint64_t>(r) + i + static_cast<std::uint64_t>(rep)) % static_cast<std::uint64_t>(size) == 0
                       ? 2
                       : ((static_cast<std::uint64_t>(r) * 7 + i) % 3 == 0 ? -1 : 1);
        case ReduceOp::Min:
        case ReduceOp::Max: return (static_cast<long>(r) * 37 + static_cast<long>(i % 1000) * 11 + rep) % 1000 - 500;
    }
    return 0;
}

template <class T>
void store(std::byte* p, std::uint64_t idx, long v) {
    const T t = static_cast<T>(v);
    std::memcpy(p + idx * sizeof(T), &t, sizeof(T));
}

void store_elem(ElemType t, std::byte* p, std::uint64_t idx, long v) {
    switch (t) {
        case ElemType::Int32: return store<std::int32_t>(p, idx, v);
        case ElemType::Int64: return store<std::int64_t>(p, idx, v);
        case ElemType::Float: return store<float>(p, idx, v);
        case ElemType::Double: return store<double>(p, idx, v);
    }
}

// Reduction of ranks [0, upto) for element i, computed in rank order with the real operation.
void expected_reduction(const DataSpec& d, int upto, std::uint64_t i, std::byte* out_elem) {
    std::byte acc[8], x[8];
    store_elem(d.type, acc, 0, element_value(d.op, d.size, 0, i, d.rep));
    for (int r = 1; r < upto; ++r) {
        store_elem(d.type, x, 0, element_value(d.op, d.size, r, i, d.rep));
        reduce_local(d.type, d.op, x, acc, elem_size(d.type), Order::DstLeft);
    }
    std::memcpy(out_elem, acc, elem_size(d.type));
}

}  // namespace

void fill_inputs(const DataSpec& d, int rank, std::byte* in, std::uint64_t in_bytes, std::byte* out,
                 std::uint64_t out_bytes) {
    if (out_bytes) std::memset(out, static_cast<int>(kPoison), out_bytes);
    if (is_reduction(d.coll)) {
        const std::size_t es = elem_size(d.type);
        for (std::uint64_t i = 0; i < in_bytes / es; ++i) store_elem(d.type, in, i, element_value(d.op, d.size, rank, i, d.rep));
        return;
    }
    for (std::uint64_t i = 0; i < in_bytes; ++i) in[i] = std::byte{pattern_byte(rank, i, d.rep)};
    if (d.coll == Collective::Bcast && rank == d.root)
        for (std::uint64_t i = 0; i < out_bytes; ++i) out[i] = std::byte{pattern_byte(rank, i, d.rep)};
}

namespace {

// Which rank's input byte `idx` output byte `p` of a data-moving collective holds.
struct Source {
    int rank;
    std::uint64_t idx;
};

Source source_of(const DataSpec& d, int rank, std::uint64_t p, int& sender) {
    const std::uint64_t m = d.bytes;
    switch (d.coll) {
        case Collective::Bcast: return {d.root, p};
        case Collective::Scatter: return {d.root, static_cast<std::uint64_t>(rank) * m + p};
        case Collective::Gather:
        case Collective::Allgather: return {static_cast<int>(p / m), p % m};
        case Collective::Alltoall: return {static_cast<int>(p / m), static_cast<std::uint64_t>(rank) * m + p % m};
        case Collective::Scatterv: return {d.root, d.counts->offset(rank) + p};
        case Collective::Gatherv:
        case Collective::Allgatherv: {
            const int j = d.counts->owner(p);
            return {j, p - d.counts->offset(j)};
        }
        case Collective::Alltoallv: {  // senders in order: advance `sender` as p grows
            const Counts& c = *d.counts;
            while (sender + 1 < c.ranks() && c.recv_offset(rank, sender + 1) <= p) ++sender;
            return {sender, c.send_offset(sender, rank) + p - c.recv_offset(rank, sender)};
        }
        default: return {-1, 0};
    }
}

// Element offset of rank `rank`'s result in the reduced vector, and how many ranks it covers.
std::uint64_t reduced_from(const DataSpec& d, int rank, int& upto) {
    upto = d.size;
    if (d.coll == Collective::Scan) upto = rank + 1;
    if (d.coll == Collective::Exscan) upto = rank;
    const std::size_t es = elem_size(d.type);
    if (d.coll == Collective::ReduceScatterBlock) return static_cast<std::uint64_t>(rank) * d.bytes / es;
    if (d.coll == Collective::ReduceScatter) return d.counts->offset(rank) / es;
    return 0;
}

}  // namespace

std::string verify_output(const DataSpec& d, int rank, const std::byte* out, std::uint64_t out_bytes) {
    if (is_reduction(d.coll)) {
        const std::size_t es = elem_size(d.type);
        int upto = 0;
        const std::uint64_t first = reduced_from(d, rank, upto);
        std::byte want[8];
        for (std::uint64_t i = 0; i < out_bytes / es; ++i) {
            expected_reduction(d, upto, first + i, want);
            if (std::memcmp(want, out + i * es, es) != 0)
                return "rank " + std::to_string(rank) + ": element " + std::to_string(i) + " of the " +
                       std::string(to_string(d.op)) + " result is wrong";
        }
        return {};
    }
    int sender = 0;
    for (std::uint64_t p = 0; p < out_bytes; ++p) {
        const Source s = source_of(d, rank, p, sender);
        if (s.rank < 0) return {};
        if (out[p] != std::byte{pattern_byte(s.rank, s.idx, d.rep)})
            return "rank " + std::to_string(rank) + ": output byte " + std::to_string(p) + " should be byte " +
                   std::to_string(s.idx) + " of rank " + std::to_string(s.rank) + "'s data";
    }
    return {};
}

}  // namespace gridcoll
