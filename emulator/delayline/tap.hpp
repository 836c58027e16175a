// TAP devices for the delay line: created (or attached to, when a persistent TAP of that name
// exists) inside a named network namespace, or taken over from an already-open file descriptor.
#pragma once

#include <stdexcept>
#include <string>

namespace gridcoll::delayline {

struct TapError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct TapOptions {
    std::string name;      // interface name (at most 15 characters); ignored with fd
    std::string netns;     // network namespace name (/var/run/netns/<name>); empty: the current one
    int fd = -1;           // already-open TAP file descriptor: used as is
    int mtu = 0;           // set the MTU when > 0 (not with fd)
    int txqueuelen = 0;    // set the TAP's transmit queue length when > 0 (not with fd)
    bool offload = false;  // IFF_VNET_HDR + checksum/TSO offloads (GSO super-frames)
    bool up = true;        // bring the interface up (not with fd)
};

class Tap {
public:
    // Throws TapError with a message saying what failed and what to do (not root, no /dev/net/tun, ...).
    explicit Tap(const TapOptions& options);
    ~Tap();
    Tap(Tap&& other) noexcept;
    Tap(const Tap&) = delete;
    Tap& operator=(const Tap&) = delete;
    Tap& operator=(Tap&&) = delete;

    int fd() const { return fd_; }
    const std::string& name() const { return name_; }
    bool vnet_hdr() const { return vnet_hdr_; }
    int mtu() const { return mtu_; }
    // "tap gcdl0 in netns gcdl-a-42 (mtu 1500, offload off)"
    std::string describe() const;
    void close();

private:
    void adopt(const TapOptions& o);       // an already-open TAP (o.fd)
    void create(const TapOptions& o);      // a TAP opened or created by name
    void enable_offload();                 // vnet headers and TSO on fd_; closes it on failure
    int fd_ = -1;
    std::string name_;
    std::string netns_;
    bool vnet_hdr_ = false;
    bool inherited_ = false;
    int mtu_ = 0;
};

// Enters a named network namespace for the lifetime of the object, then returns to the
// namespace the thread was in. Throws TapError when the namespace cannot be entered.
class NetnsGuard {
public:
    explicit NetnsGuard(const std::string& name);
    ~NetnsGuard();
    NetnsGuard(const NetnsGuard&) = delete;
    NetnsGuard& operator=(const NetnsGuard&) = delete;

private:
    int original_ = -1;
};

}  // namespace gridcoll::delayline
