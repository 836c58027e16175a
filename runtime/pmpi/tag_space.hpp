// The tags of the library's messages on its duplicate of a communicator. Each operation takes a
// block of kChannels consecutive tags (a schedule's channel c is tag + c). Operations in call
// order cycle through the sequence's blocks, so an operation's block comes round again only
// after sequence_blocks later ones have started; a persistent collective keeps the block of its
// init call for good (persistent_tag), never reused. MPI guarantees tags up to 32767: there the
// sequence has 937 blocks (1000-30999) and the persistent blocks run from 32768 up to
// MPI_TAG_UB. From MPI_TAG_UB = 2^17 - 1 (Open MPI's and SMPI's are 2^31 - 1, MPICH's 2^28 - 1),
// the sequence takes the upper half, so that an operation may stay pending while thousands to
// millions of later ones start on the same communicator, not 936. Every rank computes the same
// space from the same MPI_TAG_UB.
#pragma once

#include <cstdint>

#include "gridcoll/algorithms/schedule.hpp"

namespace gridcoll::pmpi {

struct TagSpace {
    long long sequence_first = 1000, sequence_blocks = 30000 / kChannels;
    long long persistent_first = 32768, persistent_blocks = 0;

    // The block of the n-th operation in call order.
    int sequence_tag(std::uint64_t n) const {
        const auto block = static_cast<long long>(n % static_cast<std::uint64_t>(sequence_blocks));
        return static_cast<int>(sequence_first + block * kChannels);
    }
    // The block of the n-th persistent init call; -1 when the blocks have run out, or when fewer
    // than 1024 fit at all (those persistent collectives are then MPI's own).
    int persistent_tag(std::uint64_t n) const {
        if (persistent_blocks < 1024 || n >= static_cast<std::uint64_t>(persistent_blocks)) return -1;
        return static_cast<int>(persistent_first + static_cast<long long>(n) * kChannels);
    }
};

// `tag_ub`: MPI_TAG_UB (0 when MPI did not give it: only the guaranteed 32767 is used).
constexpr TagSpace tag_space(long long tag_ub) {
    TagSpace t;
    const long long ub = tag_ub < 32767 ? 32767 : tag_ub;
    if (ub >= (1LL << 17) - 1) {  // the upper half for the sequence, block-aligned: from 2,048 blocks, with 1,024 below
        t.sequence_first = (ub / 2 / kChannels + 1) * kChannels;
        t.sequence_blocks = (ub - t.sequence_first + 1) / kChannels;
        t.persistent_blocks = (t.sequence_first - t.persistent_first) / kChannels;
    } else {
        t.persistent_blocks = (ub - t.persistent_first + 1) / kChannels;
    }
    return t;
}

}  // namespace gridcoll::pmpi
