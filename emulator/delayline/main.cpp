// gridcoll-delayline: forwards Ethernet frames between two TAP devices (usually each in its own
// network namespace) and applies, per direction, delay, jitter, random loss, a rate limit and a
// drop-tail queue. The userspace stand-in for netem on kernels without sch_netem.
//
//   gridcoll-delayline --netns-a ns1 --tap-a dl0 --netns-b ns2 --tap-b dl1 --delay 10ms --rate 1Gbit
//
// See README.md in this folder for the model and the measured performance.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "forwarder.hpp"
#include "link_model.hpp"
#include "tap.hpp"
#include "units.hpp"

using namespace gridcoll::delayline;

namespace {

// Arena size for one direction: what can be in flight (delay + jitter at the line rate, or at an
// assumed 10 Gbit/s without a rate limit) plus a full queue, with headroom; 4 MiB .. 1 GiB.
std::size_t default_buffer(const LinkParams& p, bool offload, int mtu) {
    const double rate = p.rate_bps > 0 ? static_cast<double>(p.rate_bps) : 10e9;
    const double seconds = static_cast<double>(p.delay_ns + 3 * p.jitter_ns) / 1e9 + 0.002;
    const double frame = offload ? 65536.0 : static_cast<double>(std::max(mtu, 1500) + 64);
    double queue = 0;
    if (p.rate_bps > 0) {
        queue = p.limit.unit == QueueLimit::Unit::bytes ? static_cast<double>(p.limit.value)
                                                        : static_cast<double>(p.limit.value) * frame;
        queue += static_cast<double>(p.burst_bytes);
    }
    const double bytes = (rate / 8 * seconds + queue) * 1.5 + 4 * static_cast<double>(kMaxFrame);
    const double mib = std::ceil(std::clamp(bytes, 4.0 * (1 << 20), 1024.0 * (1 << 20)) / (1 << 20));
    return static_cast<std::size_t>(mib) << 20;
}

// The command line, as given.
struct Args {
    TapOptions ta, tb;
    std::string delay = "0", jitter = "0", dist = "uniform", loss = "0", rate = "0", burst = "0", limit = "1000p";
    std::string spec_ab, spec_ba, buffer, spin = "100us", stats = "0", ready_file;
    std::string spin_budget = "25%", measure_wakeup;
    bool reorder = false, acks_skip = false, offload = false, no_up = false, dry_run = false, busy_poll = false;
    std::uint64_t seed = 1;
    int mtu = 0, txqueuelen = 10000, batch = 64, cpu = -1, rt_priority = 0;
};

// What the options say: the two directions' links and the forwarder's settings.
struct Config {
    LinkParams ab, ba;
    ForwarderOptions fo;
};

void declare_link_options(CLI::App& app, Args& a) {
    app.add_option("--delay", a.delay, "one-way delay, both directions")->capture_default_str();
    app.add_option("--jitter", a.jitter, "jitter added to the delay, both directions")->capture_default_str();
    app.add_option("--jitter-dist", a.dist, "uniform: +-jitter; normal: sd = jitter, clipped at 3 sd")
        ->check(CLI::IsMember({"uniform", "normal"}))
        ->capture_default_str();
    app.add_flag("--reorder", a.reorder, "let jitter reorder frames (default: keep packet order)");
    app.add_flag("--acks-skip", a.acks_skip,
                 "TCP segments without data (acknowledgements) pass the queued frames; needs --reorder");
    app.add_option("--loss", a.loss, "random loss probability per frame: 5% or 0.05")->capture_default_str();
    app.add_option("--rate", a.rate, "rate limit, 0 = unlimited: 1Gbit, 100mbit")->capture_default_str();
    app.add_option("--burst", a.burst, "token bucket burst in bytes (0: a plain link, one frame at a time)")
        ->capture_default_str();
    app.add_option("--limit", a.limit, "drop-tail queue limit in packets (1000p) or bytes (256K)")->capture_default_str();
    app.add_option("--seed", a.seed, "random seed (A->B uses it, B->A a value derived from it)")->capture_default_str();
    app.add_option("--ab", a.spec_ab, "A->B overrides: key=value,... (delay jitter dist order acks loss rate burst limit seed)");
    app.add_option("--ba", a.spec_ba, "B->A overrides, same keys");
}

void declare_device_options(CLI::App& app, Args& a) {
    app.add_option("--tap-a", a.ta.name, "name of TAP A (created, or attached to if it exists and is persistent)");
    app.add_option("--tap-b", a.tb.name, "name of TAP B");
    app.add_option("--netns-a", a.ta.netns, "network namespace of TAP A (/var/run/netns/NAME); default: current");
    app.add_option("--netns-b", a.tb.netns, "network namespace of TAP B");
    app.add_option("--fd-a", a.ta.fd, "use this already-open TAP file descriptor as A instead of opening one");
    app.add_option("--fd-b", a.tb.fd, "use this already-open TAP file descriptor as B");
    app.add_option("--mtu", a.mtu, "set the MTU of both TAPs (up to 65535)");
    app.add_option("--txqueuelen", a.txqueuelen,
                   "transmit queue length of both TAPs (frames waiting for the delay line to read them; 0: "
                   "leave as is). Long, so that a delay line held off the CPU for a moment delays frames "
                   "instead of dropping them")
        ->capture_default_str();
    app.add_flag("--offload", a.offload,
                 "IFF_VNET_HDR + TSO: forward 64 KiB GSO super-frames (faster TCP; loss and "
                 "jitter then apply per super-frame)");
    app.add_flag("--no-up", a.no_up, "do not bring the TAPs up");
}

void declare_run_options(CLI::App& app, Args& a) {
    app.add_option("--buffer", a.buffer, "frame buffer per direction (default: sized from rate, delay and queue)");
    app.add_option("--batch", a.batch, "frames read/written per TAP per round")->capture_default_str();
    app.add_option("--spin", a.spin, "busy-wait instead of sleeping when the next frame is due within this time")
        ->capture_default_str();
    app.add_option("--spin-budget", a.spin_budget, "at most this share of the time busy-waiting: 25% or 0.25")
        ->capture_default_str();
    app.add_flag("--busy-poll", a.busy_poll, "never sleep: poll the TAPs in a loop (a whole core, lowest latency)");
    app.add_option("--stats", a.stats, "print statistics to stderr at this interval (0: only at exit)")->capture_default_str();
    app.add_option("--cpu", a.cpu, "pin the thread to this CPU");
    app.add_option("--realtime", a.rt_priority, "run with SCHED_FIFO at this priority (1-99)");
    app.add_option("--ready-file", a.ready_file, "write this file once both TAPs are up and forwarding starts");
    app.add_option("--measure-wakeup", a.measure_wakeup,
                   "measure how late this machine wakes a sleeping thread (1 ms timer steps, with --realtime and "
                   "--cpu if given) for this long, print it, and exit: the floor under the delay line's jitter");
    app.add_flag("--dry-run", a.dry_run, "print the configuration and exit without opening any TAP");
}

// The links and the forwarder's settings from the options; ParseError names what is wrong.
Config configure(const Args& a) {
    Config c;
    LinkParams common;
    common.delay_ns = parse_duration_ns(a.delay);
    common.jitter_ns = parse_duration_ns(a.jitter);
    common.distribution = a.dist == "normal" ? JitterDistribution::normal : JitterDistribution::uniform;
    common.keep_order = !a.reorder;
    common.acks_skip = a.acks_skip;
    common.loss = parse_probability(a.loss);
    common.rate_bps = (a.rate == "0" || a.rate == "unlimited") ? 0 : parse_rate_bps(a.rate);
    common.burst_bytes = parse_bytes(a.burst);
    common.limit = parse_queue_limit(a.limit);
    c.ab = c.ba = common;
    c.ab.seed = a.seed;
    std::uint64_t x = a.seed;
    c.ba.seed = Rng::splitmix64(x);
    apply_link_spec(c.ab, a.spec_ab);
    apply_link_spec(c.ba, a.spec_ba);
    validate(c.ab);
    validate(c.ba);
    c.fo.batch = a.batch;
    c.fo.busy_poll = a.busy_poll;
    c.fo.spin_budget = parse_probability(a.spin_budget);
    c.fo.spin_ns = parse_duration_ns(a.spin);
    c.fo.stats_interval_ns = parse_duration_ns(a.stats);
    if (a.batch < 1 || a.batch > 4096) throw ParseError("--batch must be in 1..4096");
    if (a.mtu < 0 || a.mtu > 65535) throw ParseError("--mtu must be in 68..65535");
    std::size_t buffer_ab = 0, buffer_ba = 0;
    if (!a.buffer.empty()) buffer_ab = buffer_ba = parse_bytes(a.buffer);
    const bool need_taps = a.measure_wakeup.empty();
    if (need_taps && a.ta.fd < 0 && a.ta.name.empty()) throw ParseError("TAP A needs --tap-a NAME or --fd-a N");
    if (need_taps && a.tb.fd < 0 && a.tb.name.empty()) throw ParseError("TAP B needs --tap-b NAME or --fd-b N");
    if (need_taps && a.ta.fd < 0 && a.tb.fd < 0 && a.ta.name == a.tb.name && a.ta.netns == a.tb.netns)
        throw ParseError("TAP A and TAP B are the same device '" + a.ta.name + "'");
    if (buffer_ab == 0) {
        buffer_ab = default_buffer(c.ab, a.offload, a.mtu);
        buffer_ba = default_buffer(c.ba, a.offload, a.mtu);
    }
    c.fo.buffer_a_to_b = buffer_ab;
    c.fo.buffer_b_to_a = buffer_ba;
    return c;
}

void print_config(const Args& a, const Config& c, const std::string& tap_a, const std::string& tap_b) {
    std::fprintf(stderr, "gridcoll-delayline: A = %s\n", tap_a.c_str());
    std::fprintf(stderr, "gridcoll-delayline: B = %s\n", tap_b.c_str());
    std::fprintf(stderr, "gridcoll-delayline: A->B %s\n", describe(c.ab).c_str());
    std::fprintf(stderr, "gridcoll-delayline: B->A %s\n", describe(c.ba).c_str());
    std::fprintf(stderr, "gridcoll-delayline: buffer %s (A->B) %s (B->A), batch %d, %s, stats %s%s%s\n",
                 format_bytes(c.fo.buffer_a_to_b).c_str(), format_bytes(c.fo.buffer_b_to_a).c_str(), a.batch,
                 c.fo.busy_poll ? "busy poll"
                                : ("spin " + format_duration(c.fo.spin_ns) + " (at most " +
                                   std::to_string(std::lround(c.fo.spin_budget * 100)) + "% of the time)")
                                      .c_str(),
                 c.fo.stats_interval_ns ? format_duration(c.fo.stats_interval_ns).c_str() : "at exit",
                 a.cpu >= 0 ? (", cpu " + std::to_string(a.cpu)).c_str() : "",
                 a.rt_priority > 0 ? (", SCHED_FIFO " + std::to_string(a.rt_priority)).c_str() : "");
}

std::string planned(const TapOptions& t) {
    if (t.fd >= 0) return "fd " + std::to_string(t.fd);
    return "tap " + t.name + (t.netns.empty() ? " in the current netns" : " in netns " + t.netns);
}

// Signals kept pending for the forwarding loop, timer slack, CPU pinning, SCHED_FIFO. False when
// the thread cannot be pinned.
bool set_up_process(const Args& a, const Config& c) {
    // SIGINT/SIGTERM/SIGHUP stay pending from here on and are taken by the forwarding loop, so
    // that a signal during set-up still ends in a clean exit.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
    // Timer slack: the default 50 us would be added to every wake-up of a normal thread.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (a.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(a.cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) < 0) {
            std::fprintf(stderr, "gridcoll-delayline: cannot pin to CPU %d: %s\n", a.cpu, std::strerror(errno));
            return false;
        }
    }
    if (a.rt_priority > 0 && c.fo.busy_poll)
        std::fprintf(stderr,
                     "gridcoll-delayline: warning: --busy-poll under --realtime takes 100%% of a core and "
                     "runs into real-time throttling (the kernel then stops the delay line for ~50 ms per "
                     "second)\n");
    if (a.rt_priority > 0) {
        sched_param sp{};
        sp.sched_priority = a.rt_priority;
        if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
            std::fprintf(stderr, "gridcoll-delayline: cannot use SCHED_FIFO %d: %s (continuing without)\n", a.rt_priority,
                         std::strerror(errno));
    }
    return true;
}

