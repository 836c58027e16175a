// The count and displacement arrays of the irregular collectives as the library reads them,
// whichever form of the call gave them: an int form's int arrays or a large-count form's
// MPI_Count and MPI_Aint arrays (large_count.hpp), without copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace gridcoll::pmpi {

// A program's array of counts or displacements, read-only, as an int form gives it (int) or a
// large-count form (MPI_Count, MPI_Aint): its entries as long long.
class Ints {
public:
    Ints() = default;
    Ints(std::nullptr_t) {}
    template <class T>
        requires(std::is_integral_v<T> && std::is_signed_v<T> && (sizeof(T) == 4 || sizeof(T) == 8))
    Ints(const T* p) : p_(p), width_(sizeof(T)) {}

    long long operator[](int j) const {
        const char* at = static_cast<const char*>(p_) + static_cast<std::ptrdiff_t>(j) * width_;
        if (width_ == 4) {
            std::int32_t v = 0;
            std::memcpy(&v, at, 4);
            return v;
        }
        std::int64_t v = 0;
        std::memcpy(&v, at, 8);
        return v;
    }
    // The array from entry j on.
    Ints from(int j) const {
        Ints s = *this;
        s.p_ = static_cast<const char*>(p_) + static_cast<std::ptrdiff_t>(j) * width_;
        return s;
    }
    explicit operator bool() const { return p_ != nullptr; }
    bool operator==(const Ints&) const = default;  // the same array
    std::vector<long long> copy(int n) const {  // the first n entries
        std::vector<long long> v(static_cast<std::size_t>(n));
        for (int j = 0; j < n; ++j) v[static_cast<std::size_t>(j)] = (*this)[j];
        return v;
    }

private:
    const void* p_ = nullptr;
    int width_ = 4;
};

}  // namespace gridcoll::pmpi
