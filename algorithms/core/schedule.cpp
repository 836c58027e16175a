#include "gridcoll/schedule.hpp"

#include <sstream>

#include "gridcoll/collective.hpp"

namespace gridcoll {

const char* to_string(Buf b) {
    switch (b) {
        case Buf::In: return "in";
        case Buf::Out: return "out";
        case Buf::Tmp: return "tmp";
    }
    return "?";
}

const char* to_string(Op op) {
    switch (op) {
        case Op::Send: return "send";
        case Op::Recv: return "recv";
        case Op::Reduce: return "reduce";
        case Op::Copy: return "copy";
    }
    return "?";
}

StepId Schedule::add(Step step, std::span<const StepId> deps) {
    const auto id = static_cast<StepId>(steps_.size());
    step.dep_begin = static_cast<std::uint32_t>(deps_.size());
    step.dep_count = 0;
    for (StepId d : deps) {
        if (d == kNoStep) continue;
        // Dependencies point backwards only, so a schedule can never hold a cycle.
        if (d >= id) throw Error("schedule: step " + std::to_string(id) + " depends on later step " + std::to_string(d));
        deps_.push_back(d);
        ++step.dep_count;
    }
    steps_.push_back(step);
    return id;
}

StepId Schedule::send(int peer, Span src, Deps deps) {
    Step s;
    s.op = Op::Send;
    s.peer = peer;
    s.src = src;
    return add(s, std::span<const StepId>(deps.begin(), deps.size()));
}

StepId Schedule::recv(int peer, Span dst, Deps deps) {
    Step s;
    s.op = Op::Recv;
    s.peer = peer;
    s.dst = dst;
    return add(s, std::span<const StepId>(deps.begin(), deps.size()));
}

StepId Schedule::reduce(Span src, Span dst, Order order, Deps deps) {
    Step s;
    s.op = Op::Reduce;
    s.order = order;
    s.src = src;
    s.dst = dst;
    return add(s, std::span<const StepId>(deps.begin(), deps.size()));
}

StepId Schedule::copy(Span src, Span dst, Deps deps) {
    Step s;
    s.op = Op::Copy;
    s.src = src;
    s.dst = dst;
    return add(s, std::span<const StepId>(deps.begin(), deps.size()));
}

static void put(std::ostringstream& o, const Span& s) {
    o << to_string(s.buf) << "[" << s.off << "+" << s.len << "]";
}

std::string Schedule::to_string() const {
    std::ostringstream o;
    o << "rank " << rank_ << "/" << size_ << " tmp=" << tmp_bytes_ << "\n";
    for (StepId i = 0; i < steps_.size(); ++i) {
        const Step& s = steps_[i];
        o << "  #" << i << " " << gridcoll::to_string(s.op);
        switch (s.op) {
            case Op::Send: o << " to " << s.peer << " "; put(o, s.src); break;
            case Op::Recv: o << " from " << s.peer << " "; put(o, s.dst); break;
            case Op::Reduce:
            case Op::Copy:
                o << " ";
                put(o, s.src);
                o << (s.op == Op::Reduce ? (s.order == Order::SrcLeft ? " (left)" : " (right)") : "") << " -> ";
                put(o, s.dst);
                break;
        }
        if (s.dep_count) {
            o << " after";
            for (StepId d : deps_of(i)) o << " #" << d;
        }
        o << "\n";
    }
    return o.str();
}

}  // namespace gridcoll
