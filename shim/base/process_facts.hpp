// What the shim reads about its own process and machine when a trace starts: from
// /proc, /sys, the environment and an existing trace file. Threads: any; each call
// reads afresh (nothing cached), allocates and may take a few system calls, so none
// belongs on the enqueue path.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace clprof::shim {

// The process's argv, from /proc/self/cmdline (empty if it cannot be read).
std::vector<std::string> command_line();

// CLPROF_ROOT_PID: the pid of the first process of the recorded run (0 if unset).
long root_pid_from_env();

// CLPROF_SESSION_ID: the recorded run this process belongs to ("" if unset).
std::string session_id_from_env();

// Sets CLPROF_SESSION_ID to a new random id unless it is set: the first process of a run
// names the run for every process it starts (they inherit the environment). At load.
void ensure_session_id();

// This process's place in a parallel job, from its launcher's variables (Open MPI, MVAPICH2,
// PMIx, PMI (MPICH, Intel MPI), Slurm), in that order: the MPI library's own first, since
// `srun mpirun ...` leaves Slurm's describing the launcher step. A value that is not a
// decimal number below 2^24 counts as absent.
struct RankFacts {
  std::optional<long> rank;        // OMPI_COMM_WORLD_RANK, MV2_COMM_WORLD_RANK, PMIX_RANK,
                                   // PMI_RANK, SLURM_PROCID
  std::optional<long> world_size;  // OMPI_COMM_WORLD_SIZE, MV2_COMM_WORLD_SIZE, PMI_SIZE,
                                   // SLURM_NTASKS
};
RankFacts rank_from_env();

// True where the TSC may stand in for CLOCK_MONOTONIC: x86-64 with the kernel's
// clocksource "tsc" and a constant, nonstop TSC.
bool tsc_is_host_clock();

// Whether `path` holds a trace header written by process `pid`: a program image this
// process replaced with exec*() (same pid) wrote it, and it must be kept.
bool holds_trace_of(const std::string& path, long pid);

// The number of threads the process has now (/proc/self/task's link count; 0 if
// unreadable). Takes no descriptor.
std::size_t thread_count();

}  // namespace clprof::shim
