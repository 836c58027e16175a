#include "call_parts.hpp"

#include "nonblocking.hpp"

#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace gridcoll::pmpi {

bool execute(CommState& cs, const CallShape& call, const Choice& ch, int root, Buffers b, const ReduceFn* reduce,
             MPI_Request* nb) {
    std::shared_ptr<const BuiltSchedule> s = cs.schedule(call, ch.method, root);
    if (!s) return false;
    b.tmp = cs.scratch(kTmp, s->schedule.tmp_bytes());
    cs.run(std::move(s), b, reduce, nb);
    return true;
}

namespace {

bool predefined(MPI_Op op) {
    for (MPI_Op known : {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR,
                         MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP})
        if (op == known) return true;
    return false;
}

// Held while the program's own reduction functions run. The library may run them on two threads
// at once (a pending non-blocking reduction on the progress thread, or in another thread's wait,
// while a blocking one reduces), which MPI never does in a program below MPI_THREAD_MULTIPLE:
// a function with state of its own (a static scratch, Fortran's SAVE) would break.
std::mutex& user_function_lock() {
    static std::mutex* const lock = new std::mutex;  // never destroyed: the progress thread may outlive statics
    return *lock;
}

// inoutbuf = inbuf op inoutbuf, by MPI_Reduce_local; the program's own functions one at a time.
void reduce_local(const void* in, void* inout, int n, MPI_Datatype type, MPI_Op op, bool user) {
    if (!user) {
        PMPI_Reduce_local(in, inout, n, type, op);
        return;
    }
    std::lock_guard<std::mutex> one_at_a_time(user_function_lock());
    PMPI_Reduce_local(in, inout, n, type, op);
}

}  // namespace

bool commutes(MPI_Op op) {
    // the predefined operations of collectives commute (the fast path); ask MPI about the others
    for (MPI_Op known : {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR})
        if (op == known) return true;
    int c = 1;
    PMPI_Op_commutative(op, &c);
    return c != 0;
}

// Reduction steps by MPI_Reduce_local: inoutbuf = inbuf op inoutbuf. dst op src (Order::DstLeft)
// of a non-commutative operation goes through a copy of src.
ReduceFn reducer(CommState&, MPI_Datatype type, MPI_Op op, std::uint64_t elem, bool commutative) {
    // Its own scratch: a pending non-blocking reduction may run in another thread's MPI_Wait
    // while this communicator's next blocking one reduces.
    auto scratch = std::make_shared<std::vector<std::byte>>();
    const bool user = !predefined(op);
    return [scratch, type, op, elem, commutative, user](const std::byte* src, std::byte* dst, std::size_t bytes,
                                                        Order order) {
        const int n = static_cast<int>(bytes / elem);
        if (order == Order::SrcLeft || commutative) {
            reduce_local(src, dst, n, type, op, user);
            return;
        }
        std::vector<std::byte>& t = *scratch;
        t.assign(src, src + bytes);
        reduce_local(dst, t.data(), n, type, op, user);
        std::memcpy(dst, t.data(), bytes);
    };
}

bool aliased(bool checked, const void* a, const void* b, MPI_Comm comm, const char* name, MPI_Request* nb, int* rc) {
    if (!checked || a != b || a == MPI_IN_PLACE || a == MPI_BOTTOM) return false;
    log(std::string(name) + ": the send buffer is the receive buffer (MPI_IN_PLACE is MPI's way): MPI_ERR_BUFFER");
    if (nb) *nb = MPI_REQUEST_NULL;
    *rc = MPI_ERR_BUFFER;
    PMPI_Comm_call_errhandler(comm, MPI_ERR_BUFFER);
    return true;
}

const void* block_at(const void* buf, MPI_Aint blocks, MPI_Datatype type) {
    int size = 0;
    PMPI_Type_size(type, &size);
    return static_cast<const char*>(buf) + blocks * size;
}

// The input of a reduction: the send buffer, or with MPI_IN_PLACE (or a send buffer that is the
// receive buffer, where aliased() let it through) a copy of the receive buffer.
const std::byte* reduction_input(CommState& cs, const void* sendbuf, const void* recvbuf, const Layout& l) {
    if (sendbuf != MPI_IN_PLACE && sendbuf != recvbuf) return data_of(sendbuf, l);
    std::byte* in = cs.scratch(kIn, l.bytes);
    std::memcpy(in, data_of(recvbuf, l), l.bytes);
    return in;
}

MPI_Aint extent_of(MPI_Datatype t) {
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(t, &lb, &extent);
    return extent;
}

// `count` elements of `type` at `buf` as `bytes` contiguous bytes: in place, or packed into
// scratch `which`.
const std::byte* contiguous_input(CommState& cs, int which, const void* buf, long long count, MPI_Datatype type,
                                  std::uint64_t bytes, MPI_Comm comm) {
    const Layout l = layout_of(type, count);
    if (l.contiguous) return data_of(buf, l);
    std::byte* p = cs.scratch(which, bytes);
    pack(buf, count, type, p, bytes, comm);
    return p;
}

Output output_of(CommState& cs, void* buf, long long count, MPI_Datatype type, std::uint64_t bytes) {
    const Layout l = layout_of(type, count);
    if (l.contiguous) return {data_of(buf, l), false};
    return {cs.scratch(kOut, bytes), true};
}
void finish_output(const Output& o, std::uint64_t bytes, void* buf, long long count, MPI_Datatype type, MPI_Comm comm) {
    if (o.packed) unpack_at_completion([=](MPI_Datatype t) { unpack(o.data, bytes, buf, count, t, comm); }, type);
}

void unpack_at_completion(std::function<void(MPI_Datatype)> unpack, MPI_Datatype type) {
    if (!engine().building()) return unpack(type);
    // The same type map, made without the program's attributes (MPI_Type_dup would copy them,
    // calling its callbacks).
    MPI_Datatype own = MPI_DATATYPE_NULL;
    if (PMPI_Type_contiguous(1, type, &own) != MPI_SUCCESS || PMPI_Type_commit(&own) != MPI_SUCCESS)
        throw std::runtime_error("MPI_Type_contiguous failed on the output datatype of a non-blocking collective");
    when_complete([unpack = std::move(unpack), own]() mutable {
        unpack(own);
        PMPI_Type_free(&own);
    });
}

}  // namespace gridcoll::pmpi
