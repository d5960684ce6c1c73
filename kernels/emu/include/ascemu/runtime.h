// ascemu/runtime.h — launch-wide state: config, diagnostics (§5.6), GM registry (§5.1), emulated cores
// (§6), scheduler (serial / interleave:SEED / parallel), GM race detection, trace (§7) and the report.
#pragma once
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <source_location>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ascemu/api_types.h"
#include "ascemu/events.h"
#include "ascemu/platform.h"
#include "ascemu/types.h"
#include "ascemu/linkage.h"
#include "ascemu/util.h"

namespace ascemu {

using SL = std::source_location;

enum class Sev : uint8_t { Info, Warning, Error, Fatal };
inline const char* sev_name(Sev s) {
    switch (s) {
        case Sev::Info: return "info";
        case Sev::Warning: return "warning";
        case Sev::Error: return "error";
        default: return "fatal";
    }
}
enum DiagFlags : unsigned { DF_NONE = 0, DF_STRICT_ERR = 1 };

// ------------------------------------------------------------------------------------------------ locations
// A diagnostic points at the kernel's line, never into the emulator's headers (docs/diagnostics.md, "Reading a
// diagnostic"): a line of the emulator's own code tells the kernel's author nothing.  The headers' folder is spelled
// the way this build spells it (__FILE__ of this header), which is how std::source_location spells their lines too.
inline constexpr std::string_view emulator_include_dir() {
    constexpr std::string_view self = __FILE__, tail = "ascemu/runtime.h";
    return self.size() > tail.size() && self.ends_with(tail) ? self.substr(0, self.size() - tail.size())
                                                               : std::string_view{};
}
inline bool in_emulator(const char* file) {
    constexpr std::string_view dir = emulator_include_dir();
    return file && !dir.empty() && std::string_view(file).starts_with(dir);
}

// ------------------------------------------------------------------------------------------------ config
// The watchdog a launch gets when nobody names one, scaled to its work (docs/emulator.md, Time-outs): a base for
// start-up and any small launch, its GM bytes at a rate far below the emulator's slowest common case, and a term per
// block.  workbench/running/emu/launch.py's default_timeout_s is the same formula (a test keeps the numbers equal).
inline constexpr double kTimeoutBaseS = 20.0;
inline constexpr double kTimeoutGmBytesPerS = 1024.0 * 1024.0;
inline constexpr double kTimeoutPerBlockS = 0.01;
inline constexpr double kTimeoutMaxS = 7 * 24 * 3600.0;
inline double default_timeout_s(double gm_bytes, long long block_dim) {
    const double t = kTimeoutBaseS + gm_bytes / kTimeoutGmBytesPerS + (double)block_dim * kTimeoutPerBlockS;
    return t < kTimeoutMaxS ? t : kTimeoutMaxS;
}

struct Config {
    std::string platform = kProfile.name;
    std::string soc = kProfile.soc;
    uint32_t core_count = kProfile.core_count;  // GetCoreNum() of the launched SoC (910B3/B4 have 40 vector cores)
    int block_dim = 1;
    int64_t tiling_key = 0;
    std::string mode = "serial";  // serial | interleave:SEED | parallel
    uint64_t seed = 0;
    bool strict = false;
    double timeout_s = 60;
    int poll_yield = 3;
    int threads = 2;  // parallel mode: cores running at once
    bool gm_exact = false;
    int ub_poison = 0xFF;
    OverflowMode overflow = kProfile.overflow;
    bool cast_fp_overflow_saturate = false;
    uint32_t ub_reserved = 0;
    uint64_t api_budget = 2000000000ull;
    std::string report_path;
    bool diag_stderr = true;      // echo error/fatal records as "ASCEMU_DIAG {json}" lines
    bool diag_stderr_all = false; // echo every stored record
    // §5.5 pipe model: "off" | "on" (PIPE_HAZARD as info; the default) | "strict" (as warning).  Empty = take
    // $ASCEMU_PIPE_CHECK, else "on".  Set from the launch file's "pipe_check" key by the driver.
    std::string pipe_check;
    // §5.1 DCache: "model" (default) | "off".  Empty = take $ASCEMU_DCACHE, else "model".
    std::string dcache;
    // the event log's file (ascemu/events.h); empty: no log, every hook is off
    std::string events_path;
};

// ------------------------------------------------------------------------------------------------ diag
struct DiagRec {
    uint64_t seq = 0;
    std::string kind;
    Sev sev = Sev::Info;
    int core = -1;
    std::string api, file, function, message, details = "{}";
    uint32_t line = 0, column = 0;
    uint64_t count = 1;
};

ASCEMU_DECL std::string diag_json(const DiagRec& d);

// ------------------------------------------------------------------------------------------------ GM
enum class Role : uint8_t { Input, Output, Workspace, Tiling, Other };
inline const char* role_name(Role r) {
    switch (r) {
        case Role::Input: return "input";
        case Role::Output: return "output";
        case Role::Workspace: return "workspace";
        case Role::Tiling: return "tiling";
        default: return "other";
    }
}
// [CHOICE] Unregistered bytes after every GM allocation (launch.h), not a device property: an access that runs
// past one buffer lands in no allocation (GM_UNKNOWN_POINTER, or GM_OOB for a GlobalTensor) instead of silently
// inside the next buffer, which the host allocator may have placed right behind it.
inline constexpr size_t kGmGuardBytes = 64 * 1024;

struct GmBuf {
    uint8_t* base = nullptr;
    size_t bytes = 0;  // usable
    size_t alloc = 0;  // usable + slack
    std::string name;
    Role role = Role::Other;
    bool prefilled = false;  // input, or fill given: reads are never "uninitialised"
    Bitmap written;          // bytes written by the kernel
    int64_t unwritten = -1;  // of the usable bytes, once the launch has ended (an output's count, computed once)
    int arg_index = -1;
    std::string out_file;
};

// ------------------------------------------------------------------------------------------------ trace
struct MteStat { uint64_t bytes = 0, ops = 0, bursts = 0, small_ops = 0; };
struct VecKey {
    const char* api; const char* src; const char* dst; int64_t count;
    bool operator<(const VecKey& o) const {
        int c = std::strcmp(api, o.api);
        if (c) return c < 0;
        if ((c = std::strcmp(src, o.src))) return c < 0;
        if ((c = std::strcmp(dst, o.dst))) return c < 0;
        return count < o.count;
    }
};
struct VecAgg { uint64_t calls = 0, repeats = 0, internal_repeats = 0, single_repeat_calls = 0; };
// The names are string literals: a key seen before is found by its pointers, without string compares.
struct VecKeyPtrHash {
    size_t operator()(const VecKey& k) const {
        return std::hash<const void*>()(k.api) ^ std::hash<const void*>()(k.src) * 31 ^
               std::hash<const void*>()(k.dst) * 131 ^ std::hash<int64_t>()(k.count) * 1313;
    }
};
struct VecKeyPtrEq {
    bool operator()(const VecKey& a, const VecKey& b) const {
        return a.api == b.api && a.src == b.src && a.dst == b.dst && a.count == b.count;
    }
};
struct QueInfo { const char* pos; uint32_t num, len; int depth; };
struct Trace {
    MteStat mte2, mte3, ub2ub;
    uint64_t atomic_bytes = 0, atomic_ops = 0;
    std::string atomic_dtype;
    std::map<VecKey, VecAgg> vec;  // by name: the report's order
    std::unordered_map<VecKey, VecAgg*, VecKeyPtrHash, VecKeyPtrEq> vec_seen;
    uint64_t ub_get = 0, ub_set = 0, gm_get = 0, gm_set = 0, dcache_miss_lines = 0, dcci = 0;
    uint64_t pipe_barrier[PIPE_NUM_ASCEMU] = {};
    uint64_t set_flag = 0, wait_flag = 0, enque = 0, deque = 0, syncall = 0, ib_wait = 0, poll_iterations = 0;
    uint64_t ub_peak = 0, ub_buffers = 0;
    std::vector<QueInfo> queues;
    uint64_t printf_calls = 0;
};

// ------------------------------------------------------------------------------------------------ core
enum class SlotState : uint8_t { Free, Alloc, EnQ, DeQ, TBuf };
// ------------------------------------------------------------------------------------------------ pipe model
// §5.5 (advisory).  The four pipes a vector kernel drives.  Each pipe p has an epoch (psv.vc[p][p]) that
// advances whenever its progress is published (SetFlag from p, queue EnQue/FreeTensor, PipeBarrier): a UB
// write on p is tagged (p, epoch).  vc[q][p] is the newest epoch of p that pipe q is ordered after; a q-access
// to bytes tagged (p, e) with p != q is ordered iff e <= vc[q][p].  Tags are kept per written UB interval
// (merged while pipe and epoch agree), never per byte, so the cost per API call is a binary search.
// done[p] is the newest epoch of p's own transfers that p is known to have completed (a PipeBarrier, a
// SetFlag/WaitFlag<V_V>, or a flag chain that leads back to p): MTE_OVERLAP_NO_BARRIER and V_RAW_NO_BARRIER use it.
enum PipeIx : uint8_t { PX_S = 0, PX_V = 1, PX_MTE2 = 2, PX_MTE3 = 3, PX_N = 4 };
struct PipeTag {
    uint32_t lo, hi;     // UB byte interval [lo, hi)
    uint32_t epoch;
    uint8_t pipe;
    uint8_t reported;    // bit q: a read by pipe q was reported; bit 4+q: a write by q; bit 7: MTE overlap
    uint32_t line;       // the writing API call (first write of a merged run)
    const char* file;
    const char* api;
    uint64_t call = 0;   // Core::api_calls of the newest write: an API's own internal steps are not a V->V hazard
};
struct PipeEv {  // one pending SetFlag: the source pipe's clocks at SetFlag time
    uint8_t event, id;
    uint32_t snap[PX_N];
};
struct PipeGmW {  // a recent MTE3 (UB->GM) destination, for MTE_OVERLAP_NO_BARRIER (§5.3)
    uintptr_t lo;
    uint64_t pitch, len, count;
    uint32_t epoch;
    uint32_t line;
    const char* file;
};
struct PipeState {
    uint32_t vc[PX_N][PX_N] = {};
    uint32_t done[PX_N] = {};
    uint8_t cur = PX_V;        // pipe of the API being executed (api_enter resets it to V)
    int8_t level = -1;         // 0 off, 1 info, 2 strict; resolved on first use
    std::vector<PipeTag> tags; // sorted, disjoint
    std::vector<PipeEv> ev;    // pending SetFlags in issue order
    std::vector<PipeGmW> mte3;
    std::set<std::pair<const char*, uint32_t>> vraw_seen;  // reader locations already reported (V_RAW_NO_BARRIER)
    PipeState() {
        for (int p = 0; p < PX_N; ++p) vc[p][p] = 1;
    }
};

// §5.1 DCache: one cached 64-B GM line of a core (scalar GlobalTensor::GetValue/SetValue only; DMA bypasses it).
struct DLine {
    uint8_t b[64];
    uint64_t valid = 0;  // bit i: byte i lies inside a GM allocation and was filled
};

struct UbBuf {
    uint32_t lo = 0, hi = 0;
    uint32_t gen = 1;
    SlotState state = SlotState::Free;
    const void* owner = nullptr;  // queue / tbuf object
    uint8_t pos = 0;
    uint32_t psnap[PX_N] = {};    // §5.5 queue edges: the signalling pipe's clock at the last EnQue / FreeTensor
    // the HardEvent and ID the slot's queue holds since its EnQue ([0]) and its FreeTensor ([1]); ID -1: none
    uint8_t hold_evt[2] = {};
    int8_t hold_id[2] = {-1, -1};
};

// Turn: (mode ordered) an atomic add waits for every lower core to finish or block, as in serial mode.
enum class CState : uint8_t { Ready, Running, Barrier, Wait, Done, Turn };
inline const char* cstate_name(CState s) {
    switch (s) {
        case CState::Ready: return "ready";
        case CState::Turn: return "atomic_turn";
        case CState::Running: return "running";
        case CState::Barrier: return "barrier";
        case CState::Wait: return "wait";
        default: return "done";
    }
}

// A vector clock of the race model: per core, the newest epoch of it that the holder (a core, a sync region, a
// released flag) is ordered after.  Only the cores it has learned of are stored, sorted, so a launch of many cores
// that rarely meet keeps it small; any other core reads 0.
struct VClock {
    std::vector<std::pair<uint32_t, uint64_t>> e;  // (core, epoch > 0), sorted by core
    uint64_t operator[](size_t core) const {
        auto it = find(core);
        return it != e.end() && it->first == core ? it->second : 0;
    }
    void raise(size_t core, uint64_t epoch) {  // this[core] = max(this[core], epoch)
        if (!epoch) return;
        auto it = find(core);
        if (it != e.end() && it->first == core) it->second = std::max(it->second, epoch);
        else e.insert(it, {(uint32_t)core, epoch});
    }
    void merge(const VClock& o) {  // elementwise max
        for (auto& [k, v] : o.e) raise(k, v);
    }
    void clear() { e.clear(); }

