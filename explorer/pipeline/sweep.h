/// \file
/// `layerwise sweep`: a grid of experiments. A sweep config names a base experiment
/// config and axes (any config key by JSON pointer) and optionally device kinds (Slurm
/// partitions); the grid expands into one experiment config per cell, each runnable alone
/// with `layerwise run`, under <output_dir>/cells/<id>/, plus manifest.json. Every LUT a cell
/// needs (model x libraries x thread sets x protocol x device kind) is profiled once into the
/// LUT directory and shared through the cell's profile.lut. Executors: `local` (a bounded
/// process pool) and `slurm` (job arrays through sbatch); both run the same task
/// (`layerwise sweep --task cell|profile DIR INDEX`), which records its state in
/// cells/<id>/status.json, so a sweep resumes where it stopped whichever executor ran it.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "libs/core/status.h"

namespace lw {

constexpr int kDefaultSweepJobs = 1;          // local pool size: cells measure latency, so one at a time
constexpr double kDefaultSlurmPollSeconds = 2;

struct SweepAxis {
  std::string name;                 // column name in sweep.csv (default: last pointer token)
  std::string path;                 // JSON pointer into the experiment config, e.g. "/search/seeds"
  std::vector<nlohmann::json> values;
  std::vector<std::string> labels;  // one per value: what sweep.csv shows
};

struct DeviceKind {
  std::string name;                      // key in cell ids and LUT names
  std::string partition;                 // Slurm partition; empty = the cluster's default
  std::vector<std::string> sbatch_args;  // extra sbatch arguments for this kind (e.g. --constraint=avx512)
};

struct SweepConfig {
  std::string path;                      // the sweep file (for messages)
  std::string name;                      // default: the file's stem
  nlohmann::json base;                   // the base experiment config, as written
  std::vector<SweepAxis> axes;
  std::vector<DeviceKind> devices;       // default: one kind "local" on the default partition
  std::string output_dir;                // default: results/sweeps/<name>
  std::string lut_dir;                   // default: <output_dir>/luts; sweeps sharing it share LUTs
  int jobs = kDefaultSweepJobs;          // local executor: cells at once
  int cpus_per_task = 0;                 // slurm: 0 = the cell's largest thread set
  std::string time_limit;                // slurm --time, e.g. "00:30:00"; empty = partition default
  std::string mem;                       // slurm --mem, e.g. "4G"
  std::vector<std::string> sbatch_args;  // extra sbatch arguments for every job
};

struct SweepCell {
  int index = 0;
  std::string id;                  // "0007": cells/<id>/
  std::vector<std::string> keys;   // one label per axis, then the device kind
  std::string device;
  nlohmann::json config;           // the cell's experiment config
  int lut = -1;                    // index into SweepPlan::luts; -1 = the base brings its own profile.lut
};

struct SweepLut {
  std::string path;       // <lut_dir>/<model>__<device>__<hash>.lut.json
  std::string device;
  int first_cell = 0;     // the cell whose config says what to profile
  std::vector<int> cells;
};

struct SweepPlan {
  SweepConfig cfg;
  std::vector<std::string> key_names;  // axis names, then "device"
  std::vector<SweepCell> cells;
  std::vector<SweepLut> luts;
};

/// Reads and checks a sweep config; errors are one line "<file>: <JSON path>: why". Every
/// cell's experiment config is checked with the experiment-config parser, so a bad axis
/// value fails before anything runs.
/// `check_cell` parses one cell's experiment config: "" and its fully resolved form, or the
/// one-line error.
using CellChecker =
    std::function<std::string(const nlohmann::json& cell_config, const std::string& origin, nlohmann::json* resolved)>;
Status load_sweep(const std::string& path, CellChecker check_cell, SweepPlan* out);

/// Writes manifest.json and cells/<id>/config.json. A cell whose existing config differs (the
/// sweep file changed) is moved aside to cells/<id>.stale-<n> so its old results cannot pass
/// for the new cell's.
Status write_sweep(const SweepPlan& plan, std::vector<std::string>* notes);

/// The manifest as the tasks read it (they need neither the sweep file nor its base).
Status load_manifest(const std::string& sweep_dir, SweepPlan* out);

// --- cell state, from the files the tasks write --------------------------------------------
// done: finished; failed: ran and failed (reason); running: started and not finished (a live
// job, or one that was killed: the executor decides); pending: never started.
#define LW_CELL_STATES(X) X(kPending, "pending") X(kRunning, "running") X(kDone, "done") X(kFailed, "failed")
enum class CellState {
#define X(e, s) e,
  LW_CELL_STATES(X)
#undef X
};
const char* to_string(CellState s);

struct CellStatus {
  CellState state = CellState::kPending;
  std::string reason;   // failed: why; running: where (host, job)
  std::string job;      // Slurm job id "<array>_<task>" or "local:<pid>"
  std::string run_dir;  // done: the run directory
  double wall_s = 0;    // done / failed: the cell's wall time
  int starts = 0;       // times a task started this cell (cells/<id>/starts.log)
};
std::string cell_dir(const std::string& sweep_dir, const SweepCell& c);
CellStatus cell_status(const std::string& sweep_dir, const SweepCell& c);
/// A LUT's profile failure, or "" (written by the profile task as <lut>.failed).
std::string lut_failure(const SweepLut& l);

}  // namespace lw