int measure_wakeup(const std::string& how_long) {
    std::int64_t duration = 0;
    try {
        duration = parse_duration_ns(how_long);
    } catch (const ParseError& e) {
        std::fprintf(stderr, "gridcoll-delayline: %s\n", e.what());
        return 1;
    }
    const LatenessHistogram h = measure_wakeup_latency(duration, 1'000'000);
    std::printf("wake-up latency over %llu sleeps of 1ms: mean %s p50 <%s p99 <%s p99.9 <%s max %s\n",
                static_cast<unsigned long long>(h.count()), format_duration(std::llround(h.mean_ns())).c_str(),
                format_duration(h.quantile_ns(0.5)).c_str(), format_duration(h.quantile_ns(0.99)).c_str(),
                format_duration(h.quantile_ns(0.999)).c_str(), format_duration(h.max_ns()).c_str());
    return 0;
}

// Opens the TAPs and forwards until a stop signal; the exit status.
int forward(const Args& a, const Config& c) {
    try {
        Tap ta(a.ta);
        Tap tb(a.tb);
        if (ta.vnet_hdr() != tb.vnet_hdr()) throw TapError("one TAP has offloads (IFF_VNET_HDR) and the other not");
        print_config(a, c, ta.describe(), tb.describe());
        if (!a.ready_file.empty()) std::ofstream(a.ready_file) << "ready\n";
        ForwarderResult r = run_forwarder(ta, tb, c.ab, c.ba, c.fo);
        ta.close();
        tb.close();
        std::fprintf(stderr, "gridcoll-delayline: final %s\n", format_stats("A->B", r.a_to_b).c_str());
        std::fprintf(stderr, "gridcoll-delayline: final %s\n", format_stats("B->A", r.b_to_a).c_str());
        std::fflush(stderr);
        if (!a.ready_file.empty()) std::remove(a.ready_file.c_str());
    } catch (const TapError& e) {
        std::fprintf(stderr, "gridcoll-delayline: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gridcoll-delayline: %s\n", e.what());
        if (!a.ready_file.empty()) std::remove(a.ready_file.c_str());
        return 3;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "gridcoll-delayline: forward Ethernet frames between two TAP devices with per-direction delay, jitter,\n"
        "loss, rate limit and drop-tail queue (a userspace netem). A = first TAP, B = second TAP.\n"
        "Durations: 10ms 250us 1.5s; rates: 1Gbit 100mbit 125MB/s; sizes: 1500 64K 4MiB; limits: 1000p or 256K."};
    Args a;
    declare_device_options(app, a);
    declare_link_options(app, a);
    declare_run_options(app, a);
    CLI11_PARSE(app, argc, argv);
    Config c;
    try {
        c = configure(a);
    } catch (const ParseError& e) {
        std::fprintf(stderr, "gridcoll-delayline: %s\n", e.what());
        return 1;
    }
    for (TapOptions* t : {&a.ta, &a.tb}) {
        t->mtu = a.mtu;
        t->txqueuelen = a.txqueuelen;
        t->offload = a.offload;
        t->up = !a.no_up;
    }
    if (a.dry_run) {
        print_config(a, c, planned(a.ta), planned(a.tb));
        return 0;
    }
    if (!set_up_process(a, c)) return 1;
    if (!a.measure_wakeup.empty()) return measure_wakeup(a.measure_wakeup);
    return forward(a, c);
}
