// ascemu/sync.h — pipe/event sync (§5.5), inter-core sync (§6), atomics (§4.8), DataCacheCleanAndInvalid.
#pragma once
#include <array>
#include <map>

#include "ascemu/vector.h"

namespace ascemu {

template <class T>
inline void atomic_add_fn(uint8_t* gm, const uint8_t* ub, size_t bytes, OverflowMode om) {
    size_t n = bytes / sizeof(T);
    T* g = (T*)gm;
    const T* u = (const T*)ub;
    if constexpr (std::is_same_v<T, float>) {
        if ((((uintptr_t)gm | (uintptr_t)ub) & 3) == 0) {  // the fast.h Add, GM as dst and src0
            fast::map_f32(g, (int64_t)n,
                          [&](float* t, int64_t i0, int k) { return fast::bin_f32(fast::Bin::Add, t, g + i0, u + i0, 1, k); },
                          [&](int64_t i) { return num::add_value<float>(g[i], u[i], om); });
            return;
        }
    }
    for (size_t i = 0; i < n; ++i) {
        T a, b;
        std::memcpy(&a, g + i, sizeof(T));
        std::memcpy(&b, u + i, sizeof(T));
        T r = num::add_value<T>(a, b, om);
        std::memcpy(g + i, &r, sizeof(T));
    }
}

// Atomic max / min on the store path (SetAtomicMax / SetAtomicMin): GM[i] = max(GM[i], UB[i]) in T (NaN wins, as
// Max does; the platform's overflow rule).
enum class AtomicKind { Add, Max, Min };
template <class T, AtomicKind K>
inline void atomic_fn(uint8_t* gm, const uint8_t* ub, size_t bytes, OverflowMode om) {
    if constexpr (K == AtomicKind::Add) {
        atomic_add_fn<T>(gm, ub, bytes, om);
    } else {
        for (size_t i = 0; i < bytes / sizeof(T); ++i) {
            T a, b;
            std::memcpy(&a, gm + i * sizeof(T), sizeof(T));
            std::memcpy(&b, ub + i * sizeof(T), sizeof(T));
            T r = K == AtomicKind::Max ? num::max_value<T>(a, b, om) : num::min_value<T>(a, b, om);
            std::memcpy(gm + i * sizeof(T), &r, sizeof(T));
        }
    }
}
using AtomicFn = void (*)(uint8_t*, const uint8_t*, size_t, OverflowMode);
template <class T>
inline AtomicFn atomic_fn_of(AtomicKind k) {
    return k == AtomicKind::Add ? &atomic_fn<T, AtomicKind::Add>
           : k == AtomicKind::Max ? &atomic_fn<T, AtomicKind::Max>
                                  : &atomic_fn<T, AtomicKind::Min>;
}
// The operation the core's atomic store path runs, if any (SetAtomicType changes the dtype and keeps it).
inline bool atomic_kind_of(AtomicFn f, AtomicKind& k) {
    auto in = [&](AtomicKind kk) {
        return f == atomic_fn_of<int8_t>(kk) || f == atomic_fn_of<int16_t>(kk) || f == atomic_fn_of<half>(kk) ||
               f == atomic_fn_of<bfloat16_t>(kk) || f == atomic_fn_of<int32_t>(kk) || f == atomic_fn_of<float>(kk);
    };
    for (AtomicKind kk : {AtomicKind::Add, AtomicKind::Max, AtomicKind::Min})
        if (in(kk)) {
            k = kk;
            return true;
        }
    return false;
}
// dtypes of the atomic store path: 910B int8/int16/half/bf16/int32/float; 310P add and type in int16/half/float
// ([CODE] dav_c220 / dav_m200 kernel_operator_set_atomic_impl.h; other dtypes are refused there at run time).
template <class T>
inline bool atomic_dtype_ok(Core* c, const SL& loc, const char* api) {
    (void)c;
    bool ok = kIs310P ? one_of_v<T, int16_t, half, float> : one_of_v<T, int8_t, int16_t, half, bfloat16_t, int32_t, float>;
    if (!ok)
        diag("UNSUPPORTED_ATOMIC_TYPE", Sev::Error, loc,
             strf("%s<%s> is not supported on %s; atomics unchanged", api, dtype_name_v<T>, kProfile.name),
             jd("dtype", dtype_name_v<T>));
    return ok;
}
template <class T>
inline void atomic_enable(Core* c, AtomicKind k, const SL& loc) {
    c->atomic_type = dtype_name_v<T>;
    c->atomic_fn = atomic_fn_of<T>(k);
    c->atomic_loc = loc;
}

ASCEMU_DECL bool event_id_ok(int32_t id, const SL& loc, const char* api);

// §5.5: source and destination pipe (PipeIx) of a HardEvent; false for events outside the vector-core
// model (cube / MTE1 / FIX), which then order nothing.
ASCEMU_DECL bool event_pipes(int e, int& src, int& dst);

ASCEMU_DECL void set_flag_impl(int e, int32_t id, const SL& loc);
ASCEMU_DECL void wait_flag_impl(int e, int32_t id, const SL& loc);

// PipeBarrier<pipe> in the §5.5 model.
inline void pipe_barrier_model(Core* c, pipe_t pipe) {
    switch (pipe) {
        case PIPE_ALL: pipe_barrier_all(c); break;
        case PIPE_V: pipe_barrier_one(c, PX_V); break;
        case PIPE_MTE2: pipe_barrier_one(c, PX_MTE2); break;
        case PIPE_MTE3: pipe_barrier_one(c, PX_MTE3); break;
        default: break;
    }
}

ASCEMU_DECL int pipes_to_event(pipe_t src, pipe_t dst);

ASCEMU_DECL void sync_blockdim_check(Core* c, const SL& loc, const char* api);

}  // namespace ascemu

