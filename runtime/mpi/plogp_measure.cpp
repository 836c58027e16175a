// PLogP parameter measurement between two ranks, after logp_mpi: the method is described in
// plogp_measure.hpp. Compiled against Open MPI and against SimGrid SMPI (where the receiver's
// delay is a simulated sleep instead of a busy wait on MPI_Wtime).
#include "gridcoll/runtime/plogp_measure.hpp"
#include "gridcoll/runtime/dilation.hpp"

#include "gridcoll/algorithms/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"

namespace gridcoll {

namespace {

constexpr int kPingTag = 7101;
constexpr int kPongTag = 7102;
constexpr int kReadyTag = 7103;
constexpr int kBurstTag = 7104;
constexpr int kAckTag = 7105;
constexpr int kGoTag = 7106;
constexpr int kDataTag = 7107;
constexpr int kResultTag = 7108;

// The statistic of a non-empty list of times.
double statistic(std::vector<double> v, Statistic s) {
    std::sort(v.begin(), v.end());
    if (s == Statistic::Min) return v.front();
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Waits until the (undilated) clock reads t without entering MPI: the message in flight must arrive while the
// receiving process is not in the library (logp_mpi's receive-overhead set-up).
void wait_until(double t) {
#ifdef GRIDCOLL_SMPI
    // Simulated time does not advance in a busy loop: sleep (smpi_helpers.h reroutes nanosleep
    // to the simulated clock).
    const double d = t - mpi::undilated_wtime();
    if (d <= 0) return;
    struct timespec ts;
    ts.tv_sec = static_cast<time_t>(d);
    ts.tv_nsec = static_cast<long>((d - static_cast<double>(ts.tv_sec)) * 1e9) + 1;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec += 1;
        ts.tv_nsec -= 1000000000L;
    }
    nanosleep(&ts, nullptr);
#else
    while (mpi::undilated_wtime() < t) {
    }
#endif
}

int count_of(std::uint64_t bytes) {
    if (bytes > static_cast<std::uint64_t>(INT32_MAX)) throw Error("message size " + std::to_string(bytes) + " exceeds INT_MAX");
    return static_cast<int>(bytes);
}

int gap_count(std::uint64_t m, const PLogPMeasureOptions& o) {
    if (m == 0) return o.gap_max_count;
    const std::uint64_t by_bytes = o.gap_max_bytes / m;
    const std::uint64_t n = std::min<std::uint64_t>(by_bytes, static_cast<std::uint64_t>(o.gap_max_count));
    return std::max(o.gap_min_count, static_cast<int>(n));
}

std::string fmt(double v) { return format_number(v, 4); }

}  // namespace

void validate(const PLogPMeasureOptions& o) {
    if (o.reps < 1) throw Error("--reps must be >= 1 (got " + std::to_string(o.reps) + ")");
    if (o.warmup < 0) throw Error("--warmup must be >= 0 (got " + std::to_string(o.warmup) + ")");
    if (o.gap_min_count < 1) throw Error("--gap-min must be >= 1 (got " + std::to_string(o.gap_min_count) + ")");
    if (o.gap_max_count < o.gap_min_count)
        throw Error("--gap-count (" + std::to_string(o.gap_max_count) + ") must be >= --gap-min (" +
                    std::to_string(o.gap_min_count) + ")");
    if (!(o.delay_factor >= 1.0) || !std::isfinite(o.delay_factor))
        throw Error("--delay-factor must be >= 1 (got " + fmt(o.delay_factor) + ")");
    if (!(o.delay_min_s >= 0) || !std::isfinite(o.delay_min_s))
        throw Error("--delay-min must be >= 0 seconds (got " + fmt(o.delay_min_s) + ")");
    for (auto m : o.sizes) count_of(m);
}

std::vector<std::uint64_t> measured_sizes(const std::vector<std::uint64_t>& sizes) {
    std::vector<std::uint64_t> s = sizes;
    s.push_back(0);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
}

model::PLogPParams PLogPMeasurement::params() const {
    model::PLogPParams p;
    p.L = std::max(0.0, L);
    std::vector<std::pair<double, double>> os, orr, g;
    for (const auto& s : samples) {
        const double m = static_cast<double>(s.bytes);
        os.emplace_back(m, std::max(0.0, s.os));
        orr.emplace_back(m, std::max(0.0, s.or_));
        g.emplace_back(m, std::max(0.0, s.g));
    }
    p.os = model::SizeFunction(std::move(os));
    p.or_ = model::SizeFunction(std::move(orr));
    p.g = model::SizeFunction(std::move(g));
    return p;
}

std::vector<std::string> PLogPMeasurement::warnings() const {
    std::vector<std::string> w;
    if (L < 0) w.push_back("L = " + fmt(L) + " s < 0 (RTT/2 below g): written as 0");
    std::vector<std::string> neg_g, below_os, below_or;
    for (const auto& s : samples) {
        const std::string m = std::to_string(s.bytes);
        if (s.g < 0) neg_g.push_back(m);
        else if (s.g < s.os) below_os.push_back(m);
        if (s.g >= 0 && s.g < s.or_) below_or.push_back(m);
    }
    auto list = [](const std::vector<std::string>& v) {
        std::string r;
        for (const auto& x : v) r += (r.empty() ? "" : ",") + x;
        return r;
    };
    if (!neg_g.empty()) w.push_back("g(m) < 0 (written as 0) at m = " + list(neg_g));
    if (!below_os.empty()) w.push_back("g(m) < os(m) at m = " + list(below_os));
    if (!below_or.empty()) w.push_back("g(m) < or(m) at m = " + list(below_or));
    return w;
}

std::vector<double> PLogPMeasurement::pack() const {
    std::vector<double> v{static_cast<double>(sender), static_cast<double>(receiver), L};
    for (const auto& s : samples) {
        v.insert(v.end(), {static_cast<double>(s.bytes), s.rtt, s.os, s.or_, s.g, static_cast<double>(s.gap_count),
                           s.local_completion ? 1.0 : 0.0});
    }
    return v;
}

PLogPMeasurement PLogPMeasurement::unpack(const std::vector<double>& v) {
    if (v.size() < 3 || (v.size() - 3) % 7) throw Error("PLogPMeasurement::unpack: bad length " + std::to_string(v.size()));
    PLogPMeasurement r;
    r.sender = static_cast<int>(v[0]);
    r.receiver = static_cast<int>(v[1]);
    r.L = v[2];
    for (std::size_t i = 3; i < v.size(); i += 7) {
        PLogPSample s;
        s.bytes = static_cast<std::uint64_t>(v[i]);
        s.rtt = v[i + 1];
        s.os = v[i + 2];
        s.or_ = v[i + 3];
        s.g = v[i + 4];
        s.gap_count = static_cast<int>(v[i + 5]);
        s.local_completion = v[i + 6] != 0.0;
        r.samples.push_back(s);
    }
    return r;
}

namespace {

// One measurement between the sender A and the receiver B, step by step; both parties run the
// same calls, each doing its side.
class PairMeasure {
public:
    PairMeasure(MPI_Comm comm, bool a, int peer, const PLogPMeasureOptions& o, std::uint64_t buffer)
        : comm_(comm), a_(a), peer_(peer), o_(o), buf_(std::max<std::uint64_t>(buffer, 1), 'p') {}

