// Memory for packed schedules: an arena of size-classed blocks carved from large chunks.
// Internal to the event simulator (sim/src/); see gridcoll/event_sim.hpp for the semantics.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace gridcoll::sim::detail {

// Blocks carved from chunks of up to 64 MiB (transparent huge pages where the kernel allows: a
// million small blocks would otherwise cost a page fault per 4 KiB), with free lists per 64-byte
// size class so a finished rank's block serves the next rank of the same shape. Blocks of
// 64 KiB or more come straight from mmap.
// Chunks are kept for the next simulation (up to 64 MiB, process-wide): an optimiser calling
// simulate() thousands of times then reuses memory whose pages are already mapped.
class ChunkPool {
public:
    static void* take(std::size_t n) {
        std::lock_guard<std::mutex> lock(mu());
        auto& v = pool();
        for (std::size_t i = 0; i < v.size(); ++i)
            if (v[i].second == n) {
                void* p = v[i].first;
                v[i] = v.back();
                v.pop_back();
                held() -= n;
                return p;
            }
        return nullptr;
    }
    static bool give(void* p, std::size_t n) {
        std::lock_guard<std::mutex> lock(mu());
        if (held() + n > kKeep) return false;
        pool().emplace_back(p, n);
        held() += n;
        return true;
    }

private:
    static constexpr std::size_t kKeep = std::size_t{64} << 20;
    static std::mutex& mu() {
        static std::mutex m;
        return m;
    }
    static std::vector<std::pair<void*, std::size_t>>& pool() {
        static std::vector<std::pair<void*, std::size_t>> v;
        return v;
    }
    static std::size_t& held() {
        static std::size_t h = 0;
        return h;
    }
};

class Arena {
public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena() {
        for (auto [p, n] : chunks_)
            if (!ChunkPool::give(p, n)) munmap(p, n);
        for (auto [p, n] : big_) munmap(p, n);
    }

    void* alloc(std::size_t bytes) {
        const std::size_t c = (bytes + kUnit - 1) / kUnit;
        in_use_ += c * kUnit;
        if (c >= kClasses) {
            void* p = map(c * kUnit);
            big_.emplace_back(p, c * kUnit);
            return p;
        }
        if (void* p = free_[c]) {
            free_[c] = *static_cast<void**>(p);
            return p;
        }
        if (left_ < c * kUnit) {
            // Chunks grow from 256 KiB to 64 MiB: small simulations stay small.
            next_chunk_ = std::min(next_chunk_ * 2, kChunk);
            void* p = ChunkPool::take(next_chunk_);
            if (p == nullptr) p = map(next_chunk_);
            chunks_.emplace_back(p, next_chunk_);
            bump_ = static_cast<char*>(p);
            left_ = next_chunk_;
        }
        void* p = bump_;
        bump_ += c * kUnit;
        left_ -= c * kUnit;
        return p;
    }
    void free(void* p, std::size_t bytes) {
        const std::size_t c = (bytes + kUnit - 1) / kUnit;
        in_use_ -= c * kUnit;
        if (c >= kClasses) {
            for (auto& b : big_)
                if (b.first == p) {
                    munmap(b.first, b.second);
                    b = big_.back();
                    big_.pop_back();
                    return;
                }
            return;
        }
        *static_cast<void**>(p) = free_[c];
        free_[c] = p;
    }
    std::size_t in_use() const { return in_use_; }

private:
    static constexpr std::size_t kUnit = 64, kClasses = 1024, kChunk = std::size_t{64} << 20;
    static void* map(std::size_t n) {
        void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        if (n >= (std::size_t{2} << 20)) madvise(p, n, MADV_HUGEPAGE);
#endif
        return p;
    }

    std::vector<void*> free_ = std::vector<void*>(kClasses, nullptr);
    std::vector<std::pair<void*, std::size_t>> chunks_;  // bump chunks (pooled afterwards)
    std::vector<std::pair<void*, std::size_t>> big_;     // blocks too large for a size class
    char* bump_ = nullptr;
    std::size_t left_ = 0;
    std::size_t next_chunk_ = std::size_t{128} << 10;
    std::size_t in_use_ = 0;
};

}  // namespace gridcoll::sim::detail
