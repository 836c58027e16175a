// Linear and pairwise alltoallv — Open MPI's coll/basic and coll/tuned forms of MPI_Alltoallv
// (Pješivac-Grbović et al., "Performance analysis of MPI collective operations", Cluster
// Computing 10, 2007 — paper 002 §4.2 for the regular all-to-all): `linear` posts every send and
// receive at once; `pairwise` does step i = 1 .. P-1 (send to r+i, receive from r-i) after step
// i-1, one message in and one out at a time. Zero-byte blocks are not sent; a rank needs only
// its own send and receive counts.
//
// Cost (Hockney): linear alpha + (sum of my blocks) beta at my link; pairwise
// sum over the steps of (alpha + b_step beta).
#include "../core/builders.hpp"

namespace gridcoll::detail {

namespace {

Schedule alltoallv_steps(const Request& r, bool one_at_a_time) {
    Schedule s(r.rank, r.size);
    const Counts& c = *r.counts;
    const int P = r.size, me = r.rank;
    const auto send_span = [&](int j) { return Span{Buf::In, c.send_offset(me, j), c.pair(me, j)}; };
    const auto recv_span = [&](int i) { return Span{Buf::Out, c.recv_offset(me, i), c.pair(i, me)}; };
    if (c.pair(me, me) > 0) s.copy(send_span(me), recv_span(me));
    StepId sent = kNoStep, got = kNoStep;
    for (int i = 1; i < P; ++i) {
        const int to = (me + i) % P, from = (me - i + P) % P;
        const StepId snd = c.pair(me, to) > 0 ? s.send(to, send_span(to), {sent, got}) : kNoStep;
        const StepId rcv = c.pair(from, me) > 0 ? s.recv(from, recv_span(from), {sent, got}) : kNoStep;
        if (!one_at_a_time) continue;
        if (snd != kNoStep) sent = snd;
        if (rcv != kNoStep) got = rcv;
    }
    return s;
}

}  // namespace

Schedule alltoallv_linear(const Request& r) { return alltoallv_steps(r, false); }
Schedule alltoallv_pairwise(const Request& r) { return alltoallv_steps(r, true); }

}  // namespace gridcoll::detail
