// ascemu/sync.h — pipe/event sync (§5.5), inter-core sync (§6), atomics (§4.8), DataCacheCleanAndInvalid.
#pragma once
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

inline bool event_id_ok(Core* c, int e, int32_t id, const SL& loc, const char* api) {
    if (id < 0 || id > 7) {
        diag("PARAM_RANGE", Sev::Error, loc, strf("%s event ID %d outside [0,7]; ignored", api, id), jd("event_id", id));
        return false;
    }
    if (c->live_pipes > 0 && !c->ev_fetched[e][id])
        diag("EVENT_ID_UNMANAGED", Sev::Warning, loc,
             strf("%s uses literal event ID %d that was never obtained via FetchEventID/AllocEventID while a TPipe is "
                  "live",
                  api, id),
             jd("event_id", id));
    return true;
}

// §5.5: source and destination pipe (PipeIx) of a HardEvent; false for events outside the vector-core
// model (cube / MTE1 / FIX), which then order nothing.
inline bool event_pipes(int e, int& src, int& dst) {
    using AscendC::HardEvent;
    switch ((HardEvent)e) {
        case HardEvent::MTE2_V: src = PX_MTE2, dst = PX_V; return true;
        case HardEvent::V_MTE2: src = PX_V, dst = PX_MTE2; return true;
        case HardEvent::MTE3_V: src = PX_MTE3, dst = PX_V; return true;
        case HardEvent::V_MTE3: src = PX_V, dst = PX_MTE3; return true;
        case HardEvent::MTE3_MTE2: src = PX_MTE3, dst = PX_MTE2; return true;
        case HardEvent::MTE2_MTE3: src = PX_MTE2, dst = PX_MTE3; return true;
        case HardEvent::S_V: src = PX_S, dst = PX_V; return true;
        case HardEvent::V_S: src = PX_V, dst = PX_S; return true;
        case HardEvent::S_MTE2: src = PX_S, dst = PX_MTE2; return true;
        case HardEvent::MTE2_S: src = PX_MTE2, dst = PX_S; return true;
        case HardEvent::S_MTE3: src = PX_S, dst = PX_MTE3; return true;
        case HardEvent::MTE3_S: src = PX_MTE3, dst = PX_S; return true;
        case HardEvent::V_V: src = PX_V, dst = PX_V; return true;  // orders V after V, as PipeBarrier<PIPE_V>
        default: return false;
    }
}

inline void set_flag_impl(int e, int32_t id, const SL& loc) {
    Core* c = api_enter("SetFlag", loc);
    c->tr.set_flag++;
    if (!event_id_ok(c, e, id, loc, "SetFlag")) return;
    c->ev_pending[e][id]++;
    c->ev_loc[e][id] = loc;
    int src, dst;
    if (event_pipes(e, src, dst)) {  // publish src's clock; later src writes start a new epoch
        PipeState& s = c->psv;
        PipeEv pe{(uint8_t)e, (uint8_t)id, {}};
        pipe_signal(s, src, pe.snap);
        s.vc[src][src]++;
        if (s.ev.size() >= 1024) s.ev.erase(s.ev.begin());  // unpaired SetFlags in a loop (EVENT_UNPAIRED)
        s.ev.push_back(pe);
    }
}
inline void wait_flag_impl(int e, int32_t id, const SL& loc) {
    Core* c = api_enter("WaitFlag", loc);
    c->tr.wait_flag++;
    if (!event_id_ok(c, e, id, loc, "WaitFlag")) return;
    if (c->ev_pending[e][id] <= 0) {
        diag("EVENT_WAIT_WITHOUT_SET", Sev::Fatal, loc,
             strf("WaitFlag(event %d, id %d) with no pending SetFlag: the pipe would wait forever", e, id),
             jd("event", e, "event_id", id));
        return;
    }
    c->ev_pending[e][id]--;
    int src, dst;
    if (event_pipes(e, src, dst)) {  // dst is now ordered after everything src had done at the (oldest) SetFlag
        PipeState& s = c->psv;
        for (size_t k = 0; k < s.ev.size(); ++k)
            if (s.ev[k].event == e && s.ev[k].id == id) {
                pipe_wait(s, dst, s.ev[k].snap);
                s.ev.erase(s.ev.begin() + k);
                break;
            }
    }
}

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

