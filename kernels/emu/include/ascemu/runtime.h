// ascemu/runtime.h — launch-wide state: config, diagnostics (§5.6), GM registry (§5.1), emulated cores
// (§6), scheduler (serial / interleave:SEED / parallel), GM race detection, trace (§7) and the report.
#pragma once
#include <signal.h>
#include <unistd.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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
#include <thread>
#include <unordered_map>
#include <vector>

#include "ascemu/api_types.h"
#include "ascemu/platform.h"
#include "ascemu/types.h"
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

// ------------------------------------------------------------------------------------------------ config
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

inline std::string diag_json(const DiagRec& d) {
    std::string o = "{\"seq\":" + std::to_string(d.seq) + ",\"kind\":" + jstr(d.kind) +
                    ",\"severity\":" + jstr(sev_name(d.sev)) + ",\"core\":" + std::to_string(d.core) +
                    ",\"api\":" + jstr(d.api) + ",\"file\":" + jstr(d.file) + ",\"line\":" + std::to_string(d.line) +
                    ",\"column\":" + std::to_string(d.column) + ",\"function\":" + jstr(d.function) +
                    ",\"message\":" + jstr(d.message) + ",\"details\":" + (d.details.empty() ? "{}" : d.details) +
                    ",\"count\":" + std::to_string(d.count) + "}";
    return o;
}

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
struct VecAgg { uint64_t calls = 0, repeats = 0, internal_repeats = 0; };
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
    struct VecHot { VecKey k{nullptr, nullptr, nullptr, 0}; VecAgg* a = nullptr; };
    VecHot vec_hot[32];  // direct-mapped in front of vec_seen: the last keys each call site used
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

struct Core {
    int idx = 0;
    uint8_t* ub = nullptr;  // arena (ub_size bytes)
    Bitmap ubw;             // written shadow
    std::vector<UbBuf> bufs;
    uint32_t live_pipes = 0;
    void* pipe = nullptr;
    const char* last_api = "<kernel start>";
    SL last_loc{};
    uint64_t api_calls = 0;
    // atomics (§4.8)
    const char* atomic_type = nullptr;
    void (*atomic_fn)(uint8_t* gm, const uint8_t* ub, size_t bytes, OverflowMode) = nullptr;
    bool lower_done = false;  // mode ordered: every lower core has finished (Done is final), no turn to wait for
    SL atomic_loc{};
    // DeqScale (§4.6)
    bool deq_set = false;
    half deq_scale = half(1.0f);
    // events (§5.5)
    int32_t ev_pending[(int)AscendC::HardEvent::MAX][8] = {};
    // CANN's event-ID pool per HardEvent (TPipe's eventOccupy, bit i = ID i): the IDs the kernel took with
    // AllocEventID, and those the queues hold from EnQue to DeQue and from FreeTensor to the slot's next AllocTensor
    uint8_t ev_alloc[(int)AscendC::HardEvent::MAX] = {}, ev_queue[(int)AscendC::HardEvent::MAX] = {};
    SL ev_queue_loc[(int)AscendC::HardEvent::MAX][8] = {};
    SL ev_loc[(int)AscendC::HardEvent::MAX][8] = {};
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
    std::vector<uint64_t> vc;
    uint64_t epoch = 1;
    // scheduler
    CState state = CState::Ready;
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
    std::vector<uint8_t> ub_mem;
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
    std::vector<uint64_t> vc;
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

    // finalisation
    std::atomic<bool> finishing{false};
    std::function<void(int)> write_outputs;  // set by the driver
};

inline Runtime*& rt_slot() {
    static Runtime* r = new Runtime();  // never destroyed at exit: core threads may outlive main's statics on _exit
    return r;
}
inline Runtime& rt() { return *rt_slot(); }

[[noreturn]] inline void fatal_exit(int code);
inline void diag(const char* kind, Sev sev, const SL& loc, const std::string& msg, const std::string& details = "{}",
                 unsigned flags = DF_NONE);

inline int fatal_code(const std::string& kind) {
    if (kind == "DEADLOCK" || kind == "TIMEOUT") return 3;
    if (kind == "CRASH") return 4;
    if (kind == "HARNESS") return 5;
    return 2;
}

