#include "blocks.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gridcoll::detail {

namespace {

// The part of rank m below cut level `next` (-1 - m for a rank that is a part of its own), as
// level_groups sees it.
int part_id(const Topology& t, int m, int next) {
    if (next < 0 || t.depth(m) <= next) return -1 - m;
    return t.cluster(m, next);
}

std::uint64_t u(int x) { return static_cast<std::uint64_t>(x); }

// Copies blocks between rank order (`ranks`) and part order (`parts`), in runs of consecutive
// ranks; `to_parts` picks the direction.
void repack(Composer& c, const PartOrder& po, std::uint64_t b, Span ranks, Span parts, bool to_parts) {
    const int n = static_cast<int>(po.order.size());
    for (int p = 0; p < n;) {
        int q = p + 1;
        while (q < n && po.order[static_cast<std::size_t>(q)] == po.order[static_cast<std::size_t>(q - 1)] + 1) ++q;
        const Span a{ranks.buf, ranks.off + u(po.order[static_cast<std::size_t>(p)]) * b, u(q - p) * b};
        const Span z{parts.buf, parts.off + u(p) * b, u(q - p) * b};
        c.add(to_parts ? Step{Op::Copy, Order::DstLeft, 0, -1, a, z} : Step{Op::Copy, Order::DstLeft, 0, -1, z, a});
        p = q;
    }
}

// `whole` (blocks of `b` bytes) as pieces of whole blocks of about `piece` bytes, the first one
// half as long (so that of two pieces under way one is always past its start-up latency, as in
// wanstream.cpp); one piece when `piece` is 0 or the blocks fit in one. Both ends of a message
// cut it alike.
std::vector<Span> block_pieces(Span whole, std::uint64_t b, std::uint64_t piece) {
    if (piece == 0 || b == 0 || whole.len <= piece) return {whole};
    const std::uint64_t per = std::max<std::uint64_t>(b, piece / b * b);
    std::vector<Span> v{Span{whole.buf, whole.off, std::max<std::uint64_t>(1, per / 2)}};
    for (std::uint64_t at = v.front().len; at < whole.len; at += per)
        v.push_back(Span{whole.buf, whole.off + at, std::min(per, whole.len - at)});
    return v;
}

// How many pieces of `piece` bytes a rank keeps posted for receives over the link to `peer`:
// enough to cover its latency at its rate, plus one, so that it never idles and yet each piece
// arrives whole soon after the one before (a network that shares its links among all the
// messages under way would otherwise finish every piece late, together). `unknown` where the
// Topology has no numbers for that link.
std::size_t pieces_in_flight(const Topology& t, int me, int peer, std::uint64_t piece, std::size_t unknown) {
    const int l = t.common_level(me, peer);
    if (l < 0 || l + 1 >= t.levels() || piece == 0) return unknown;
    const auto link = t.has_pair_links(l) ? t.pair_link(l, t.cluster(me, l + 1), t.cluster(peer, l + 1)) : t.link(l);
    if (!link || link->bandwidth_Bps <= 0) return unknown;
    const double bdp = link->latency_s * link->bandwidth_Bps / static_cast<double>(piece);
    return std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(bdp)) + 1);
}

// Appends the receives of `pieces` from `peer`, each after the one `window` places before it
// (0: all at once); `got` collects them, and the window runs on across calls.
void recv_pieces(Composer& c, int peer, const std::vector<Span>& pieces, std::size_t window, std::vector<StepId>& got) {
    for (const Span& p : pieces)
        got.push_back(c.add(Step{Op::Recv, Order::DstLeft, 0, peer, {}, p},
                            window > 0 && got.size() >= window ? Deps{got[got.size() - window]} : Deps{}));
}

}  // namespace

void unpack_blocks(Composer& c, const PartOrder& po, std::uint64_t b, Span parts, Span ranks) {
    repack(c, po, b, ranks, parts, false);
}

bool PartOrder::identity() const {
    for (std::size_t p = 0; p < order.size(); ++p)
        if (order[p] != static_cast<int>(p)) return false;
    return true;
}

PartOrder part_order(const Topology& t, const Cuts& cuts, int root) {
    const int P = t.size(), K = static_cast<int>(cuts.levels.size());
    PartOrder po;
    // masters[i][x]: the master of x's part at cut i. The part's master is the master of the
    // enclosing cluster when that rank lies in the part (root substitution), else its gateway,
    // else its lowest rank (level_groups' rule).
    std::vector<std::vector<int>> masters(static_cast<std::size_t>(K), std::vector<int>(static_cast<std::size_t>(P)));
    std::vector<int> prev(static_cast<std::size_t>(P), root);
    for (int i = 0; i < K; ++i) {
        const int next = i + 1 < K ? cuts.levels[static_cast<std::size_t>(i + 1)] : t.levels();
        std::map<std::pair<int, int>, int> lowest;  // (enclosing master, part id) -> lowest rank
        const auto key = [&](int x) { return std::make_pair(prev[static_cast<std::size_t>(x)], part_id(t, x, next)); };
        for (int x = P - 1; x >= 0; --x) lowest[key(x)] = x;
        auto& m = masters[static_cast<std::size_t>(i)];
        for (int x = 0; x < P; ++x) {
            const int up = prev[static_cast<std::size_t>(x)];
            const int gw = part_id(t, x, next) >= 0 ? t.gateway(x, next) : -1;  // as level_groups
            m[static_cast<std::size_t>(x)] = part_id(t, up, next) == part_id(t, x, next) ? up : gw >= 0 ? gw : lowest[key(x)];
        }
        prev = m;
    }
    po.order.resize(static_cast<std::size_t>(P));
    for (int x = 0; x < P; ++x) po.order[static_cast<std::size_t>(x)] = x;
    std::sort(po.order.begin(), po.order.end(), [&](int a, int b) {
        for (const auto& m : masters)
            if (m[static_cast<std::size_t>(a)] != m[static_cast<std::size_t>(b)])
                return m[static_cast<std::size_t>(a)] < m[static_cast<std::size_t>(b)];
        return a < b;
    });
    po.pos.resize(static_cast<std::size_t>(P));
    for (int p = 0; p < P; ++p) po.pos[static_cast<std::size_t>(po.order[static_cast<std::size_t>(p)])] = p;
    po.parts.resize(static_cast<std::size_t>(K));
    for (int i = 0; i < K; ++i)
        for (int p = 0; p < P; ++p) {
            const int m = masters[static_cast<std::size_t>(i)][static_cast<std::size_t>(po.order[static_cast<std::size_t>(p)])];
            auto [it, fresh] = po.parts[static_cast<std::size_t>(i)].try_emplace(m, p, 0);
            ++it->second.second;
        }
    return po;
}

