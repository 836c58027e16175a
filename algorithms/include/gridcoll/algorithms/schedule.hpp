// A schedule: the ordered steps one rank performs in one collective operation.
//
// Every algorithm in gridcoll is a pure function that builds a Schedule for one rank; the MPI
// executor, the schedule checker and the event simulator all consume the same value.
//
// Matching rule (shared by every consumer): messages between two ranks are matched in FIFO
// order per channel. A consumer posts the send steps to one peer on one channel in the order they
// appear in the schedule, and the receive steps from one peer on one channel likewise, so the
// k-th send from a to b on channel c meets the k-th receive at b from a on channel c. Most
// schedules use channel 0 only; one that runs independent streams between the same two ranks
// (the packed trees) gives each its channel, so that neither waits for the other's order. The
// checker verifies that byte counts agree.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace gridcoll {

// The local buffers of a rank. Which exist, and their sizes, depend on the collective
// (see collective.hpp): In is the user's send buffer, Out the user's receive buffer, Tmp a
// scratch area whose size the builder declares.
enum class Buf : std::uint8_t { In, Out, Tmp };

// A byte range in one local buffer.
struct Span {
    Buf buf = Buf::Tmp;
    std::uint64_t off = 0;
    std::uint64_t len = 0;
};

enum class Op : std::uint8_t {
    Send,    // send src to peer
    Recv,    // receive from peer into dst
    Reduce,  // dst = combine(src, dst) element-wise, in the order given by `order`
    Copy,    // dst = src
};

// Operand order of a Reduce step: the result is `left op right`. For a non-commutative operation
// the left operand must hold the contributions of the lower ranks.
enum class Order : std::uint8_t {
    SrcLeft,  // dst = src op dst
    DstLeft,  // dst = dst op src
};

using StepId = std::uint32_t;

// Channels a schedule may use (0 .. kChannels - 1): the MPI executor gives each its tag.
inline constexpr int kChannels = 32;
inline constexpr StepId kNoStep = std::numeric_limits<StepId>::max();

struct Step {
    Op op = Op::Copy;
    Order order = Order::DstLeft;  // Reduce only
    std::uint16_t channel = 0;     // Send/Recv only: < kChannels
    std::int32_t peer = -1;        // Send/Recv only
    Span src;                      // Send, Reduce, Copy
    Span dst;                      // Recv, Reduce, Copy
    std::uint32_t dep_begin = 0;   // into Schedule::deps
    std::uint32_t dep_count = 0;
};

// Dependencies of a new step. kNoStep entries are ignored, so a builder can pass "the step that
// produced this segment, if any" without branching.
using Deps = std::initializer_list<StepId>;

class Schedule {
public:
    Schedule() = default;
    Schedule(int rank, int size) : rank_(rank), size_(size) {}

    int rank() const { return rank_; }
    int size() const { return size_; }

    // (Inline: the event simulator builds every rank's schedule, some twice.)
    StepId send(int peer, Span src, Deps deps = {}) { return add({Op::Send, Order::DstLeft, 0, peer, src, {}}, deps); }
    StepId recv(int peer, Span dst, Deps deps = {}) { return add({Op::Recv, Order::DstLeft, 0, peer, {}, dst}, deps); }
    StepId reduce(Span src, Span dst, Order order, Deps deps = {}) { return add({Op::Reduce, order, 0, -1, src, dst}, deps); }
    StepId copy(Span src, Span dst, Deps deps = {}) { return add({Op::Copy, Order::DstLeft, 0, -1, src, dst}, deps); }
    StepId add(Step step, Deps deps) { return add(step, std::span<const StepId>(deps.begin(), deps.size())); }
    // Same, with dependencies from a container.
    StepId add(Step step, std::span<const StepId> deps) {
        const auto id = static_cast<StepId>(steps_.size());
        if (step.channel >= kChannels) throw_bad_channel(id, step.channel);
        step.dep_begin = static_cast<std::uint32_t>(deps_.size());
        step.dep_count = 0;
        for (StepId d : deps) {
            if (d == kNoStep) continue;
            // Dependencies point backwards only, so a schedule can never hold a cycle.
            if (d >= id) throw_forward_dependency(id, d);
            deps_.push_back(d);
            ++step.dep_count;
        }
        steps_.push_back(step);
        return id;
    }

    // Room for `steps` more steps with `deps` more dependencies in all (a builder that knows its
    // size saves the vectors' regrowth; the event simulator builds every rank's schedule).
    void reserve(std::size_t steps, std::size_t deps) {
        steps_.reserve(steps_.size() + steps);
        deps_.reserve(deps_.size() + deps);
    }

    // Scratch bytes this rank needs (the Tmp buffer). Builders grow it with need_tmp().
    std::uint64_t tmp_bytes() const { return tmp_bytes_; }
    void need_tmp(std::uint64_t bytes) {
        if (bytes > tmp_bytes_) tmp_bytes_ = bytes;
    }

    const std::vector<Step>& steps() const { return steps_; }
    std::size_t size_steps() const { return steps_.size(); }
    const Step& step(StepId id) const { return steps_[id]; }
    std::span<const StepId> deps_of(StepId id) const {
        const Step& s = steps_[id];
        return {deps_.data() + s.dep_begin, s.dep_count};
    }
    bool empty() const { return steps_.empty(); }

    // One line per step, for debugging and error messages.
    std::string to_string() const;

private:
    [[noreturn]] static void throw_forward_dependency(StepId id, StepId d);
    [[noreturn]] static void throw_bad_channel(StepId id, int channel);

    int rank_ = 0;
    int size_ = 1;
    std::uint64_t tmp_bytes_ = 0;
    std::vector<Step> steps_;
    std::vector<StepId> deps_;
};

const char* to_string(Buf b);
const char* to_string(Op op);

}  // namespace gridcoll