inline void diag(const char* kind, Sev sev, const SL& loc, const std::string& msg, const std::string& details,
                 unsigned flags) {
    Runtime& R = rt();
    Core* c = t_core;
    if ((flags & DF_STRICT_ERR) && R.cfg.strict && sev < Sev::Error) sev = Sev::Error;
    bool fatal = sev == Sev::Fatal || (R.cfg.strict && sev >= Sev::Error);
    {
        std::lock_guard<std::mutex> g(R.dm);
        R.kind_counts[kind]++;
        if (sev >= Sev::Error) R.any_error = true;
        // the severity is part of the key: a kind whose severity depends on the case (GM_WRITE_RACE: identical
        // bytes or not) never folds an error into an earlier record of lower severity
        std::string key = std::string(kind) + "|" + sev_name(sev) + "|" + std::to_string(c ? c->idx : -1) + "|" +
                          loc.file_name() + "|" + std::to_string(loc.line());
        auto& k = R.dkeys[key];
        k.first++;
        if (k.first <= 20 || fatal) {
            DiagRec d;
            d.seq = ++R.dseq;
            d.kind = kind;
            d.sev = sev;
            d.core = c ? c->idx : -1;
            d.api = c ? c->last_api : "";
            d.file = loc.file_name();
            d.line = loc.line();
            d.column = loc.column();
            d.function = loc.function_name();
            d.message = msg;
            d.details = details;
            if (k.first == 1) k.second = R.diags.size();
            R.diags.push_back(std::move(d));
            if (R.cfg.diag_stderr_all || (R.cfg.diag_stderr && sev >= Sev::Error)) {
                std::string line = "ASCEMU_DIAG " + diag_json(R.diags.back()) + "\n";
                (void)!::write(2, line.data(), line.size());
            }
        } else {
            R.diags[k.second].count++;
        }
    }
    if (fatal) fatal_exit(sev == Sev::Fatal ? fatal_code(kind) : 2);
}

// Records a launch-level (core -1) diagnostic from harness code.
inline void diag_launch(const char* kind, Sev sev, const std::string& msg, const std::string& details = "{}",
                        const SL& loc = SL::current()) {
    Core* saved = t_core;
    t_core = nullptr;
    diag(kind, sev, loc, msg, details);
    t_core = saved;
}

// ------------------------------------------------------------------------------------------------ API entry
[[noreturn]] inline void harness_fatal(const std::string& msg, const SL& loc = SL::current()) {
    diag("HARNESS", Sev::Fatal, loc, msg);
    fatal_exit(5);
}

inline Core* api_enter(const char* api, const SL& loc) {
    Core* c = t_core;
    if (!c) [[unlikely]]
        harness_fatal(std::string("Ascend C API ") + api + " called outside a kernel launch", loc);
    c->last_api = api;
    c->last_loc = loc;
    c->psv.cur = PX_V;  // most APIs run on the vector pipe; S / MTE2 / MTE3 APIs override after api_enter
    if (++c->api_calls > rt().cfg.api_budget) [[unlikely]]
        diag("TIMEOUT", Sev::Fatal, loc, "per-core API-call budget exhausted",
             jd("budget", (long long)rt().cfg.api_budget));
    return c;
}

// ------------------------------------------------------------------------------------------------ GM
inline GmBuf* gm_find(const void* p) {
    Runtime& R = rt();
    auto it = std::upper_bound(R.gm.begin(), R.gm.end(), (const uint8_t*)p,
                               [](const uint8_t* v, const std::unique_ptr<GmBuf>& b) { return v < b->base; });
    if (it == R.gm.begin()) return nullptr;
    GmBuf* b = (--it)->get();
    if ((const uint8_t*)p < b->base + b->alloc) return b;
    return nullptr;
}

struct GmAccess {
    GmBuf* buf = nullptr;
    size_t off = 0;
    size_t ok = 0;  // bytes inside the allocation (from the start)
};

inline void race_snapshot(Core* c, const uint8_t* p, size_t len);

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
inline GmAccess gm_outside_view(GmBuf* set_on, const GmBuf* lands_in, const void* p, size_t len, bool write,
                                const SL& loc, const char* what) {
    const long long off = (long long)((const uint8_t*)p - set_on->base);
    const std::string where = lands_in ? ", inside '" + lands_in->name + "'" : std::string(", in no allocation");
    diag("GM_OOB", Sev::Error, loc,
         strf("%s %s %zu bytes at offset %lld of '%s', the allocation its GlobalTensor was set on (%zu usable bytes, "
              "allocation %zu): the access lies outside it%s; %s",
              what, write ? "writes" : "reads", len, off, set_on->name.c_str(), set_on->bytes, set_on->alloc,
              where.c_str(), write ? "dropped" : "read as poison"),
         jd("buffer", set_on->name, "offset", off, "bytes", len, "usable", set_on->bytes, "allocation", set_on->alloc,
            "write", write, "lands_in", lands_in ? lands_in->name : std::string()));
    GmAccess a;
    a.buf = set_on;  // ok = 0: no byte of the access is inside it
    return a;
}