  private:
    std::vector<std::pair<uint32_t, uint64_t>>::const_iterator find(size_t core) const {
        return std::lower_bound(e.begin(), e.end(), core, [](const auto& p, size_t k) { return p.first < k; });
    }
    std::vector<std::pair<uint32_t, uint64_t>>::iterator find(size_t core) {
        return std::lower_bound(e.begin(), e.end(), core, [](const auto& p, size_t k) { return p.first < k; });
    }
};

// What only a resident core (from its start to its end, launch.h core_enter / core_leave) needs, held apart so that
// the cores of a large launch that have not started or have ended stay small.
struct CoreLive {
    // events (§5.5)
    int32_t ev_pending[(int)AscendC::HardEvent::MAX][8] = {};
    // CANN's event-ID pool per HardEvent (TPipe's eventOccupy, bit i = ID i): the IDs the kernel took with
    // AllocEventID, and those the queues hold from EnQue to DeQue and from FreeTensor to the slot's next AllocTensor
    uint8_t ev_alloc[(int)AscendC::HardEvent::MAX] = {}, ev_queue[(int)AscendC::HardEvent::MAX] = {};
    SL ev_queue_loc[(int)AscendC::HardEvent::MAX][8] = {};
    SL ev_loc[(int)AscendC::HardEvent::MAX][8] = {};
    // trace (Trace::vec): direct-mapped in front of vec_seen, the last keys each call site used
    struct VecHot { VecKey k{nullptr, nullptr, nullptr, 0}; VecAgg* a = nullptr; };
    VecHot vec_hot[32];
};

struct Core {
    int idx = 0;
    // The UB arena (ub_size bytes) and its written shadow exist while the core is resident: from its start to its
    // end (launch.h UbArenas), not for the whole launch, so memory follows the cores resident at once, not block_dim.
    uint8_t* ub = nullptr;
    Bitmap ubw;
    std::vector<UbBuf> bufs;
    uint32_t live_pipes = 0;
    void* pipe = nullptr;
    const char* last_api = "<kernel start>";
    SL last_loc{};  // the kernel's call site of its latest API call (never a line inside the emulator)
    // whether the API call being executed comes from inside the emulator's headers (another API calling it without
    // passing the kernel's site on), and the file api_enter judged that by: one pointer compare per API call
    bool call_in_emulator = false;
    const char* judged_file = nullptr;
    uint64_t api_calls = 0;
    // the event log (ascemu/events.h), recorded only when g_events: this core's events in program order, whether
    // the latest is still the current API call's, and the queues / TBufs its UB ranges belong to (by first use)
    EventLog events;
    uint64_t events_left = 0;  // of the block this core reserved (ev_reserve)
    bool events_open = false;
    std::vector<const void*> event_owners;
    // inside one of the hooks (EvHold): the fatal path waits for it to leave before it writes the log
    std::atomic<bool> events_busy{false};
    // atomics (§4.8)
    const char* atomic_type = nullptr;
    void (*atomic_fn)(uint8_t* gm, const uint8_t* ub, size_t bytes, OverflowMode) = nullptr;
    bool lower_done = false;  // mode ordered: every lower core has finished (Done is final), no turn to wait for
    SL atomic_loc{};
    // DeqScale (§4.6)
    bool deq_set = false;
    half deq_scale = half(1.0f);
    // event flags and IDs, the trace's lookup cache: only while the core is resident (CoreLive)
    std::unique_ptr<CoreLive> live;
    // pipe/event sync model (§5.5)
    PipeState psv;
    // DCache (§5.1): line address -> cached bytes
    std::unordered_map<uintptr_t, DLine> dcache;
    int8_t dcache_on = -1;  // resolved on first use
    // vector mask state
    bool mask_counter = false;
    uint64_t vmask[2] = {~0ull, ~0ull};
    // special registers: ACC_VAL / MAX_MIN_CNT (reductions), CMPMASK (Compare/Select), the DataCopyPad pad value
    uint64_t acc_val = 0, max_min_cnt = 0;
    uint64_t cmpmask[2] = {0, 0};
    uint64_t pad_value = 0;
    bool pad_value_set = false;
    Trace tr;
    // spin detection (§6)
    const uint8_t* poll_p = nullptr;
    size_t poll_len = 0;
    std::vector<uint8_t> poll_buf;
    int poll_same = 0;
    int poll_thresh = 3;
    uint64_t own_writes = 0, poll_own_writes = 0;
    // races
    VClock vc;
    uint64_t epoch = 1;
    // scheduler
    CState state = CState::Ready;
    bool started = false;  // has run (on a thread of CoreThreads, launch.h); a core that never ran has no thread
    // the thread running the core, once it has one (TIMEOUT samples where that thread is: launch.h sample_core)
    pthread_t thread{};
    std::atomic<bool> on_thread{false};
    const uint8_t* wait_lo = nullptr;
    const uint8_t* wait_hi = nullptr;
    int barrier_n = 0;
    uint64_t barrier_gen = 0;
    bool probe = false;
    std::condition_variable cv;
    // IBSet/IBWait consumption and soft-SyncAll counts per flag address
    std::unordered_map<const void*, int32_t> ib_consumed;
    std::unordered_map<const void*, int32_t> softsync_count;
    // printf capture
    std::string out;
    // CANN's per-block g_sysWorkspaceReserved: set by SetSysWorkspace, or by the framework (system.h); null until then
    uint8_t* sys_workspace = nullptr;
    // The GM address a GlobalTensor handed out last (GetPhyAddr, Get/SetValue) and the pointer its SetGlobalBuffer
    // was given: gm_check judges an access at that address by the allocation the tensor was set on.
    const uint8_t* gm_view_addr = nullptr;
    const uint8_t* gm_view_origin = nullptr;
    // GM_WRITE_RACE: what another core wrote (in this epoch, unordered) to the bytes the current write replaces,
    // taken by gm_check before the write, so a rewrite of identical bytes is told apart from a conflicting one.
    uintptr_t race_snap_lo = 0;
    std::vector<uint8_t> race_snap;

