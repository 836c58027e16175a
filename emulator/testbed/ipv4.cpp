#include "ipv4.hpp"

#include <cstdio>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::emulate {

std::string ipv4_to_string(std::uint32_t a) {
    return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) +
           "." + std::to_string(a & 255);
}

std::uint32_t parse_ipv4(const std::string& text) {
    unsigned b[4];
    char tail = 0;
    const std::string addr = text.substr(0, text.find('/'));
    if (std::sscanf(addr.c_str(), "%u.%u.%u.%u%c", &b[0], &b[1], &b[2], &b[3], &tail) != 4 || b[0] > 255 ||
        b[1] > 255 || b[2] > 255 || b[3] > 255)
        throw Error("'" + text + "' is not an IPv4 address");
    return (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
}

Cidr parse_cidr(const std::string& text) {
    const auto slash = text.find('/');
    Cidr c;
    c.net = parse_ipv4(text);
    if (slash != std::string::npos) {
        c.len = std::stoi(text.substr(slash + 1));
        if (c.len < 0 || c.len > 32) throw Error("'" + text + "': prefix length out of range");
    }
    return c;
}

}  // namespace gridcoll::emulate