// Bounds/alignment check of one GM access [p, p+len).  `elem` = element size for the alignment rule.
inline GmAccess gm_check(const void* p, size_t len, bool write, size_t elem, const SL& loc, const char* what) {
    GmAccess a;
    if (len == 0) return a;
    Core* c = t_core;
    const uint8_t* set_on = nullptr;
    if (c && c->gm_view_addr == (const uint8_t*)p) {  // the address came from a GlobalTensor
        set_on = c->gm_view_origin;
        c->gm_view_addr = nullptr;
    }
    GmBuf* b = gm_find(p);
    if (set_on) {
        GmBuf* o = gm_find(set_on);
        if (o && o != b) return gm_outside_view(o, b, p, len, write, loc, what);
    }
    if (!b) {
        diag("GM_UNKNOWN_POINTER", Sev::Error, loc,
             strf("%s %s %zu bytes at %p: pointer is in no GM allocation; access skipped", what,
                  write ? "writes" : "reads", len, p),
             jd("addr", p, "bytes", len, "write", write));
        return a;
    }
    a.buf = b;
    a.off = (const uint8_t*)p - b->base;
    a.ok = std::min(len, b->alloc - a.off);
    if (elem > 1 && ((uintptr_t)p % elem) != 0)
        diag("GM_MISALIGNED", Sev::Error, loc,
             strf("%s: GM address %p is not aligned to the element size %zu", what, p, elem),
             jd("addr", p, "elem_size", elem, "buffer", b->name));
    if (a.ok < len) {
        diag("GM_OOB", Sev::Error, loc,
             strf("%s %s bytes [%zu, %zu) of '%s' (%zu usable bytes, allocation %zu): %zu bytes past the allocation %s",
                  what, write ? "writes" : "reads", a.off, a.off + len, b->name.c_str(), b->bytes, b->alloc,
                  len - a.ok, write ? "dropped" : "read as poison"),
             jd("buffer", b->name, "offset", a.off, "bytes", len, "usable", b->bytes, "allocation", b->alloc,
                "write", write));
    } else if (a.off + len > b->bytes && write) {
        // The slack is the allocator's, not the tensor's: a framework hands out tensors carved from a larger
        // block, so on a device these bytes may belong to a neighbour (even an atomic +0 can change them).
        diag("GM_WRITE_PAST_END", Sev::Warning, loc,
             strf("%s writes bytes [%zu, %zu) of '%s' (%s): %zu bytes past its %zu usable bytes, into the allocation "
                  "slack; on a device they may belong to another tensor",
                  what, a.off, a.off + len, b->name.c_str(), role_name(b->role), a.off + len - b->bytes, b->bytes),
             jd("buffer", b->name, "role", role_name(b->role), "offset", a.off, "bytes", len, "usable", b->bytes,
                "past_end", a.off + len - b->bytes),
             DF_STRICT_ERR);
    } else if (a.off + len > b->bytes) {
        diag("GM_SLACK_ACCESS", Sev::Warning, loc,
             strf("%s reads bytes [%zu, %zu) of '%s': %zu bytes inside the 32-B allocation slack past %zu usable bytes",
                  what, a.off, a.off + len, b->name.c_str(), a.off + len - b->bytes, b->bytes),
             jd("buffer", b->name, "offset", a.off, "bytes", len, "usable", b->bytes, "write", write));
    }
    if (write && a.ok && c && !c->atomic_fn && rt().cores.size() > 1) race_snapshot(c, (const uint8_t*)p, a.ok);
    return a;
}

inline void gm_uninit_check(const GmAccess& a, const SL& loc, const char* what) {
    if (!a.buf || a.buf->prefilled || a.ok == 0) return;
    size_t hi = std::min(a.off + a.ok, a.buf->bytes);
    if (a.off < hi && !a.buf->written.all(a.off, hi))
        diag("GM_UNINIT_READ", Sev::Warning, loc,
             strf("%s reads never-written bytes of '%s' (%s) in [%zu, %zu)", what, a.buf->name.c_str(),
                  role_name(a.buf->role), a.off, hi),
             jd("buffer", a.buf->name, "offset", a.off, "bytes", hi - a.off));
}

// ------------------------------------------------------------------------------------------------ scheduler
inline uint64_t rng_next(Runtime& R) {
    R.rng ^= R.rng << 13;
    R.rng ^= R.rng >> 7;
    R.rng ^= R.rng << 17;
    return R.rng;
}

inline std::string core_states_json() {
    Runtime& R = rt();
    std::string o = "[";
    for (auto& c : R.cores) {
        if (o.size() > 1) o += ',';
        o += jd("core", c->idx, "state", cstate_name(c->state), "last_api", c->last_api, "file",
                c->last_loc.file_name() ? c->last_loc.file_name() : "", "line", c->last_loc.line());
        if (c->state == CState::Wait) {
            o.pop_back();
            o += strf(",\"awaited\":{\"addr\":\"%p\",\"bytes\":%zu}}", (const void*)c->wait_lo,
                      (size_t)(c->wait_hi - c->wait_lo));
        }
        if (c->state == CState::Barrier) {
            o.pop_back();
            o += strf(",\"barrier_cores\":%d}", c->barrier_n);
        }
    }
    return o + "]";
}

// Mode ordered, with R.sm held: a core waiting to add atomically may go once no lower core is still runnable.
inline void promote_turns_locked() {
    Runtime& R = rt();
    bool lower_runnable = false;
    for (auto& c : R.cores) {
        if (c->state == CState::Turn && !lower_runnable) c->state = CState::Ready;
        if (c->state == CState::Ready || c->state == CState::Running || c->state == CState::Turn) lower_runnable = true;
    }
}