    // Warm the connection up (first-message set-up, lazy connections, cold caches) before the
    // first timed value, RTT(0), which every g(m) depends on.
    void warm_up() {
        for (int rep = 0; rep < (o_.warmup > 0 ? 10 * o_.warmup : 0); ++rep) {
            if (a_) {
                MPI_Send(buf_.data(), 0, MPI_BYTE, peer_, kPingTag, comm_);
                MPI_Recv(buf_.data(), 0, MPI_BYTE, peer_, kPongTag, comm_, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf_.data(), 0, MPI_BYTE, peer_, kPingTag, comm_, MPI_STATUS_IGNORE);
                MPI_Send(buf_.data(), 0, MPI_BYTE, peer_, kPongTag, comm_);
            }
        }
    }

    // RTT(m) by ping-pong; A tells B, which needs it for its delay.
    double rtt(int cnt) {
        std::vector<double> rtt;
        for (int rep = -o_.warmup; rep < o_.reps; ++rep) {
            if (a_) {
                const double t0 = mpi::undilated_wtime();
                MPI_Send(buf_.data(), cnt, MPI_BYTE, peer_, kPingTag, comm_);
                MPI_Recv(buf_.data(), cnt, MPI_BYTE, peer_, kPongTag, comm_, MPI_STATUS_IGNORE);
                const double t1 = mpi::undilated_wtime();
                if (rep >= 0) rtt.push_back(t1 - t0);
            } else {
                MPI_Recv(buf_.data(), cnt, MPI_BYTE, peer_, kPingTag, comm_, MPI_STATUS_IGNORE);
                MPI_Send(buf_.data(), cnt, MPI_BYTE, peer_, kPongTag, comm_);
            }
        }
        double value = 0;
        if (a_) {
            value = statistic(rtt, o_.stat);
            MPI_Send(&value, 1, MPI_DOUBLE, peer_, kResultTag, comm_);
        } else {
            MPI_Recv(&value, 1, MPI_DOUBLE, peer_, kResultTag, comm_, MPI_STATUS_IGNORE);
        }
        return value;
    }

