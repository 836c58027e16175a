/* coupling_probe: when does a LAN message stall a node's WAN messages under SMPI?
 * (docs/design/tree-packing-misses.md, "The coupling probed").
 *
 * Ranks 0, 1, 2 share a site's LAN; rank 4 is in another site, across a WAN link. Rank 0 takes
 * in (side "sink") or sends out (side "forwarder") a WAN stream of 1 MiB in 64 KiB messages, all
 * posted at once, while LAN traffic of 20 MiB in 512 KiB messages flows:
 *   none:   no LAN traffic (the WAN stream alone);
 *   alone:  between rank 0 and rank 1 only (sink: 0 -> 1; forwarder: 1 -> 0);
 *   shared: the same, and as much again between rank 1 and rank 2 at once (sink: 2 -> 1, so the
 *           two share rank 1's link in; forwarder: 1 -> 2, so they share rank 1's link out).
 * Prints "coupling_probe <side> <case>: wan <s> lan <s>": when the WAN stream and the LAN
 * traffic ended (simulated seconds from a common start; lan 0 for none).
 *
 *   coupling_probe sink|forwarder none|alone|shared      (8 ranks, two sites of four)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kWanPieces = 16, kWanBytes = 64 * 1024, kLanPieces = 40, kLanBytes = 512 * 1024 };

static void post(int send, char* buf, int pieces, int bytes, int peer, int tag, MPI_Request* rq, int* n) {
    for (int i = 0; i < pieces; ++i) {
        char* at = buf + (size_t)i * (size_t)bytes;
        if (send) MPI_Isend(at, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[(*n)++]);
        else MPI_Irecv(at, bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[(*n)++]);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int me = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int sink = argc == 3 && strcmp(argv[1], "sink") == 0;
    const int lan = argc == 3 && strcmp(argv[2], "none") != 0, shared = argc == 3 && strcmp(argv[2], "shared") == 0;
    if (argc != 3 || (!sink && strcmp(argv[1], "forwarder") != 0) || (lan && !shared && strcmp(argv[2], "alone") != 0) || size < 5) {
        if (me == 0) fprintf(stderr, "usage: coupling_probe sink|forwarder none|alone|shared (at least 5 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char* lan_buf = calloc((size_t)kLanPieces * kLanBytes, 1);
    char* wan_buf = calloc((size_t)kWanPieces * kWanBytes, 1);
    MPI_Request wan[kWanPieces], rq[2 * kLanPieces];
    int nw = 0, n = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    /* the WAN stream: into rank 0 (sink) or out of it (forwarder) */
    if (me == 0) post(!sink, wan_buf, kWanPieces, kWanBytes, 4, 1, wan, &nw);
    if (me == 4) post(sink, wan_buf, kWanPieces, kWanBytes, 0, 1, wan, &nw);
    /* the LAN traffic between ranks 0 and 1, and between 1 and 2 where shared */
    if (lan && me == 0) post(sink, lan_buf, kLanPieces, kLanBytes, 1, 2, rq, &n);
    if (lan && me == 1) post(!sink, lan_buf, kLanPieces, kLanBytes, 0, 2, rq, &n);
    if (shared && me == 1) post(!sink, lan_buf, kLanPieces, kLanBytes, 2, 3, rq, &n);
    if (shared && me == 2) post(sink, lan_buf, kLanPieces, kLanBytes, 1, 3, rq, &n);
    MPI_Waitall(nw, wan, MPI_STATUSES_IGNORE);
    double wan_end = nw ? MPI_Wtime() - t0 : 0;
    MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    double lan_end = n && me != 0 ? MPI_Wtime() - t0 : 0, wan_s = 0, lan_s = 0;  /* rank 1's end: rank 0 waits for its WAN first */
    MPI_Reduce(&wan_end, &wan_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&lan_end, &lan_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) printf("coupling_probe %s %s: wan %.4f lan %.4f\n", argv[1], argv[2], wan_s, lan_s);
    free(lan_buf);
    free(wan_buf);
    MPI_Finalize();
    return 0;
}