namespace AscendC {

// ------------------------------------------------------------------------------------------------ pipes/events
template <pipe_t pipe>
inline void PipeBarrier(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("PipeBarrier", loc);
    c->tr.pipe_barrier[pipe < PIPE_NUM_ASCEMU ? pipe : 0]++;
    if (g_events) [[unlikely]]
        ev_mark(c, EvKind::Barrier, (int32_t)pipe, -1, -1);
    pipe_barrier_model(c, pipe);
    if (pipe == PIPE_S)
        diag("PIPE_S_BARRIER", Sev::Error, loc, "PipeBarrier<PIPE_S> raises a hardware error on the device ([DOC] p.1829)",
             "{}");
}
ASCEMU_DECL void pipe_barrier(pipe_t pipe, ASCEMU_SL);
template <HardEvent event>
inline void SetFlag(int32_t eventID, ASCEMU_SL) {
    ascemu::set_flag_impl((int)event, eventID, loc);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID, ASCEMU_SL) {
    ascemu::wait_flag_impl((int)event, eventID, loc);
}
ASCEMU_DECL void set_flag(pipe_t src, pipe_t dst, event_t id, ASCEMU_SL);
ASCEMU_DECL void wait_flag(pipe_t src, pipe_t dst, event_t id, ASCEMU_SL);
template <pipe_t src, pipe_t dst>
class TQueSync {
  public:
    void SetFlag(TEventID id, ASCEMU_SL) { ascemu::set_flag_impl(ascemu::pipes_to_event(src, dst), id, loc); }
    void WaitFlag(TEventID id, ASCEMU_SL) { ascemu::wait_flag_impl(ascemu::pipes_to_event(src, dst), id, loc); }
};

// ------------------------------------------------------------------------------------------------ atomics
template <typename T>
inline void SetAtomicAdd(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("SetAtomicAdd", loc);
    if (atomic_dtype_ok<T>(c, loc, "SetAtomicAdd")) atomic_enable<T>(c, AtomicKind::Add, loc);
}
}  // namespace AscendC
namespace ascemu {
// SetAtomicMax / SetAtomicMin: 910B (CANN's dav_m200 refuses them at run time).
template <typename T>
inline void atomic_extremum(const char* api, AtomicKind kind, const SL& loc) {
    Core* c = api_enter(api, loc);
    if (kIs310P) {
        unsupported_api(loc, api);
        return;
    }
    if (atomic_dtype_ok<T>(c, loc, api)) atomic_enable<T>(c, kind, loc);
}
}  // namespace ascemu
namespace AscendC {
template <typename T>
inline void SetAtomicMax(ASCEMU_SL) {
    ascemu::atomic_extremum<T>("SetAtomicMax", ascemu::AtomicKind::Max, loc);
}
template <typename T>
inline void SetAtomicMin(ASCEMU_SL) {
    ascemu::atomic_extremum<T>("SetAtomicMin", ascemu::AtomicKind::Min, loc);
}
// SetAtomicType: the dtype of the atomic operation already set; with atomics off it changes nothing visible
// (set_atomic_f32 etc. only load the dtype field).
template <typename T>
inline void SetAtomicType(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("SetAtomicType", loc);
    if (!atomic_dtype_ok<T>(c, loc, "SetAtomicType")) return;
    AtomicKind k;
    if (c->atomic_fn && atomic_kind_of(c->atomic_fn, k)) atomic_enable<T>(c, k, loc);
}
inline void DisableDmaAtomic(ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("DisableDmaAtomic", loc);
    c->atomic_fn = nullptr;
    c->atomic_type = nullptr;
}
inline void SetAtomicNone(ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("SetAtomicNone", loc);
    c->atomic_fn = nullptr;
    c->atomic_type = nullptr;
}

// ------------------------------------------------------------------------------------------------ DCache
template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("DataCacheCleanAndInvalid", loc);
    c->tr.dcci++;  // §5.1: stores are write-through in ascemu, so clean = nothing; invalidate drops the line(s)
    ascemu::dcache_invalidate(c, dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
}
// The DcciDst forms: CANN defines them for __NPU_ARCH__ 2201 and newer, not 2002
// (impl/basic_api/kernel_operator_cache_intf_impl.h): on 310P they do not compile.
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, ASCEMU_SL) {
    if constexpr (ascemu::kIs310P) {
        ASCEMU_NOT_ON_PLATFORM("DataCacheCleanAndInvalid<T, CacheLine, DcciDst>", T,
                               ": the 310P has the <T, CacheLine> form only");
    } else {
        ascemu::Core* c = ascemu::api_enter("DataCacheCleanAndInvalid", loc);
        c->tr.dcci++;
        ascemu::dcache_invalidate(c, dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
    }
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>& dst, ASCEMU_SL) {
    if constexpr (ascemu::kIs310P) {
        ASCEMU_NOT_ON_PLATFORM("DataCacheCleanAndInvalid<T, CacheLine, DcciDst>", T,
                               ": the 310P has the <T, CacheLine> form only");
    } else {
        ascemu::Core* c = ascemu::api_enter("DataCacheCleanAndInvalid", loc);
        (void)dst;
        c->tr.dcci++;
    }
}

// ------------------------------------------------------------------------------------------------ SyncAll
template <bool isAIVOnly = true>
inline void SyncAll(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("SyncAll", loc);
    c->tr.syncall++;
    if (g_events) [[unlikely]]
        ev_mark(c, EvKind::SyncAll, -1, -1, -1);
    if constexpr (kIs310P) {
        diag("UNSUPPORTED_API", Sev::Error, loc,
             "hard SyncAll() is not available on 310P (dav-m200); ascemu still acts as a barrier", "{}");
    } else {
        // CANN's SyncAll page: with hard sync the kernel type must be KERNEL_TYPE_MIX_AIV_1_0 (pure Vector) or
        // MIX_AIC_1_0 (pure Cube); mixed kernels pick what fits.  A kernel that declares no type needs none: CANN's
        // operator compiler finds the hard SyncAll and builds the kernel as MIX AIV 1:0 itself (asc-devkit,
        // kernel_info_infer.py get_hard_sync_instr_from_i_file; docs/diagnostics.md#syncall_kernel_type).
        const int64_t kt = rt().kernel_type;
        if (kt == KERNEL_TYPE_AIV_ONLY || kt == KERNEL_TYPE_AIC_ONLY)
            diag("SYNCALL_KERNEL_TYPE", Sev::Warning, loc,
                 strf("hard SyncAll in a kernel declared %s: CANN's SyncAll page asks for KERNEL_TYPE_MIX_AIV_1_0 "
                      "with hard sync (https://www.hiascend.com/document/detail/zh/canncommercial/850/API/"
                      "ascendcopapi/atlasascendc_api_07_0204.html)",
                      kernel_type_name(kt)),
                 jd("kernel_type", kernel_type_name(kt)));
    }
    sync_blockdim_check(c, loc, "SyncAll");
    pipe_barrier_all(c);  // §5.5: SyncAll drains every pipe of the core first
    barrier_wait(c, (int)rt().cores.size(), loc);
}

template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("SyncAll", loc);
    c->tr.syncall++;
    if (g_events) [[unlikely]]
        ev_mark(c, EvKind::SyncAll, -1, -1, -1);
    Runtime& R = rt();
    int n = usedCores > 0 ? usedCores : (int)R.cores.size();
    sync_blockdim_check(c, loc, "SyncAll");
    if (c->idx >= n) {
        diag("SYNC_WORKSPACE", Sev::Error, loc,
             strf("core %d calls SyncAll(gm, ub, usedCores=%d) but is not one of the used cores", c->idx, n),
             jd("usedCores", n));
        return;
    }
    // workspace checks: gm >= n*32 B and zero at first use; ub >= n*32 B
    uint8_t* g = (uint8_t*)gmWorkspace.GetPhyAddr();
    GmAccess a = gm_check(g, (size_t)n * 32, true, 4, loc, "SyncAll gmWorkspace");
    if (!a.buf || a.ok < (size_t)n * 32) {
        diag("SYNC_WORKSPACE", Sev::Error, loc,
             strf("soft SyncAll needs a GM workspace of >= usedCores*32 = %d bytes", n * 32), jd("required", n * 32));
    }
    bool ub_ok = !(ubWorkspace.v_.buf < 0 || (uint64_t)ubWorkspace.v_.size * 4 < (uint64_t)n * 32);
    if (!ub_ok)
        diag("SYNC_WORKSPACE", Sev::Error, loc,
             strf("soft SyncAll needs a UB workspace of >= usedCores*32 = %d bytes (got %u)", n * 32,
                  ubWorkspace.v_.size * 4),
             jd("required", n * 32, "given", ubWorkspace.v_.size * 4));
    if (a.buf && a.ok >= (size_t)n * 32) {
        declare_sync_region(g, (size_t)n * 32);
        int32_t* slot = (int32_t*)(g + (size_t)c->idx * 32);
        int32_t& used = c->softsync_count[g];
        if (*slot != used)
            diag("SYNC_WORKSPACE", Sev::Error, loc,
                 strf("soft SyncAll GM workspace slot of core %d holds %d, expected %d (workspace must be zeroed "
                      "before the first use)",
                      c->idx, *slot, used),
                 jd("core", c->idx, "value", *slot, "expected", used));
        used++;
        *slot = used;  // ascemu layout [CHOICE]: per-core int32 counter at gm[c*8]
        gm_after_write(c, a, g + (size_t)c->idx * 32, 4, false, loc, "SyncAll");
        if (ub_ok) ub_operand(c, ubWorkspace.v_, (size_t)n * 32, UB_W, loc, "ubWorkspace");
    }
    pipe_barrier_all(c);  // §5.5: SyncAll drains every pipe of the core first
    barrier_wait(c, n, loc);
}