    // g(m): a burst of n sends into pre-posted receives, acknowledged at the end, each preceded
    // by a zero-byte round trip: per repetition (T(n) - RTT(0)) / n. The value at A.
    double gap(std::uint64_t m, int cnt, int n) {
        reqs_.assign(static_cast<std::size_t>(n), MPI_REQUEST_NULL);
        std::vector<double> base, burst;
        for (int rep = -o_.warmup; rep < o_.reps; ++rep) {
            if (!a_) {
                burst_receiver(m, cnt, n);
                continue;
            }
            MPI_Recv(nullptr, 0, MPI_BYTE, peer_, kReadyTag, comm_, MPI_STATUS_IGNORE);
            const double t0 = mpi::undilated_wtime();
            MPI_Send(nullptr, 0, MPI_BYTE, peer_, kPingTag, comm_);
            MPI_Recv(nullptr, 0, MPI_BYTE, peer_, kPongTag, comm_, MPI_STATUS_IGNORE);
            const double t1 = mpi::undilated_wtime();
            for (int k = 0; k < n; ++k)
                MPI_Isend(buf_.data(), cnt, MPI_BYTE, peer_, kBurstTag, comm_, &reqs_[static_cast<std::size_t>(k)]);
            MPI_Waitall(n, reqs_.data(), MPI_STATUSES_IGNORE);
            MPI_Recv(nullptr, 0, MPI_BYTE, peer_, kAckTag, comm_, MPI_STATUS_IGNORE);
            const double t2 = mpi::undilated_wtime();
            if (rep >= 0) {
                base.push_back(t1 - t0);
                burst.push_back(t2 - t1);
            }
        }
        if (!a_) return 0;
        // Noise only adds time: with the minimum, the two minima, each the least disturbed value.
        if (o_.stat == Statistic::Min) return (statistic(burst, o_.stat) - statistic(base, o_.stat)) / n;
        std::vector<double> per_rep(burst.size());
        for (std::size_t i = 0; i < burst.size(); ++i) per_rep[i] = (burst[i] - base[i]) / n;
        return statistic(per_rep, o_.stat);
    }

    // os(m) at A (into s) and or(m) at B (returned), in one exchange.
    double overheads(int cnt, PLogPSample& s) {
        const double delay = std::max(o_.delay_min_s, o_.delay_factor * s.rtt);
        std::vector<double> os, orr;
        int local = 0;
        for (int rep = -o_.warmup; rep < o_.reps; ++rep) {
            if (a_) {
                MPI_Request req;
                MPI_Recv(nullptr, 0, MPI_BYTE, peer_, kGoTag, comm_, MPI_STATUS_IGNORE);
                const double t0 = mpi::undilated_wtime();
                MPI_Isend(buf_.data(), cnt, MPI_BYTE, peer_, kDataTag, comm_, &req);
                const double t1 = mpi::undilated_wtime();
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                const double t2 = mpi::undilated_wtime();
                // B posts its receive no earlier than D minus the go message's flight after t0.
                const bool completed_locally = t2 - t0 < 0.5 * delay;
                if (rep >= 0) {
                    os.push_back(completed_locally ? t2 - t0 : t1 - t0);
                    local += completed_locally;
                }
            } else {
                MPI_Send(nullptr, 0, MPI_BYTE, peer_, kGoTag, comm_);
                wait_until(mpi::undilated_wtime() + delay);
                const double t0 = mpi::undilated_wtime();
                MPI_Recv(buf_.data(), cnt, MPI_BYTE, peer_, kDataTag, comm_, MPI_STATUS_IGNORE);
                const double t1 = mpi::undilated_wtime();
                if (rep >= 0) orr.push_back(t1 - t0);
            }
        }
        if (!a_) return statistic(orr, o_.stat);
        s.os = statistic(os, o_.stat);
        s.local_completion = 2 * local > o_.reps;
        return 0;
    }

