// A message on a shared link (shared_links.hpp) or on a route of links (routed_links.hpp), and
// the order the messages of one (sender, receiver) pair keep: one connection delivers in order,
// so a message done before an earlier one of its pair waits for it and leaves with it, and none
// arrives before the one that left before it. Internal to the event simulator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace gridcoll::sim::detail {

struct LinkFlow {
    double tag = 0;  // shared link: the link's virtual time at which it is done
    int src = 0, dst = 0;
    std::uint32_t cost = 0, step = 0;  // the message's Costs index and send step
    std::uint32_t recv = 0;            // its matched receive step (SimOptions::rendezvous)
    std::uint64_t seq = 0;             // order of entry: equal tags leave in it
    std::uint64_t pair_seq = 0;        // order among its pair's messages
};

class PairOrder {
public:
    // `f` enters: its place among its pair's messages.
    void enter(LinkFlow& f) { f.pair_seq = pairs_[key(f)].entered++; }
    // `f` is done: appended to `done` with every held message of its pair it releases, or held
    // while an earlier one of its pair is still under way.
    void leave(const LinkFlow& f, std::vector<LinkFlow>& done) {
        Pair& p = pairs_[key(f)];
        if (f.pair_seq != p.left) {
            p.held.emplace(f.pair_seq, f);
            return;
        }
        done.push_back(f);
        ++p.left;
        for (auto it = p.held.begin(); it != p.held.end() && it->first == p.left; it = p.held.erase(it)) {
            done.push_back(it->second);
            ++p.left;
        }
    }
    // When `f`, gone, arrives, given that alone it would at `at`: not before its pair's previous.
    double arrival(const LinkFlow& f, double at) {
        Pair& p = pairs_[key(f)];
        p.arrived = std::max(p.arrived, at);
        return p.arrived;
    }

private:
    struct Pair {
        std::uint64_t entered = 0, left = 0;     // messages put on the link, and gone from it
        std::map<std::uint64_t, LinkFlow> held;  // done, waiting for an earlier one
        double arrived = 0;                      // when its last message to leave arrives
    };
    static std::uint64_t key(const LinkFlow& f) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(f.src)) << 32 | static_cast<std::uint32_t>(f.dst);
    }
    std::unordered_map<std::uint64_t, Pair> pairs_;
};

}  // namespace gridcoll::sim::detail
