#include "frame.hpp"

#include <cstring>

namespace gridcoll::delayline {

namespace {

std::uint16_t be16(const std::byte* p) {
    return static_cast<std::uint16_t>((std::to_integer<unsigned>(p[0]) << 8) | std::to_integer<unsigned>(p[1]));
}

// Length of the Ethernet + IP + TCP headers of a frame, 0 if it is not TCP over IPv4/IPv6; when
// `payload` is given, the TCP payload's length by the IP header (Ethernet padding not counted).
std::size_t tcp_headers_len(const std::byte* eth, std::size_t len, std::size_t* payload = nullptr) {
    std::size_t ip_end = 0;  // where the IP packet ends, by its own length field
    std::size_t off = 14;
    if (len < off) return 0;
    std::uint16_t type = be16(eth + 12);
    if (type == 0x8100 || type == 0x88a8) {  // one VLAN tag
        if (len < 18) return 0;
        type = be16(eth + 16);
        off = 18;
    }
    if (type == 0x0800) {
        if (len < off + 20) return 0;
        const unsigned vihl = std::to_integer<unsigned>(eth[off]);
        const std::size_t ihl = (vihl & 0x0f) * 4u;
        if ((vihl >> 4) != 4 || ihl < 20 || std::to_integer<unsigned>(eth[off + 9]) != 6) return 0;
        ip_end = off + be16(eth + off + 2);
        off += ihl;
    } else if (type == 0x86dd) {
        if (len < off + 40 || std::to_integer<unsigned>(eth[off + 6]) != 6) return 0;  // no extension headers
        ip_end = off + 40 + be16(eth + off + 4);
        off += 40;
    } else {
        return 0;
    }
    if (len < off + 20) return 0;
    const std::size_t doff = (std::to_integer<unsigned>(eth[off + 12]) >> 4) * 4u;
    if (doff < 20 || len < off + doff) return 0;
    if (payload) *payload = ip_end > off + doff ? ip_end - off - doff : 0;
    return off + doff;
}

// A plain TCP frame (one segment) that carries no data.
bool tcp_without_payload(const std::byte* eth, std::size_t len) {
    std::size_t payload = 0;
    return tcp_headers_len(eth, len, &payload) > 0 && payload == 0;
}

}  // namespace

WireSize wire_size(const std::byte* frame, std::size_t len, std::size_t vnet_hdr_len) {
    if (len < vnet_hdr_len) return {len, 1};
    if (vnet_hdr_len == 0) return {len, 1, tcp_without_payload(frame, len)};
    const std::size_t eth_len = len - vnet_hdr_len;
    VnetHdr h;
    std::memcpy(&h, frame, sizeof h);
    const unsigned gso = h.gso_type & ~kVnetGsoEcn;
    if (gso != kVnetGsoTcpV4 && gso != kVnetGsoTcpV6) return {eth_len, 1, tcp_without_payload(frame + vnet_hdr_len, eth_len)};
    const std::size_t mss = h.gso_size;  // little-endian on x86 and every modern tun (vnet_le)
    const std::size_t hdrs = tcp_headers_len(frame + vnet_hdr_len, eth_len);
    if (mss == 0 || hdrs == 0 || hdrs >= eth_len) return {eth_len, 1};
    const std::size_t payload = eth_len - hdrs;
    const std::size_t segs = (payload + mss - 1) / mss;
    return {payload + segs * hdrs, static_cast<std::uint32_t>(segs)};
}

}  // namespace gridcoll::delayline