    // Assemble at A (B's receive overheads, then L), then give B the whole result.
    void assemble(PLogPMeasurement& r, std::size_t sizes, const std::vector<double>& or_at_b) {
        const int k = static_cast<int>(sizes);
        if (!a_) {
            MPI_Send(or_at_b.data(), k, MPI_DOUBLE, peer_, kResultTag, comm_);
            std::vector<double> packed(3 + 7 * sizes);
            MPI_Recv(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, peer_, kResultTag, comm_, MPI_STATUS_IGNORE);
            r = PLogPMeasurement::unpack(packed);
            return;
        }
        std::vector<double> orr(sizes);
        MPI_Recv(orr.data(), k, MPI_DOUBLE, peer_, kResultTag, comm_, MPI_STATUS_IGNORE);
        for (std::size_t i = 0; i < sizes; ++i) r.samples[i].or_ = orr[i];
        double sum = 0;
        int cnt = 0;
        for (const auto& s : r.samples) {
            if (s.bytes > o_.latency_max_bytes) continue;
            sum += s.rtt / 2 - s.g;
            ++cnt;
        }
        r.L = sum / cnt;  // cnt >= 1: 0 bytes always counts
        std::vector<double> packed = r.pack();
        MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, peer_, kResultTag, comm_);
    }

private:
    void burst_receiver(std::uint64_t m, int cnt, int n) {
        for (int k = 0; k < n; ++k)
            MPI_Irecv(buf_.data() + static_cast<std::size_t>(k) * m, cnt, MPI_BYTE, peer_, kBurstTag, comm_,
                      &reqs_[static_cast<std::size_t>(k)]);
        MPI_Send(nullptr, 0, MPI_BYTE, peer_, kReadyTag, comm_);
        MPI_Recv(nullptr, 0, MPI_BYTE, peer_, kPingTag, comm_, MPI_STATUS_IGNORE);
        MPI_Send(nullptr, 0, MPI_BYTE, peer_, kPongTag, comm_);
        MPI_Waitall(n, reqs_.data(), MPI_STATUSES_IGNORE);
        MPI_Send(nullptr, 0, MPI_BYTE, peer_, kAckTag, comm_);
    }

    MPI_Comm comm_;
    bool a_;
    int peer_;
    const PLogPMeasureOptions& o_;
    std::vector<char> buf_;  // A sends from one buffer; B needs distinct ones for a burst's receives
    std::vector<MPI_Request> reqs_;
};

}  // namespace

PLogPMeasurement measure_plogp(MPI_Comm comm, int sender, int receiver, const PLogPMeasureOptions& o) {
    validate(o);
    int me = -1;
    MPI_Comm_rank(comm, &me);
    if (sender == receiver) throw Error("measure_plogp: sender and receiver are both rank " + std::to_string(sender));
    if (me != sender && me != receiver) throw Error("measure_plogp: called by rank " + std::to_string(me) + ", not a party");
    const bool a = me == sender;
    const std::vector<std::uint64_t> sizes = measured_sizes(o.sizes);
    std::uint64_t max_m = 0, max_burst = 0;
    for (auto m : sizes) {
        max_m = std::max(max_m, m);
        max_burst = std::max(max_burst, m * static_cast<std::uint64_t>(gap_count(m, o)));
    }
    PairMeasure pm(comm, a, a ? receiver : sender, o, a ? max_m : std::max(max_m, max_burst));
    PLogPMeasurement r;
    r.sender = sender;
    r.receiver = receiver;
    pm.warm_up();
    std::vector<double> or_at_b;  // B's receive overheads, sent to A at the end
    for (const std::uint64_t m : sizes) {
        const int cnt = count_of(m);
        PLogPSample s;
        s.bytes = m;
        s.rtt = pm.rtt(cnt);
        s.gap_count = gap_count(m, o);
        s.g = pm.gap(m, cnt, s.gap_count);
        const double orr = pm.overheads(cnt, s);
        if (!a) or_at_b.push_back(orr);
        r.samples.push_back(s);
    }
    pm.assemble(r, sizes.size(), or_at_b);
    return r;
}

}  // namespace gridcoll
