! pmpi_fortran: an ordinary Fortran MPI program (`use mpi`) for the PMPI library's tests
! (pmpi_tests.sh, case fortran; pmpi_tests_mpich.sh). It calls the collectives, blocking and not, with
! MPI_IN_PLACE where MPI allows it, on MPI_COMM_WORLD and on communicators it splits and
! duplicates, checks every result against what MPI defines, and prints
! "pmpi_fortran: N checks passed on P ranks" (rank 0) or stops with MPI_Abort naming the check.
! Usage: pmpi_fortran [COUNT]  (elements a rank; default 300)
program pmpi_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, n, checks
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = 300
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  checks = 0
  call rooted(MPI_COMM_WORLD)
  call reductions(MPI_COMM_WORLD)
  call irregular(MPI_COMM_WORLD)
  call nonblocking(MPI_COMM_WORLD)
  call on_new_communicators()
  call point_to_point(MPI_COMM_WORLD)
  if (abs(MPI_Wtime()) < 0d0) call fail('MPI_Wtime')
  if (rank == 0) print '(a,i0,a,i0,a)', 'pmpi_fortran: ', checks, ' checks passed on ', nprocs, ' ranks'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) call fail(what)
    checks = checks + 1
  end subroutine

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'pmpi_fortran: rank ', rank, ': wrong result: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine

  ! The value element I of rank R contributes.
  integer function v(r, i)
    integer, intent(in) :: r, i
    v = mod(r * 7919 + i * 31, 1000) - 300
  end function

  subroutine rooted(comm)
    integer, intent(in) :: comm
    integer :: me, p, root, i, r
    integer, allocatable :: a(:), g(:)
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Comm_size(comm, p, ierr)
    root = mod(1, p)
    allocate (a(n), g(n * p))
    a = 0
    if (me == root) a = [(v(root, i), i = 1, n)]
    call MPI_Bcast(a, n, MPI_INTEGER, root, comm, ierr)
    call check(all(a == [(v(root, i), i = 1, n)]), 'MPI_Bcast')
    a = [(v(me, i), i = 1, n)]
    call MPI_Gather(a, n, MPI_INTEGER, g, n, MPI_INTEGER, root, comm, ierr)
    if (me == root) call check(all(g == [((v(r, i), i = 1, n), r = 0, p - 1)]), 'MPI_Gather')
    g = 0
    if (me == root) g = [((v(r, i) + 1, i = 1, n), r = 0, p - 1)]
    call MPI_Scatter(g, n, MPI_INTEGER, a, n, MPI_INTEGER, root, comm, ierr)
    call check(all(a == [(v(me, i) + 1, i = 1, n)]), 'MPI_Scatter')
    g = -1
    call MPI_Allgather(a, n, MPI_INTEGER, g, n, MPI_INTEGER, comm, ierr)
    call check(all(g == [((v(r, i) + 1, i = 1, n), r = 0, p - 1)]), 'MPI_Allgather')
    call MPI_Barrier(comm, ierr)
  end subroutine

  subroutine reductions(comm)
    integer, intent(in) :: comm
    integer :: me, p, root, i, r
    double precision, allocatable :: d(:), expect(:)
    integer, allocatable :: a(:), b(:)
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Comm_size(comm, p, ierr)
    root = p - 1
    allocate (d(n), expect(n), a(n * p), b(n * p))
    d = [(dble(v(me, i)), i = 1, n)]
    expect = [(dble(sum([(v(r, i), r = 0, p - 1)])), i = 1, n)]
    call MPI_Allreduce(MPI_IN_PLACE, d, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call check(all(d == expect), 'MPI_Allreduce MPI_IN_PLACE')
    a(1:n) = [(v(me, i), i = 1, n)]
    if (me == root) then
      call MPI_Reduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_MAX, root, comm, ierr)
      call check(all(a(1:n) == [(maxval([(v(r, i), r = 0, p - 1)]), i = 1, n)]), 'MPI_Reduce MPI_IN_PLACE')
    else
      call MPI_Reduce(a, b, n, MPI_INTEGER, MPI_MAX, root, comm, ierr)
    end if
    a(1:n) = [(v(me, i), i = 1, n)]
    call MPI_Scan(a, b, n, MPI_INTEGER, MPI_SUM, comm, ierr)
    call check(all(b(1:n) == [(sum([(v(r, i), r = 0, me)]), i = 1, n)]), 'MPI_Scan')
    call MPI_Exscan(a, b, n, MPI_INTEGER, MPI_SUM, comm, ierr)
    if (me > 0) call check(all(b(1:n) == [(sum([(v(r, i), r = 0, me - 1)]), i = 1, n)]), 'MPI_Exscan')
    a = [(v(me, i), i = 1, n * p)]
    call MPI_Reduce_scatter_block(a, b, n, MPI_INTEGER, MPI_SUM, comm, ierr)
    call check(all(b(1:n) == [(sum([(v(r, i), r = 0, p - 1)]), i = me * n + 1, me * n + n)]), &
               'MPI_Reduce_scatter_block')
  end subroutine

  ! The v-variants, alltoallw and reduce_scatter: rank r's block holds n + r elements.
  subroutine irregular(comm)
    integer, intent(in) :: comm
    integer :: me, p, i, r, total, req, bytes
    integer, allocatable :: counts(:), displs(:), a(:), g(:), expect(:), scounts(:), sbytes(:), rbytes(:), types(:)
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Comm_size(comm, p, ierr)
    allocate (counts(p), displs(p))
    counts = [(n + r, r = 0, p - 1)]
    displs = [(sum(counts(1:r)), r = 0, p - 1)]
    total = sum(counts)
    allocate (a(total), g(total), expect(total))
    a = [(v(me, i), i = 1, total)]
    expect = [((v(r, i), i = 1, n + r), r = 0, p - 1)]
    call MPI_Allgatherv(a, n + me, MPI_INTEGER, g, counts, displs, MPI_INTEGER, comm, ierr)
    call check(all(g == expect), 'MPI_Allgatherv')
    g = 0
    call MPI_Gatherv(a, n + me, MPI_INTEGER, g, counts, displs, MPI_INTEGER, 0, comm, ierr)
    if (me == 0) call check(all(g == expect), 'MPI_Gatherv')
    call MPI_Scatterv(expect, counts, displs, MPI_INTEGER, a, n + me, MPI_INTEGER, 0, comm, ierr)
    call check(all(a(1:n + me) == [(v(me, i), i = 1, n + me)]), 'MPI_Scatterv')
    a = [(v(me, i), i = 1, total)]
    call MPI_Reduce_scatter(a, g, counts, MPI_INTEGER, MPI_SUM, comm, ierr)
    call check(all(g(1:n + me) == [(sum([(v(r, i), r = 0, p - 1)]), i = displs(me + 1) + 1, displs(me + 1) + n + me)]), &
               'MPI_Reduce_scatter')
    ! all-to-all: rank r sends n + r elements to each rank
    deallocate (a, g)
    allocate (a((n + me) * p), g(total))
    a = [((v(me, i) + 1000 * r, i = 1, n + me), r = 0, p - 1)]
    call MPI_Alltoallv(a, [(n + me, r = 1, p)], [((n + me) * r, r = 0, p - 1)], MPI_INTEGER, g, counts, displs, &
                       MPI_INTEGER, comm, ierr)
    call check(all(g == [((v(r, i) + 1000 * me, i = 1, n + r), r = 0, p - 1)]), 'MPI_Alltoallv')
    ! the same as alltoallw (displacements in bytes, a datatype per block), blocking and not
    bytes = storage_size(me) / 8
    allocate (scounts(p), sbytes(p), rbytes(p), types(p))
    scounts = [(n + me, r = 1, p)]
    sbytes = [((n + me) * r * bytes, r = 0, p - 1)]
    rbytes = displs * bytes
    types = [(MPI_INTEGER, r = 1, p)]
    g = 0
    call MPI_Alltoallw(a, scounts, sbytes, types, g, counts, rbytes, types, comm, ierr)
    call check(all(g == [((v(r, i) + 1000 * me, i = 1, n + r), r = 0, p - 1)]), 'MPI_Alltoallw')
    g = 0
    call MPI_Ialltoallw(a, scounts, sbytes, types, g, counts, rbytes, types, comm, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(all(g == [((v(r, i) + 1000 * me, i = 1, n + r), r = 0, p - 1)]), 'MPI_Ialltoallw')
  end subroutine

  ! The non-blocking forms, completed by MPI_Wait, MPI_Waitall, MPI_Waitany, an MPI_Test loop,
  ! an MPI_Testsome loop and an MPI_Waitsome loop.
  subroutine nonblocking(comm)
    integer, intent(in) :: comm
    integer :: me, p, i, r, req, reqs(3), idx, done, outcount, indices(2), statuses(MPI_STATUS_SIZE, 2)
    logical :: flag
    integer, allocatable :: a(:), b(:), c(:), g(:)
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Comm_size(comm, p, ierr)
    allocate (a(max(n, p)), b(n), c(max(n, p)), g(n * p))
    a = [(v(me, i), i = 1, n)]
    call MPI_Iallreduce(a, b, n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(req == MPI_REQUEST_NULL .and. all(b == [(sum([(v(r, i), r = 0, p - 1)]), i = 1, n)]), 'MPI_Iallreduce')
    c = 0
    if (me == 0) c = a
    call MPI_Ibcast(c, n, MPI_INTEGER, 0, comm, reqs(1), ierr)
    call MPI_Iallgather(a, n, MPI_INTEGER, g, n, MPI_INTEGER, comm, reqs(2), ierr)
    call MPI_Ibarrier(comm, reqs(3), ierr)
    call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(all(c == [(v(0, i), i = 1, n)]), 'MPI_Ibcast')
    call check(all(g == [((v(r, i), i = 1, n), r = 0, p - 1)]), 'MPI_Iallgather')
    b = a
    call MPI_Iscan(MPI_IN_PLACE, b, n, MPI_INTEGER, MPI_SUM, comm, reqs(1), ierr)
    call MPI_Ireduce(a, c, n, MPI_INTEGER, MPI_MIN, 0, comm, reqs(2), ierr)
    done = 0
    do while (done < 2)
      call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
      call check(idx == 1 .or. idx == 2, 'MPI_Waitany index')
      call check(reqs(idx) == MPI_REQUEST_NULL, 'MPI_Waitany request')
      done = done + 1
    end do
    call check(all(b == [(sum([(v(r, i), r = 0, me)]), i = 1, n)]), 'MPI_Iscan MPI_IN_PLACE')
    if (me == 0) call check(all(c == [(minval([(v(r, i), r = 0, p - 1)]), i = 1, n)]), 'MPI_Ireduce')
    c(1:p) = [(v(me, 1) + r, r = 0, p - 1)]
    call MPI_Ialltoall(c, 1, MPI_INTEGER, g, 1, MPI_INTEGER, comm, req, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
    end do
    call check(all(g(1:p) == [(v(r, 1) + me, r = 0, p - 1)]), 'MPI_Ialltoall')
    ! MPI_Testsome with statuses until both are in, then MPI_Testany with none active
    b = 0
    c = 0
    if (me == p - 1) c(1:n) = a(1:n)
    call MPI_Iallreduce(a, b, n, MPI_INTEGER, MPI_MAX, comm, reqs(1), ierr)
    call MPI_Ibcast(c, n, MPI_INTEGER, p - 1, comm, reqs(2), ierr)
    done = 0
    do while (done < 2)
      call MPI_Testsome(2, reqs, outcount, indices, statuses, ierr)
      call check(outcount >= 0 .and. outcount <= 2 - done, 'MPI_Testsome count')
      call check(all(indices(1:outcount) >= 1 .and. indices(1:outcount) <= 2), 'MPI_Testsome indices')
      done = done + outcount
    end do
    call check(all(reqs(1:2) == MPI_REQUEST_NULL), 'MPI_Testsome requests')
    call check(all(b == [(maxval([(v(r, i), r = 0, p - 1)]), i = 1, n)]), 'MPI_Iallreduce MPI_MAX')
    call check(all(c(1:n) == [(v(p - 1, i), i = 1, n)]), 'MPI_Ibcast (last root)')
    ! MPI_Waitsome with statuses until both are in
    b = 0
    call MPI_Iallreduce(a, b, n, MPI_INTEGER, MPI_MIN, comm, reqs(1), ierr)
    call MPI_Ibarrier(comm, reqs(2), ierr)
    done = 0
    do while (done < 2)
      call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
      call check(outcount >= 1 .and. outcount <= 2 - done, 'MPI_Waitsome count')
      call check(all(indices(1:outcount) >= 1 .and. indices(1:outcount) <= 2), 'MPI_Waitsome indices')
      call check(all(reqs(indices(1:outcount)) == MPI_REQUEST_NULL), 'MPI_Waitsome requests')
      done = done + outcount
    end do
    call check(all(b == [(minval([(v(r, i), r = 0, p - 1)]), i = 1, n)]), 'MPI_Iallreduce MPI_MIN')
    ! (MPICH 4.0's Fortran binding adds 1 to MPI_UNDEFINED there, with or without the library)
    call MPI_Testany(2, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    call check(flag .and. (idx == MPI_UNDEFINED .or. idx == MPI_UNDEFINED + 1), 'MPI_Testany with none active')
  end subroutine

  ! A communicator split in two halves and a duplicate of MPI_COMM_WORLD: their collectives,
  ! the first one non-blocking, then freed.
  subroutine on_new_communicators()
    integer :: half, dup, req, me, p, i, r, s
    integer, allocatable :: a(:), b(:)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
    call MPI_Comm_set_name(half, 'fortran-half', ierr)
    call MPI_Comm_rank(half, me, ierr)
    call MPI_Comm_size(half, p, ierr)
    allocate (a(n), b(n))
    a = [(v(rank, i), i = 1, n)]
    call MPI_Iallreduce(a, b, n, MPI_INTEGER, MPI_SUM, half, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    s = 0
    do r = mod(rank, 2), nprocs - 1, 2
      s = s + 1
    end do
    call check(s == p, 'MPI_Comm_split size')
    call check(all(b == [(sum([(v(r, i), r = mod(rank, 2), nprocs - 1, 2)]), i = 1, n)]), 'MPI_Iallreduce (split)')
    call rooted(half)
    call reductions(half)
    call MPI_Comm_free(half, ierr)
    call check(half == MPI_COMM_NULL, 'MPI_Comm_free')
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call irregular(dup)
    call nonblocking(dup)
    call MPI_Comm_free(dup, ierr)
  end subroutine

  ! Blocking point-to-point calls while a non-blocking broadcast is pending (MPI's progress rule):
  ! every rank but the last starts a broadcast from rank 0 and waits in MPI_Recv, MPI_Probe,
  ! MPI_Sendrecv, MPI_Sendrecv_replace or MPI_Ssend for the last rank, which answers only once its
  ! own broadcast is done; the rank that forwards the broadcast to it must advance it from there.
  subroutine point_to_point(comm)
    integer, intent(in) :: comm
    integer :: me, p, i, r, kind, req, got, status(MPI_STATUS_SIZE)
    integer, allocatable :: c(:)
    character(len=*), parameter :: names(5) = [character(len=20) :: 'MPI_Recv', 'MPI_Probe', 'MPI_Sendrecv', &
                                                'MPI_Sendrecv_replace', 'MPI_Ssend']
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Comm_size(comm, p, ierr)
    allocate (c(n))
    do kind = 1, 5
      c = 0
      if (me == 0) c = [(v(kind, i), i = 1, n)]
      call MPI_Ibcast(c, n, MPI_INTEGER, 0, comm, req, ierr)
      if (me == p - 1) then
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        do r = 0, p - 2
          if (kind >= 3) then
            call MPI_Recv(got, 1, MPI_INTEGER, r, 7, comm, MPI_STATUS_IGNORE, ierr)
            call check(got == r, trim(names(kind)) // ' (sent)')
          end if
          if (kind /= 5) call MPI_Send(1000 + r, 1, MPI_INTEGER, r, 7, comm, ierr)
        end do
      else
        got = me
        select case (kind)
        case (1)
          call MPI_Recv(got, 1, MPI_INTEGER, p - 1, 7, comm, status, ierr)
        case (2)
          call MPI_Probe(p - 1, 7, comm, status, ierr)
          call MPI_Recv(got, 1, MPI_INTEGER, status(MPI_SOURCE), 7, comm, status, ierr)
        case (3)
          call MPI_Sendrecv(me, 1, MPI_INTEGER, p - 1, 7, got, 1, MPI_INTEGER, p - 1, 7, comm, status, ierr)
        case (4)
          call MPI_Sendrecv_replace(got, 1, MPI_INTEGER, p - 1, 7, p - 1, 7, comm, status, ierr)
        case (5)
          call MPI_Ssend(me, 1, MPI_INTEGER, p - 1, 7, comm, ierr)
        end select
        if (kind /= 5) call check(got == 1000 + me .and. status(MPI_SOURCE) == p - 1, names(kind))
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      end if
      call check(all(c == [(v(kind, i), i = 1, n)]), 'MPI_Ibcast next to ' // trim(names(kind)))
    end do
    call mixed_waitall(comm)
  end subroutine

  ! One MPI_Waitall over a non-blocking broadcast and a ring exchange's receive and send: each
  ! request's status is its own (the receive's source and tag), the null one's empty.
  subroutine mixed_waitall(comm)
    integer, intent(in) :: comm
    integer :: me, p, i, got, reqs(4), statuses(MPI_STATUS_SIZE, 4)
    integer, allocatable :: c(:)
    call MPI_Comm_rank(comm, me, ierr)
    call MPI_Comm_size(comm, p, ierr)
    allocate (c(n))
    c = 0
    if (me == 0) c = [(v(9, i), i = 1, n)]
    got = -1
    reqs(4) = MPI_REQUEST_NULL
    call MPI_Ibcast(c, n, MPI_INTEGER, 0, comm, reqs(1), ierr)
    call MPI_Irecv(got, 1, MPI_INTEGER, modulo(me - 1, p), 8, comm, reqs(2), ierr)
    call MPI_Isend(me, 1, MPI_INTEGER, modulo(me + 1, p), 8, comm, reqs(3), ierr)
    call MPI_Waitall(4, reqs, statuses, ierr)
    call check(all(reqs == MPI_REQUEST_NULL), 'MPI_Waitall (mixed) requests')
    call check(got == modulo(me - 1, p), 'MPI_Waitall (mixed) received')
    call check(statuses(MPI_SOURCE, 2) == modulo(me - 1, p) .and. statuses(MPI_TAG, 2) == 8, &
               'MPI_Waitall (mixed) status of the receive')
    call check(statuses(MPI_SOURCE, 4) == MPI_ANY_SOURCE .and. statuses(MPI_TAG, 4) == MPI_ANY_TAG, &
               'MPI_Waitall (mixed) status of the null request')
    call check(all(c == [(v(9, i), i = 1, n)]), 'MPI_Ibcast beside MPI_Irecv / MPI_Isend')
  end subroutine

end program
