// The PMPI library's tags (runtime/pmpi/tag_space.hpp): the sequence's blocks and the persistent
// ones never overlap, stay within MPI_TAG_UB, and the sequence comes round again only after as
// many operations as MPI_TAG_UB allows, not after 937 where millions of tags are there.
#include <gtest/gtest.h>

#include <cstdint>

#include "tag_space.hpp"

using gridcoll::kChannels;
using gridcoll::pmpi::tag_space;

TEST(TagSpace, BlocksStayApartAndWithinTheUpperBound) {
    for (long long ub : {0LL, 32767LL, 65535LL, (1LL << 17) - 2, (1LL << 17) - 1, (1LL << 19) - 1, 1000000LL,
                         (1LL << 28) - 1, 2147483647LL}) {
        const auto t = tag_space(ub);
        const long long top = ub < 32767 ? 32767 : ub;
        EXPECT_GE(t.sequence_first, 1000) << ub;
        EXPECT_LE(t.sequence_first + t.sequence_blocks * kChannels - 1, top) << ub;
        const int last_seq = t.sequence_tag(static_cast<std::uint64_t>(t.sequence_blocks - 1));
        EXPECT_EQ(t.sequence_tag(static_cast<std::uint64_t>(t.sequence_blocks)), t.sequence_tag(0)) << ub;  // it wraps
        EXPECT_LE(last_seq + kChannels - 1, top) << ub;
        for (std::uint64_t n = 0; n < static_cast<std::uint64_t>(t.persistent_blocks); n += 997) {
            const int p = t.persistent_tag(n);
            ASSERT_GE(p, 0) << ub;
            EXPECT_LE(p + kChannels - 1, top) << ub;
            const bool below = p + kChannels - 1 < t.sequence_first;
            const bool above = p > last_seq + kChannels - 1;
            EXPECT_TRUE(below || above) << ub << ": persistent block " << p << " inside the sequence's";
        }
        EXPECT_EQ(t.persistent_tag(static_cast<std::uint64_t>(t.persistent_blocks)), -1) << ub;  // never reused
    }
}

TEST(TagSpace, ALargeUpperBoundGivesTheSequenceMillionsOfBlocks) {
    EXPECT_EQ(tag_space(32767).sequence_blocks, 937);  // MPI's guarantee: as before
    EXPECT_EQ(tag_space((1LL << 17) - 1).sequence_blocks, 2048);  // the least split: 17-bit tags
    EXPECT_EQ(tag_space((1LL << 17) - 1).persistent_blocks, 1024);
    EXPECT_GT(tag_space((1LL << 19) - 1).sequence_blocks, 8000);  // 19-bit tags (some transports)
    EXPECT_GT(tag_space(2147483647).sequence_blocks, 30'000'000);  // Open MPI, SMPI
    EXPECT_GT(tag_space((1LL << 28) - 1).sequence_blocks, 4'000'000);  // MPICH
    EXPECT_GE(tag_space((1LL << 28) - 1).persistent_blocks, 1024);
    EXPECT_EQ(tag_space(32767).persistent_tag(0), -1);  // no room for 1024 persistent blocks
}
