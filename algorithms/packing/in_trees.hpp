// Streams along packed site trees (packing.hpp), inwards: the mirror of out_trees.hpp, for the
// reductions. Each destination's data is cut into shares, one per tree (trees packed on the
// network turned round), and pieces; for every piece each site adds up its members'
// contributions down a chain that ends at its forwarder, its sink adds up what its children in
// the tree send it and hands that to the forwarder, which adds the two and sends the sum on to its
// parent's sink. At the destination site the chain, and the children's sum, end at the piece's
// owner, whose Out receives the total.
//
// Roles as in out_trees.hpp: a site's sink only receives from the WAN and sends on its LAN, its
// forwarder only receives on its LAN and sends to the WAN (a site of one rank does both; a
// gateway does everything), and every rank emits its steps in the order the pieces are expected
// to move — a piece's key at a site is when its children's sums are expected there — and each
// stream has its own channel (j mod kChannels), so streams that share two ranks do not wait for
// each other.
//
// Operands are combined in no fixed order: commutative operations only.
//
// Internal to algorithms/.
#pragma once

#include <cstdint>
#include <vector>

#include "../hierarchical/compose.hpp"
#include "../hierarchical/sites.hpp"
#include "packing.hpp"

namespace gridcoll::detail {

// One piece of a reduction: where every rank's contribution is (In), where the total goes at its
// owner (Out), and the owner.
struct InPiece {
    Span in, out;
    int owner;
};

class InTrees {
public:
    // `work`: a scratch range of the vector's size (a non-owner's partial sums of piece k sit at
    // work.off + in.off - in_base, in_base being where the vector starts in In).
    InTrees(const Request& r, Composer& c, const Sites& sites, const SiteGraph& g, int level, std::uint64_t seg, int win,
            Span work, std::uint64_t in_base);

    // Destination site `dst`: `pieces` (in order, owners in dst) reduced along `trees` (rooted at
    // dst, parents pointing towards it).
    void add_destination(int dst, const std::vector<InPiece>& data, const RootTrees& trees);

    // Streams use channels first .. first + count - 1 (default: all of them): two schedules on
    // the same ranks (an allreduce's in- and out-trees) keep apart by taking halves.
    void use_channels(std::size_t first, std::size_t count) { first_channel_ = first, channels_ = count; }
    // Default pieces small enough that each tree carries `pieces_a_tree` of them (least_piece; 0:
    // none smaller than kLeastPiece, the default).
    void cut_pieces(double pieces_a_tree) { pieces_a_tree_ = pieces_a_tree; }

    void build();

    int sink(int site) const { return sink_[static_cast<std::size_t>(site)]; }
    int forwarder(int site) const { return fwd_[static_cast<std::size_t>(site)]; }

private:
    struct Stream {
        int dst = 0;
        SiteTree tree;
        std::vector<InPiece> pieces;
        std::vector<double> ready;        // per site: when its children's sums are expected there
        std::vector<double> before;       // per piece: the share's bytes before it over the rate
        std::vector<std::size_t> window;  // per site: WAN receives posted at a time per child
        double piece_time = 0;
        double arrive(std::size_t k, int child, double lat) const {  // child's sum at its parent
            return ready[static_cast<std::size_t>(child)] + lat + piece_time + 1e-6 + before[k];
        }
    };
    enum class Kind : std::uint8_t { Chain, ChildRecv, Combine, AccumSend, AccumRecv, Up };
    struct Event {
        double key;
        std::size_t j, k;
        Kind kind;
        int index;  // ChildRecv: which child
    };
    void events_of(std::size_t j, std::vector<Event>& out) const;
    void emit(const Event& e);
    void chain_step(const Stream& st, std::size_t j, std::size_t k);
    std::vector<int> chain_of(const Stream& st, std::size_t k) const;
    int end_of(const Stream& st, std::size_t k) const;  // where the site's sum of piece k ends
    Span work_of(const Stream& st, std::size_t k) const;
    Span slot(std::size_t j, std::size_t k, std::size_t index) const;

    std::size_t first_channel_ = 0, channels_ = kChannels;
    double pieces_a_tree_ = 0;
    const Request& r_;
    Composer& c_;
    const Sites& sites_;
    const SiteGraph& g_;
    std::uint64_t seg_;
    int win_;
    int my_site_;
    Span work_;
    std::uint64_t in_base_;
    std::vector<int> sink_, fwd_;
    std::vector<Stream> streams_;
    std::vector<std::vector<std::vector<StepId>>> got_;  // [stream][child][piece]: my WAN receive
    std::vector<std::vector<Span>> slots_;              // [stream][child index]: scratch for its sums
    std::vector<std::vector<std::uint64_t>> share_at_;  // [stream][piece]: its offset in the share
    std::vector<StepId> chain_got_;                     // [stream]: one chain receive posted at a time
};

}  // namespace gridcoll::detail