inline int pipes_to_event(pipe_t src, pipe_t dst) {
    using AscendC::HardEvent;
    auto is = [&](pipe_t a, pipe_t b) { return src == a && dst == b; };
    if (is(PIPE_MTE2, PIPE_V)) return (int)HardEvent::MTE2_V;
    if (is(PIPE_V, PIPE_MTE2)) return (int)HardEvent::V_MTE2;
    if (is(PIPE_MTE3, PIPE_V)) return (int)HardEvent::MTE3_V;
    if (is(PIPE_V, PIPE_MTE3)) return (int)HardEvent::V_MTE3;
    if (is(PIPE_V, PIPE_V)) return (int)HardEvent::V_V;
    if (is(PIPE_MTE3, PIPE_MTE2)) return (int)HardEvent::MTE3_MTE2;
    if (is(PIPE_MTE2, PIPE_MTE3)) return (int)HardEvent::MTE2_MTE3;
    if (is(PIPE_S, PIPE_V)) return (int)HardEvent::S_V;
    if (is(PIPE_V, PIPE_S)) return (int)HardEvent::V_S;
    if (is(PIPE_S, PIPE_MTE2)) return (int)HardEvent::S_MTE2;
    if (is(PIPE_MTE2, PIPE_S)) return (int)HardEvent::MTE2_S;
    if (is(PIPE_S, PIPE_MTE3)) return (int)HardEvent::S_MTE3;
    if (is(PIPE_MTE3, PIPE_S)) return (int)HardEvent::MTE3_S;
    return (int)HardEvent::MAX - 1;
}

inline void sync_blockdim_check(Core* c, const SL& loc, const char* api) {
    (void)c;
    const uint32_t cores = rt().cfg.core_count;
    if (rt().cfg.block_dim > (int)cores)
        diag("SYNC_BLOCKDIM_EXCEEDS_CORES", Sev::Error, loc,
             strf("%s with blockDim %d > %u physical cores: on the device the kernel hangs", api, rt().cfg.block_dim,
                  cores),
             jd("block_dim", rt().cfg.block_dim, "core_count", cores));
}

}  // namespace ascemu

