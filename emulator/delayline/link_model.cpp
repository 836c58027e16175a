#include "link_model.hpp"

#include "gridcoll/algorithms/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gridcoll::delayline {

namespace {

constexpr std::uint64_t kNsPerSecond = 1'000'000'000ULL;

}  // namespace

void apply_link_spec(LinkParams& p, std::string_view spec) {
    std::size_t start = 0;
    while (start < spec.size()) {
        std::size_t comma = spec.find(',', start);
        if (comma == std::string_view::npos) comma = spec.size();
        const std::string_view item = trim(spec.substr(start, comma - start));
        start = comma + 1;
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) {
            throw ParseError("'" + std::string(item) + "' in link spec '" + std::string(spec) +
                             "' is not key=value (keys: delay, jitter, dist, order, acks, loss, rate, burst, limit, seed)");
        }
        const std::string key(trim(item.substr(0, eq)));
        const std::string_view value = trim(item.substr(eq + 1));
        if (key == "delay")
            p.delay_ns = parse_duration_ns(value);
        else if (key == "jitter")
            p.jitter_ns = parse_duration_ns(value);
        else if (key == "dist" || key == "distribution") {
            if (value == "uniform")
                p.distribution = JitterDistribution::uniform;
            else if (value == "normal")
                p.distribution = JitterDistribution::normal;
            else
                throw ParseError("jitter distribution '" + std::string(value) + "' is not uniform or normal");
        } else if (key == "order") {
            if (value == "keep")
                p.keep_order = true;
            else if (value == "any" || value == "reorder")
                p.keep_order = false;
            else
                throw ParseError("order '" + std::string(value) + "' is not keep or any");
        } else if (key == "acks") {
            if (value == "queue")
                p.acks_skip = false;
            else if (value == "skip")
                p.acks_skip = true;
            else
                throw ParseError("acks '" + std::string(value) + "' is not queue or skip");
        } else if (key == "loss")
            p.loss = parse_probability(value);
        else if (key == "rate")
            p.rate_bps = (value == "0" || value == "unlimited") ? 0 : parse_rate_bps(value);
        else if (key == "burst")
            p.burst_bytes = parse_bytes(value);
        else if (key == "limit")
            p.limit = parse_queue_limit(value);
        else if (key == "seed") {
            const std::string v(value);
            char* end = nullptr;
            p.seed = std::strtoull(v.c_str(), &end, 0);
            if (v.empty() || *end != '\0') throw ParseError("seed '" + v + "' is not an integer");
        } else {
            throw ParseError("unknown key '" + key + "' in link spec '" + std::string(spec) +
                             "' (keys: delay, jitter, dist, order, acks, loss, rate, burst, limit, seed)");
        }
    }
}

void validate(const LinkParams& p) {
    if (p.delay_ns < 0) throw ParseError("delay must not be negative");
    if (p.jitter_ns < 0) throw ParseError("jitter must not be negative");
    if (p.delay_ns > 3600 * static_cast<std::int64_t>(kNsPerSecond)) throw ParseError("delay above one hour");
    if (p.jitter_ns > 3600 * static_cast<std::int64_t>(kNsPerSecond)) throw ParseError("jitter above one hour");
    if (!(p.loss >= 0 && p.loss <= 1)) throw ParseError("loss must be in [0, 1]");
    if (p.limit.value == 0) throw ParseError("queue limit must be at least 1");
    if (p.burst_bytes > (1ULL << 40)) throw ParseError("burst above 1 TiB");
    if (p.acks_skip && p.keep_order)
        throw ParseError("acks=skip needs order=any (acknowledgements pass queued frames, so frames leave out of order)");
}

std::string describe(const LinkParams& p) {
    std::string s = "delay " + format_duration(p.delay_ns);
    s += ", jitter " + format_duration(p.jitter_ns);
    if (p.jitter_ns > 0) {
        s += p.distribution == JitterDistribution::uniform ? " (uniform +-jitter"
                                                           : " (normal sd=jitter, clipped at 3 sd";
        s += p.keep_order ? ", order kept)" : ", may reorder)";
    }
    char loss[32];
    std::snprintf(loss, sizeof loss, "%.6g%%", p.loss * 100);
    s += ", loss ";
    s += loss;
    s += ", rate " + format_rate(p.rate_bps);
    if (p.rate_bps > 0) {
        s += p.burst_bytes ? " (burst " + format_bytes(p.burst_bytes) + ")" : " (no burst)";
        s += ", queue limit " + format_queue_limit(p.limit);
        if (p.acks_skip) s += " (acknowledgements skip it)";
    }
    s += ", seed " + std::to_string(p.seed);
    return s;
}

TokenBucket::TokenBucket(std::uint64_t rate_bps, std::uint64_t burst_bytes) : rate_bps_(rate_bps), tau_ns_(0) {
    if (rate_bps_ > 0) {
        const auto tau = static_cast<unsigned __int128>(burst_bytes) * 8 * kNsPerSecond / rate_bps_;
        tau_ns_ = static_cast<std::int64_t>(tau);
    }
}

