// The checker must reject broken schedules: each test hands it a schedule with one known defect
// and expects a failure that names it. (If these passed vacuously, the all-algorithms sweep
// would prove nothing.)
#include <gtest/gtest.h>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/registry.hpp"

using namespace gridcoll;

namespace {

Request bcast_req(int P, std::uint64_t bytes) {
    Request r;
    r.coll = Collective::Bcast;
    r.size = P;
    r.bytes = bytes;
    return r;
}

std::vector<Schedule> empty_schedules(int P) {
    std::vector<Schedule> v;
    for (int r = 0; r < P; ++r) v.emplace_back(r, P);
    return v;
}

}  // namespace

TEST(Checker, AcceptsACorrectHandWrittenBroadcast) {
    auto s = empty_schedules(2);
    s[0].send(1, {Buf::Out, 0, 8});
    s[1].recv(0, {Buf::Out, 0, 8});
    const CheckResult r = check_schedules(bcast_req(2, 8), s);
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.messages, 1u);
    EXPECT_EQ(r.message_bytes, 8u);
}

TEST(Checker, RejectsMissingData) {
    auto s = empty_schedules(2);
    s[0].send(1, {Buf::Out, 0, 4});
    s[1].recv(0, {Buf::Out, 0, 4});  // bytes 4..7 never arrive
    const CheckResult r = check_schedules(bcast_req(2, 8), s);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("out[4]"), std::string::npos) << r.error;
}

TEST(Checker, RejectsWrongBytes) {
    auto s = empty_schedules(2);
    s[0].send(1, {Buf::Out, 4, 4});
    s[0].send(1, {Buf::Out, 0, 4}, {});
    s[1].recv(0, {Buf::Out, 0, 4});  // FIFO: receives bytes 4..7 into 0..3
    s[1].recv(0, {Buf::Out, 4, 4});
    const CheckResult r = check_schedules(bcast_req(2, 8), s);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("expected byte 0 of rank 0"), std::string::npos) << r.error;
}

TEST(Checker, RejectsUnmatchedSend) {
    auto s = empty_schedules(2);
    s[0].send(1, {Buf::Out, 0, 8});
    const CheckResult r = check_schedules(bcast_req(2, 8), s);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("deadlock or unmatched"), std::string::npos) << r.error;
}

TEST(Checker, RejectsLengthMismatch) {
    auto s = empty_schedules(2);
    s[0].send(1, {Buf::Out, 0, 8});
    s[1].recv(0, {Buf::Out, 0, 4});
    const CheckResult r = check_schedules(bcast_req(2, 8), s);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("sends 8 bytes"), std::string::npos) << r.error;
}

TEST(Checker, RejectsCrossRankDeadlock) {
    // Each rank receives before it sends: both wait forever.
    auto s = empty_schedules(2);
    Request req = bcast_req(2, 0);
    req.coll = Collective::Barrier;
    for (int r = 0; r < 2; ++r) {
        const StepId got = s[r].recv(1 - r, {});
        s[r].send(1 - r, {}, {got});
    }
    const CheckResult res = check_schedules(req, s);
    EXPECT_FALSE(res.ok);
    EXPECT_NE(res.error.find("deadlock"), std::string::npos) << res.error;
}

TEST(Checker, RejectsUnorderedOverlap) {
    // Rank 1 forwards bytes it has not been ordered to receive first.
    auto s = empty_schedules(3);
    s[0].send(1, {Buf::Out, 0, 8});
    s[1].recv(0, {Buf::Out, 0, 8});
    s[1].send(2, {Buf::Out, 0, 8});  // missing dependency on the receive
    s[2].recv(1, {Buf::Out, 0, 8});
    const CheckResult r = check_schedules(bcast_req(3, 8), s);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("without a dependency"), std::string::npos) << r.error;
}

TEST(Checker, RejectsACopyOntoItsOwnSourceShifted) {
    Request red = bcast_req(1, 8);
    red.coll = Collective::Allreduce;
    auto s = empty_schedules(1);
    const StepId c = s[0].copy({Buf::In, 0, 8}, {Buf::Out, 0, 8});
    s[0].copy({Buf::Out, 0, 4}, {Buf::Out, 2, 4}, {c});
    const CheckResult r = check_schedules(red, s);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("source and destination overlap"), std::string::npos) << r.error;
}

TEST(Checker, AFailedCheckAfterAPassedOneSeesNoneOfItsBytes) {
    // The checker keeps its buffers from one check to the next (kept_buffers.hpp): bytes the
    // first check delivered must not stand in for the second's missing ones.
    auto whole = empty_schedules(2);
    whole[0].send(1, {Buf::Out, 0, 8});
    whole[1].recv(0, {Buf::Out, 0, 8});
    ASSERT_TRUE(check_schedules(bcast_req(2, 8), whole).ok);
    auto half = empty_schedules(2);
    half[0].send(1, {Buf::Out, 0, 4});
    half[1].recv(0, {Buf::Out, 0, 4});
    const CheckResult r = check_schedules(bcast_req(2, 8), half);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("out[4] holds <unwritten>"), std::string::npos) << r.error;
}

