#include "gridcoll/runtime/discover_comm.hpp"
#include "gridcoll/runtime/dilation.hpp"

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/system/files.hpp"
#include "gridcoll/algorithms/text.hpp"

namespace gridcoll {

namespace {

enum : int { kOrderTag = 7101, kPingTag = 7102, kResultTag = 7103 };
enum : int { kDone = 0, kPing = 1, kPong = 2 };

struct Order {
    int what = kDone;
    int peer = 0;
    int reps = 0;
    int bytes = 0;
};

// The minimum round trip of `reps` exchanges of `bytes` with `peer`, after one untimed one.
double ping(MPI_Comm c, int peer, int bytes, int reps, std::vector<char>& buf) {
    buf.resize(static_cast<std::size_t>(std::max(bytes, 1)));
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= reps; ++i) {
        const double t0 = mpi::undilated_wtime();
        MPI_Send(buf.data(), bytes, MPI_BYTE, peer, kPingTag, c);
        MPI_Recv(buf.data(), bytes, MPI_BYTE, peer, kPingTag, c, MPI_STATUS_IGNORE);
        const double t = mpi::undilated_wtime() - t0;
        if (i > 0) best = std::min(best, t);
    }
    return best;
}

void pong(MPI_Comm c, int peer, int bytes, int reps, std::vector<char>& buf) {
    buf.resize(static_cast<std::size_t>(std::max(bytes, 1)));
    for (int i = 0; i <= reps; ++i) {
        MPI_Recv(buf.data(), bytes, MPI_BYTE, peer, kPingTag, c, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), bytes, MPI_BYTE, peer, kPingTag, c);
    }
}

void send_order(MPI_Comm c, int to, const Order& o) { MPI_Send(&o, sizeof o, MPI_BYTE, to, kOrderTag, c); }

// Receives a message that may be long in coming. Under Open MPI a blocked MPI_Recv spins on
// its core; ranks waiting for an order would then compete for the CPU with the two ranks being
// timed (on a loaded or oversubscribed machine that delays every exchange by a time slice).
// So the waiting side sleeps between polls. Under SMPI sleeping costs nothing and polling
// costs simulated time, so it simply blocks.
void recv_idle(void* data, int bytes, int from, int tag, MPI_Comm c) {
#ifndef GRIDCOLL_SMPI
    for (int flag = 0;;) {
        MPI_Iprobe(from, tag, c, &flag, MPI_STATUS_IGNORE);
        if (flag) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
#endif
    MPI_Recv(data, bytes, MPI_BYTE, from, tag, c, MPI_STATUS_IGNORE);
}

// A string from `root` to every rank.
std::string bcast_text(MPI_Comm c, int root, std::string text) {
    unsigned long long n = text.size();
    MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, c);
    text.resize(static_cast<std::size_t>(n));
    if (n > 0) MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, root, c);
    return text;
}

// Every rank throws `error` when rank 0 has one.
void share_error(MPI_Comm c, const std::string& error_at_root) {
    const std::string e = bcast_text(c, 0, error_at_root);
    if (!e.empty()) throw Error(e);
}

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int checked_bytes(std::uint64_t b) {
    if (b > static_cast<std::uint64_t>(INT_MAX)) throw Error("probe of " + std::to_string(b) + " bytes is too large");
    return static_cast<int>(b);
}

}  // namespace

discovery::Result discover_comm(MPI_Comm comm, const discovery::Options& options) {
    MPI_Comm c;
    MPI_Comm_dup(comm, &c);
    int rank = 0, size = 1;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    std::vector<char> buf;
    discovery::Result res;
    std::string error, text;
    if (size < 2) {
        MPI_Comm_free(&c);
        throw Error("a communicator of one rank has no structure to discover");
    }
    if (rank == 0) {
        const discovery::Probe probe = [&](int a, int b, std::uint64_t bytes, int reps) {
            const int n = checked_bytes(bytes);
            if (a == 0 || b == 0) {
                const int other = a == 0 ? b : a;
                send_order(c, other, {kPong, 0, reps, n});
                return ping(c, other, n, reps, buf);
            }
            send_order(c, a, {kPing, b, reps, n});
            send_order(c, b, {kPong, a, reps, n});
            double rtt = 0;
            recv_idle(&rtt, sizeof rtt, a, kResultTag, c);
            return rtt;
        };
        try {
            res = discovery::discover(size, probe, options);
            text = res.topology.to_text();
        } catch (const std::exception& e) {
            error = e.what();
        }
        for (int r = 1; r < size; ++r) send_order(c, r, {kDone, 0, 0, 0});
    } else {
        for (;;) {
            Order o;
            recv_idle(&o, sizeof o, 0, kOrderTag, c);
            if (o.what == kDone) break;
            if (o.what == kPong) {
                pong(c, o.peer, o.bytes, o.reps, buf);
            } else {
                const double rtt = ping(c, o.peer, o.bytes, o.reps, buf);
                MPI_Send(&rtt, 1, MPI_DOUBLE, 0, kResultTag, c);
            }
        }
    }
    try {
        share_error(c, error);
        text = bcast_text(c, 0, text);
    } catch (...) {
        MPI_Comm_free(&c);
        throw;
    }
    MPI_Comm_free(&c);
    if (rank != 0) res.topology = Topology::from_text(text, "discovery");
    return res;
}

