#include "gridcoll/algorithms/checker.hpp"

#include <algorithm>
#include <deque>
#include <sstream>
#include <unordered_map>

#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/step_graph.hpp"
#include "kept_buffers.hpp"

namespace gridcoll {

namespace {

// What one byte is made of: the contributions of ranks lo..hi (count of them, identified by a
// sum of per-rank hashes) to byte `index` of their input, and whether they were combined in
// increasing rank order. count == 0 means the byte was never written.
struct Sym {
    std::uint64_t hash = 0;
    std::uint64_t index = 0;
    std::uint32_t count = 0;
    std::int32_t lo = 0;
    std::int32_t hi = -1;
    bool ordered = false;
};

std::uint64_t rank_hash(int r) {
    std::uint64_t z = static_cast<std::uint64_t>(r) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

Sym input_byte(int rank, std::uint64_t index) { return Sym{rank_hash(rank), index, 1, rank, rank, true}; }

// The reduction of ranks [0, n) at byte `index`; hash_below[n] is the sum of their rank hashes.
Sym reduced_byte(const std::vector<std::uint64_t>& hash_below, int n, std::uint64_t index) {
    return Sym{hash_below[static_cast<std::size_t>(n)], index, static_cast<std::uint32_t>(n), 0, n - 1, true};
}

bool same(const Sym& a, const Sym& b, bool check_order) {
    return a.count == b.count && a.hash == b.hash && a.index == b.index && a.lo == b.lo && a.hi == b.hi &&
           (!check_order || a.ordered == b.ordered);
}

std::string describe(const Sym& s) {
    std::ostringstream o;
    if (s.count == 0) return "<unwritten>";
    if (s.count == 1) {
        o << "byte " << s.index << " of rank " << s.lo;
    } else {
        o << "byte " << s.index << " reduced over " << s.count << " ranks in [" << s.lo << "," << s.hi << "]"
          << (s.ordered ? " in order" : " out of order");
    }
    return o.str();
}

std::string describe(const Span& s) {
    return std::string(to_string(s.buf)) + "[" + std::to_string(s.off) + "+" + std::to_string(s.len) + "]";
}

struct Failure {
    std::string what;
};

// Copies len symbols. check_races lets a copy's source and destination overlap only as the
// same span, which needs no copy; an empty span's offset is not checked, so it is not used.
void copy_symbols(const std::vector<Sym>& from, std::uint64_t from_off, std::vector<Sym>& to, std::uint64_t to_off,
                  std::uint64_t len) {
    if (len == 0 || (&from == &to && from_off == to_off)) return;
    std::copy_n(from.begin() + static_cast<long>(from_off), len, to.begin() + static_cast<long>(to_off));
}

[[noreturn]] void fail(const std::string& what) { throw Failure{what}; }

// Dynamic bitset, used for dependency reachability and barrier knowledge.
struct Bits {
    std::vector<std::uint64_t> w;
    explicit Bits(std::size_t n = 0) : w((n + 63) / 64) {}
    void set(std::size_t i) { w[i / 64] |= std::uint64_t{1} << (i % 64); }
    bool test(std::size_t i) const { return (w[i / 64] >> (i % 64)) & 1u; }
    void merge(const Bits& o) {
        for (std::size_t i = 0; i < w.size(); ++i) w[i] |= o.w[i];
    }
    std::size_t count() const {
        std::size_t c = 0;
        for (auto x : w) c += static_cast<std::size_t>(__builtin_popcountll(x));
        return c;
    }
};

struct Rank {
    const Schedule* sched = nullptr;
    Request req;
    std::vector<Sym> in, out, tmp;
    std::vector<std::uint32_t> pending;
    std::vector<char> ready, done;
    StepGraph graph;             // successors and posting queues
    std::vector<StepId> cursor;  // per queue: its next step to post
    std::vector<Bits> know;  // barrier only: which ranks each step has heard from

    std::vector<Sym>& buffer(Buf b) { return b == Buf::In ? in : b == Buf::Out ? out : tmp; }
};

struct Channel {
    // Posted sends. Their bytes (and a barrier's knowledge) are read from the sender when they
    // match: until then nothing writes them, as check_races orders every step writing those
    // bytes before the send or after its completion, and a send completes when it matches.
    std::deque<StepId> sends;
    std::deque<StepId> recvs;
};

// The symbol buffers of this thread's checks, kept (kept_buffers.hpp says why) up to 2 GiB:
// a megabyte on thirty ranks. A process that has run a check holds them until it ends.
thread_local detail::KeptBuffers<Sym> kept_symbols(std::size_t{2} << 30);

class Checker {
public:
    Checker(const Request& proto, const std::vector<Schedule>& schedules) : proto_(proto), scheds_(schedules) {}
    Checker(const Checker&) = delete;
    Checker& operator=(const Checker&) = delete;
    ~Checker() {
        for (Rank& st : ranks_)
            for (std::vector<Sym>* b : {&st.in, &st.out, &st.tmp}) kept_symbols.give(std::move(*b));
    }

    CheckResult run() {
        CheckResult res;
        try {
            setup();
            for (auto& r : ranks_) check_races(r);
            execute();
            check_outputs();
            res.messages = messages_;
            res.message_bytes = message_bytes_;
            res.steps = steps_;
        } catch (const Failure& f) {
            res.ok = false;
            res.error = f.what;
        }
        return res;
    }

private:
    std::string where(int rank, StepId s) const {
        return "rank " + std::to_string(rank) + " step #" + std::to_string(s);
    }

    void setup() {
        const int P = proto_.size;
        if (static_cast<int>(scheds_.size()) != P) fail("expected " + std::to_string(P) + " schedules");
        ranks_.resize(static_cast<std::size_t>(P));
        hash_below_.assign(static_cast<std::size_t>(P) + 1, 0);
        for (std::size_t r = 0; r < static_cast<std::size_t>(P); ++r)
            hash_below_[r + 1] = hash_below_[r] + rank_hash(static_cast<int>(r));
        barrier_ = proto_.coll == Collective::Barrier;
        for (int r = 0; r < P; ++r) {
            Rank& st = ranks_[static_cast<std::size_t>(r)];
            st.sched = &scheds_[static_cast<std::size_t>(r)];
            if (st.sched->rank() != r || st.sched->size() != P) fail("schedule " + std::to_string(r) + " is for the wrong rank or size");
            st.req = proto_;
            st.req.rank = r;
            const BufferSizes sz = buffer_sizes(st.req);
            st.in = kept_symbols.take(sz.in);
            for (std::uint64_t i = 0; i < sz.in; ++i) st.in[i] = input_byte(r, i);
            st.out = kept_symbols.take(sz.out);
            if (proto_.coll == Collective::Bcast && r == proto_.root)
                for (std::uint64_t i = 0; i < sz.out; ++i) st.out[i] = input_byte(r, i);
            st.tmp = kept_symbols.take(st.sched->tmp_bytes());
            const auto n = st.sched->size_steps();
            steps_ += n;
            st.pending.resize(n);
            st.ready.assign(n, 0);
            st.done.assign(n, 0);
            if (barrier_) st.know.assign(n, Bits(static_cast<std::size_t>(P)));
            for (StepId i = 0; i < n; ++i) {
                validate_step(st, r, i);
                st.pending[i] = st.sched->step(i).dep_count;
            }
            st.graph.build(*st.sched);
            for (const StepGraph::Queue& q : st.graph.queues()) st.cursor.push_back(q.first);
        }
    }

    void check_span(Rank& st, int r, StepId i, const Span& sp) {
        const std::uint64_t cap = st.buffer(sp.buf).size();
        if (sp.len > 0 && (sp.off > cap || sp.len > cap - sp.off))
            fail(where(r, i) + ": " + describe(sp) + " lies outside the " + to_string(sp.buf) + " buffer of " +
                 std::to_string(cap) + " bytes");
    }

    void validate_step(Rank& st, int r, StepId i) {
        const Step& s = st.sched->step(i);
        const int P = proto_.size;
        switch (s.op) {
            case Op::Send:
            case Op::Recv:
                if (s.peer < 0 || s.peer >= P || s.peer == r)
                    fail(where(r, i) + ": bad peer " + std::to_string(s.peer));
                check_span(st, r, i, s.op == Op::Send ? s.src : s.dst);
                break;
            case Op::Reduce:
            case Op::Copy:
                check_span(st, r, i, s.src);
                check_span(st, r, i, s.dst);
                if (s.src.len != s.dst.len)
                    fail(where(r, i) + ": " + to_string(s.op) + " of unequal lengths " + describe(s.src) + " -> " +
                         describe(s.dst));
                if (s.op == Op::Reduce && (s.src.off % proto_.elem || s.dst.off % proto_.elem || s.src.len % proto_.elem))
                    fail(where(r, i) + ": reduction splits an element of " + std::to_string(proto_.elem) + " bytes");
                break;
        }
        const bool writes = s.op != Op::Send;
        if (writes && s.dst.buf == Buf::In && s.dst.len > 0)
            fail(where(r, i) + ": writes the user's input buffer " + describe(s.dst));
    }

    // Steps touching overlapping bytes, one of them writing, must be ordered by dependencies.
    void check_races(Rank& st) {
        const Schedule& sc = *st.sched;
        const std::size_t n = sc.size_steps();
        std::vector<Bits> anc(n, Bits(n));
        for (StepId i = 0; i < n; ++i)
            for (StepId d : sc.deps_of(i)) {
                anc[i].merge(anc[d]);
                anc[i].set(d);
            }
        struct Access {
            StepId step;
            Span span;
            bool write;
        };
        std::vector<Access> acc;
        for (StepId i = 0; i < n; ++i) {
            const Step& s = sc.step(i);
            if (s.op == Op::Send || s.op == Op::Reduce || s.op == Op::Copy) acc.push_back({i, s.src, false});
            if (s.op != Op::Send) acc.push_back({i, s.dst, true});
        }
        std::erase_if(acc, [](const Access& a) { return a.span.len == 0; });
        std::sort(acc.begin(), acc.end(), [](const Access& a, const Access& b) {
            return std::tie(a.span.buf, a.span.off) < std::tie(b.span.buf, b.span.off);
        });
        for (std::size_t a = 0; a < acc.size(); ++a) {
            const std::uint64_t end = acc[a].span.off + acc[a].span.len;
            for (std::size_t b = a + 1; b < acc.size() && acc[b].span.buf == acc[a].span.buf && acc[b].span.off < end; ++b) {
                if (!acc[a].write && !acc[b].write) continue;
                StepId x = acc[a].step, y = acc[b].step;
                if (x == y) {
                    if (acc[a].write && acc[b].write) continue;
                    // A step reading and writing overlapping bytes must use identical spans.
                    const Step& s = sc.step(x);
                    if (s.src.off != s.dst.off) fail(where(sc.rank(), x) + ": source and destination overlap");
                    continue;
                }
                if (x > y) std::swap(x, y);
                if (!anc[y].test(x))
                    fail(where(sc.rank(), y) + " and step #" + std::to_string(x) + " touch overlapping bytes (" +
                         describe(acc[a].span) + ", " + describe(acc[b].span) + ") without a dependency between them");
            }
        }
    }

    void make_ready(int r, StepId i) { work_.push_back({r, i}); }

    void execute() {
        const int P = proto_.size;
        for (int r = 0; r < P; ++r)
            for (StepId i = 0; i < ranks_[static_cast<std::size_t>(r)].pending.size(); ++i)
                if (ranks_[static_cast<std::size_t>(r)].pending[i] == 0) make_ready(r, i);
        while (!work_.empty()) {
            auto [r, i] = work_.back();
            work_.pop_back();
            on_ready(r, i);
        }
        for (int r = 0; r < P; ++r) {
            Rank& st = ranks_[static_cast<std::size_t>(r)];
            for (StepId i = 0; i < st.done.size(); ++i)
                if (!st.done[i]) fail(deadlock_report());
        }
    }

    std::string deadlock_report() {
        std::ostringstream o;
        o << "deadlock or unmatched message; steps that never completed:";
        int shown = 0;
        for (std::size_t r = 0; r < ranks_.size() && shown < 6; ++r) {
            const Rank& st = ranks_[r];
            for (StepId i = 0; i < st.done.size() && shown < 6; ++i) {
                if (st.done[i]) continue;
                const Step& s = st.sched->step(i);
                o << "\n  rank " << r << " #" << i << " " << to_string(s.op);
                if (s.op == Op::Send || s.op == Op::Recv) o << (s.op == Op::Send ? " to " : " from ") << s.peer;
                o << (st.ready[i] ? " (ready)" : " (waiting for dependencies)");
                ++shown;
            }
        }
        return o.str();
    }

    Bits knowledge_from_deps(Rank& st, int r, StepId i) {
        Bits k(static_cast<std::size_t>(proto_.size));
        k.set(static_cast<std::size_t>(r));
        for (StepId d : st.sched->deps_of(i)) k.merge(st.know[d]);
        return k;
    }

    void on_ready(int r, StepId i) {
        Rank& st = ranks_[static_cast<std::size_t>(r)];
        st.ready[i] = 1;
        if (barrier_) st.know[i] = knowledge_from_deps(st, r, i);
        const Step& s = st.sched->step(i);
        switch (s.op) {
            case Op::Copy: {
                copy_symbols(st.buffer(s.src.buf), s.src.off, st.buffer(s.dst.buf), s.dst.off, s.src.len);
                complete(r, i);
                break;
            }
            case Op::Reduce: {
                auto& src = st.buffer(s.src.buf);
                auto& dst = st.buffer(s.dst.buf);
                for (std::uint64_t k = 0; k < s.src.len; ++k) {
                    const Sym& a = src[s.src.off + k];
                    Sym& b = dst[s.dst.off + k];
                    const Sym& left = s.order == Order::SrcLeft ? a : b;
                    const Sym& right = s.order == Order::SrcLeft ? b : a;
                    if (a.count == 0 || b.count == 0)
                        fail(where(r, i) + ": reduces an unwritten byte (" + describe(s.src) + " -> " + describe(s.dst) + ")");
                    if (a.index != b.index)
                        fail(where(r, i) + ": combines " + describe(a) + " with " + describe(b));
                    Sym c{left.hash + right.hash, a.index, left.count + right.count, std::min(left.lo, right.lo),
                          std::max(left.hi, right.hi), left.ordered && right.ordered && left.hi + 1 == right.lo};
                    b = c;
                }
                complete(r, i);
                break;
            }
            case Op::Send:
            case Op::Recv: post_ready(r, st.graph.queue_of(i)); break;
        }
    }

    // Posts the ready prefix of a posting queue, in schedule order.
    void post_ready(int r, std::uint32_t q) {
        Rank& st = ranks_[static_cast<std::size_t>(r)];
        const int peer = st.graph.queues()[q].peer, ch = st.graph.queues()[q].channel;
        StepId& next = st.cursor[q];
        while (next != kNoStep && st.ready[next]) {
            const StepId i = next;
            next = st.graph.next_in_queue(i);
            const Step& s = st.sched->step(i);
            if (s.op == Op::Send) {
                channel(r, peer, ch).sends.push_back(i);
                match(r, peer, ch);
            } else {
                channel(peer, r, ch).recvs.push_back(i);
                match(peer, r, ch);
            }
        }
    }

    Channel& channel(int from, int to, int ch) {
        return channels_[(static_cast<std::uint64_t>(from) * static_cast<std::uint64_t>(proto_.size) +
                          static_cast<std::uint64_t>(to)) * kChannels + static_cast<std::uint64_t>(ch)];
    }

    void match(int from, int to, int channel_no) {
        Channel& ch = channel(from, to, channel_no);
        while (!ch.sends.empty() && !ch.recvs.empty()) {
            const StepId si = ch.sends.front();
            ch.sends.pop_front();
            const StepId ri = ch.recvs.front();
            ch.recvs.pop_front();
            Rank& ss = ranks_[static_cast<std::size_t>(from)];
            Rank& rs = ranks_[static_cast<std::size_t>(to)];
            const Span& src = ss.sched->step(si).src;
            const Span& dst = rs.sched->step(ri).dst;
            if (dst.len != src.len)
                fail(where(from, si) + " sends " + std::to_string(src.len) + " bytes but its matching " +
                     where(to, ri) + " receives " + std::to_string(dst.len));
            copy_symbols(ss.buffer(src.buf), src.off, rs.buffer(dst.buf), dst.off, src.len);
            if (barrier_) rs.know[ri].merge(ss.know[si]);
            ++messages_;
            message_bytes_ += src.len;
            complete(from, si);
            complete(to, ri);
        }
    }

    void complete(int r, StepId i) {
        Rank& st = ranks_[static_cast<std::size_t>(r)];
        st.done[i] = 1;
        for (StepId s : st.graph.successors(i))
            if (--st.pending[s] == 0) make_ready(r, s);
    }

    Sym expected(int r, std::uint64_t pos) const {
        const std::uint64_t m = proto_.bytes;
        const int P = proto_.size;
        switch (proto_.coll) {
            case Collective::Bcast: return input_byte(proto_.root, pos);
            case Collective::Reduce:
            case Collective::Allreduce: return reduced_byte(hash_below_, P, pos);
            case Collective::Scan: return reduced_byte(hash_below_, r + 1, pos);
            case Collective::Scatter: return input_byte(proto_.root, static_cast<std::uint64_t>(r) * m + pos);
            case Collective::Gather:
            case Collective::Allgather: return input_byte(static_cast<int>(pos / m), pos % m);
            case Collective::Alltoall:
                return input_byte(static_cast<int>(pos / m), static_cast<std::uint64_t>(r) * m + pos % m);
            case Collective::ReduceScatterBlock: return reduced_byte(hash_below_, P, static_cast<std::uint64_t>(r) * m + pos);
            case Collective::Exscan: return reduced_byte(hash_below_, r, pos);
            default: return expected_irregular(r, pos);
        }
        return {};
    }

    // The irregular collectives: blocks from Request::counts, packed in rank order.
    Sym expected_irregular(int r, std::uint64_t pos) const {
        if (!proto_.counts) return {};
        const Counts& c = *proto_.counts;
        switch (proto_.coll) {
            case Collective::ReduceScatter: return reduced_byte(hash_below_, proto_.size, c.offset(r) + pos);
            case Collective::Allgatherv:
            case Collective::Gatherv: {
                const int j = c.owner(pos);
                return input_byte(j, pos - c.offset(j));
            }
            case Collective::Scatterv: return input_byte(proto_.root, c.offset(r) + pos);
            case Collective::Alltoallv: {
                int i = 0;  // the sender whose block holds byte `pos` of my Out
                while (i + 1 < c.ranks() && c.recv_offset(r, i + 1) <= pos) ++i;
                return input_byte(i, c.send_offset(i, r) + pos - c.recv_offset(r, i));
            }
            default: break;
        }
        return {};
    }

    void check_outputs() {
        const bool order = !proto_.commutative;
        for (std::size_t r = 0; r < ranks_.size(); ++r) {
            const Rank& st = ranks_[r];
            for (std::uint64_t p = 0; p < st.out.size(); ++p) {
                const Sym want = expected(static_cast<int>(r), p);
                if (!same(st.out[p], want, order))
                    fail("rank " + std::to_string(r) + " out[" + std::to_string(p) + "] holds " + describe(st.out[p]) +
                         ", expected " + describe(want));
            }
            if (barrier_) {
                Bits all(ranks_.size());
                all.set(r);
                for (const Bits& k : st.know) all.merge(k);
                if (all.count() != ranks_.size())
                    fail("barrier: rank " + std::to_string(r) + " can leave after hearing from only " +
                         std::to_string(all.count()) + " of " + std::to_string(ranks_.size()) + " ranks");
            }
        }
    }

    Request proto_;
    const std::vector<Schedule>& scheds_;
    std::vector<Rank> ranks_;
    std::unordered_map<std::uint64_t, Channel> channels_;
    std::vector<std::pair<int, StepId>> work_;
    std::vector<std::uint64_t> hash_below_;
    bool barrier_ = false;
    std::uint64_t messages_ = 0, message_bytes_ = 0, steps_ = 0;
};

}  // namespace

CheckResult check_schedules(const Request& proto, const std::vector<Schedule>& schedules) {
    return Checker(proto, schedules).run();
}

CheckResult check_algorithm(const Request& proto, std::string_view algorithm) {
    std::vector<Schedule> scheds;
    try {
        Request first = proto;
        first.rank = 0;
        validate(first);  // the request itself (no ranks, a Topology of another size) before any builder
    } catch (const Error& e) {
        return CheckResult{false, e.what()};
    }
    try {
        for (int r = 0; r < proto.size; ++r) {
            Request q = proto;
            q.rank = r;
            scheds.push_back(build_schedule(q, algorithm));
        }
    } catch (const Error& e) {
        return CheckResult{false, std::string("builder failed: ") + e.what()};
    }
    return check_schedules(proto, scheds);
}

}  // namespace gridcoll
