// The `slurm` executor (explorer/pipeline/sweep_exec.h): per device kind (partition) and per CPU count,
// one job array for the LUTs still to profile and one for the cells, the cells held with
// --dependency=afterok until their LUTs exist; array task ids are the cell (LUT) indices, so
// a resubmission names exactly the cells left. Watched with squeue; the tasks' own state files
// say what finished.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "libs/core/files.h"
#include "libs/core/hash.h"
#include "explorer/cli/progress.h"
#include "explorer/pipeline/sweep_exec.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a Slurm client command into *out; fails with its output.
Status slurm_cmd(const std::vector<std::string>& argv, std::string* result) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + quote(a);
  FILE* f = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return failed("cannot run " + argv[0]);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  int st = ::pclose(f);
  if (st != 0) {
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return failed(argv[0] + " failed (" + (WIFEXITED(st) ? "exit " + std::to_string(WEXITSTATUS(st)) : "signal") +
                  "): " + out);
  }
  *result = out;
  return Status::ok();
}

// Job names identify this sweep directory's jobs in squeue, whoever submitted them.
std::string job_name(const SweepPlan& p, const char* kind) {
  std::string abs = fs::absolute(p.cfg.output_dir).lexically_normal().string();
  std::string b = fnv1a_hex(abs).substr(10);  // low 24 bits
  std::string name = p.cfg.name;  // squeue -n takes a comma-separated list
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return "lw-" + name + "-" + b + "-" + kind;
}

struct Queue {
  std::map<int, std::string> cells, luts;  // index -> "<job>_<task>" still pending or running
  std::map<std::string, int> states;       // RUNNING, PENDING, ... -> count
};

Status read_queue(const SweepPlan& p, Queue* out) {
  Queue q;
  std::string cell = job_name(p, "cell"), lut = job_name(p, "lut"), text;
  LW_RETURN_IF_ERROR(slurm_cmd({"squeue", "-h", "-r", "-n", cell + "," + lut, "-o", "%i|%j|%T"}, &text));
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find('|'), b = line.rfind('|'), u = line.find('_');
    if (a == std::string::npos || b == a || u == std::string::npos || u > a) continue;
    int index = std::atoi(line.c_str() + u + 1);
    std::string id = line.substr(0, a), name = line.substr(a + 1, b - a - 1), state = line.substr(b + 1);
    (name == cell ? q.cells : q.luts)[index] = id;
    if (name == cell) ++q.states[state];
  }
  *out = std::move(q);
  return Status::ok();
}

std::string index_list(const std::vector<int>& v) {
  std::string s;
  for (int i : v) s += (s.empty() ? "" : ",") + std::to_string(i);
  return s;
}

Status task_script(const SweepPlan& p, std::string* script) {
  std::string dir = fs::absolute(p.cfg.output_dir).lexically_normal().string(), path = dir + "/slurm/task.sh";
  std::string self = fs::read_symlink("/proc/self/exe").string();
  LW_RETURN_IF_ERROR(write_file_atomic(path, "#!/bin/sh\n# Written by layerwise sweep: array task = cell (or LUT) index.\n"
                                      "exec " + quote(self) + " sweep --task \"$1\" " + quote(dir) +
                                      " \"$SLURM_ARRAY_TASK_ID\"\n"));
  std::error_code ec;
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read, ec);
  *script = path;
  return ec ? failed("cannot make " + path + " executable: " + ec.message()) : Status::ok();
}

// One sbatch call; returns the job id.
Status sbatch(const SweepPlan& p, const DeviceKind& d, int cpus, const char* kind, const std::vector<int>& idx,
              const std::string& after, std::string* job) {
  std::string dir = fs::absolute(p.cfg.output_dir).lexically_normal().string();
  std::vector<std::string> a = {"sbatch", "--parsable", "--array=" + index_list(idx), "--job-name=" + job_name(p, kind),
                                "--chdir=" + fs::current_path().string(), "--output=" + dir + "/slurm/%x_%A_%a.out",
                                "--cpus-per-task=" + std::to_string(cpus), "--ntasks=1"};
  if (!d.partition.empty()) a.push_back("--partition=" + d.partition);
  if (!p.cfg.time_limit.empty()) a.push_back("--time=" + p.cfg.time_limit);
  if (!p.cfg.mem.empty()) a.push_back("--mem=" + p.cfg.mem);
  // A failed profile cancels its cells instead of leaving them pending forever.
  if (!after.empty()) a.insert(a.end(), {"--dependency=afterok:" + after, "--kill-on-invalid-dep=yes"});
  a.insert(a.end(), p.cfg.sbatch_args.begin(), p.cfg.sbatch_args.end());
  a.insert(a.end(), d.sbatch_args.begin(), d.sbatch_args.end());
  std::string script, out;
  LW_RETURN_IF_ERROR(task_script(p, &script));
  a.push_back(script);
  a.push_back(kind == std::string("lut") ? "profile" : "cell");
  LW_RETURN_IF_ERROR(slurm_cmd(a, &out));
  std::string id = out.substr(0, out.find_first_of(";\n"));
  std::ofstream(dir + "/slurm/submissions.log", std::ios::app)
      << id << " " << kind << " " << d.name << " cpus=" << cpus << " array=" << index_list(idx) << "\n";
  *job = id;
  return Status::ok();
}