// IBSet / IBWait, as CANN implements them (impl/basic_api/kernel_operator_block_sync_intf_impl.h): the flag of
// (blockIdx, eventID) is the int32 at gmWorkspace[(eventID * blockNum + blockIdx) * 8] (blockNum doubled when not
// isAIVOnly); IBSet waits for it to be 0 and writes 1, IBWait waits for 1 and writes 0, each through the 32-byte
// ubWorkspace.  The workspace must start zeroed ([DOC] IBSet): a flag never 0 (or never 1) is a DEADLOCK here.
}  // namespace AscendC

namespace ascemu {
template <bool isAIVOnly>
inline uint8_t* ib_flag(Core* c, const AscendC::GlobalTensor<int32_t>& gm, const AscendC::LocalTensor<int32_t>& ub,
                        int32_t blockIdx, int32_t eventID, bool write, const SL& loc, const char* api) {
    sync_blockdim_check(c, loc, api);
    const size_t blockNum = rt().cores.size() * (isAIVOnly ? 1 : 2);
    if (blockIdx < 0 || eventID < 0 || (size_t)blockIdx >= blockNum) {
        diag("PARAM_RANGE", Sev::Error, loc, strf("%s blockIdx %d / eventID %d out of range", api, blockIdx, eventID),
             jd("blockIdx", blockIdx, "eventID", eventID));
        return nullptr;
    }
    if (ub.v_.buf < 0 || (uint64_t)ub.v_.size * 4 < 32) {
        diag("SYNC_WORKSPACE", Sev::Error, loc, strf("%s needs a UB workspace of >= 32 bytes", api), jd("required", 32));
        return nullptr;
    }
    uint8_t* p = (uint8_t*)gm.GetPhyAddr() + ((size_t)eventID * blockNum + blockIdx) * 32;
    GmAccess a = gm_check(p, 32, write, 4, loc, api);
    if (!a.buf || a.ok < 32) return nullptr;
    declare_sync_region(p, 32);
    ub_operand(c, ub.v_, 32, UB_W, loc, "ubWorkspace");
    return p;
}
// Happens-before through a flag, for the race model (runtime.h): a set publishes the setter's whole vector clock,
// a wait that consumes it acquires that clock, so a chain of flags orders every write before it (a GM sync region
// alone records only the writer's own epoch).  Keys name a flag and its setter; the store lives for one launch.
struct FlagClocks {
    const void* launch = nullptr;
    std::chrono::steady_clock::time_point t0{};
    std::map<std::pair<const void*, int>, VClock> released;
};
ASCEMU_DECL FlagClocks& flag_clocks_locked();  // caller holds rt().rm
ASCEMU_DECL void flag_release(Core* c, const void* flag);
ASCEMU_DECL void flag_acquire(Core* c, const void* flag, int setter);  // setter -1: every core that set the flag

// Waits until the flag holds `want`, then writes `next`.
ASCEMU_DECL void ib_exchange(Core* c, uint8_t* p, int32_t want, int32_t next, const SL& loc, const char* api);
}  // namespace ascemu

