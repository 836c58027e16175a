#include "forwarder.hpp"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "delay_queue.hpp"
#include "frame.hpp"

namespace gridcoll::delayline {

namespace {

std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

// Closes a descriptor when leaving scope.
struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0) close(fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

// One direction: frames read from `in`, held in `queue`, written to `out`.
struct Path {
    std::string name;
    int in_fd;
    int out_fd;
    std::size_t vnet;
    LinkModel model;
    DelayQueue queue;
    DirectionStats stats;
    std::uint64_t last_tx_bytes = 0;  // for the periodic rate
    bool read_error_reported = false;
    bool write_error_reported = false;

    Path(std::string n, int in, int out, std::size_t v, const LinkParams& params, std::size_t buffer)
        : name(std::move(n)),
          in_fd(in),
          out_fd(out),
          vnet(v),
          model(params),
          queue(buffer, kMaxFrame, delivered_in_arrival_order(params)) {}
};

// Reads up to `batch` frames; returns false once the TAP has nothing more to read.
void read_batch(Path& p, int batch, std::byte* scratch) {
    for (int i = 0; i < batch; ++i) {
        std::byte* buf = p.queue.reserve();
        const bool overflow = buf == nullptr;
        if (overflow) buf = scratch;
        const ssize_t n = read(p.in_fd, buf, kMaxFrame);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            if (errno == EBADF || errno == EBADFD || errno == EFAULT) fail("read from " + p.name + " input");
            if (!p.read_error_reported) {
                std::fprintf(stderr, "gridcoll-delayline: %s: read error: %s (further ones not reported)\n",
                             p.name.c_str(), std::strerror(errno));
                p.read_error_reported = true;
            }
            return;
        }
        if (n == 0) return;
        const std::int64_t now = now_ns();
        const auto len = static_cast<std::size_t>(n);
        ++p.stats.rx_frames;
        p.stats.rx_bytes += len - std::min(len, p.vnet);
        if (overflow) {
            ++p.stats.drop_buffer;
            continue;
        }
        const WireSize wire = wire_size(buf, len, p.vnet);
        const LinkModel::Verdict v = p.model.arrive(now, wire.bytes, wire.segments, wire.no_payload);
        switch (v.fate) {
            case LinkModel::Fate::deliver:
                p.queue.commit(static_cast<std::uint32_t>(len), v.due_ns);
                break;
            case LinkModel::Fate::drop_queue:
                ++p.stats.drop_queue;
                break;
            case LinkModel::Fate::drop_loss:
                ++p.stats.drop_loss;
                break;
        }
    }
}

// Writes up to `batch` frames that are due; `now` is kept current.
void send_due(Path& p, int batch, std::int64_t& now) {
    for (int i = 0; i < batch; ++i) {
        const DelayQueue::Frame* f = p.queue.peek_due(now);
        if (f == nullptr) return;
        p.stats.late.record(now - f->due_ns);
        const ssize_t w = write(p.out_fd, p.queue.data(*f), f->len);
        if (w < 0) {
            ++p.stats.tx_errors;
            if (errno == EBADF) fail("write to " + p.name + " output");
            if (!p.write_error_reported && errno != EIO) {
                std::fprintf(stderr, "gridcoll-delayline: %s: write error: %s (further ones not reported)\n",
                             p.name.c_str(), std::strerror(errno));
                p.write_error_reported = true;
            }
        } else {
            ++p.stats.tx_frames;
            p.stats.tx_bytes += f->len - std::min<std::size_t>(f->len, p.vnet);
        }
        p.queue.release();
        now = now_ns();
    }
}

void arm(int tfd, std::int64_t at_ns) {
    itimerspec its{};
    its.it_value.tv_sec = at_ns / 1'000'000'000;
    its.it_value.tv_nsec = at_ns % 1'000'000'000;
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;  // 0 would disarm
    if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, nullptr) < 0) fail("timerfd_settime");
}

void print_periodic(Path& p, double elapsed_s, double interval_s) {
    const double mbit = static_cast<double>(p.stats.tx_bytes - p.last_tx_bytes) * 8 / interval_s / 1e6;
    p.last_tx_bytes = p.stats.tx_bytes;
    std::fprintf(stderr, "gridcoll-delayline: t=%.1fs %.1f Mbit/s in flight %zu fr | %s\n", elapsed_s, mbit,
                 p.queue.size(), format_stats(p.name, p.stats).c_str());
}

}  // namespace