int cpus_of(const SweepPlan& p, const SweepCell& c) {
  if (p.cfg.cpus_per_task > 0) return p.cfg.cpus_per_task;
  int m = 1;
  for (const auto& t : c.config["device"]["threads"]) m = std::max(m, t.get<int>());
  return m;
}

}  // namespace
namespace {

// Watches the sweep's jobs until none is left in the queue (or the timeout), with progress.
Status watch(const SweepPlan& p, const SweepRunOptions& o, size_t submitted) {
  cli::ProgressLine line(o.quiet);
  auto t0 = std::chrono::steady_clock::now();
  size_t done0 = 0;
  for (const auto& c : p.cells) done0 += cell_status(p.cfg.output_dir, c).state == CellState::kDone;
  for (;;) {
    Queue q;
    LW_RETURN_IF_ERROR(read_queue(p, &q));
    size_t done = 0, failed = 0;
    for (const auto& c : p.cells) {
      CellState s = cell_status(p.cfg.output_dir, c).state;
      done += s == CellState::kDone;
      failed += s == CellState::kFailed;
    }
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    size_t now_done = done - std::min(done, done0);
    double eta = now_done ? el / now_done * (submitted - std::min(submitted, now_done)) : 0;
    std::string states;
    for (const auto& [st, n] : q.states) states += " " + std::to_string(n) + " " + st;
    line.update("slurm " + p.cfg.name + " [" + std::to_string(done) + "/" + std::to_string(p.cells.size()) + " done" +
                    (failed ? ", " + std::to_string(failed) + " failed" : "") + "]" + states +
                    (q.luts.empty() ? "" : " " + std::to_string(q.luts.size()) + " LUT profiles queued"),
                double(done) / p.cells.size(), eta);
    if (q.cells.empty() && q.luts.empty()) break;
    if (o.timeout_s > 0 && el > o.timeout_s)
      return ::lw::failed("gave up waiting after " + cli::format_duration(el) + "; the jobs keep running (watch with squeue, "
                       "then --collect)");
    std::this_thread::sleep_for(std::chrono::duration<double>(o.poll_s));
  }
  line.finish();
  return Status::ok();
}

}  // namespace

Status run_sweep_slurm(const SweepPlan& p, const SweepRunOptions& o) {
  LW_RETURN_IF_ERROR(make_dirs(p.cfg.output_dir + "/slurm"));
  Queue q;
  LW_RETURN_IF_ERROR(read_queue(p, &q));
  std::set<int> queued;
  for (const auto& [i, id] : q.cells) queued.insert(i);
  std::vector<int> todo = cells_to_run(p, o.resubmit_failed, queued);
  // Arrays share a partition and a CPU count: group the cells by both.
  std::map<std::pair<std::string, int>, std::vector<int>> groups;
  for (int i : todo) groups[{p.cells[i].device, cpus_of(p, p.cells[i])}].push_back(i);
  for (const auto& [key, cells] : groups) {
    const std::string& kind = key.first;  // a named copy: clang 14 cannot capture a structured binding
    const DeviceKind& d = *std::find_if(p.cfg.devices.begin(), p.cfg.devices.end(),
                                        [&](const DeviceKind& k) { return k.name == kind; });
    std::vector<int> luts;
    std::set<std::string> after;
    for (int l : luts_to_profile(p, cells, o.resubmit_failed)) {
      if (q.luts.count(l)) after.insert(q.luts[l]);  // being profiled by an earlier submission
      else luts.push_back(l);
    }
    std::string id;
    if (!luts.empty()) {
      LW_RETURN_IF_ERROR(sbatch(p, d, key.second, "lut", luts, "", &id));
      after.insert(id);
    }
    std::string deps;
    for (const auto& a : after) deps += (deps.empty() ? "" : ":") + a;
    LW_RETURN_IF_ERROR(sbatch(p, d, key.second, "cell", cells, deps, &id));
    std::printf("sweep %s: submitted %zu cells as job %s (partition %s, %d CPUs)%s\n", p.cfg.name.c_str(),
                cells.size(), id.c_str(), d.partition.empty() ? "default" : d.partition.c_str(), key.second,
                luts.empty() ? "" : (", after " + std::to_string(luts.size()) + " LUT profiles").c_str());
  }
  if (todo.empty())
    std::printf("sweep %s: nothing to submit (%zu cells queued, the rest done%s)\n", p.cfg.name.c_str(), queued.size(),
                o.resubmit_failed ? "" : " or failed: --resubmit-failed runs those again");
  std::fflush(stdout);
  if (!o.wait) return Status::ok();
  LW_RETURN_IF_ERROR(watch(p, o, todo.size() + queued.size()));
  size_t done = 0;
  for (const auto& c : p.cells) done += cell_status(p.cfg.output_dir, c).state == CellState::kDone;
  std::printf("sweep %s: %zu of %zu cells done (see --collect)\n", p.cfg.name.c_str(), done, p.cells.size());
  if (done < p.cells.size()) return failed(std::to_string(p.cells.size() - done) + " cells not done; --collect says why");
  return Status::ok();
}

}  // namespace lw
