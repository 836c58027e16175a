// Shared by pmpi_more's files: the communicators, the expected values, the ways a
// non-blocking call is completed.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "pmpi_operands.hpp"

namespace pmpi_more {

struct Comm {
    MPI_Comm comm;
    const char* name;
    int rank, size;
};

enum class Completion { Wait, Waitall, TestLoop, Waitany };

extern int g_world_rank;
extern thread_local const Comm* g_current;  // the communicator under test (Waitall's point-to-point ring)

void expect(bool ok, const std::string& what);
using pmpi_operands::value;  // the value rank r contributes at index i
// An uneven count for rank j around n, zero for some ranks.
int count_of(int j, long n);
// The non-commutative operation on pairs of uint32 (affine maps composed in rank order).
using pmpi_operands::affine;
using pmpi_operands::affine_fold;
using pmpi_operands::affine_of;
// Completes a non-blocking collective's request as `how` says.
void complete(MPI_Request* req, Completion how);

void test_blocking_more(const Comm& c, long n);
void test_nonblocking(const Comm& c, long n, Completion how);

}  // namespace pmpi_more
