#include "tap.hpp"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "frame.hpp"

namespace gridcoll::delayline {

namespace {

std::string errno_text(int err) { return std::string(std::strerror(err)); }

std::string netns_path(const std::string& name) {
    for (const char* dir : {"/var/run/netns/", "/run/netns/"}) {
        const std::string p = dir + name;
        if (access(p.c_str(), F_OK) == 0) return p;
    }
    return "/var/run/netns/" + name;
}

// ioctl on a socket of the current namespace, for interface settings (MTU, flags, queue length).
void interface_ioctl(const std::string& ifname, unsigned long request, ifreq& ifr, const char* what) {
    const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) throw TapError("cannot open a socket to configure '" + ifname + "': " + errno_text(errno));
    std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    const int rc = ioctl(s, request, &ifr);
    const int err = errno;
    ::close(s);
    if (rc < 0) throw TapError(std::string("cannot ") + what + " of '" + ifname + "': " + errno_text(err));
}

void configure(const std::string& ifname, const TapOptions& o) {
    if (o.mtu > 0) {
        ifreq ifr{};
        ifr.ifr_mtu = o.mtu;
        interface_ioctl(ifname, SIOCSIFMTU, ifr, ("set MTU " + std::to_string(o.mtu)).c_str());
    }
    if (o.txqueuelen > 0) {
        ifreq ifr{};
        ifr.ifr_qlen = o.txqueuelen;
        interface_ioctl(ifname, SIOCSIFTXQLEN, ifr, "set the transmit queue length");
    }
    if (o.up) {
        ifreq ifr{};
        interface_ioctl(ifname, SIOCGIFFLAGS, ifr, "read the flags");
        ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
        interface_ioctl(ifname, SIOCSIFFLAGS, ifr, "bring up");
    }
}

int read_mtu(const std::string& ifname) {
    try {
        ifreq ifr{};
        interface_ioctl(ifname, SIOCGIFMTU, ifr, "read the MTU");
        return ifr.ifr_mtu;
    } catch (const TapError&) {
        return 0;  // e.g. an inherited fd whose device lives in another namespace
    }
}

}  // namespace

NetnsGuard::NetnsGuard(const std::string& name) {
    if (name.empty()) return;
    original_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (original_ < 0) throw TapError("cannot open /proc/self/ns/net: " + errno_text(errno));
    const std::string path = netns_path(name);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        ::close(original_);
        original_ = -1;
        if (err == ENOENT) {
            throw TapError("network namespace '" + name + "' does not exist (no " + path +
                           "; create it with: ip netns add " + name + ")");
        }
        throw TapError("cannot open network namespace '" + name + "' (" + path + "): " + errno_text(err) +
                       (err == EACCES || err == EPERM ? " (run as root)" : ""));
    }
    if (setns(fd, CLONE_NEWNET) < 0) {
        const int err = errno;
        ::close(fd);
        ::close(original_);
        original_ = -1;
        throw TapError("cannot enter network namespace '" + name + "': " + errno_text(err) +
                       (err == EPERM ? " (needs CAP_SYS_ADMIN: run as root)" : ""));
    }
    ::close(fd);
}

NetnsGuard::~NetnsGuard() {
    if (original_ < 0) return;
    if (setns(original_, CLONE_NEWNET) < 0) {
        std::fprintf(stderr, "gridcoll-delayline: cannot return to the original network namespace: %s\n",
                     std::strerror(errno));
    }
    ::close(original_);
}

Tap::Tap(const TapOptions& o) : netns_(o.netns) {
    if (o.fd >= 0)
        adopt(o);
    else
        create(o);
}