TokenBucket::Slot TokenBucket::schedule(std::int64_t arrival_ns, std::uint64_t bytes) {
    if (rate_bps_ == 0) return {arrival_ns, 0};
    if (!started_) {
        debt_until_ = arrival_ns - tau_ns_;  // the bucket starts full
        started_ = true;
    }
    // The bucket is full (tau of credit) from debt_until_ + tau_ on; credit beyond that is lost.
    const std::int64_t start = std::max(arrival_ns, debt_until_);
    const std::int64_t floor = start - tau_ns_;
    if (debt_until_ < floor) {
        debt_until_ = floor;
        remainder_ = 0;  // credit is capped, so is its fraction
    }
    const unsigned __int128 bit_ns = static_cast<unsigned __int128>(bytes) * 8 * kNsPerSecond + remainder_;
    const auto tx = static_cast<std::int64_t>(bit_ns / rate_bps_);
    remainder_ = static_cast<std::uint64_t>(bit_ns % rate_bps_);
    debt_until_ += tx;
    return {start, tx};
}

TokenBucket::Slot TokenBucket::schedule_at_once(std::int64_t arrival_ns, std::uint64_t bytes) {
    return {arrival_ns, schedule(arrival_ns, bytes).tx_ns};
}

std::int64_t TokenBucket::next_start(std::int64_t now_ns) const {
    if (rate_bps_ == 0 || !started_) return now_ns;
    return std::max(now_ns, debt_until_);
}

LinkModel::LinkModel(const LinkParams& params)
    : params_(params),
      bucket_(params.rate_bps, params.burst_bytes),
      rng_(params.seed),
      loss_threshold_(Rng::bernoulli_threshold(params.loss)),
      loss_all_(params.loss >= 1.0),
      waiting_(params.limit.unit == QueueLimit::Unit::packets ? std::min<std::uint64_t>(params.limit.value + 1, 1 << 20)
                                                              : 4096) {
    validate(params_);
}

void LinkModel::expire(std::int64_t now_ns) {
    while (!waiting_.empty() && waiting_.front().start_ns <= now_ns) {
        waiting_bytes_ -= waiting_.front().bytes;
        waiting_packets_ -= waiting_.front().packets;
        waiting_.pop();
    }
}

std::uint64_t LinkModel::queued_packets(std::int64_t now_ns) {
    expire(now_ns);
    return waiting_packets_;
}

std::uint64_t LinkModel::queued_bytes(std::int64_t now_ns) {
    expire(now_ns);
    return waiting_bytes_;
}

std::int64_t LinkModel::jitter() {
    const std::int64_t j = params_.jitter_ns;
    if (j == 0) return 0;
    if (params_.distribution == JitterDistribution::uniform) return rng_.uniform_int(-j, j);
    const double x = std::clamp(rng_.normal(), -3.0, 3.0);
    return static_cast<std::int64_t>(std::llround(x * static_cast<double>(j)));
}

LinkModel::Verdict LinkModel::arrive(std::int64_t now_ns, std::uint64_t bytes, std::uint32_t segments, bool no_payload) {
    const std::uint64_t packets = segments > 0 ? segments : 1;
    const bool skip = no_payload && params_.acks_skip;
    if (params_.rate_bps > 0 && !skip) {
        expire(now_ns);
        const bool over = params_.limit.unit == QueueLimit::Unit::packets
                              ? waiting_packets_ + packets > params_.limit.value
                              : waiting_bytes_ + bytes > params_.limit.value;
        // A frame that can start at once never waits, so it is never dropped by the queue.
        if (over && bucket_.next_start(now_ns) > now_ns) return {Fate::drop_queue, 0};
    }
    const TokenBucket::Slot slot = skip ? bucket_.schedule_at_once(now_ns, bytes) : bucket_.schedule(now_ns, bytes);
    if (slot.start_ns > now_ns) {
        waiting_.push({slot.start_ns, bytes, packets});
        waiting_bytes_ += bytes;
        waiting_packets_ += packets;
    }
    if (loss_threshold_ != 0) {
        std::uint64_t threshold = loss_threshold_;
        if (packets > 1 && !loss_all_) {
            threshold = Rng::bernoulli_threshold(1.0 - std::pow(1.0 - params_.loss, static_cast<double>(packets)));
        }
        if (loss_all_ || rng_.next() < threshold) return {Fate::drop_loss, 0};
    }
    const std::int64_t wire_end = slot.start_ns + slot.tx_ns;
    std::int64_t due = wire_end + params_.delay_ns + jitter();
    due = std::max(due, wire_end);
    if (params_.keep_order) due = std::max(due, last_due_);
    last_due_ = std::max(last_due_, due);
    return {Fate::deliver, due};
}

}  // namespace gridcoll::delayline
