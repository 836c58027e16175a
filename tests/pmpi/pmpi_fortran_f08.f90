! pmpi_fortran_f08: a Fortran program on the mpi_f08 bindings for the PMPI library's tests
! (pmpi_tests.sh, case fortran): broadcast, allreduce in place, reduce_scatter_block, their
! non-blocking forms completed by MPI_Wait and an MPI_Test loop, an alltoallw, on MPI_COMM_WORLD and on a
! communicator it splits; where the bindings take array sections (MPI_SUBARRAYS_SUPPORTED),
! a non-blocking broadcast and scatter into strided sections. Prints "pmpi_fortran_f08: N checks passed on P ranks" (rank 0) or
! stops with MPI_Abort naming the wrong result.
program pmpi_fortran_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, checks
  integer, parameter :: n = 300
  type(MPI_Comm) :: half

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  checks = 0
  call run(MPI_COMM_WORLD)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 3), rank, half)
  call MPI_Comm_set_name(half, 'f08-split')
  call run(half)
  call MPI_Comm_free(half)
  if (rank == 0) print '(a,i0,a,i0,a)', 'pmpi_fortran_f08: ', checks, ' checks passed on ', nprocs, ' ranks'
  call MPI_Finalize()

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'pmpi_fortran_f08: rank ', rank, ': wrong result: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    checks = checks + 1
  end subroutine

  integer function v(r, i)
    integer, intent(in) :: r, i
    v = mod(r * 7919 + i * 31, 1000) - 300
  end function

  subroutine run(comm)
    type(MPI_Comm), intent(in) :: comm
    type(MPI_Request) :: req
    integer :: me, p, i, r, world(0:nprocs - 1), members
    integer, allocatable :: a(:), b(:), expect(:), counts(:), displs(:)
    type(MPI_Datatype), allocatable :: types(:)
    logical :: flag
    call MPI_Comm_rank(comm, me)
    call MPI_Comm_size(comm, p)
    ! the world ranks of the members, in the communicator's order
    call MPI_Allgather(rank, 1, MPI_INTEGER, world, 1, MPI_INTEGER, comm)
    members = p
    allocate (a(n * p), b(n * p), expect(n * p))
    a = 0
    if (me == 0) a(1:n) = [(v(world(0), i), i = 1, n)]
    call MPI_Bcast(a, n, MPI_INTEGER, 0, comm)
    call check(all(a(1:n) == [(v(world(0), i), i = 1, n)]), 'MPI_Bcast')
    a = [(v(rank, i), i = 1, n * p)]
    expect = [(sum([(v(world(r), i), r = 0, members - 1)]), i = 1, n * p)]
    call MPI_Allreduce(MPI_IN_PLACE, a, n * p, MPI_INTEGER, MPI_SUM, comm)
    call check(all(a == expect), 'MPI_Allreduce MPI_IN_PLACE')
    a = [(v(rank, i), i = 1, n * p)]
    call MPI_Reduce_scatter_block(a, b, n, MPI_INTEGER, MPI_SUM, comm)
    call check(all(b(1:n) == expect(me * n + 1:me * n + n)), 'MPI_Reduce_scatter_block')
    call MPI_Iallreduce(a, b, n * p, MPI_INTEGER, MPI_SUM, comm, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call check(all(b == expect), 'MPI_Iallreduce')
    b = 0
    if (me == 0) b = a
    call MPI_Ibcast(b, n, MPI_INTEGER, 0, comm, req)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req, flag, MPI_STATUS_IGNORE)
    end do
    call check(all(b(1:n) == [(v(world(0), i), i = 1, n)]), 'MPI_Ibcast')
    ! all-to-all by MPI_Alltoallw: n integers to each rank, at byte displacements
    allocate (counts(p), displs(p), types(p))
    counts = n
    displs = [(r * n * (storage_size(n) / 8), r = 0, p - 1)]
    types = MPI_INTEGER
    a = [(v(rank, i), i = 1, n * p)]
    call MPI_Alltoallw(a, counts, displs, types, b, counts, displs, types, comm)
    call check(all(b == [((v(world(r), me * n + i), i = 1, n), r = 0, p - 1)]), 'MPI_Alltoallw')
    if (MPI_SUBARRAYS_SUPPORTED) call sections(comm, me, p, world)
  end subroutine

  ! Non-blocking calls on strided array sections: MPICH's mpi_f08 makes a datatype for the
  ! section and frees it (PMPI_Type_free) as soon as the call returns, before its completion.
  subroutine sections(comm, me, p, world)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: me, p, world(0:p - 1)
    type(MPI_Request) :: req
    integer :: i, r
    integer, allocatable :: c(:), d(:)
    allocate (c(2 * n), d(n * p))
    c = -1
    if (me == 0) c(1:2 * n:2) = [(v(world(0), i), i = 1, n)]
    call MPI_Ibcast(c(1:2 * n:2), n, MPI_INTEGER, 0, comm, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call check(all(c(1:2 * n:2) == [(v(world(0), i), i = 1, n)]) .and. (me == 0 .or. all(c(2:2 * n:2) == -1)), &
               'MPI_Ibcast on a section')
    d = [((v(world(r), i), i = 1, n), r = 0, p - 1)]
    c = -1
    call MPI_Iscatter(d, n, MPI_INTEGER, c(2:2 * n:2), n, MPI_INTEGER, 0, comm, req)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call check(all(c(2:2 * n:2) == [(v(world(me), i), i = 1, n)]) .and. all(c(1:2 * n:2) == -1), 'MPI_Iscatter on a section')
  end subroutine

end program