std::string host_fingerprint(MPI_Comm comm) {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    unsigned long long mine = fnv1a(name, static_cast<std::size_t>(len));
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    // Gather + broadcast, not MPI_Allgather: SMPI's default allgather sends P^2 messages.
    std::vector<unsigned long long> all(rank == 0 ? static_cast<std::size_t>(size) : 1);
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    unsigned long long fp = rank == 0 ? fnv1a(all.data(), all.size() * sizeof all[0]) : 0;
    MPI_Bcast(&fp, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", fp);
    return hex;
}

std::string cache_text(const Topology& t, int ranks, const std::string& fingerprint) {
    return "# discovered for " + std::to_string(ranks) + " ranks on hosts " + fingerprint +
           " (gridcoll-discover; delete this file to measure again)\n" + t.to_text();
}

namespace {

// The cache header's (ranks, fingerprint), or (-1, "") when the file has none (a rank map
// written by hand or by `gridcoll platform ranks`: only its size is checked).
std::pair<int, std::string> cache_header(const std::string& text) {
    const std::string key = "# discovered for ";
    for (const std::string_view line : split_lines(text)) {
        if (line.substr(0, key.size()) != key) continue;
        std::istringstream in{std::string(line.substr(key.size()))};
        int ranks = -1;
        std::string w1, w2, w3, fp;
        in >> ranks >> w1 >> w2 >> w3 >> fp;
        return {ranks, fp};
    }
    return {-1, ""};
}

}  // namespace

DiscoveredTopology discovered_topology(MPI_Comm comm, const std::string& cache, const discovery::Options& options,
                                       bool allow_flat) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const std::string fp = host_fingerprint(comm);
    DiscoveredTopology out;
    // Rank 0 reads the cache (if any) and checks it against the job.
    std::string error, text;
    if (rank == 0 && !cache.empty() && std::filesystem::exists(cache)) {
        try {
            text = read_text_file(cache);
            const auto [ranks, their_fp] = cache_header(text);
            const Topology t = Topology::from_text(text, cache);
            if (t.size() != size)
                error = "topology cache '" + cache + "' has " + std::to_string(t.size()) + " ranks, this job " +
                        std::to_string(size) + " (delete it to measure again)";
            else if (ranks >= 0 && their_fp != fp)
                error = "topology cache '" + cache + "' was measured on other hosts (fingerprint " + their_fp + ", this job " + fp +
                        "); delete it to measure again";
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    share_error(comm, error);
    text = bcast_text(comm, 0, text);
    if (!text.empty()) {
        out.topology = std::make_shared<const Topology>(Topology::from_text(text, cache));
        out.from_cache = true;
        return out;
    }
    const auto t0 = std::chrono::steady_clock::now();
    out.run = discover_comm(comm, options);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rank == 0 && out.run.flat && !allow_flat)
        error = "no structure found: every pair of the " + std::to_string(size) + " ranks is in one distance class (threshold " +
                std::to_string(static_cast<int>(options.threshold * 100 + 0.5)) + " %); a flat network needs no discovery";
    if (rank == 0 && error.empty() && !cache.empty()) {
        try {
            sys::write_output(cache, cache_text(out.run.topology, size, fp));
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    share_error(comm, error);
    out.topology = std::make_shared<const Topology>(out.run.topology);
    return out;
}

}  // namespace gridcoll