// Called with R.sm held.  Gives free permits to the lowest-index ready cores; detects the end of the
// launch and deadlocks.
inline void dispatch_locked() {
    Runtime& R = rt();
    for (;;) {
        if (R.ordered_atomics) promote_turns_locked();
        while (R.running < R.permits) {
            Core* pick = nullptr;
            for (auto& c : R.cores)
                if (c->state == CState::Ready) { pick = c.get(); break; }
            if (!pick) break;
            pick->state = CState::Running;
            R.running++;
            pick->cv.notify_one();
        }
        if (R.running > 0) return;
        bool all_done = true, any_wait = false;
        for (auto& c : R.cores) {
            if (c->state != CState::Done) all_done = false;
            if (c->state == CState::Wait) any_wait = true;
        }
        if (all_done) {
            R.all_done = true;
            R.main_cv.notify_all();
            return;
        }
        uint64_t wc = R.gm_write_count.load();
        if (any_wait && wc != R.last_probe_count) {
            // Nothing is runnable: re-run the polling cores once (a false-positive spin, e.g. a kernel that
            // re-reads a constant, continues; a real spin re-blocks without any GM write -> DEADLOCK).
            R.last_probe_count = wc;
            for (auto& c : R.cores)
                if (c->state == CState::Wait) {
                    c->state = CState::Ready;
                    c->probe = true;
                    R.n_waiting--;
                }
            continue;
        }
        Core* me = t_core;
        std::string det = "{\"cores\":" + core_states_json() +
                          ",\"hint\":\"a core polls GM that no other core will write; with GetValue polling, check "
                          "DataCacheCleanAndInvalid (stale DCache) and that the flag writer runs\"}";
        SL loc = me ? me->last_loc : SL::current();
        diag("DEADLOCK", Sev::Fatal, loc, "no core can make progress (all unfinished cores wait at a barrier or poll GM)",
             det);
        return;
    }
}

inline void wait_running(std::unique_lock<std::mutex>& lk, Core* c) {
    while (c->state != CState::Running) c->cv.wait(lk);
}

// Blocks the current core in BARRIER/WAIT state until another core makes it ready.
inline void block_current(std::unique_lock<std::mutex>& lk, Core* c, CState st) {
    Runtime& R = rt();
    c->state = st;
    R.running--;
    dispatch_locked();
    wait_running(lk, c);
}

// Mode ordered: serial mode's order of atomic adds (a float sum's bits depend on it) with cores otherwise
// running in parallel.  Core k adds only when every lower core has finished or blocks where serial mode would
// switch away from it (barrier, GM poll).  Exact for race-free kernels whose cores meet at barriers; a core
// released from a GM poll may run ahead of its serial turn (kernels/emu/README.md).
inline void atomic_turn(Core* c) {
    Runtime& R = rt();
    if (!R.ordered_atomics || c->lower_done) return;
    std::unique_lock<std::mutex> lk(R.sm);
    bool all_done = true;
    for (int j = 0; j < c->idx; ++j) {
        const CState st = R.cores[j]->state;
        if (st == CState::Ready || st == CState::Running || st == CState::Turn) {
            block_current(lk, c, CState::Turn);
            return;
        }
        all_done &= st == CState::Done;
    }
    c->lower_done = all_done;
}

// GM write by the current core: wakes cores waiting on an overlapping range.
inline void wake_range(const uint8_t* lo, const uint8_t* hi) {
    Runtime& R = rt();
    R.gm_write_count.fetch_add(1);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (R.n_waiting.load() == 0) return;
    std::unique_lock<std::mutex> lk(R.sm);
    for (auto& c : R.cores)
        if (c->state == CState::Wait && c->wait_lo < hi && lo < c->wait_hi) {
            c->state = CState::Ready;
            R.n_waiting--;
        }
    dispatch_locked();
}

// interleave:SEED — at a GM-visible op, yield with p=1/2 to a PRNG-chosen ready core.
inline void maybe_yield(Core* c) {
    Runtime& R = rt();
    if (!R.interleave) return;
    std::unique_lock<std::mutex> lk(R.sm);
    if (!(rng_next(R) & 1)) return;
    Core* cand[256];
    int n = 0;
    cand[n++] = c;
    for (auto& o : R.cores)
        if (o->state == CState::Ready && n < 256) cand[n++] = o.get();
    Core* t = cand[rng_next(R) % n];
    if (t == c) return;
    c->state = CState::Ready;
    t->state = CState::Running;
    t->cv.notify_one();
    wait_running(lk, c);
}

// ------------------------------------------------------------------------------------------------ races
inline bool region_overlap_locked(uintptr_t lo, uintptr_t hi, std::vector<SyncRegion*>* out = nullptr) {
    bool any = false;
    for (auto& r : rt().regions)
        if (r.lo < hi && lo < r.hi) {
            any = true;
            if (out) out->push_back(&r);
        }
    return any;
}

inline void declare_sync_region(const void* p, size_t bytes) {
    Runtime& R = rt();
    std::lock_guard<std::mutex> g(R.rm);
    uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    for (auto& r : R.regions)
        if (r.lo <= lo && hi <= r.hi) return;
    SyncRegion s{lo, hi, std::vector<uint64_t>(R.cores.size(), 0)};
    auto it = R.wlog.lower_bound(lo > R.wlog_maxlen ? lo - R.wlog_maxlen : 0);
    for (; it != R.wlog.end() && it->first < hi; ++it) {
        const WRec& w = it->second;
        if (w.hi <= lo) continue;
        s.vc[w.core] = std::max(s.vc[w.core], w.epoch);
        R.cores[w.core]->epoch = std::max(R.cores[w.core]->epoch, w.epoch + 1);
    }
    R.regions.push_back(std::move(s));
}