    Core();
    ~Core();
};

inline thread_local Core* t_core = nullptr;

// ------------------------------------------------------------------------------------------------ runtime
struct WRec {
    uintptr_t lo, hi;
    int core;
    uint64_t epoch;
    bool atomic;
    const char* file;
    uint32_t line;
    const char* api;
};
struct SyncRegion {
    uintptr_t lo, hi;
    VClock vc;
};
struct PendingRW {
    uintptr_t lo, hi;
    int reader, writer;
    const char *rfile, *wfile, *rapi;
    uint32_t rline, wline;
};
struct BarrierRec { int arrived = 0; uint64_t gen = 0; };

struct Runtime {
    Config cfg;
    std::vector<std::unique_ptr<GmBuf>> gm;  // sorted by base
    std::vector<std::unique_ptr<Core>> cores;
    bool launched = false;
    std::chrono::steady_clock::time_point t0;
    double wall = 0;
    int64_t kernel_type = -1;

    // diagnostics
    std::mutex dm;
    std::vector<DiagRec> diags;
    std::map<std::string, std::pair<uint64_t, size_t>> dkeys;  // key -> (occurrences, first index)
    std::map<std::string, uint64_t> kind_counts;
    uint64_t dseq = 0;
    bool any_error = false;

    // scheduler
    std::mutex sm;
    std::condition_variable main_cv;
    int running = 0;
    int permits = 1;
    size_t done_prefix = 0;  // cores [0, done_prefix) are Done (final): the scheduler's scans start after them
    bool interleave = false;
    bool ordered_atomics = false;  // mode ordered
    bool all_done = false;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    std::atomic<int> n_waiting{0};
    std::atomic<bool> poll_blockdim_reported{false};  // POLL_BLOCKDIM_EXCEEDS_CORES: once per launch
    std::atomic<uint64_t> gm_write_count{0};
    uint64_t last_probe_count = ~0ull;
    std::map<int, BarrierRec> barriers;  // participant count -> state