void compose_scatter(Composer& c, const Request& r, const Cuts& cuts, int root, Span from, Span to, std::uint64_t piece) {
    const std::uint64_t b = r.bytes;
    const Span out{to.buf, to.off, b};
    const PartOrder po = part_order(*r.topology, cuts, root);
    // What this rank holds: its part's blocks from position `lo` on, in `held`.
    Span held{};
    int lo = 0;
    if (r.rank == root) {
        held = po.identity() ? Span{from.buf, from.off, u(r.size) * b} : c.fresh_tmp(u(r.size) * b);
        if (!po.identity()) repack(c, po, b, from, held, true);
    }
    for (const LevelGroup& g : level_groups(*r.topology, cuts, r.rank, root)) {
        const auto& parts = po.parts[static_cast<std::size_t>(g.cut)];
        if (g.me == g.root) {
            for (int m : g.members) {
                if (m == r.rank) continue;
                const auto [first, n] = parts.at(m);
                for (const Span& p : block_pieces(Span{held.buf, held.off + u(first - lo) * b, u(n) * b}, b, piece))
                    c.add(Step{Op::Send, Order::DstLeft, 0, m, p, {}});
            }
        } else {
            const auto [first, n] = parts.at(r.rank);
            held = n == 1 ? out : c.fresh_tmp(u(n) * b);
            lo = first;
            const int from_root = g.members[static_cast<std::size_t>(g.root)];
            std::vector<StepId> got;
            recv_pieces(c, from_root, block_pieces(held, b, piece), pieces_in_flight(*r.topology, r.rank, from_root, piece, 0), got);
        }
    }
    if (!(held.buf == out.buf && held.off == out.off) && b > 0)
        c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{held.buf, held.off + u(po.pos[static_cast<std::size_t>(r.rank)] - lo) * b, b}, out});
}

void compose_gather(Composer& c, const Request& r, const Cuts& cuts, int root, Span from, Span to, std::uint64_t piece) {
    const std::uint64_t b = r.bytes;
    const PartOrder po = part_order(*r.topology, cuts, root);
    const auto groups = level_groups(*r.topology, cuts, r.rank, root);
    const Span mine{from.buf, from.off, b};
    Span held = mine;
    int lo = po.pos[static_cast<std::size_t>(r.rank)];
    const int top = top_cut(*r.topology, cuts, root);
    for (std::size_t k = groups.size(); k-- > 0;) {
        const LevelGroup& g = groups[k];
        const auto& parts = po.parts[static_cast<std::size_t>(g.cut)];
        if (g.me != g.root) {
            for (const Span& p : block_pieces(held, b, piece))
                c.add(Step{Op::Send, Order::DstLeft, 0, g.members[static_cast<std::size_t>(g.root)], p, {}});
            return;  // a rank that sends its part up takes no part in wider groups
        }
        int first = r.size, count = 0;
        for (int m : g.members) {
            first = std::min(first, parts.at(m).first);
            count += parts.at(m).second;
        }
        const bool straight = r.rank == root && k == 0 && po.identity();  // into `to`, in rank order
        const Span into = straight ? Span{to.buf, to.off + u(first) * b, u(count) * b} : c.fresh_tmp(u(count) * b);
        if (b > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, held, Span{into.buf, into.off + u(lo - first) * b, held.len}});
        // With pieces, below the top group a few at a time from all the members together, so
        // that they arrive whole one after the other (pieces_in_flight); the top group's parts
        // come from other sites over links of their own and are all posted at once.
        const int other = g.members[g.me == 0 && g.members.size() > 1 ? 1 : 0];
        const std::size_t window = piece > 0 && g.cut != top ? pieces_in_flight(*r.topology, r.rank, other, piece, 2) : 0;
        std::vector<StepId> got;
        for (int m : g.members) {
            if (m == r.rank) continue;
            const auto [at, n] = parts.at(m);
            recv_pieces(c, m, block_pieces(Span{into.buf, into.off + u(at - first) * b, u(n) * b}, b, piece), window, got);
        }
        held = into;
        lo = first;
    }
    if (r.rank != root) return;
    if (held.buf == mine.buf && held.off == mine.off) {  // a communicator of one rank
        if (b > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, held, Span{to.buf, to.off, b}});
    } else if (!(held.buf == to.buf && held.off == to.off)) {
        unpack_blocks(c, po, b, held, to);
    }
}

}  // namespace gridcoll::detail
