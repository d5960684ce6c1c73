// ascemu/program.h — running a single-source program (a `.asc` file: kernels plus a host main() that calls ACL)
// on the emulator.  workbench/running/emu/rewrite.py rewrites every `kernel<<<blockDim, l2ctrl, stream>>>(args...)` into
//     ::ascemu::program::launch({"kernel", __FILE__, line, __PRETTY_FUNCTION__}, blockDim, l2ctrl, stream,
//                               [&](auto&&... a) { kernel(a...); }, args...)
// and force-includes this header.  A launch runs at once (synchronously) on blockDim emulated cores, with the
// emulator state fresh for it except device memory, which carries over from the host and earlier launches.
//
// With ASCEMU_PROGRAM_RUN_DIR set (the workbench sets it), launch n writes launch-<n>.json (kernel, file, line,
// function, block_dim) before it runs and launch-<n>.report.json (the emulator's report, kernels/emu/README.md §2)
// after it, or when a fatal record ends the process during it.  A CPU twin's ICPU_RUN_KF (tikicpulib.h) is such a
// launch too (defined at the end of this header).  Run by hand, the binary reads the emulator's usual
// variables (ASCEMU_REPORT, ASCEMU_MODE, ASCEMU_STRICT, ASCEMU_TIMEOUT) and ASCEMU_SOC / ASCEMU_CORE_COUNT.
#pragma once
#include <array>
#include <csignal>
#include <cstdio>
#include <string>
#include <tuple>

#include "acl/acl.h"
#include "ascemu/launch.h"

namespace ascemu::program {

struct Site {
    const char* kernel;  // as written at the launch, e.g. "add_custom<float, 2048>"
    const char* file;
    unsigned line;
    const char* function;  // the launching function, "[with T = float; ...]" when it is a template instance
};

struct Launches {
    int count = 0;
    std::string dir;
};
inline Launches& launches() {
    static auto* l = [] {
        auto* fresh = new Launches();
        if (const char* d = std::getenv("ASCEMU_PROGRAM_RUN_DIR"); d && *d) fresh->dir = d;
        return fresh;
    }();
    return *l;
}

// The emulator state a launch leaves behind (diagnostics, race logs, cores, barriers), dropped before the next
// one; the GM allocations and what was written to them stay, as device memory does.
inline void fresh_runtime() {
    Runtime* old = rt_slot();
    auto* fresh = new Runtime();
    fresh->cfg = old->cfg;
    fresh->gm = std::move(old->gm);
    fresh->kernel_type = old->kernel_type;  // a namespace-scope KERNEL_TASK_TYPE_DEFAULT registered at start-up
    rt_slot() = fresh;
    delete old;
    t_core = nullptr;
    g_crash_written = 0;
}

// The host's handlers of the signals a launch takes over for its crash reports (launch.h), put back after it: host
// code then crashes as a native program would (a signal the workbench reports), or into the program's own handler.
class HostSignals {
  public:
    HostSignals() {
        for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], nullptr, &saved_[i]);
    }
    ~HostSignals() {
        for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &saved_[i], nullptr);
    }

  private:
    static constexpr std::array<int, 5> kSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    std::array<struct sigaction, 5> saved_{};
};

inline void write_text(const std::string& path, const std::string& text) {
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
    }
}

inline std::string first_error(const Site& s) {
    for (const DiagRec& d : rt().diags)
        if (d.sev >= Sev::Error) {
            std::string file = d.file;
            size_t slash = file.rfind('/');
            if (slash != std::string::npos) file = file.substr(slash + 1);
            return strf("kernel %s launched at line %u reported %s at %s:%u: %s", s.kernel, s.line, d.kind.c_str(),
                        file.c_str(), d.line, d.message.c_str());
        }
    return strf("kernel %s launched at line %u reported an error", s.kernel, s.line);
}

// The bytes of every GM allocation alive when a launch starts: a program's kernels may reach any of them.
inline double live_gm_bytes() {
    double bytes = 0;
    for (const auto& b : rt().gm) bytes += (double)b->bytes;
    return bytes;
}