    // races
    std::mutex rm;
    std::multimap<uintptr_t, WRec> wlog;
    size_t wlog_maxlen = 0;
    std::vector<SyncRegion> regions;
    std::vector<PendingRW> pending_rw;
    // each core's latest record per source line: a stream of writes from one statement stays one record even
    // when another statement's writes interleave (else lookups scan every small record in wlog_maxlen)
    std::map<std::pair<int, unsigned>, WRec*> last_wrec;

    // atomics in parallel mode
    std::mutex am[64];

    // gives core i, about to run for the first time, a thread to run on (set by launch(), launch.h)
    void (*start_core)(int) = nullptr;

    // finalisation
    std::atomic<bool> finishing{false};
    bool fatal_recorded = false;  // under dm: the launch's first fatal record ends it, and is its only one
    std::function<void(int)> write_outputs;  // set by the driver

    Runtime();
    ~Runtime();
};

inline Runtime*& rt_slot() {
    static Runtime* r = new Runtime();  // never destroyed at exit: core threads may outlive main's statics
    return r;
}
inline Runtime& rt() { return *rt_slot(); }

[[noreturn]] ASCEMU_DECL void fatal_exit(int code);
// Ends the process at once, as _exit: the emulator's own end, never taken for a kernel's (launch.h KERNEL_EXIT).
[[noreturn]] ASCEMU_DECL void process_exit(int code);
ASCEMU_DECL void diag(const char* kind, Sev sev, const SL& loc, const std::string& msg,
                      const std::string& details = "{}", unsigned flags = DF_NONE);
// diag at a source position given as such, not as a std::source_location: where a code address resolves to.
ASCEMU_DECL void diag_at(const char* kind, Sev sev, const char* file, uint32_t line, uint32_t column,
                         const char* function, const std::string& msg, const std::string& details = "{}",
                         unsigned flags = DF_NONE);

ASCEMU_DECL int fatal_code(const std::string& kind);

// Records a launch-level (core -1) diagnostic from harness code: no source line (the kernel has ended or not begun).
ASCEMU_DECL void diag_launch(const char* kind, Sev sev, const std::string& msg, const std::string& details = "{}");

// ------------------------------------------------------------------------------------------------ API entry
// A HARNESS record: at `loc` when a kernel's call is the cause (an API called outside a launch), else at no line.
[[noreturn]] ASCEMU_DECL void harness_fatal(const std::string& msg, const SL& loc = SL{});

// The cold ends of api_enter: an API called outside a launch (HARNESS), the per-core API budget spent (TIMEOUT).
[[noreturn]] ASCEMU_DECL void api_outside_launch(const char* api, const SL& loc);
ASCEMU_DECL void api_budget_exhausted(const SL& loc);

// The cold end of api_enter, for a call site in another file than the previous call's: is it the emulator's?
[[gnu::cold, gnu::noinline]] inline void judge_call_site(Core* c, const char* file) {
    c->judged_file = file;
    c->call_in_emulator = in_emulator(file);
}

// `loc`, the site of the API call being executed, when it is the kernel's; else the kernel's call of the outer API.
inline const SL& kernel_loc(const Core* c, const SL& loc) { return c->call_in_emulator ? c->last_loc : loc; }

inline Core* api_enter(const char* api, const SL& loc) {
    Core* c = t_core;
    if (!c) [[unlikely]]
        api_outside_launch(api, loc);
    c->last_api = api;
    if (loc.file_name() != c->judged_file) [[unlikely]]
        judge_call_site(c, loc.file_name());
    if (!c->call_in_emulator) c->last_loc = loc;  // an inner call keeps the outer call's site
    if (g_events) [[unlikely]]
        ev_call(c, api, loc.file_name(), loc.line());
    c->psv.cur = PX_V;  // most APIs run on the vector pipe; S / MTE2 / MTE3 APIs override after api_enter
    if (++c->api_calls > rt().cfg.api_budget) [[unlikely]]
        api_budget_exhausted(loc);
    return c;
}

// ------------------------------------------------------------------------------------------------ GM
ASCEMU_DECL GmBuf* gm_find(const void* p);

struct GmAccess {
    GmBuf* buf = nullptr;
    size_t off = 0;
    size_t ok = 0;  // bytes inside the allocation (from the start)
};

// A GlobalTensor hands out `addr`; its SetGlobalBuffer was given `origin` (see Core::gm_view_addr).  Every API that
// takes its GM address from a GlobalTensor (DataCopy, DataCopyPad, SyncAll, Get/SetValue, ...) is then judged by
// the tensor's allocation without passing the tensor along.
inline void gm_note_view(const void* addr, const void* origin) {
    if (Core* c = t_core) {
        c->gm_view_addr = (const uint8_t*)addr;
        c->gm_view_origin = (const uint8_t*)origin;
    }
}

// An access through a GlobalTensor that starts outside the allocation the tensor was set on.  On the device it
// reaches whatever lies there (another tensor, or nothing), so it is judged by the tensor, not by the address:
// with one core and adjacent buffers it would otherwise pass unnoticed.  Reads give poison, writes are dropped.
ASCEMU_DECL GmAccess gm_outside_view(GmBuf* set_on, const GmBuf* lands_in, const void* p, size_t len, bool write,
                                     const SL& loc, const char* what);

// The aclrtMalloc model of a GM allocation of `bytes`: ALIGN_UP(bytes, 32) + 32 bytes (CANN's aclrtMalloc reference:
// "size rounded up to a multiple of 32, plus 32 bytes"; aclrtMallocAlign32 gives only the rounded size).  Every
// allocator CANN documents gives a tensor at least gm_rounded(bytes): aclrtMalloc, aclrtMallocAlign32, a block carved
// by the ALIGN_UP(len, 32) + 32 rule, torch_npu's caching allocator (size + 32 rounded up to 512 B,
// Ascend/pytorch:torch_npu/csrc/core/npu/NPUCachingAllocator.cpp round_size).
inline size_t gm_rounded(size_t bytes) { return (bytes + 31) / 32 * 32; }
inline size_t gm_acl_alloc(size_t bytes) { return gm_rounded(bytes) + 32; }

// Bounds/alignment check of one GM access [p, p+len).  `elem` = element size for the alignment rule.
// `block_granular`: a DataCopy (MTE) access, which moves whole 32-byte blocks, so a tail copy of a tensor whose size
// is not a multiple of 32 ends at ALIGN_UP(size, 32): inside the rounded size of an aclrtMalloc-model buffer it is
// not reported.  A scalar access (GetValue/SetValue, ...) past the tensor's last byte is, as anything past the
// rounded size is (GM_SLACK_ACCESS / GM_WRITE_PAST_END inside the allocation, GM_OOB past it).
ASCEMU_DECL GmAccess gm_check_access(const void* p, size_t len, bool write, size_t elem, const SL& loc,
                                     const char* what, bool block_granular);
inline GmAccess gm_check(const void* p, size_t len, bool write, size_t elem, const SL& loc, const char* what,
                         bool block_granular = false) {
    GmAccess a = gm_check_access(p, len, write, elem, loc, what, block_granular);
    if (g_events) [[unlikely]]
        ev_gm(p, len, write, a);
    return a;
}

ASCEMU_DECL void gm_uninit_check(const GmAccess& a, const SL& loc, const char* what);

// ------------------------------------------------------------------------------------------------ scheduler
inline uint64_t rng_next(Runtime& R) {
    R.rng ^= R.rng << 13;
    R.rng ^= R.rng >> 7;
    R.rng ^= R.rng << 17;
    return R.rng;
}

ASCEMU_DECL std::string core_states_json();

// Mode ordered, with R.sm held: a core waiting to add atomically may go once no lower core is still runnable.
ASCEMU_DECL void promote_turns_locked();

// Called with R.sm held.  Gives free permits to the lowest-index ready cores; detects the end of the
// launch and deadlocks.
ASCEMU_DECL void dispatch_locked();
// With R.sm held: core c, Ready, runs now; a core that has not started yet gets a thread (CoreThreads, launch.h).
ASCEMU_DECL void run_core_locked(Core* c);

inline void wait_running(std::unique_lock<std::mutex>& lk, Core* c) {
    while (c->state != CState::Running) c->cv.wait(lk);
}

// Blocks the current core in BARRIER/WAIT state until another core makes it ready.
ASCEMU_DECL void block_current(std::unique_lock<std::mutex>& lk, Core* c, CState st);

// Mode ordered: serial mode's order of atomic adds (a float sum's bits depend on it) with cores otherwise
// running in parallel.  Core k adds only when every lower core has finished or blocks where serial mode would
// switch away from it (barrier, GM poll).  Exact for race-free kernels whose cores meet at barriers; a core
// released from a GM poll may run ahead of its serial turn (kernels/emu/README.md).
ASCEMU_DECL void atomic_turn(Core* c);

// GM write by the current core: wakes cores waiting on an overlapping range.
ASCEMU_DECL void wake_range(const uint8_t* lo, const uint8_t* hi);

// interleave:SEED — at a GM-visible op, yield with p=1/2 to a PRNG-chosen ready core.
ASCEMU_DECL void maybe_yield(Core* c);

// ------------------------------------------------------------------------------------------------ races
ASCEMU_DECL bool region_overlap_locked(uintptr_t lo, uintptr_t hi, std::vector<SyncRegion*>* out = nullptr);

ASCEMU_DECL void declare_sync_region(const void* p, size_t bytes);

// Overlaps larger than this are not kept by race_snapshot and count as conflicting writes.
inline constexpr size_t kRaceSnapMax = 1u << 20;

// Before core c writes [p, p+len): keep what other cores wrote there in this epoch with no barrier in between
// (plain writes only), so race_on_write can tell a rewrite of the same bytes from a conflicting one.
ASCEMU_DECL void race_snapshot(Core* c, const uint8_t* p, size_t len);

// After core c's plain write: do the bytes now in [lo, hi) equal what the other core had written there?
ASCEMU_DECL bool race_same_bytes(const Core* c, uintptr_t lo, uintptr_t hi);

ASCEMU_DECL void race_on_write(Core* c, uintptr_t lo, uintptr_t hi, bool atomic, const SL& loc, const char* api);

ASCEMU_DECL void race_on_read(Core* c, uintptr_t lo, uintptr_t hi, const SL& loc, const char* api);

// All participants [0, n) pass a barrier: everyone learns everyone's epoch; a full barrier clears the log.
ASCEMU_DECL void race_on_barrier(int n);

// ------------------------------------------------------------------------------------------------ GM effects
// After a (plain or atomic) write of [p, p+len) by core c.
ASCEMU_DECL void gm_after_write(Core* c, const GmAccess& a, const uint8_t* p, size_t len, bool atomic, const SL& loc,
                                const char* api);

// A core was released from a GM poll by another core's write: it waited on another block.  The device runs at
// most core_count blocks at once, so with more blocks the block it waits for may not be resident yet (the same
// reason SyncAll gives SYNC_BLOCKDIM_EXCEEDS_CORES); a flag barrier over all blocks then hangs.
ASCEMU_DECL void poll_blockdim_check(Core* c, const uint8_t* p, size_t len, const SL& loc);

// Spin detection (§6): called after each GM read of [p, p+len) by core c.
ASCEMU_DECL void gm_note_read(Core* c, const uint8_t* p, size_t len, const SL& loc, const char* api);

// Barrier over cores [0, n) (hard/soft SyncAll).
ASCEMU_DECL void barrier_wait(Core* c, int n, const SL& loc);

// Explicit wait until the int32 at p != consumed (IBWait).
ASCEMU_DECL void wait_until_changed(Core* c, const uint8_t* p, size_t len, const std::vector<uint8_t>& old);

// ------------------------------------------------------------------------------------------------ trace helpers
ASCEMU_DECL void trace_vec(Core* c, const char* api, const char* src, const char* dst, int64_t count, uint64_t repeats,
                           uint64_t internal = 0);

// ------------------------------------------------------------------------------------------------ report
ASCEMU_DECL std::string trace_json(Core& c);

// The KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE value the launch registered ("" when the kernel declares none).
ASCEMU_DECL const char* kernel_type_name(int64_t v);

ASCEMU_DECL std::string report_json(int exit_code);

ASCEMU_DECL void write_report(int exit_code);

}  // namespace ascemu

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/runtime_impl.h"
#include "ascemu/impl/events_impl.h"
#endif