// Overlaps larger than this are not kept by race_snapshot and count as conflicting writes.
inline constexpr size_t kRaceSnapMax = 1u << 20;

// Before core c writes [p, p+len): keep what other cores wrote there in this epoch with no barrier in between
// (plain writes only), so race_on_write can tell a rewrite of the same bytes from a conflicting one.
inline void race_snapshot(Core* c, const uint8_t* p, size_t len) {
    Runtime& R = rt();
    c->race_snap.clear();
    const uintptr_t lo = (uintptr_t)p, hi = lo + len;
    uintptr_t slo = UINTPTR_MAX, shi = 0;
    {
        std::lock_guard<std::mutex> g(R.rm);
        if (R.wlog.empty()) return;
        auto it = R.wlog.lower_bound(lo > R.wlog_maxlen ? lo - R.wlog_maxlen : 0);
        for (; it != R.wlog.end() && it->first < hi; ++it) {
            const WRec& w = it->second;
            if (w.hi <= lo || w.core == c->idx || w.atomic || w.epoch <= c->vc[w.core]) continue;
            slo = std::min(slo, std::max(lo, w.lo));
            shi = std::max(shi, std::min(hi, w.hi));
        }
    }
    if (shi <= slo || shi - slo > kRaceSnapMax) return;
    c->race_snap_lo = slo;
    c->race_snap.assign((const uint8_t*)slo, (const uint8_t*)shi);
}

// After core c's plain write: do the bytes now in [lo, hi) equal what the other core had written there?
inline bool race_same_bytes(const Core* c, uintptr_t lo, uintptr_t hi) {
    const uintptr_t slo = c->race_snap_lo, shi = slo + c->race_snap.size();
    return slo <= lo && hi <= shi && std::memcmp((const void*)lo, c->race_snap.data() + (lo - slo), hi - lo) == 0;
}

inline void race_on_write(Core* c, uintptr_t lo, uintptr_t hi, bool atomic, const SL& loc, const char* api) {
    Runtime& R = rt();
    if (R.cores.size() < 2) return;
    std::string report, identical;  // a conflicting overlap; an overlap rewritten with the same bytes
    {
        std::lock_guard<std::mutex> g(R.rm);
        std::vector<SyncRegion*> rs;
        if (region_overlap_locked(lo, hi, &rs)) {
            for (auto* r : rs) r->vc[c->idx] = std::max(r->vc[c->idx], c->epoch);
            c->epoch++;
            return;
        }
        auto it = R.wlog.lower_bound(lo > R.wlog_maxlen ? lo - R.wlog_maxlen : 0);
        for (; it != R.wlog.end() && it->first < hi; ++it) {
            const WRec& w = it->second;
            if (w.hi <= lo || w.core == c->idx) continue;
            if (w.atomic && atomic) continue;
            if (w.epoch <= c->vc[w.core]) continue;
            uintptr_t olo = std::max(lo, w.lo), ohi = std::min(hi, w.hi);
            const bool same = !atomic && !w.atomic && race_same_bytes(c, olo, ohi);
            std::string det = jd("other_core", w.core, "other_file", w.file, "other_line", w.line, "other_api", w.api,
                                 "other_atomic", w.atomic, "atomic", atomic, "overlap_addr", (const void*)olo,
                                 "overlap_bytes", (long long)(ohi - olo), "identical", same);
            if (!same) {
                report = std::move(det);
                break;
            }
            if (identical.empty()) identical = std::move(det);
        }
        // merge with this core's previous record from the same line when contiguous and identical otherwise
        auto li = R.last_wrec.find({c->idx, loc.line()});
        if (li != R.last_wrec.end() && li->second) {
            WRec* p = li->second;
            if (p->epoch == c->epoch && p->atomic == atomic && p->line == loc.line() && p->hi == lo &&
                std::strcmp(p->file, loc.file_name()) == 0) {
                p->hi = hi;
                R.wlog_maxlen = std::max<size_t>(R.wlog_maxlen, p->hi - p->lo);
                goto done;
            }
        }
        {
            auto ins = R.wlog.emplace(lo, WRec{lo, hi, c->idx, c->epoch, atomic, loc.file_name(), loc.line(), api});
            R.last_wrec[{c->idx, loc.line()}] = &ins->second;
            R.wlog_maxlen = std::max<size_t>(R.wlog_maxlen, hi - lo);
        }
    done:;
    }
    if (!report.empty())
        diag("GM_WRITE_RACE", Sev::Error, loc,
             strf("core %d %s GM bytes another core wrote in the same epoch without a barrier between them", c->idx,
                  atomic ? "atomically adds to" : "writes"),
             report);
    else if (!identical.empty())  // every order of the two writes leaves the same bytes
        diag("GM_WRITE_RACE", Sev::Info, loc,
             strf("core %d rewrites GM bytes another core wrote in the same epoch, with identical bytes: the result "
                  "does not depend on their order",
                  c->idx),
             identical);
}