namespace AscendC {

template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                  int32_t eventID, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("IBSet", loc);
    uint8_t* p = ib_flag<isAIVOnly>(c, gmWorkspace, ubWorkspace, blockIdx, eventID, true, loc, "IBSet");
    if (!p) return;
    flag_release(c, p);
    ib_exchange(c, p, 0, 1, loc, "IBSet");
}
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                   int32_t eventID, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("IBWait", loc);
    c->tr.ib_wait++;
    uint8_t* p = ib_flag<isAIVOnly>(c, gmWorkspace, ubWorkspace, blockIdx, eventID, false, loc, "IBWait");
    if (!p) return;
    ib_exchange(c, p, 1, 0, loc, "IBWait");
    flag_acquire(c, p, -1);  // from every core that set it
}

// CrossCoreSetFlag / CrossCoreWaitFlag (910B; CANN's dav_m200 refuses them at run time).  ascemu's cores are AIVs
// with one sub-block each (GetSubBlockNum() == 1) and no cube core, so:
//   mode 0 (every AIV of the launch): flag f's wait returns once every core has set f as often as this core has
//          waited on it, plus one;
//   mode 1 (the AIVs of one AI Core): the core's own set suffices;
//   mode 2 (AIC <-> AIV) needs a cube core: UNSUPPORTED_API.
// flagId 0..15; PIPE_S and PIPE_ALL are not valid pipes (CANN's page), and modes other than 0-2 are Ascend 950's.
}  // namespace AscendC