namespace AscendC {

// ------------------------------------------------------------------------------------------------ pipes/events
template <pipe_t pipe>
inline void PipeBarrier(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("PipeBarrier", loc);
    c->tr.pipe_barrier[pipe < PIPE_NUM_ASCEMU ? pipe : 0]++;
    pipe_barrier_model(c, pipe);
    if (pipe == PIPE_S)
        diag("PIPE_S_BARRIER", Sev::Error, loc, "PipeBarrier<PIPE_S> raises a hardware error on the device ([DOC] p.1829)",
             "{}");
}
inline void pipe_barrier(pipe_t pipe, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("pipe_barrier", loc);
    c->tr.pipe_barrier[pipe < PIPE_NUM_ASCEMU ? pipe : 0]++;
    pipe_barrier_model(c, pipe);
    if (pipe == PIPE_S)
        diag("PIPE_S_BARRIER", Sev::Error, loc, "pipe_barrier(PIPE_S) raises a hardware error on the device", "{}");
}
template <HardEvent event>
inline void SetFlag(int32_t eventID, ASCEMU_SL) {
    ascemu::set_flag_impl((int)event, eventID, loc);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID, ASCEMU_SL) {
    ascemu::wait_flag_impl((int)event, eventID, loc);
}
inline void set_flag(pipe_t src, pipe_t dst, event_t id, ASCEMU_SL) {
    ascemu::set_flag_impl(ascemu::pipes_to_event(src, dst), (int32_t)id, loc);
}
inline void wait_flag(pipe_t src, pipe_t dst, event_t id, ASCEMU_SL) {
    ascemu::wait_flag_impl(ascemu::pipes_to_event(src, dst), (int32_t)id, loc);
}
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
    bool ok = kIs310P ? one_of_v<T, int16_t, half, float>
                      : one_of_v<T, int8_t, int16_t, half, bfloat16_t, int32_t, float>;
    if (!ok) {
        diag("UNSUPPORTED_ATOMIC_TYPE", Sev::Error, loc,
             strf("SetAtomicAdd<%s> is not supported on %s; atomics stay off", dtype_name_v<T>, kProfile.name),
             jd("dtype", dtype_name_v<T>));
        return;
    }
    c->atomic_type = dtype_name_v<T>;
    c->atomic_fn = &atomic_add_fn<T>;
    c->atomic_loc = loc;
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
template <typename T>
inline void SetAtomicMax(ASCEMU_SL) {
    ascemu::api_enter("SetAtomicMax", loc);
    ascemu::unsupported_api(loc, "SetAtomicMax", " (not emulated)");
}
template <typename T>
inline void SetAtomicMin(ASCEMU_SL) {
    ascemu::api_enter("SetAtomicMin", loc);
    ascemu::unsupported_api(loc, "SetAtomicMin", " (not emulated)");
}

// ------------------------------------------------------------------------------------------------ DCache
template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("DataCacheCleanAndInvalid", loc);
    c->tr.dcci++;  // §5.1: stores are write-through in ascemu, so clean = nothing; invalidate drops the line(s)
    ascemu::dcache_invalidate(c, dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("DataCacheCleanAndInvalid", loc);
    if constexpr (ascemu::kIs310P) {
        ascemu::unsupported_api(loc, "DataCacheCleanAndInvalid<T,CacheLine,DcciDst>");
        return;
    }
    c->tr.dcci++;
    ascemu::dcache_invalidate(c, dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE);
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>& dst, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("DataCacheCleanAndInvalid", loc);
    if constexpr (ascemu::kIs310P) {
        ascemu::unsupported_api(loc, "DataCacheCleanAndInvalid<T,CacheLine,DcciDst>");
        return;
    }
    c->tr.dcci++;
}

// ------------------------------------------------------------------------------------------------ SyncAll
template <bool isAIVOnly = true>
inline void SyncAll(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("SyncAll", loc);
    c->tr.syncall++;
    if constexpr (kIs310P) {
        diag("UNSUPPORTED_API", Sev::Error, loc,
             "hard SyncAll() is not available on 310P (dav-m200); ascemu still acts as a barrier", "{}");
    } else {
        if (rt().kernel_type != KERNEL_TYPE_MIX_AIV_1_0)
            diag("SYNCALL_KERNEL_TYPE", Sev::Warning, loc,
                 "hard SyncAll in a kernel whose type is not KERNEL_TYPE_MIX_AIV_1_0 ([DOC] p.1842)", "{}");
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

// IBSet / IBWait: per (blockIdx, eventID) int32 flag at gm[(eventID*blockDim + blockIdx)*32 B] [CHOICE].
template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                  int32_t eventID, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("IBSet", loc);
    sync_blockdim_check(c, loc, "IBSet");
    size_t off = ((size_t)eventID * rt().cores.size() + blockIdx) * 32;
    uint8_t* p = (uint8_t*)gmWorkspace.GetPhyAddr() + off;
    GmAccess a = gm_check(p, 32, true, 4, loc, "IBSet");
    (void)ubWorkspace;
    if (!a.buf || a.ok < 32) return;
    declare_sync_region(p, 32);
    int32_t v;
    std::memcpy(&v, p, 4);
    v++;
    std::memcpy(p, &v, 4);
    gm_after_write(c, a, p, 4, false, loc, "IBSet");
}
template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
                   int32_t eventID, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("IBWait", loc);
    c->tr.ib_wait++;
    sync_blockdim_check(c, loc, "IBWait");
    size_t off = ((size_t)eventID * rt().cores.size() + blockIdx) * 32;
    uint8_t* p = (uint8_t*)gmWorkspace.GetPhyAddr() + off;
    GmAccess a = gm_check(p, 32, false, 4, loc, "IBWait");
    (void)ubWorkspace;
    if (!a.buf || a.ok < 32) return;
    int32_t& consumed = c->ib_consumed[p];
    for (;;) {
        int32_t v;
        std::memcpy(&v, p, 4);
        if (v > consumed) break;
        std::vector<uint8_t> old(p, p + 4);
        wait_until_changed(c, p, 4, old);
    }
    race_on_read(c, (uintptr_t)p, (uintptr_t)p + 4, loc, "IBWait");
    consumed++;
}

}  // namespace AscendC
