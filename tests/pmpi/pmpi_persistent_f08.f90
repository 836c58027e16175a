! pmpi_persistent_f08: persistent collectives from Fortran's mpi_f08 bindings (MPI 4; MPICH 4,
! whose f08 MPI_Start, MPI_Wait... call PMPI_* themselves) for the PMPI library's tests
! (pmpi_tests_mpich.sh): an allreduce in place and a broadcast made once by
! MPI_Allreduce_init / MPI_Bcast_init and started three times over, by MPI_Start and MPI_Wait, by
! MPI_Startall and MPI_Waitall, and by MPI_Startall with MPI_Test and MPI_Request_get_status
! loops; each result checked, the handles unchanged, MPI_Request_free leaving MPI_REQUEST_NULL.
! Prints "pmpi_persistent_f08: N checks passed on P ranks" (rank 0) or stops with MPI_Abort.
program pmpi_persistent_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 500
  integer :: rank, nprocs, checks, round, i, a(n), b(n)
  type(MPI_Request) :: reqs(2), made(2)
  logical :: flag, done

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  checks = 0
  call MPI_Allreduce_init(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(1))
  call MPI_Bcast_init(b, n, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(2))
  made = reqs
  do round = 0, 2
    a = [(rank * i + round, i = 1, n)]
    b = -1
    if (rank == nprocs - 1) b = [(i * 3 + round, i = 1, n)]
    select case (round)
    case (0)
      call MPI_Start(reqs(1))
      call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
      call MPI_Start(reqs(2))
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
    case (1)
      call MPI_Startall(2, reqs)
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    case default
      call MPI_Startall(2, reqs)
      flag = .false.
      do while (.not. flag)
        call MPI_Request_get_status(reqs(2), flag, MPI_STATUS_IGNORE)
      end do
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
      flag = .false.
      do while (.not. flag)
        call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE)
      end do
    end select
    call check(all(a == [(i * nprocs * (nprocs - 1) / 2 + nprocs * round, i = 1, n)]), 'persistent MPI_Allreduce')
    call check(all(b == [(i * 3 + round, i = 1, n)]), 'persistent MPI_Bcast')
    call check(reqs(1) == made(1) .and. reqs(2) == made(2), 'a handle changed')
    call MPI_Test(reqs(1), done, MPI_STATUS_IGNORE)
    call check(done, 'MPI_Test on an inactive handle')
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'MPI_Request_free')
  if (rank == 0) print '(a,i0,a,i0,a)', 'pmpi_persistent_f08: ', checks, ' checks passed on ', nprocs, ' ranks'
  call MPI_Finalize()

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'pmpi_persistent_f08: rank ', rank, ': wrong: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
    checks = checks + 1
  end subroutine

end program