TEST(Checker, RejectsOutOfBoundsAndWritesToInput) {
    auto s = empty_schedules(2);
    s[0].send(1, {Buf::Out, 4, 8});
    s[1].recv(0, {Buf::Out, 4, 8});
    CheckResult r = check_schedules(bcast_req(2, 8), s);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("outside"), std::string::npos) << r.error;

    Request red = bcast_req(1, 8);
    red.coll = Collective::Allreduce;
    auto t = empty_schedules(1);
    t[0].copy({Buf::Out, 0, 8}, {Buf::In, 0, 8});
    r = check_schedules(red, t);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("input buffer"), std::string::npos) << r.error;
}

TEST(Checker, ReductionOrderMattersOnlyForNonCommutativeOperations) {
    // Rank 0 receives rank 1's data and combines it on the left: 1 op 0.
    auto build = [] {
        auto s = empty_schedules(2);
        s[1].send(0, {Buf::In, 0, 4});
        const StepId c = s[0].copy({Buf::In, 0, 4}, {Buf::Out, 0, 4});
        const StepId g = s[0].recv(1, {Buf::Tmp, 0, 4});
        s[0].reduce({Buf::Tmp, 0, 4}, {Buf::Out, 0, 4}, Order::SrcLeft, {c, g});
        s[0].need_tmp(4);
        return s;
    };
    Request req = bcast_req(2, 4);
    req.coll = Collective::Reduce;
    EXPECT_TRUE(check_schedules(req, build()).ok);
    req.commutative = false;
    const CheckResult r = check_schedules(req, build());
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("out of order"), std::string::npos) << r.error;
}

TEST(Checker, RejectsDoubleContribution) {
    // Rank 0 adds its own input twice and forgets rank 1.
    auto s = empty_schedules(2);
    const StepId c = s[0].copy({Buf::In, 0, 4}, {Buf::Out, 0, 4});
    s[0].reduce({Buf::In, 0, 4}, {Buf::Out, 0, 4}, Order::DstLeft, {c});
    Request req = bcast_req(2, 4);
    req.coll = Collective::Reduce;
    EXPECT_FALSE(check_schedules(req, s).ok);
}

TEST(Checker, RejectsBarrierThatLetsARankLeaveEarly) {
    // Fan-in to rank 0, fan-out from it; the broken variant releases rank 2 before rank 1 arrived.
    auto build = [](bool wait_for_rank1) {
        auto s = empty_schedules(3);
        s[1].send(0, {});
        s[2].send(0, {});
        const StepId a = s[0].recv(1, {});
        const StepId b = s[0].recv(2, {});
        s[0].send(1, {}, {a, b});
        s[0].send(2, {}, {b, wait_for_rank1 ? a : kNoStep});
        s[1].recv(0, {});
        s[2].recv(0, {});
        return s;
    };
    Request req = bcast_req(3, 0);
    req.coll = Collective::Barrier;
    EXPECT_TRUE(check_schedules(req, build(true)).ok);
    const CheckResult r = check_schedules(req, build(false));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("barrier: rank 2"), std::string::npos) << r.error;
}

TEST(Registry, UnknownNamesListTheValidOnes) {
    try {
        find_algorithm(Collective::Bcast, "nosuch");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("binomial"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_collective("broadcastx"), Error);
}

TEST(Registry, BadRequestsAreErrors) {
    Request r = bcast_req(4, 8);
    r.root = 4;
    EXPECT_THROW(build_schedule(r, "binomial"), Error);
    r.root = 0;
    r.size = 0;
    EXPECT_THROW(build_schedule(r, "binomial"), Error);
    r.size = 4;
    r.coll = Collective::Reduce;
    r.elem = 4;
    r.bytes = 6;
    EXPECT_THROW(build_schedule(r, "binomial"), Error);
}

TEST(Counts, OwnerIsTheRankWhoseBlockHoldsTheByteZeroBlocksSkipped) {
    const Counts c({0, 3, 0, 0, 2, 0});  // bytes 0-2 are rank 1's, 3-4 rank 4's
    EXPECT_EQ(c.owner(0), 1);
    EXPECT_EQ(c.owner(2), 1);
    EXPECT_EQ(c.owner(3), 4);
    EXPECT_EQ(c.owner(4), 4);
    const Counts one({5});
    EXPECT_EQ(one.owner(4), 0);
}