LatenessHistogram measure_wakeup_latency(std::int64_t duration_ns, std::int64_t step_ns) {
    LatenessHistogram h;
    const std::int64_t end = now_ns() + duration_ns;
    std::int64_t next = now_ns();
    while (next < end) {
        next += step_ns;
        timespec ts{};
        ts.tv_sec = next / 1'000'000'000;
        ts.tv_nsec = next % 1'000'000'000;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
        }
        const std::int64_t now = now_ns();
        h.record(now - next);
        if (now > next + step_ns) next = now;  // do not try to catch up after a long stall
    }
    return h;
}

namespace {

enum : std::uint64_t { kTapA, kTapB, kTimer, kSignal, kStats };

// The forwarding loop's state: both paths, the file descriptors it waits on, the spin budget.
class Loop {
public:
    Loop(Tap& a, Tap& b, const LinkParams& a_to_b, const LinkParams& b_to_a, const ForwarderOptions& o)
        : o_(o), batch_(std::max(1, o.batch)) {
        if (a.vnet_hdr() != b.vnet_hdr()) throw std::runtime_error("both TAPs must have offloads (IFF_VNET_HDR) on, or both off");
        const std::size_t vnet = a.vnet_hdr() ? kVnetHdrLen : 0;
        ab_ = std::make_unique<Path>("A->B", a.fd(), b.fd(), vnet, a_to_b, o.buffer_a_to_b);
        ba_ = std::make_unique<Path>("B->A", b.fd(), a.fd(), vnet, b_to_a, o.buffer_b_to_a);
        scratch_ = std::make_unique<std::byte[]>(kMaxFrame);
        open_descriptors(a, b);
    }

