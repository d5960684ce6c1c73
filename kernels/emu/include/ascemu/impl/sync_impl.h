// ascemu/impl/sync_impl.h — SetFlag/WaitFlag, the legacy sync calls, flag clocks and the cross-core flags.
// Definitions of the ASCEMU_DECL functions of ascemu/sync.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL bool event_id_ok(int32_t id, const SL& loc, const char* api) {
    if (id >= 0 && id <= 7) return true;
    diag("PARAM_RANGE", Sev::Error, loc, strf("%s event ID %d outside [0,7]; ignored", api, id), jd("event_id", id));
    return false;
}

ASCEMU_DECL bool event_pipes(int e, int& src, int& dst) {
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

ASCEMU_DECL void set_flag_impl(int e, int32_t id, const SL& loc) {
    Core* c = api_enter("SetFlag", loc);
    c->tr.set_flag++;
    if (!event_id_ok(id, loc, "SetFlag")) return;
    // the ID's origin (literal, FetchEventID) does not matter, only whether a queue's flag holds it right now
    if ((c->live->ev_queue[e] >> id) & 1) event_id_collision(e, id, loc, c->live->ev_queue_loc[e][id]);
    if (c->live->ev_pending[e][id] > 0)  // CANN's npu check: ErrorSync4, a repeated event ID (docs/diagnostics.md)
        diag("EVENT_ID_DUPLICATE", Sev::Warning, loc,
             strf("SetFlag(event %d, id %d) while the SetFlag of the same event and ID at line %u still waits for "
                  "its WaitFlag",
                  e, id, c->live->ev_loc[e][id].line()),
             jd("event", e, "event_id", id, "pending", c->live->ev_pending[e][id], "other_line", c->live->ev_loc[e][id].line()),
             DF_STRICT_ERR);
    c->live->ev_pending[e][id]++;
    c->live->ev_loc[e][id] = loc;
    int src, dst;
    const bool piped = event_pipes(e, src, dst);
    if (g_events) [[unlikely]]
        ev_mark(c, EvKind::SetFlag, piped ? src : -1, piped ? dst : -1, id);
    if (piped) {  // publish src's clock; later src writes start a new epoch
        PipeState& s = c->psv;
        PipeEv pe{(uint8_t)e, (uint8_t)id, {}};
        pipe_signal(s, src, pe.snap);
        s.vc[src][src]++;
        if (s.ev.size() >= 1024) s.ev.erase(s.ev.begin());  // unpaired SetFlags in a loop (EVENT_UNPAIRED)
        s.ev.push_back(pe);
    }
}

ASCEMU_DECL void wait_flag_impl(int e, int32_t id, const SL& loc) {
    Core* c = api_enter("WaitFlag", loc);
    c->tr.wait_flag++;
    if (!event_id_ok(id, loc, "WaitFlag")) return;
    if (c->live->ev_pending[e][id] <= 0) {
        diag("EVENT_WAIT_WITHOUT_SET", Sev::Fatal, loc,
             strf("WaitFlag(event %d, id %d) with no pending SetFlag: the pipe would wait forever", e, id),
             jd("event", e, "event_id", id));
        return;
    }
    c->live->ev_pending[e][id]--;
    int src, dst;
    const bool piped = event_pipes(e, src, dst);
    if (g_events) [[unlikely]]
        ev_mark(c, EvKind::WaitFlag, piped ? src : -1, piped ? dst : -1, id);
    if (piped) {  // dst is now ordered after everything src had done at the (oldest) SetFlag
        PipeState& s = c->psv;
        for (size_t k = 0; k < s.ev.size(); ++k)
            if (s.ev[k].event == e && s.ev[k].id == id) {
                pipe_wait(s, dst, s.ev[k].snap);
                s.ev.erase(s.ev.begin() + k);
                break;
            }
    }
}

ASCEMU_DECL int pipes_to_event(pipe_t src, pipe_t dst) {
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

ASCEMU_DECL void sync_blockdim_check(Core* c, const SL& loc, const char* api) {
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

ASCEMU_DECL void pipe_barrier(pipe_t pipe, const std::source_location loc) {
    using namespace ascemu;
    Core* c = api_enter("pipe_barrier", loc);
    c->tr.pipe_barrier[pipe < PIPE_NUM_ASCEMU ? pipe : 0]++;
    if (g_events) [[unlikely]]
        ev_mark(c, EvKind::Barrier, (int32_t)pipe, -1, -1);
    pipe_barrier_model(c, pipe);
    if (pipe == PIPE_S)
        diag("PIPE_S_BARRIER", Sev::Error, loc, "pipe_barrier(PIPE_S) raises a hardware error on the device", "{}");
}

ASCEMU_DECL void set_flag(pipe_t src, pipe_t dst, event_t id, const std::source_location loc) {
    ascemu::set_flag_impl(ascemu::pipes_to_event(src, dst), (int32_t)id, loc);
}

ASCEMU_DECL void wait_flag(pipe_t src, pipe_t dst, event_t id, const std::source_location loc) {
    ascemu::wait_flag_impl(ascemu::pipes_to_event(src, dst), (int32_t)id, loc);
}

}  // namespace AscendC

namespace ascemu {

ASCEMU_DECL FlagClocks& flag_clocks_locked() {
    static FlagClocks f;
    if (f.launch != &rt() || f.t0 != rt().t0) f = FlagClocks{&rt(), rt().t0, {}};
    return f;
}

ASCEMU_DECL void flag_release(Core* c, const void* flag) {
    std::lock_guard<std::mutex> g(rt().rm);
    VClock v = c->vc;
    v.raise(c->idx, c->epoch);
    flag_clocks_locked().released[{flag, c->idx}] = std::move(v);
    c->epoch++;
}

ASCEMU_DECL void flag_acquire(Core* c, const void* flag, int setter) {
    std::lock_guard<std::mutex> g(rt().rm);
    auto& rel = flag_clocks_locked().released;
    if (setter >= 0) {
        auto it = rel.find({flag, setter});
        if (it != rel.end()) c->vc.merge(it->second);
        return;
    }
    for (auto it = rel.lower_bound({flag, INT_MIN}); it != rel.end() && it->first.first == flag; ++it)
        c->vc.merge(it->second);
}

ASCEMU_DECL void ib_exchange(Core* c, uint8_t* p, int32_t want, int32_t next, const SL& loc, const char* api) {
    pipe_barrier_all(c);
    for (;;) {
        int32_t v;
        std::memcpy(&v, p, 4);
        if (v == want) break;
        std::vector<uint8_t> old(p, p + 4);
        wait_until_changed(c, p, 4, old);
    }
    race_on_read(c, (uintptr_t)p, (uintptr_t)p + 4, loc, api);
    std::memcpy(p, &next, 4);
    GmAccess a = gm_check(p, 4, true, 4, loc, api);
    gm_after_write(c, a, p, 4, false, loc, api);
    pipe_barrier_all(c);
}

ASCEMU_DECL CrossCoreFlags& cross_core_flags_locked() {
    static CrossCoreFlags f;
    if (f.launch != &rt() || f.t0 != rt().t0) f = CrossCoreFlags{&rt(), rt().t0, {}, {}, {}};
    return f;
}

ASCEMU_DECL bool cross_core_ok(uint8_t mode, uint16_t flagId, const SL& loc, const char* api) {
    if (kIs310P) return unsupported_api(loc, api);
    if (mode == 2) return unsupported_api(loc, api, " in mode 2 (AIC <-> AIV: ascemu has no cube core)");
    if (flagId > 15) {
        diag("PARAM_RANGE", Sev::Error, loc, strf("%s flagId %u not in 0..15", api, flagId), jd("flagId", flagId));
        return false;
    }
    return true;
}

}  // namespace ascemu