inline void race_on_read(Core* c, uintptr_t lo, uintptr_t hi, const SL& loc, const char* api) {
    Runtime& R = rt();
    if (R.cores.size() < 2) return;
    std::lock_guard<std::mutex> g(R.rm);
    std::vector<SyncRegion*> rs;
    if (region_overlap_locked(lo, hi, &rs)) {
        for (auto* r : rs)
            for (size_t i = 0; i < r->vc.size(); ++i) c->vc[i] = std::max(c->vc[i], r->vc[i]);
        return;
    }
    if (R.wlog.empty() || R.pending_rw.size() >= 64) return;
    auto it = R.wlog.lower_bound(lo > R.wlog_maxlen ? lo - R.wlog_maxlen : 0);
    for (; it != R.wlog.end() && it->first < hi; ++it) {
        const WRec& w = it->second;
        if (w.hi <= lo || w.core == c->idx || w.epoch <= c->vc[w.core]) continue;
        R.pending_rw.push_back(
            PendingRW{std::max(lo, w.lo), std::min(hi, w.hi), c->idx, w.core, loc.file_name(), w.file, api, loc.line(),
                      w.line});
        return;
    }
}

// All participants [0, n) pass a barrier: everyone learns everyone's epoch; a full barrier clears the log.
inline void race_on_barrier(int n) {
    Runtime& R = rt();
    std::lock_guard<std::mutex> g(R.rm);
    std::vector<uint64_t> e(R.cores.size(), 0);
    for (int i = 0; i < n; ++i) e[i] = R.cores[i]->epoch;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) R.cores[i]->vc[j] = std::max(R.cores[i]->vc[j], e[j]);
        R.cores[i]->epoch++;
    }
    if (n == (int)R.cores.size()) {
        R.wlog.clear();
        R.wlog_maxlen = 0;
        R.last_wrec.clear();
    } else {
        R.last_wrec.erase(R.last_wrec.begin(), R.last_wrec.lower_bound({n, 0u}));
    }
}

// ------------------------------------------------------------------------------------------------ GM effects
// After a (plain or atomic) write of [p, p+len) by core c.
inline void gm_after_write(Core* c, const GmAccess& a, const uint8_t* p, size_t len, bool atomic, const SL& loc,
                           const char* api) {
    (void)len;
    if (!a.buf || a.ok == 0) return;
    a.buf->written.set(a.off, a.off + a.ok, rt().permits > 1);
    c->own_writes++;
    race_on_write(c, (uintptr_t)p, (uintptr_t)p + a.ok, atomic, loc, api);
    wake_range(p, p + a.ok);
}

// A core was released from a GM poll by another core's write: it waited on another block.  The device runs at
// most core_count blocks at once, so with more blocks the block it waits for may not be resident yet (the same
// reason SyncAll gives SYNC_BLOCKDIM_EXCEEDS_CORES); a flag barrier over all blocks then hangs.
inline void poll_blockdim_check(Core* c, const uint8_t* p, size_t len, const SL& loc) {
    Runtime& R = rt();
    (void)c;
    if (R.cfg.block_dim <= (int)R.cfg.core_count || R.poll_blockdim_reported.exchange(true)) return;
    diag("POLL_BLOCKDIM_EXCEEDS_CORES", Sev::Warning, loc,
         strf("a core waited on GM that another core writes (a flag barrier or poll) with blockDim %d > %u "
              "physical cores: on the device not every block is resident at once, so the wait can hang",
              R.cfg.block_dim, R.cfg.core_count),
         jd("block_dim", R.cfg.block_dim, "core_count", R.cfg.core_count, "addr", (const void*)p, "bytes", len),
         DF_STRICT_ERR);
}

// Spin detection (§6): called after each GM read of [p, p+len) by core c.
inline void gm_note_read(Core* c, const uint8_t* p, size_t len, const SL& loc, const char* api) {
    Runtime& R = rt();
    race_on_read(c, (uintptr_t)p, (uintptr_t)p + len, loc, api);
    if (R.cores.size() < 2 || len > 4096 || len == 0) {
        c->poll_p = nullptr;
        return;
    }
    if (p == c->poll_p && len == c->poll_len && c->own_writes == c->poll_own_writes &&
        std::memcmp(p, c->poll_buf.data(), len) == 0) {
        c->tr.poll_iterations++;
        if (++c->poll_same >= c->poll_thresh) {
            declare_sync_region(p, len);
            std::unique_lock<std::mutex> lk(R.sm);
            R.n_waiting++;
            std::atomic_thread_fence(std::memory_order_seq_cst);
            if (std::memcmp(p, c->poll_buf.data(), len) != 0) {
                R.n_waiting--;
            } else {
                c->wait_lo = p;
                c->wait_hi = p + len;
                c->probe = false;
                block_current(lk, c, CState::Wait);
                if (c->probe) {
                    c->poll_thresh = 64;
                } else {
                    c->poll_thresh = R.cfg.poll_yield;
                    lk.unlock();
                    poll_blockdim_check(c, p, len, loc);
                }
            }
            c->poll_same = 0;
            c->poll_p = nullptr;
        }
    } else {
        c->poll_p = p;
        c->poll_len = len;
        c->poll_buf.assign(p, p + len);
        c->poll_same = 1;
        c->poll_own_writes = c->own_writes;
    }
}

