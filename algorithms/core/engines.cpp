#include "engines.hpp"

#include <string>

#include "gridcoll/algorithms/registry.hpp"
#include <vector>

namespace gridcoll::detail {

void tree_bcast(Schedule& s, const TreeNode& t, const Segments& segs, Buf buf, std::uint64_t base,
                const std::vector<StepId>* root_ready, ChildSends how) {
    const std::uint64_t nc = t.children.size();
    s.reserve(segs.count() * (nc + (t.parent >= 0 ? 1 : 0)), segs.count() * (nc + 1) * nc);
    // Every node chains its sends across segments (segment k to every child before segment k+1
    // to any), as paper 002's binary formula and Open MPI's generic segmented engine (which
    // completes a segment's sends before the next) do. Without the chain below the root, a node
    // whose segments arrive faster than its link takes them (LAN in, WAN out) has them all in
    // flight at once: SimGrid shares the link between them, they all arrive at the end, and the
    // pipelining is lost (measured with validation/plogp_vs_smpi.py: a 1 MiB pipeline over
    // das-4x32's 128 ranks took 3.13 s under SMPI instead of 1.55 s; PLogP's port, which sends
    // one message at a time, predicts 1.37 s either way).
    std::vector<StepId> prev;  // the previous segment's sends that segment k waits for
    std::vector<StepId> sent;
    for (std::uint64_t k = 0; k < segs.count(); ++k) {
        const Span seg = segs.span(buf, k, base);
        const StepId got = t.parent >= 0 ? s.recv(t.parent, seg) : root_ready ? (*root_ready)[k] : kNoStep;
        std::vector<StepId> deps = prev;
        deps.push_back(got);
        sent.clear();
        for (int c : t.children) {
            // OneAtATime: largest subtree first, each send after the one before (as MPICH and
            // SimGrid's binomial_tree do, and as the PLogP formulas assume: fan-out x g(m_s)).
            sent.push_back(s.add({Op::Send, Order::DstLeft, 0, c, seg, {}}, deps));
            if (how == ChildSends::OneAtATime) deps = {sent.back()};
        }
        if (how == ChildSends::Together) prev = sent;
        else if (!sent.empty()) prev = {sent.back()};
    }
}

std::vector<StepId> tree_reduce(Schedule& s, const TreeNode& t, const Segments& segs, bool root_into_out) {
    const std::uint64_t total = segs.total();
    const bool root = t.parent < 0;
    const std::size_t nc = t.children.size();
    // Accumulator: Out at the root (if asked), Tmp[0, total) otherwise. Child i's slot follows.
    const Buf acc = root && root_into_out ? Buf::Out : Buf::Tmp;
    const std::uint64_t slot0 = acc == Buf::Out ? 0 : total;
    if (acc == Buf::Tmp && (nc > 0 || root)) s.need_tmp(total);
    if (nc > 0) s.need_tmp(slot0 + nc * total);
    std::vector<StepId> finished;
    for (std::uint64_t k = 0; k < segs.count(); ++k) {
        const Span own = segs.span(Buf::In, k);
        const Span mine = segs.span(acc, k);
        StepId last = kNoStep;
        Span result = own;  // a leaf forwards its own input untouched
        if (nc > 0 || root) {
            last = s.copy(own, mine);
            result = mine;
        }
        for (std::size_t i = 0; i < nc; ++i) {
            const Span slot = segs.span(Buf::Tmp, k, slot0 + i * total);
            const StepId got = s.recv(t.children[i], slot);
            last = s.reduce(slot, mine, Order::DstLeft, {got, last});
        }
        if (!root) s.send(t.parent, result, {last});
        else finished.push_back(last);
    }
    return finished;
}

void throw_needs_commutative(const Request& r, const char* algorithm) {
    std::string ordered;
    for (const Algorithm* a : algorithms_for(r.coll))
        if (a->keeps_order) ordered += (ordered.empty() ? "" : ", ") + a->name;
    throw Error(std::string(to_string(r.coll)) + " algorithm '" + algorithm +
                "' combines contributions out of rank order; it needs a commutative operation "
                "(for a non-commutative one use: " + ordered + ")");
}

Schedule linear_blocks(const Request& r, Blocks way) {
    Schedule s(r.rank, r.size);
    const std::uint64_t m = r.bytes;
    const Segments segs(m, r.params.segment);
    const bool gather = way == Blocks::ToRoot;
    if (r.rank != r.root) {
        for (std::uint64_t k = 0; k < segs.count(); ++k)
            gather ? s.send(r.root, segs.span(Buf::In, k)) : s.recv(r.root, segs.span(Buf::Out, k));
        return s;
    }
    if (m > 0)
        s.copy(Span{Buf::In, gather ? 0 : r.root * m, m}, Span{Buf::Out, gather ? r.root * m : 0, m});
    for (int v = 1; v < r.size; ++v) {
        const int peer = to_rank(v, r.root, r.size);
        for (std::uint64_t k = 0; k < segs.count(); ++k)
            gather ? s.recv(peer, segs.span(Buf::Out, k, peer * m)) : s.send(peer, segs.span(Buf::In, k, peer * m));
    }
    return s;
}

BinomialBlocks binomial_blocks(const Request& r) {
    BinomialBlocks b;
    b.t = binomial_tree(r.size, r.root, r.rank);
    b.v = to_vrank(r.rank, r.root, r.size);
    b.n = binomial_subtree_size(r.size, b.v);
    b.m = r.bytes;
    if (b.v != 0)
        b.pieces = b.t.parent == r.root ? vrank_runs(b.v, b.n, r.root, r.size) : std::vector<VrankRun>{{b.v, b.n}};
    return b;
}

void binomial_root_blocks(Schedule& s, const Request& r, const std::vector<int>& children, Blocks way) {
    const int P = r.size;
    const std::uint64_t m = r.bytes;
    const bool gather = way == Blocks::ToRoot;
    const auto at = [m](int rank) { return static_cast<std::uint64_t>(rank) * m; };
    s.copy(Span{Buf::In, gather ? 0 : at(r.root), m}, Span{Buf::Out, gather ? at(r.root) : 0, m});
    for (int c : children) {
        const int cv = to_vrank(c, r.root, P);
        for (VrankRun p : vrank_runs(cv, binomial_subtree_size(P, cv), r.root, P)) {
            const std::uint64_t len = static_cast<std::uint64_t>(p.n) * m;
            gather ? s.recv(c, Span{Buf::Out, at(to_rank(p.v, r.root, P)), len})
                   : s.send(c, Span{Buf::In, at(to_rank(p.v, r.root, P)), len});
        }
    }
}

}  // namespace gridcoll::detail
