// What a frame read from a TAP costs on the wire.
//
// Without offloads a read returns one Ethernet frame (no preamble, no FCS), and that length is
// what the rate limiter charges, as tc does with skb->len.
//
// With offloads (IFF_VNET_HDR + TSO) a read may return a GSO super-frame: a virtio_net_hdr,
// then one set of Ethernet/IP/TCP headers and up to 64 KiB of payload that the receiving stack
// treats as gso_size-byte segments. It is charged as the segments a real link would carry:
// payload + one header set per segment.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gridcoll::delayline {

// The virtio_net_hdr that IFF_VNET_HDR puts in front of every frame (10 bytes, little-endian).
// Spelled out here because <linux/virtio_net.h> does not compile as C++ (a member named "class").
struct VnetHdr {
    std::uint8_t flags;
    std::uint8_t gso_type;
    std::uint16_t hdr_len;
    std::uint16_t gso_size;
    std::uint16_t csum_start;
    std::uint16_t csum_offset;
};
constexpr std::size_t kVnetHdrLen = sizeof(VnetHdr);
static_assert(kVnetHdrLen == 10);
constexpr std::uint8_t kVnetFlagNeedsCsum = 1;  // VIRTIO_NET_HDR_F_NEEDS_CSUM
constexpr std::uint8_t kVnetGsoNone = 0;        // VIRTIO_NET_HDR_GSO_NONE
constexpr std::uint8_t kVnetGsoTcpV4 = 1;       // VIRTIO_NET_HDR_GSO_TCPV4
constexpr std::uint8_t kVnetGsoTcpV6 = 4;       // VIRTIO_NET_HDR_GSO_TCPV6
constexpr std::uint8_t kVnetGsoEcn = 0x80;      // VIRTIO_NET_HDR_GSO_ECN

struct WireSize {
    std::uint64_t bytes;      // bytes on the wire (Ethernet frames without preamble/FCS)
    std::uint32_t segments;   // frames on the wire (1 unless GSO)
    bool no_payload = false;  // a TCP segment without data: an acknowledgement (or SYN, FIN, RST)
};

// frame points at what read() returned (vnet_hdr_len bytes of header first when offloads are
// on, 0 otherwise). Malformed or non-TCP GSO frames are charged as one frame of their size.
WireSize wire_size(const std::byte* frame, std::size_t len, std::size_t vnet_hdr_len);

}  // namespace gridcoll::delayline