// Barrier over cores [0, n) (hard/soft SyncAll).
inline void barrier_wait(Core* c, int n, const SL& loc) {
    Runtime& R = rt();
    std::unique_lock<std::mutex> lk(R.sm);
    if (n > (int)R.cores.size()) {
        lk.unlock();
        diag("DEADLOCK", Sev::Fatal, loc,
             strf("barrier over %d cores but the launch has only blockDim=%zu cores", n, R.cores.size()),
             "{\"cores\":" + core_states_json() + "}");
    }
    for (int i = 0; i < n; ++i)
        if (R.cores[i]->state == CState::Done) {
            std::string det = "{\"exited_core\":" + std::to_string(i) + ",\"cores\":" + core_states_json() + "}";
            lk.unlock();
            diag("DEADLOCK", Sev::Fatal, loc, strf("barrier waits on core %d, which has already exited", i), det);
        }
    BarrierRec& b = R.barriers[n];
    b.arrived++;
    c->barrier_n = n;
    c->barrier_gen = b.gen;
    if (b.arrived == n) {
        b.arrived = 0;
        b.gen++;
        for (int i = 0; i < n; ++i)
            if (R.cores[i]->state == CState::Barrier && R.cores[i]->barrier_n == n) R.cores[i]->state = CState::Ready;
        lk.unlock();
        race_on_barrier(n);
        lk.lock();
        dispatch_locked();
        return;
    }
    block_current(lk, c, CState::Barrier);
}

// Explicit wait until the int32 at p != consumed (IBWait).
inline void wait_until_changed(Core* c, const uint8_t* p, size_t len, const std::vector<uint8_t>& old) {
    Runtime& R = rt();
    declare_sync_region(p, len);
    for (;;) {
        std::unique_lock<std::mutex> lk(R.sm);
        R.n_waiting++;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        if (std::memcmp(p, old.data(), len) != 0) {
            R.n_waiting--;
            return;
        }
        c->wait_lo = p;
        c->wait_hi = p + len;
        c->probe = false;
        block_current(lk, c, CState::Wait);
        if (c->probe && std::memcmp(p, old.data(), len) == 0) {
            // probe wake with nothing changed: nothing else can run -> re-block, dispatch detects deadlock
            continue;
        }
    }
}

// ------------------------------------------------------------------------------------------------ trace helpers
inline void trace_vec(Core* c, const char* api, const char* src, const char* dst, int64_t count, uint64_t repeats,
                      uint64_t internal = 0) {
    const VecKey key{api, src, dst, count};
    auto& hot = c->tr.vec_hot[(VecKeyPtrHash()(key) >> 4) % std::size(c->tr.vec_hot)];
    if (!hot.a || !VecKeyPtrEq()(hot.k, key)) {
        VecAgg*& seen = c->tr.vec_seen[key];
        if (!seen) seen = &c->tr.vec[key];
        hot = {key, seen};
    }
    VecAgg& a = *hot.a;
    a.calls++;
    a.repeats += repeats;
    a.internal_repeats += internal;
}

// ------------------------------------------------------------------------------------------------ report
inline std::string trace_json(Core& c) {
    Trace& t = c.tr;
    auto mte = [](const MteStat& m) {
        return jd("bytes", m.bytes, "ops", m.ops, "bursts", m.bursts, "small_ops", m.small_ops);
    };
    std::string o = "{\"core\":" + std::to_string(c.idx) + ",\"mte2\":" + mte(t.mte2) + ",\"mte3\":" + mte(t.mte3) +
                    ",\"ub2ub\":" + jd("bytes", t.ub2ub.bytes, "ops", t.ub2ub.ops) +
                    ",\"atomic\":" + jd("bytes", t.atomic_bytes, "ops", t.atomic_ops, "dtype", t.atomic_dtype) +
                    ",\"vec\":[";
    bool first = true;
    for (auto& [k, v] : t.vec) {
        if (!first) o += ',';
        first = false;
        o += jd("api", k.api, "src", k.src, "dst", k.dst, "count", k.count, "calls", v.calls, "repeats", v.repeats,
                "internal_repeats", v.internal_repeats);
    }
    o += "],\"scalar\":" + jd("ub_get", t.ub_get, "ub_set", t.ub_set, "gm_get", t.gm_get, "gm_set", t.gm_set,
                              "dcache_miss_lines", t.dcache_miss_lines, "dcci", t.dcci);
    static const char* pn[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "ALL", "MTE4", "MTE5", "V2", "FIX"};
    std::string pb = "{";
    for (int i = 0; i < PIPE_NUM_ASCEMU; ++i)
        if (t.pipe_barrier[i]) {
            if (pb.size() > 1) pb += ',';
            pb += "\"" + std::string(pn[i]) + "\":" + std::to_string(t.pipe_barrier[i]);
        }
    pb += "}";
    o += ",\"sync\":{\"pipe_barrier\":" + pb + "," +
         jd("set_flag", t.set_flag, "wait_flag", t.wait_flag, "enque", t.enque, "deque", t.deque, "syncall", t.syncall,
            "ib_wait", t.ib_wait, "poll_iterations", t.poll_iterations)
             .substr(1);
    o += ",\"ub\":{\"peak_bytes\":" + std::to_string(t.ub_peak) + ",\"buffers\":" + std::to_string(t.ub_buffers) +
         ",\"queues\":[";
    for (size_t i = 0; i < t.queues.size(); ++i) {
        if (i) o += ',';
        o += jd("pos", t.queues[i].pos, "num", t.queues[i].num, "len", t.queues[i].len, "depth", t.queues[i].depth);
    }
    o += "]},\"api_calls\":" + std::to_string(c.api_calls) + ",\"printf_calls\":" + std::to_string(t.printf_calls) +
         ",\"state\":" + jstr(cstate_name(c.state)) + "}";
    return o;
}

