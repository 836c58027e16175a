// Messages between sites that ride every link of their route through the sites' network
// (SiteNetwork: a ring, hubs, a partial mesh, routes through third sites), sharing each link
// with the others on it as SimGrid's max-min fairness does (its CM02 model): a message's weight
// is 1 / its route's latency, so on a shared link a message of a long route gets less than one
// of a short route (as TCP's throughput falls with the round trip). At every change (a message
// enters or leaves) the rates are filled progressively — the link whose capacity, left over,
// per unit of the weight of its unfixed messages is least fixes their rates at their weights
// times that, and so on — and the next departure is the message whose remaining bytes run out
// first. A message alone moves at its route's slowest link. With cross traffic x, a message also
// weighs x on the reverse of each of its links (TCP's acknowledgements; SimGrid's
// network/crosstraffic).
//
// A message of the Costs' pair parameters (latency and bandwidth of the route) that alone would
// hold its route for `work` seconds carries work x (its route's slowest capacity) bytes, so a
// lone message leaves after `work`, as on a shared link. One event stands for the whole network:
// its version moves at every change, older events are stale. Pairs keep their order (PairOrder).
//
// Cost: each change refills the rates of the messages under way, O(links x messages); for the
// site-level streams of a WAN (tens to hundreds at once) that is small.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "gridcoll/algorithms/site_network.hpp"
#include "link_flow.hpp"

namespace gridcoll::sim::detail {

class RoutedLinks {
public:
    void set_network(const SiteNetwork& net, double cross_traffic) {
        cap_.clear();
        lat_.clear();
        rev_.assign(net.links.size(), -1);
        std::map<std::pair<int, int>, int> by_ends;
        for (std::size_t l = 0; l < net.links.size(); ++l) {
            cap_.push_back(net.links[l].bandwidth_Bps);
            lat_.push_back(net.links[l].latency_s);
            by_ends[{net.links[l].from, net.links[l].to}] = static_cast<int>(l);
        }
        for (std::size_t l = 0; l < net.links.size(); ++l) {
            const auto it = by_ends.find({net.links[l].to, net.links[l].from});
            if (it != by_ends.end()) rev_[l] = it->second;
        }
        cross_ = cross_traffic;
    }

    // The bytes a message needing `work` seconds alone on `route` carries.
    double bytes_of(const std::vector<int>& route, double work) const {
        double slowest = std::numeric_limits<double>::infinity();
        for (int l : route) slowest = std::min(slowest, cap_[static_cast<std::size_t>(l)]);
        return work * slowest;
    }

    // Puts `f` on `route` at `now` with `bytes` to move; the next departure moves (schedule an
    // event for version() at next()).
    void add(double now, const std::vector<int>* route, double bytes, LinkFlow f) {
        advance(now);
        f.seq = seq_++;
        pairs_.enter(f);
        double latency = 0;
        for (int l : *route) latency += lat_[static_cast<std::size_t>(l)];
        flows_.push_back({f, route, bytes, 0, 1.0 / std::max(latency, 1e-9)});
        refill();
        ++version_;
    }

    bool busy() const { return !flows_.empty(); }
    std::uint32_t version() const { return version_; }
    double next() const {
        double t = std::numeric_limits<double>::infinity();
        for (const Active& a : flows_) t = std::min(t, a.left / a.rate);
        return t_ + t;
    }

    // The event of `version` at `now`: false when stale; otherwise the messages done now go to
    // `done` in their pairs' order (reschedule at next() if busy()).
    bool depart(std::uint32_t version, double now, std::vector<LinkFlow>& done) {
        if (version != version_ || flows_.empty()) return false;
        advance(now);
        std::vector<Active> finished;
        for (std::size_t i = 0; i < flows_.size();) {
            if (flows_[i].left <= 1e-9 * std::max(1.0, flows_[i].rate)) {
                finished.push_back(flows_[i]);
                flows_[i] = flows_.back();
                flows_.pop_back();
            } else {
                ++i;
            }
        }
        std::sort(finished.begin(), finished.end(), [](const Active& a, const Active& b) { return a.f.seq < b.f.seq; });
        for (const Active& a : finished) pairs_.leave(a.f, done);
        refill();
        ++version_;
        return true;
    }

    double arrival(const LinkFlow& f, double at) { return pairs_.arrival(f, at); }

private:
    struct Active {
        LinkFlow f;
        const std::vector<int>* route;
        double left;  // bytes
        double rate;    // bytes per second
        double weight;  // 1 / the route's latency
    };

    void advance(double now) {
        for (Active& a : flows_) a.left = std::max(0.0, a.left - a.rate * (now - t_));
        t_ = now;
    }

    // Max-min fair rates by progressive filling (cross traffic weighs x on reverse links): each
    // round fixes the messages on the link with the least room per unit of unfixed weight.
    void refill() {
        const std::size_t L = cap_.size();
        std::vector<double> room(cap_), weight(L, 0.0);
        for (const Active& a : flows_) load(a, a.weight, weight);
        std::vector<char> fixed(flows_.size(), 0);
        std::size_t left = flows_.size();
        while (left > 0) {
            std::size_t tight = L;
            for (std::size_t l = 0; l < L; ++l)
                if (weight[l] > 1e-12 && (tight == L || room[l] / weight[l] < room[tight] / weight[tight])) tight = l;
            if (tight == L) break;  // (cannot happen: every unfixed message weighs on its links)
            const double per_weight = room[tight] / weight[tight];
            for (std::size_t i = 0; i < flows_.size(); ++i) {
                if (fixed[i] || !touches(flows_[i], tight)) continue;
                Active& a = flows_[i];
                a.rate = std::max(per_weight * a.weight, 1e-9 * cap_[tight]);
                fixed[i] = 1;
                --left;
                load(a, -a.rate, room);
                load(a, -a.weight, weight);
            }
            weight[tight] = 0;
        }
        for (double& r : room) r = std::max(0.0, r);
    }
    // Adds `amount` for each of a's links (and x of it for their reverses) to `per_link`.
    void load(const Active& a, double amount, std::vector<double>& per_link) const {
        for (int l : *a.route) {
            per_link[static_cast<std::size_t>(l)] += amount;
            if (cross_ > 0 && rev_[static_cast<std::size_t>(l)] >= 0)
                per_link[static_cast<std::size_t>(rev_[static_cast<std::size_t>(l)])] += cross_ * amount;
        }
    }
    bool touches(const Active& a, std::size_t link) const {
        for (int l : *a.route)
            if (static_cast<std::size_t>(l) == link || (cross_ > 0 && rev_[static_cast<std::size_t>(l)] == static_cast<int>(link)))
                return true;
        return false;
    }

    std::vector<double> cap_, lat_;
    std::vector<int> rev_;
    double cross_ = 0;
    std::vector<Active> flows_;
    double t_ = 0;
    std::uint32_t version_ = 0;
    std::uint64_t seq_ = 0;
    PairOrder pairs_;
};

}  // namespace gridcoll::sim::detail
