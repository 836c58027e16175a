// Events and their queue: taken in order of (time, creation order) — a FIFO per distinct time,
// a binary heap over the times.
// Internal to the event simulator (sim/src/); see gridcoll/event_sim.hpp for the semantics.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "sim_common.hpp"

namespace gridcoll::sim::detail {

enum : std::uint8_t { eStepDone = 0, eArrive = 1, eArrived = 2, eRecvRetry = 3, eLinkEnter = 4, eLinkDone = 5, eEnvelope = 6 };

struct Event {
    double t;
    std::uint64_t key;   // creation order << 3 | kind
    std::int32_t a;      // StepDone: rank; Arrive(d), LinkEnter: sender; LinkDone: link
    std::uint32_t b;     // StepDone: step; Arrive(d), LinkEnter: receiver; LinkDone: version
    std::uint64_t cost;  // Arrive(d): the message's Costs index; LinkEnter: step << 32 | index
};

// The event queue: events with equal times form a batch (a FIFO, found through a hash table on
// the time's bits); a binary heap orders the distinct times. Ties thus leave in creation order,
// as the header promises, and the heap only holds one entry per distinct time. Regular trees
// with equal parameters produce long runs of events at exactly the same time, which this serves
// sequentially.
class EventQueue {
public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }

    void push(const Event& e) {
        const std::uint64_t k = bits(e.t);
        if (k == last_key_ && last_id_ != kNone) {  // same time as the previous push
            batches_[last_id_].ev.push_back(e);
            ++size_;
            return;
        }
        std::size_t at = slot(k);
        while (hval_[at] != kNone && hkey_[at] != k) at = (at + 1) & hmask_;
        std::uint32_t id = hval_[at];
        if (id == kNone) {
            id = fresh(e.t);
            hkey_[at] = k;
            hval_[at] = id;
            if (++hcount_ * 2 > hkey_.size()) grow();
            heap_.push_back({e.t, id});
            std::push_heap(heap_.begin(), heap_.end(), later);
        }
        batches_[id].ev.push_back(e);
        ++size_;
        last_key_ = k;
        last_id_ = id;
    }

    Event pop() {
        if (cur_ == kNone || batches_[cur_].head == batches_[cur_].ev.size()) next_batch();
        --size_;
        Batch& b = batches_[cur_];
        return b.ev[b.head++];
    }

private:
    struct Batch {
        double t = 0;
        std::size_t head = 0;
        std::vector<Event> ev;
    };
    struct Later {
        bool operator()(const std::pair<double, std::uint32_t>& x, const std::pair<double, std::uint32_t>& y) const {
            return x.first > y.first;
        }
    };
    static constexpr Later later{};
    static std::uint64_t bits(double t) {
        std::uint64_t u;
        std::memcpy(&u, &t, sizeof u);
        return u;
    }
    std::size_t slot(std::uint64_t k) const {
        return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 20) & hmask_;
    }
    std::uint32_t fresh(double t) {
        std::uint32_t id;
        if (!free_.empty()) {
            id = free_.back();
            free_.pop_back();
        } else {
            id = static_cast<std::uint32_t>(batches_.size());
            batches_.emplace_back();
        }
        batches_[id].t = t;
        batches_[id].head = 0;
        return id;
    }
    // The current batch is used up: retire it, take the earliest time's batch.
    void next_batch() {
        if (cur_ != kNone) {
            Batch& b = batches_[cur_];
            erase(bits(b.t));
            if (last_id_ == cur_) last_id_ = kNone;
            b.ev.clear();
            if (b.ev.capacity() > 4096) b.ev.shrink_to_fit();
            free_.push_back(cur_);
        }
        std::pop_heap(heap_.begin(), heap_.end(), later);
        cur_ = heap_.back().second;
        heap_.pop_back();
    }
    void erase(std::uint64_t k) {
        std::size_t at = slot(k);
        while (hkey_[at] != k || hval_[at] == kNone) at = (at + 1) & hmask_;
        // Backward-shift deletion keeps linear probing chains intact.
        std::size_t hole = at;
        for (std::size_t j = (hole + 1) & hmask_; hval_[j] != kNone; j = (j + 1) & hmask_) {
            const std::size_t home = slot(hkey_[j]);
            if (((j - home) & hmask_) >= ((j - hole) & hmask_)) {
                hkey_[hole] = hkey_[j];
                hval_[hole] = hval_[j];
                hole = j;
            }
        }
        hval_[hole] = kNone;
        --hcount_;
    }
    void grow() {
        std::vector<std::uint64_t> keys(hkey_.size() * 2);
        std::vector<std::uint32_t> vals(hkey_.size() * 2, kNone);
        keys.swap(hkey_);
        vals.swap(hval_);
        hmask_ = hkey_.size() - 1;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (vals[i] == kNone) continue;
            std::size_t at = slot(keys[i]);
            while (hval_[at] != kNone) at = (at + 1) & hmask_;
            hkey_[at] = keys[i];
            hval_[at] = vals[i];
        }
    }

    std::vector<Batch> batches_;
    std::vector<std::uint32_t> free_;
    std::vector<std::pair<double, std::uint32_t>> heap_;
    std::vector<std::uint64_t> hkey_ = std::vector<std::uint64_t>(1024);
    std::vector<std::uint32_t> hval_ = std::vector<std::uint32_t>(1024, kNone);
    std::size_t hmask_ = 1023, hcount_ = 0;
    std::uint32_t cur_ = kNone;
    std::size_t size_ = 0;
    std::uint64_t last_key_ = 0;  // the previous push's time and batch
    std::uint32_t last_id_ = kNone;
};

}  // namespace gridcoll::sim::detail