    ForwarderResult run() {
        epoll_event events[8];
        while (!stop_) {
            std::int64_t now = now_ns();  // send_due moves it on as it sends
            send_due(*ab_, batch_, now);
            send_due(*ba_, batch_, now);
            bool spinning = false;
            const int timeout = wait_timeout(now, spinning);
            const int n = epoll_wait(ep_.fd, events, 8, timeout);
            if (n < 0) {
                if (errno == EINTR) continue;
                fail("epoll_wait");
            }
            if (spinning && n == 0) spun_ns_ += now_ns() - now;
            for (int i = 0; i < n; ++i) handle(events[i].data.u64);
        }
        return {ab_->stats, ba_->stats};
    }

private:
    // Stop signals through a signalfd, a timer for the next due frame, one for statistics, and
    // an epoll set over them and the two TAPs.
    void open_descriptors(Tap& a, Tap& b) {
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, nullptr) < 0) fail("sigprocmask");
        sig_.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
        if (sig_.fd < 0) fail("signalfd");
        timer_.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (timer_.fd < 0) fail("timerfd_create");
        stats_timer_.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (stats_timer_.fd < 0) fail("timerfd_create");
        ep_.fd = epoll_create1(EPOLL_CLOEXEC);
        if (ep_.fd < 0) fail("epoll_create1");
        for (const auto& [fd, tag] : {std::pair{a.fd(), kTapA}, std::pair{b.fd(), kTapB}, std::pair{timer_.fd, kTimer},
                                      std::pair{sig_.fd, kSignal}, std::pair{stats_timer_.fd, kStats}}) {
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.u64 = tag;
            if (epoll_ctl(ep_.fd, EPOLL_CTL_ADD, fd, &ev) < 0) fail("epoll_ctl");
        }
        t0_ = window_start_ = now_ns();
        if (o_.stats_interval_ns > 0) {
            itimerspec its{};
            its.it_interval.tv_sec = o_.stats_interval_ns / 1'000'000'000;
            its.it_interval.tv_nsec = o_.stats_interval_ns % 1'000'000'000;
            its.it_value = its.it_interval;
            if (timerfd_settime(stats_timer_.fd, 0, &its, nullptr) < 0) fail("timerfd_settime");
        }
    }

    // Sleep until the next frame is due, or until spin_ns before it and then busy-wait: a timer
    // wake-up costs tens of microseconds (more in a VM), a busy wait does not. Busy waiting is
    // capped at spin_budget of the time (per 10 ms window): at high frame rates frames are due
    // every few microseconds and spinning would take the whole core (and, under SCHED_FIFO, run
    // into real-time throttling). Returns epoll's timeout (-1: until the timer or a frame).
    int wait_timeout(std::int64_t now, bool& spinning) {
        constexpr std::int64_t kSpinWindowNs = 10'000'000;
        const auto spin_allowance = static_cast<std::int64_t>(o_.spin_budget * static_cast<double>(kSpinWindowNs));
        const std::int64_t next = std::min(ab_->queue.next_due(), ba_->queue.next_due());
        if (now - window_start_ >= kSpinWindowNs) {
            window_start_ = now;
            spun_ns_ = 0;
        }
        const bool may_spin = o_.spin_ns > 0 && spun_ns_ < spin_allowance;
        const std::int64_t lead = spin_lead_ns();
        if (o_.busy_poll || next <= now) return 0;
        if (may_spin && next - now <= lead) {
            spinning = true;
            return 0;
        }
        if (next != INT64_MAX) {
            const std::int64_t wake = may_spin ? next - lead : next;
            if (wake != armed_) {
                arm(timer_.fd, wake);
                armed_ = wake;
            }
        }
        return -1;
    }

    void handle(std::uint64_t tag) {
        switch (tag) {
            case kTapA:
                read_batch(*ab_, batch_, scratch_.get());
                break;
            case kTapB:
                read_batch(*ba_, batch_, scratch_.get());
                break;
            case kTimer: {
                std::uint64_t expirations = 0;
                if (read(timer_.fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) fail("read timerfd");
                note_wakeup_lateness(now_ns() - armed_);
                armed_ = INT64_MAX;
                break;
            }
            case kSignal: {
                signalfd_siginfo si{};
                if (read(sig_.fd, &si, sizeof si) > 0)
                    std::fprintf(stderr, "gridcoll-delayline: %s, stopping\n", strsignal(static_cast<int>(si.ssi_signo)));
                stop_ = true;
                break;
            }
            case kStats:
                print_stats();
                break;
            default:
                break;
        }
    }

    // How long before a frame is due the timer is armed: --spin, or more where this machine's
    // timer wake-ups have lately come later than that (a loaded VM can take 150 us and more), so
    // that the busy wait, not the timer, decides when a frame leaves. The estimate is the recent
    // worst lateness, decaying by 1/16 a wake-up, plus a margin; at most 1 ms.
    std::int64_t spin_lead_ns() const {
        if (o_.spin_ns <= 0) return 0;
        return std::min<std::int64_t>(std::max(o_.spin_ns, wake_late_ns_ + wake_late_ns_ / 4 + 10'000), 1'000'000);
    }
    void note_wakeup_lateness(std::int64_t late_ns) {
        if (late_ns < 0 || late_ns > 10'000'000) return;  // not a planned wake-up, or a stall
        wake_late_ns_ = std::max(late_ns, wake_late_ns_ - wake_late_ns_ / 16);
    }

    void print_stats() {
        std::uint64_t expirations = 0;
        if (read(stats_timer_.fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) fail("read timerfd");
        const double interval = static_cast<double>(o_.stats_interval_ns) / 1e9 *
                                static_cast<double>(std::max<std::uint64_t>(expirations, 1));
        const double elapsed = static_cast<double>(now_ns() - t0_) / 1e9;
        print_periodic(*ab_, elapsed, interval);
        print_periodic(*ba_, elapsed, interval);
    }

    const ForwarderOptions& o_;
    const int batch_;
    std::unique_ptr<Path> ab_, ba_;
    std::unique_ptr<std::byte[]> scratch_;
    Fd sig_{-1}, timer_{-1}, stats_timer_{-1}, ep_{-1};
    std::int64_t t0_ = 0, window_start_ = 0, spun_ns_ = 0, armed_ = INT64_MAX, wake_late_ns_ = 0;
    bool stop_ = false;
};

}  // namespace

ForwarderResult run_forwarder(Tap& a, Tap& b, const LinkParams& a_to_b, const LinkParams& b_to_a,
                              const ForwarderOptions& o) {
    return Loop(a, b, a_to_b, b_to_a, o).run();
}

}  // namespace gridcoll::delayline
