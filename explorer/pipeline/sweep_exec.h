/// \file
/// Running a sweep (explorer/pipeline/sweep.h): the tasks that run one cell or profile one LUT, and
/// the executors that start them — `local` (a process pool on this machine) and `slurm`
/// (job arrays through sbatch, watched with squeue) — and `--collect`.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "explorer/pipeline/sweep.h"

namespace lw {

struct SweepRunOptions {
  bool quiet = false;            // no progress line
  bool resubmit_failed = false;  // also run cells (and LUT profiles) that failed before
  bool wait = true;              // slurm: watch the jobs until they end
  int jobs = 0;                  // local: cells at once; 0 = the sweep config's local.jobs
  double timeout_s = 0;          // slurm: stop waiting after this long (0 = no limit)
  double poll_s = kDefaultSlurmPollSeconds;
};

/// `layerwise sweep --task cell|profile DIR INDEX`: ok when the cell (LUT) is done; a task
/// that ran and failed is StatusCode::kFailed (its reason is in the sweep directory too),
/// an index or directory that does not exist is invalid.
Status run_cell_task(const std::string& sweep_dir, int index);
Status run_profile_task(const std::string& sweep_dir, int index);

/// Cells an executor should start: pending ones, interrupted ones (state running but not in
/// `queued`), and failed ones on request. Done and queued cells are never started again.
std::vector<int> cells_to_run(const SweepPlan& p, bool resubmit_failed, const std::set<int>& queued);
/// LUTs the given cells still need profiled (a failed profile only on request).
std::vector<int> luts_to_profile(const SweepPlan& p, const std::vector<int>& cells, bool resubmit_failed);

/// StatusCode::kFailed: the machinery failed (a fork, sbatch refused, squeue unreachable,
/// the timeout) or some cells did; --collect says which.
Status run_sweep_local(const SweepPlan& p, const SweepRunOptions& o);
Status run_sweep_slurm(const SweepPlan& p, const SweepRunOptions& o);

/// Merges every cell into <dir>/sweep.csv, plots into <dir>/plots/, lists missing and failed
/// cells (stdout and <dir>/missing.txt); *missing: the number of cells not done.
Status collect_sweep(const SweepPlan& p, int* missing);

}  // namespace lw