void Tap::adopt(const TapOptions& o) {
    // An already-open TAP: learn its name and flags, use it as it is.
    ifreq ifr{};
    if (ioctl(o.fd, TUNGETIFF, &ifr) < 0) {
        throw TapError("file descriptor " + std::to_string(o.fd) +
                       " is not an attached TUN/TAP device: " + errno_text(errno));
    }
    if (!(ifr.ifr_flags & IFF_TAP))
        throw TapError("file descriptor " + std::to_string(o.fd) + " is a TUN, not a TAP");
    if (!(ifr.ifr_flags & IFF_NO_PI)) {
        throw TapError("file descriptor " + std::to_string(o.fd) +
                       " has packet information headers (IFF_NO_PI unset)");
    }
    fd_ = o.fd;
    inherited_ = true;
    name_ = ifr.ifr_name;
    vnet_hdr_ = (ifr.ifr_flags & IFF_VNET_HDR) != 0;
    if (vnet_hdr_) {
        int sz = 0;
        if (ioctl(fd_, TUNGETVNETHDRSZ, &sz) == 0 && sz != static_cast<int>(kVnetHdrLen)) {
            throw TapError("TAP '" + name_ + "' uses a " + std::to_string(sz) + "-byte vnet header; only " +
                           std::to_string(kVnetHdrLen) + " is supported");
        }
    }
    const int fl = fcntl(fd_, F_GETFL);
    if (fl < 0 || fcntl(fd_, F_SETFL, fl | O_NONBLOCK) < 0) {
        throw TapError("cannot make file descriptor " + std::to_string(o.fd) +
                       " non-blocking: " + errno_text(errno));
    }
    NetnsGuard in(o.netns);
    mtu_ = read_mtu(name_);
}

void Tap::create(const TapOptions& o) {
    if (o.name.empty()) throw TapError("a TAP needs a name or a file descriptor");
    if (o.name.size() >= IFNAMSIZ) {
        throw TapError("TAP name '" + o.name + "' is longer than " + std::to_string(IFNAMSIZ - 1) + " characters");
    }
    name_ = o.name;
    NetnsGuard in(o.netns);  // the device is created in the namespace the process is in
    const std::string where = o.netns.empty() ? std::string() : " in network namespace '" + o.netns + "'";
    fd_ = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENODEV || err == ENXIO) {
            throw TapError("cannot open /dev/net/tun: " + errno_text(err) +
                           " (the kernel has no TUN/TAP support, or the device node is missing: "
                           "mkdir -p /dev/net && mknod /dev/net/tun c 10 200)");
        }
        if (err == EACCES || err == EPERM) {
            throw TapError("cannot open /dev/net/tun: " + errno_text(err) +
                           " (creating TAP devices needs root / CAP_NET_ADMIN)");
        }
        throw TapError("cannot open /dev/net/tun: " + errno_text(err));
    }
    ifreq ifr{};
    ifr.ifr_flags = static_cast<short>(IFF_TAP | IFF_NO_PI | (o.offload ? IFF_VNET_HDR : 0));
    std::strncpy(ifr.ifr_name, o.name.c_str(), IFNAMSIZ - 1);
    if (ioctl(fd_, TUNSETIFF, &ifr) < 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        std::string hint;
        if (err == EPERM || err == EACCES)
            hint = " (creating TAP devices needs root / CAP_NET_ADMIN)";
        else if (err == EBUSY)
            hint = " (a process already holds this TAP)";
        else if (err == EINVAL)
            hint = " (an interface of that name exists and is not a compatible TAP)";
        throw TapError("cannot create TAP '" + o.name + "'" + where + ": " + errno_text(err) + hint);
    }
    name_ = ifr.ifr_name;
    vnet_hdr_ = o.offload;
    if (o.offload) enable_offload();
    try {
        configure(name_, o);
    } catch (...) {
        ::close(fd_);
        fd_ = -1;
        throw;
    }
    mtu_ = read_mtu(name_);
}


void Tap::enable_offload() {
    int sz = static_cast<int>(kVnetHdrLen);
    if (ioctl(fd_, TUNSETVNETHDRSZ, &sz) < 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        throw TapError("cannot set the vnet header size of TAP '" + name_ + "': " + errno_text(err));
    }
    // We accept partial checksums and TSO super-frames: the kernel then hands us up to 64 KiB
    // per read instead of one MTU-sized frame.
    const unsigned features = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
    if (ioctl(fd_, TUNSETOFFLOAD, features) < 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        throw TapError("cannot enable offloads on TAP '" + name_ + "': " + errno_text(err));
    }
}

Tap::~Tap() { close(); }

Tap::Tap(Tap&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      name_(std::move(other.name_)),
      netns_(std::move(other.netns_)),
      vnet_hdr_(other.vnet_hdr_),
      inherited_(other.inherited_),
      mtu_(other.mtu_) {}

void Tap::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

std::string Tap::describe() const {
    std::string s = (inherited_ ? "inherited tap " : "tap ") + name_;
    s += netns_.empty() ? " in the current netns" : " in netns " + netns_;
    s += " (mtu " + (mtu_ > 0 ? std::to_string(mtu_) : std::string("?")) + ", offload " + (vnet_hdr_ ? "on" : "off") +
         ")";
    return s;
}

}  // namespace gridcoll::delayline