// Runs body() on block_dim emulated cores as launch number n of the program: its record (launch-<n>.json before,
// launch-<n>.report.json after) in ASCEMU_PROGRAM_RUN_DIR, or run by hand its report where ASCEMU_REPORT says.
// Returns the launch's exit code (kernels/emu/README.md §5.6); a fatal record ends the process inside.
template <class Body>
inline int run_recorded(const Site& s, long long block_dim, Body&& body) {
    Launches& L = launches();
    const int index = ++L.count;
    const char* env_report = std::getenv("ASCEMU_REPORT");  // run by hand: each launch's report replaces the last
    std::string report = env_report ? env_report : "";
    if (!L.dir.empty()) {
        std::string stem = L.dir + strf("/launch-%04d", index);
        report = stem + ".report.json";
        write_text(stem + ".json", jd("index", index, "kernel", s.kernel, "file", s.file, "line", s.line,
                                      "function", s.function, "block_dim", block_dim) + "\n");
    }
    std::fflush(stdout);  // the program's output so far comes before the kernel's printf
    fresh_runtime();
    Runtime& R = rt();
    R.cfg.report_path = report;
    if (!std::getenv("ASCEMU_TIMEOUT")) R.cfg.timeout_s = default_timeout_s(live_gm_bytes(), block_dim);
    int rc;
    {
        HostSignals host;
        rc = ascemu::launch((int)block_dim, body);
        write_report(rc);
        std::fflush(stdout);
    }
    R.cfg.report_path.clear();
    return rc;
}

template <class L2, class Kernel, class... A>
inline void launch(const Site& s, long long block_dim, const L2& l2ctrl, aclrtStream stream, Kernel&& kernel,
                   A&&... args) {
    (void)l2ctrl;  // an L2 control pointer or a dynamic UB size: nothing the emulator uses
    // The arguments are evaluated once, on the host, and every core gets its own copy, as on a device.
    auto packed = std::make_tuple(args...);
    acl::State& S = acl::st();
    if (!acl::known_stream(stream)) {
        acl::fail(ACL_ERROR_RT_PARAM_INVALID, "<<<>>>", {s.file, s.line, s.function},
                  strf("kernel %s at line %u: the stream is not one aclrtCreateStream returned, or it was "
                       "destroyed; not launched",
                       s.kernel, s.line));
        return;
    }
    // "numBlocks ... 取值范围为[1,65535]" (CANN 8.5.0 Ascend C operator development guide, 核函数 (Kernel Function):
    // https://www.hiascend.com/document/detail/zh/canncommercial/850/opdevg/Ascendcopdevg/atlas_ascendc_10_0014.html)
    if (block_dim < 1 || block_dim > 65535) {
        acl::fail(ACL_ERROR_RT_PARAM_INVALID, "<<<>>>", {s.file, s.line, s.function},
                  strf("kernel %s at line %u: blockDim %lld is outside [1, 65535]; not launched", s.kernel, s.line,
                       block_dim));
        return;
    }
    const int rc = run_recorded(s, block_dim, [&]() { std::apply([&](auto&... a) { kernel(a...); }, packed); });
    S.clock_s[stream] += rt().wall;
    if (rc != 0 && !S.fault.count(stream)) S.fault[stream] = first_error(s);
}

// A CANN CPU-twin main's ICPU_RUN_KF(kernel, blockDim, args...) (tikicpulib.h): a launch like a <<<>>> one, recorded
// the same way, so `workbench emu-run main.cpp kernel.cpp` reports it with its kernel, block count, line, timings and
// every diagnostic down to info.  The settings come from the environment once, as for a program that calls ACL.
template <class Body>
inline void run_kf(const Site& s, long long block_dim, Body&& body) {
    static const bool configured = (acl::configure_from_env(), true);
    (void)configured;
    run_recorded(s, block_dim, body);
}

}  // namespace ascemu::program

// Replaces launch.h's ICPU_RUN_KF in a program build (this header is force-included first, and tikicpulib.h's
// include of launch.h then adds nothing): the launch gets its record as above instead of only ASCEMU_REPORT's file.
#undef ICPU_RUN_KF
#define ICPU_RUN_KF(func, blkdim, ...)                                                                         \
    ::ascemu::program::run_kf({#func, __FILE__, __LINE__, __PRETTY_FUNCTION__}, (long long)(blkdim), [&]() { \
        func(__VA_ARGS__);                                                                                     \
    })

// Line-buffered stdout: what the program printed is not lost when a fatal record or a crash ends the process.
inline const bool ascemu_program_stdout_lines = (std::setvbuf(stdout, nullptr, _IOLBF, 0), true);
