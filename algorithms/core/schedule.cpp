#include "gridcoll/algorithms/schedule.hpp"

#include <sstream>

#include "gridcoll/algorithms/error.hpp"

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

void Schedule::throw_forward_dependency(StepId id, StepId d) {
    throw Error("schedule: step " + std::to_string(id) + " depends on later step " + std::to_string(d));
}

void Schedule::throw_bad_channel(StepId id, int channel) {
    throw Error("schedule: step " + std::to_string(id) + " uses channel " + std::to_string(channel) + " (at most " +
                std::to_string(kChannels - 1) + ")");
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
            case Op::Send: o << " to " << s.peer << (s.channel ? " ch " + std::to_string(s.channel) : "") << " "; put(o, s.src); break;
            case Op::Recv: o << " from " << s.peer << (s.channel ? " ch " + std::to_string(s.channel) : "") << " "; put(o, s.dst); break;
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
