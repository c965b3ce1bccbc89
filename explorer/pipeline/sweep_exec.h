/// \file
/// Running a sweep (explorer/pipeline/sweep.h): the tasks that run one cell or profile one LUT, and
/// the executors that start them — `local` (a process pool on this machine) and `slurm`
/// (job arrays through sbatch, watched with squeue) — and `--collect`.
#pragma once
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "explorer/pipeline/sweep.h"

namespace lw::cli {

/// A failure of the machinery (sbatch refused, squeue unreachable, a timeout): exit code 1.
struct SweepError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SweepRunOptions {
  bool quiet = false;            // no progress line
  bool resubmit_failed = false;  // also run cells (and LUT profiles) that failed before
  bool wait = true;              // slurm: watch the jobs until they end
  int jobs = 0;                  // local: cells at once; 0 = the sweep config's local.jobs
  double timeout_s = 0;          // slurm: stop waiting after this long (0 = no limit)
  double poll_s = kDefaultSlurmPollSeconds;
};

/// `layerwise sweep --task cell|profile DIR INDEX`: exit 0 when the cell (LUT) is done.
int run_cell_task(const std::string& sweep_dir, int index);
int run_profile_task(const std::string& sweep_dir, int index);

/// Cells an executor should start: pending ones, interrupted ones (state running but not in
/// `queued`), and failed ones on request. Done and queued cells are never started again.
std::vector<int> cells_to_run(const SweepPlan& p, bool resubmit_failed, const std::set<int>& queued);
/// LUTs the given cells still need profiled (a failed profile only on request).
std::vector<int> luts_to_profile(const SweepPlan& p, const std::vector<int>& cells, bool resubmit_failed);

void run_sweep_local(const SweepPlan& p, const SweepRunOptions& o);
void run_sweep_slurm(const SweepPlan& p, const SweepRunOptions& o);

/// Merges every cell into <dir>/sweep.csv, plots into <dir>/plots/, lists missing and failed
/// cells (stdout and <dir>/missing.txt). Returns the number of cells not done.
int collect_sweep(const SweepPlan& p);

}  // namespace lw::cli
