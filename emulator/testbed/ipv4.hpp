// IPv4 addresses and CIDR blocks as integers (the testbed's address plan).
#pragma once

#include <cstdint>
#include <string>

namespace gridcoll::emulate {

struct Cidr {
    std::uint32_t net = 0;
    int len = 32;
    bool contains(std::uint32_t a) const {
        const std::uint32_t mask = len == 0 ? 0 : ~std::uint32_t{0} << (32 - len);
        return (a & mask) == (net & mask);
    }
};

std::string ipv4_to_string(std::uint32_t a);
std::uint32_t parse_ipv4(const std::string& text);  // "198.18.0.1" (a "/len" suffix is ignored)
Cidr parse_cidr(const std::string& text);           // "198.18.0.0/19"

}  // namespace gridcoll::emulate