namespace ascemu {
struct CrossCoreFlags {
    const void* launch = nullptr;  // the Runtime (and its start time) the counters belong to
    std::chrono::steady_clock::time_point t0{};
    int32_t count[16] = {};
    std::unordered_map<const Core*, std::array<int32_t, 16>> sets, waits;  // per core
};
// The launch's flags; the caller holds rt().sm.
ASCEMU_DECL CrossCoreFlags& cross_core_flags_locked();
ASCEMU_DECL bool cross_core_ok(uint8_t mode, uint16_t flagId, const SL& loc, const char* api);
}  // namespace ascemu

namespace AscendC {

template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId, ASCEMU_SL) {
    using namespace ascemu;
    static_assert(modeId <= 2, "CrossCoreSetFlag modeId must be 0, 1 or 2 on " ASCEMU_PLATFORM_STR
                               " (mode 4 is Ascend 950's)");
    static_assert(pipe != PIPE_S && pipe != PIPE_ALL, "CrossCoreSetFlag: PIPE_S and PIPE_ALL are not supported");
    Core* c = api_enter("CrossCoreSetFlag", loc);
    if (!cross_core_ok(modeId, flagId, loc, "CrossCoreSetFlag")) return;
    pipe_barrier_all(c);  // the flag is set when `pipe`'s earlier work is done
    const uint8_t* p;
    {
        std::lock_guard<std::mutex> lk(rt().sm);
        p = (const uint8_t*)&cross_core_flags_locked().count[flagId];
    }
    flag_release(c, p);
    {
        std::lock_guard<std::mutex> lk(rt().sm);
        CrossCoreFlags& f = cross_core_flags_locked();
        f.count[flagId]++;
        f.sets[c][flagId]++;
        p = (const uint8_t*)&f.count[flagId];
    }
    wake_range(p, p + 4);
}
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId, ASCEMU_SL) {
    using namespace ascemu;
    static_assert(modeId <= 2, "CrossCoreWaitFlag modeId must be 0, 1 or 2 on " ASCEMU_PLATFORM_STR
                               " (mode 4 is Ascend 950's)");
    Core* c = api_enter("CrossCoreWaitFlag", loc);
    if (!cross_core_ok(modeId, flagId, loc, "CrossCoreWaitFlag")) return;
    int32_t waited, own;
    const uint8_t* p;
    {
        std::lock_guard<std::mutex> lk(rt().sm);
        CrossCoreFlags& f = cross_core_flags_locked();
        waited = f.waits[c][flagId];
        own = f.sets[c][flagId];
        p = (const uint8_t*)&f.count[flagId];
    }
    if (modeId == 1 && own <= waited) {  // the AI Core's other AIVs are this one
        diag("EVENT_WAIT_WITHOUT_SET", Sev::Fatal, loc,
             strf("CrossCoreWaitFlag<1>(%u) with no CrossCoreSetFlag<1> of this AI Core's AIVs to consume: the core "
                  "would wait forever",
                  flagId),
             jd("flagId", flagId, "mode", 1));
        return;
    }
    if (modeId == 0) {
        const int32_t need = (waited + 1) * (int32_t)rt().cores.size();
        for (;;) {
            int32_t v;
            {
                std::lock_guard<std::mutex> lk(rt().sm);
                v = cross_core_flags_locked().count[flagId];
            }
            if (v >= need) break;
            std::vector<uint8_t> old(p, p + 4);
            wait_until_changed(c, p, 4, old);
        }
    }
    {
        std::lock_guard<std::mutex> lk(rt().sm);
        cross_core_flags_locked().waits[c][flagId]++;
    }
    for (int setter = 0; setter < (int)rt().cores.size(); ++setter)
        if (modeId == 0 || setter == c->idx) flag_acquire(c, p, setter);
    pipe_barrier_all(c);
}

}  // namespace AscendC

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/sync_impl.h"
#endif
