// Buffers kept from one use to the next, so that their pages stay mapped.
//
// The checker holds a symbol for every byte of every rank's buffers: a check of a megabyte on
// fifteen ranks fills about a gigabyte. Freed, such buffers go back to the kernel (glibc maps
// allocations of this size on their own), and the next check's fresh pages are zeroed by the
// kernel one page fault at a time, which cost seven times the check itself (HubSites' thirty
// checks from every root: 32 s with fresh buffers, 3.6 s with kept ones).
#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace gridcoll::detail {

template <class T>
class KeptBuffers {
public:
    explicit KeptBuffers(std::size_t max_kept_bytes) : max_kept_bytes_(max_kept_bytes) {}

    // A buffer of n value-initialised elements, in the kept storage that fits n most tightly.
    // Where none holds n, the largest kept is taken and grown: its old storage is freed, so
    // the kept bytes stay within the limit while their pages follow the checks' sizes.
    std::vector<T> take(std::size_t n) {
        std::vector<T> v;
        if (n > 0 && !kept_.empty()) {
            std::size_t pick = 0;
            for (std::size_t i = 1; i < kept_.size(); ++i)
                if (fits_better(kept_[i].capacity(), kept_[pick].capacity(), n)) pick = i;
            std::swap(kept_[pick], kept_.back());
            v = std::move(kept_.back());
            kept_.pop_back();
            kept_bytes_ -= v.capacity() * sizeof(T);
        }
        v.resize(n);
        return v;
    }

    // Keeps v's storage for a later take, unless that would keep more than the limit (or the
    // list of kept buffers cannot grow: then v is left to free its storage as before).
    void give(std::vector<T>&& v) noexcept {
        const std::size_t bytes = v.capacity() * sizeof(T);
        if (bytes == 0 || kept_bytes_ + bytes > max_kept_bytes_) return;
        v.clear();
        try {
            kept_.push_back(std::move(v));
        } catch (const std::bad_alloc&) {
            return;
        }
        kept_bytes_ += bytes;
    }

private:
    static bool fits_better(std::size_t a, std::size_t b, std::size_t n) {
        if ((a >= n) != (b >= n)) return a >= n;
        return a >= n ? a < b : a > b;
    }

    std::size_t max_kept_bytes_;
    std::size_t kept_bytes_ = 0;
    std::vector<std::vector<T>> kept_;
};

}  // namespace gridcoll::detail
