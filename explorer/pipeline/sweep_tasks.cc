// The two tasks every executor starts (explorer/pipeline/sweep_exec.h): run one cell with the
// experiment runner, or profile one shared LUT. Each records its state in files next to its
// outputs, so any executor (or a person) can tell what finished, what failed and why.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "libs/core/files.h"
#include "env/profiler.h"
#include "explorer/pipeline/model.h"
#include "explorer/pipeline/runner.h"
#include "explorer/pipeline/sweep_exec.h"
#include "libs/exec/backends.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string now_iso() { return time_now("%Y-%m-%dT%H:%M:%SZ", true); }

std::string host_name() {
  char h[256] = {0};
  ::gethostname(h, sizeof h - 1);
  return h;
}

// "<array job>_<task>" under Slurm, "local:<pid>" otherwise.
std::string job_label() {
  const char* a = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* t = std::getenv("SLURM_ARRAY_TASK_ID");
  if (a && t) return std::string(a) + "_" + t;
  return "local:" + std::to_string(::getpid());
}

// The task's own output goes next to its results, whoever started it.
void redirect_output(const std::string& log) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  ::close(fd);
}


double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}


// The cell itself: a failure is its own, recorded in status.json by the caller.
Status run_cell(const SweepPlan& p, const SweepCell& c, const std::string& config, std::string* run_dir) {
  if (c.lut >= 0 && !fs::exists(p.luts[c.lut].path)) {
    std::string why = lut_failure(p.luts[c.lut]);
    return failed("its LUT " + p.luts[c.lut].path + " was not profiled" + (why.empty() ? "" : ": " + why));
  }
  ExperimentConfig cfg;
  LW_RETURN_IF_ERROR(load_config(config, config_vocabulary(), &cfg));
  RunOptions o;
  o.quiet = true;
  return run_experiment(cfg, config, o, run_dir);
}

Status profile_lut(const SweepPlan& p, const SweepLut& l, const std::string& dir) {
  const SweepCell& c = p.cells.at(l.first_cell);
  ExperimentConfig cfg;
  LW_RETURN_IF_ERROR(load_config(cell_dir(dir, c) + "/config.json", config_vocabulary(), &cfg));
  Network net;
  LW_RETURN_IF_ERROR(load_model(cfg.model, &net));
  ProfileOptions o = profile_options(cfg);
  o.out_path = l.path;
  Lut lut;
  LW_RETURN_IF_ERROR(profile_network(net, default_registry(), o, &lut));
  InNetworkReport report;
  return refine_and_save(net, in_network_options(cfg), l.path, &lut, &report);
}

}  // namespace

Status run_cell_task(const std::string& dir, int index) {
  SweepPlan p;
  LW_RETURN_IF_ERROR(load_manifest(dir, &p));
  if (index < 0 || index >= int(p.cells.size())) return invalid_argument("--task cell: no cell " + std::to_string(index));
  const SweepCell& c = p.cells[index];
  const std::string cd = cell_dir(dir, c), config = cd + "/config.json";
  if (cell_status(dir, c).state == CellState::kDone) {
    std::printf("cell %s: done already\n", c.id.c_str());
    return Status::ok();
  }
  const std::string job = job_label(), host = host_name(), started = now_iso();
  std::ofstream(cd + "/starts.log", std::ios::app) << started << " " << host << " " << job << "\n";
  json st = {{"state", "running"}, {"reason", "started on " + host + " (" + job + ")"}, {"job", job},
             {"host", host}, {"started", started}};
  LW_RETURN_IF_ERROR(write_file_atomic(cd + "/status.json", st.dump(1) + "\n"));
  redirect_output(cd + "/log.txt");
  auto t0 = std::chrono::steady_clock::now();
  std::string run_dir;
  Status s = run_cell(p, c, config, &run_dir);
  if (!run_dir.empty()) st["run_dir"] = run_dir;
  st["state"] = s.is_ok() ? "done" : "failed";
  st["reason"] = s.message();
  if (!s.is_ok()) std::fprintf(stderr, "cell %s failed: %s\n", c.id.c_str(), s.message().c_str());
  st["wall_s"] = seconds_since(t0);
  st["finished"] = now_iso();
  LW_RETURN_IF_ERROR(write_file_atomic(cd + "/status.json", st.dump(1) + "\n"));
  return s.is_ok() ? Status::ok() : failed("cell " + c.id + ": " + s.message());
}

Status run_profile_task(const std::string& dir, int index) {
  SweepPlan p;
  LW_RETURN_IF_ERROR(load_manifest(dir, &p));
  if (index < 0 || index >= int(p.luts.size())) return invalid_argument("--task profile: no LUT " + std::to_string(index));
  const SweepLut& l = p.luts[index];
  if (fs::exists(l.path)) {
    std::printf("LUT %s: profiled already\n", l.path.c_str());
    return Status::ok();
  }
  std::remove((l.path + ".failed").c_str());
  redirect_output(l.path + ".log");
  const std::string job = job_label(), host = host_name();
  std::printf("%s profiling %s on %s (%s)\n", now_iso().c_str(), l.path.c_str(), host.c_str(), job.c_str());
  std::fflush(stdout);
  auto t0 = std::chrono::steady_clock::now();
  Status s = profile_lut(p, l, dir);
  if (!s.is_ok()) {
    json f = {{"reason", s.message()}, {"job", job}, {"host", host}, {"finished", now_iso()}};
    (void)write_file_atomic(l.path + ".failed", f.dump(1) + "\n");
    std::fprintf(stderr, "profile failed: %s\n", s.message().c_str());
    return failed("LUT " + l.path + ": " + s.message());
  }
  std::printf("%s profiled in %.1f s\n", now_iso().c_str(), seconds_since(t0));
  return Status::ok();
}

std::vector<int> cells_to_run(const SweepPlan& p, bool resubmit_failed, const std::set<int>& queued) {
  std::vector<int> v;
  for (const SweepCell& c : p.cells) {
    if (queued.count(c.index)) continue;
    CellState s = cell_status(p.cfg.output_dir, c).state;
    if (s == CellState::kPending || s == CellState::kRunning || (s == CellState::kFailed && resubmit_failed))
      v.push_back(c.index);
  }
  return v;
}

std::vector<int> luts_to_profile(const SweepPlan& p, const std::vector<int>& cells, bool resubmit_failed) {
  std::set<int> v;
  for (int i : cells) {
    int l = p.cells[i].lut;
    if (l < 0 || fs::exists(p.luts[l].path)) continue;
    if (!resubmit_failed && !lut_failure(p.luts[l]).empty()) continue;
    v.insert(l);
  }
  return {v.begin(), v.end()};
}

}  // namespace lw
