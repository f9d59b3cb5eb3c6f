# shellcheck shell=bash
# mpi-env.sh - sourced by the benchmarks that launch ranks (heat2d-scaling.sh,
# cg-baseline.sh, cpu-baseline.sh): the launcher and its flags, and Open
# MPI's environment for this machine.
#   mpiexec   MPIEXEC, default mpirun
#   mpiflags  MPIEXEC_FLAGS, default Open MPI's --oversubscribe -x OMP_NUM_THREADS
# As root (CI, a container) Open MPI refuses to start without
# OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM); its single-copy mechanism defaults to
# none (containers forbid the cross-memory attach it tries).
# shellcheck disable=SC2034 # used by the scripts that source this
mpiexec=${MPIEXEC:-mpirun}
# shellcheck disable=SC2034
mpiflags=${MPIEXEC_FLAGS:---oversubscribe -x OMP_NUM_THREADS}
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