// The KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE value the launch registered ("" when the kernel declares none).
inline const char* kernel_type_name(int64_t v) {
    static const char* names[] = {"KERNEL_TYPE_AIV_ONLY",    "KERNEL_TYPE_AIC_ONLY",       "KERNEL_TYPE_MIX_AIV_1_0",
                                  "KERNEL_TYPE_MIX_AIC_1_0", "KERNEL_TYPE_MIX_AIC_1_1",    "KERNEL_TYPE_MIX_AIC_1_2",
                                  "KERNEL_TYPE_AICORE",      "KERNEL_TYPE_VECTORCORE",     "KERNEL_TYPE_MIX_AICORE",
                                  "KERNEL_TYPE_MIX_VECTOR_CORE"};
    return v >= 0 && v < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[v] : "";
}

inline std::string report_json(int exit_code) {
    Runtime& R = rt();
    std::string o = "{\"exit_code\":" + std::to_string(exit_code);
    o += ",\"config\":" + jd("platform", R.cfg.platform, "soc", R.cfg.soc, "block_dim", R.cfg.block_dim, "tiling_key",
                             (long long)R.cfg.tiling_key, "mode", R.cfg.mode, "seed", (long long)R.cfg.seed, "strict",
                             R.cfg.strict, "timeout_s", R.cfg.timeout_s, "overflow_mode",
                             R.cfg.overflow == OverflowMode::Saturation ? "saturation" : "inf_nan", "ub_size",
                             kProfile.ub_size, "gm_alloc", R.cfg.gm_exact ? "exact" : "acl");
    o += ",\"diagnostics\":[";
    {
        std::unique_lock<std::mutex> g(R.dm, std::try_to_lock);
        for (size_t i = 0; i < R.diags.size(); ++i) {
            if (i) o += ',';
            o += diag_json(R.diags[i]);
        }
        o += "],\"diag_counts\":{";
        bool f = true;
        for (auto& [k, v] : R.kind_counts) {
            if (!f) o += ',';
            f = false;
            o += jstr(k) + ":" + std::to_string(v);
        }
        o += "}";
    }
    o += ",\"trace\":{\"cores\":[";
    for (size_t i = 0; i < R.cores.size(); ++i) {
        if (i) o += ',';
        o += trace_json(*R.cores[i]);
    }
    o += "],\"kernel_type\":" + jstr(kernel_type_name(R.kernel_type));  // what KERNEL_TASK_TYPE declared
    o += "},\"printf\":[";
    bool f = true;
    for (auto& c : R.cores)
        if (!c->out.empty()) {
            if (!f) o += ',';
            f = false;
            o += "{\"core\":" + std::to_string(c->idx) + ",\"text\":" + jstr(c->out) + "}";
        }
    o += "],\"wall_time_s\":" + jnum(R.wall) + ",\"output_unwritten\":{";
    f = true;
    for (auto& b : R.gm)
        if (b->role == Role::Output && b->arg_index >= 0) {
            size_t u = b->unwritten >= 0 ? (size_t)b->unwritten : b->written.count_unset(0, b->bytes);
            if (!f) o += ',';
            f = false;
            o += "\"" + std::to_string(b->arg_index) + "\":" + std::to_string(u);
        }
    o += "}}\n";
    return o;
}

inline void write_report(int exit_code) {
    Runtime& R = rt();
    if (R.launched && R.wall == 0)
        R.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - R.t0).count();
    if (R.write_outputs) R.write_outputs(exit_code);
    if (R.cfg.report_path.empty()) return;
    std::string s = report_json(exit_code);
    FILE* f = std::fopen(R.cfg.report_path.c_str(), "wb");
    if (!f) {
        std::string m = "ASCEMU_DIAG {\"kind\":\"HARNESS\",\"severity\":\"fatal\",\"message\":\"cannot write report " +
                        R.cfg.report_path + "\"}\n";
        (void)!::write(2, m.data(), m.size());
        return;
    }
    std::fwrite(s.data(), 1, s.size(), f);
    std::fflush(f);
    std::fclose(f);
}

[[noreturn]] inline void fatal_exit(int code) {
    Runtime& R = rt();
    if (R.finishing.exchange(true)) {
        for (;;) pause();  // another thread is finalising; it will _exit
    }
    write_report(code);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
}

}  // namespace ascemu
