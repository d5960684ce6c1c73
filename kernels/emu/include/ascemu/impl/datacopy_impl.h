// ascemu/impl/datacopy_impl.h — GM<->UB transfers, MTE overlap checks and DataCopyParams checks.
// Definitions of the ASCEMU_DECL functions of ascemu/datacopy.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

// DataCopy moves whole 32-byte blocks, so its tail copy of a tensor ends at ALIGN_UP(size, 32); DataCopyPad and the
// GM fills move the bytes they are asked for.
inline bool moves_whole_blocks(const char* api) { return std::strcmp(api, "DataCopy") == 0; }

ASCEMU_DECL bool xfer_gm_to_ub(Core* c, const UbView& dv, const uint8_t* g, const Xfer& x, const SL& loc,
                               const char* api, size_t elem, uint32_t ub_data_off, uint32_t ub_row_bytes) {
    if (x.count == 0 || x.len == 0) return false;
    uint64_t gspan = (uint64_t)(x.count - 1) * x.gm_pitch + x.len;
    uint32_t row = ub_row_bytes ? ub_row_bytes : x.len;
    uint64_t uspan = (uint64_t)(x.count - 1) * x.ub_pitch + ub_data_off + row;
    bool contiguous = x.count == 1 && ub_data_off == 0 && row == x.len;
    c->psv.cur = PX_MTE2;  // §5.5: GM->UB runs on MTE2 (a strided copy tags its whole UB span)
    uint8_t* u = ub_operand(c, dv, uspan, contiguous ? (unsigned)UB_W : (unsigned)UB_PW, loc, "dst");
    if (!u) return false;
    if (!contiguous)
        for (uint32_t i = 0; i < x.count; ++i) {
            uint64_t o = dv.off + (uint64_t)i * x.ub_pitch + ub_data_off;
            c->ubw.set(o, o + x.len);
        }
    maybe_yield(c);
    GmAccess a = gm_check(g, gspan, false, elem, loc, api, moves_whole_blocks(api));
    if (g_events) [[unlikely]]
        ev_rows(x.count, x.len, x.gm_pitch);
    if (!a.buf) {
        return false;
    }
    for (uint32_t i = 0; i < x.count; ++i) {
        uint64_t go = (uint64_t)i * x.gm_pitch;
        uint8_t* ud = u + (uint64_t)i * x.ub_pitch + ub_data_off;
        uint64_t ok = a.ok > go ? std::min<uint64_t>(x.len, a.ok - go) : 0;
        if (ok) std::memcpy(ud, g + go, ok);
        if (ok < x.len) std::memset(ud + ok, 0xFF, x.len - ok);
        if (x.count > 1 && ok) {
            GmAccess b = a;
            b.off = a.off + go;
            b.ok = ok;
            gm_uninit_check(b, loc, api);
        }
    }
    if (x.count == 1) gm_uninit_check(a, loc, api);
    gm_note_read(c, g, (size_t)std::min<uint64_t>(gspan, a.ok), loc, api);
    return true;
}

ASCEMU_DECL bool gm_rows_hit(const PipeGmW& w, uint64_t a, uint64_t b) {
    if (b <= w.lo || w.count == 0) return false;
    uint64_t k = w.pitch ? (b - 1 - w.lo) / w.pitch : 0;  // last row starting before b: the one reaching furthest
    if (k >= w.count) k = w.count - 1;
    return w.lo + k * w.pitch + w.len > a;
}

ASCEMU_DECL void mte3_overlap_check(Core* c, const uint8_t* g, const Xfer& x, const SL& loc) {
    if (pipe_level(c) == 0) return;
    PipeState& s = c->psv;
    auto& W = s.mte3;
    const uint32_t done = s.done[PX_MTE3];
    W.erase(std::remove_if(W.begin(), W.end(), [done](const PipeGmW& w) { return w.epoch <= done; }), W.end());
    PipeGmW nw{(uintptr_t)g, x.gm_pitch, x.len, x.count, s.vc[PX_MTE3][PX_MTE3], loc.line(), loc.file_name()};
    uint64_t nhi = nw.lo + (uint64_t)(x.count - 1) * x.gm_pitch + x.len;
    for (const PipeGmW& w : W) {
        uint64_t whi = w.lo + (w.count - 1) * w.pitch + w.len;
        if (whi <= nw.lo || nhi <= w.lo) continue;
        bool hit = w.count == 1 && x.count == 1;
        for (uint32_t r = 0; r < x.count && !hit; ++r) {
            uint64_t a = nw.lo + (uint64_t)r * x.gm_pitch;
            hit = gm_rows_hit(w, a, a + x.len);
        }
        if (hit) {
            diag("MTE_OVERLAP_NO_BARRIER", Sev::Warning, loc,
                 strf("DataCopy to GM overlaps the destination of an earlier MTE3 copy (line %u) with no "
                      "PipeBarrier<PIPE_MTE3> between them ([DOC] p.896)",
                      w.line),
                 jd("other_file", w.file, "other_line", w.line));
            break;
        }
    }
    if (W.size() >= 8) W.erase(W.begin());
    W.push_back(nw);
}

ASCEMU_DECL bool gm_store(Core* c, uint8_t* g, const uint8_t* u, const Xfer& x, const SL& loc, const char* api,
                          size_t elem, const char* dtype) {
    uint64_t gspan = (uint64_t)(x.count - 1) * x.gm_pitch + x.len;
    maybe_yield(c);
    GmAccess a = gm_check(g, gspan, true, elem, loc, api, moves_whole_blocks(api));
    if (g_events) [[unlikely]]
        ev_rows(x.count, x.len, x.gm_pitch);
    if (!a.buf) return false;
    bool atomic = c->atomic_fn != nullptr;
    if (atomic && std::strcmp(c->atomic_type, dtype) != 0)
        diag("ATOMIC_TYPE_MISMATCH", Sev::Error, loc,
             strf("%s copies %s data while SetAtomicAdd<%s> is active; the bytes are accumulated as %s", api, dtype,
                  c->atomic_type, c->atomic_type),
             jd("copied", dtype, "atomic", c->atomic_type));
    if (!atomic) mte3_overlap_check(c, g, x, loc);
    else atomic_turn(c);
    std::unique_lock<std::mutex> lk;
    if (atomic && rt().permits > 1) lk = std::unique_lock<std::mutex>(rt().am[0]);
    OverflowMode ovf = rt().cfg.overflow;
    uint64_t moved = 0;
    for (uint32_t i = 0; i < x.count; ++i) {
        uint64_t go = (uint64_t)i * x.gm_pitch;
        const uint8_t* us = u + (uint64_t)i * x.ub_pitch;
        uint64_t ok = a.ok > go ? std::min<uint64_t>(x.len, a.ok - go) : 0;
        if (!ok) continue;
        moved += ok;
        if (atomic) c->atomic_fn(g + go, us, ok, ovf);
        else std::memcpy(g + go, us, ok);
        if (x.count > 1) {
            GmAccess b = a;
            b.off = a.off + go;
            b.ok = ok;
            gm_after_write(c, b, g + go, ok, atomic, loc, api);
        }
    }
    if (lk.owns_lock()) lk.unlock();
    if (x.count == 1) gm_after_write(c, a, g, x.len, atomic, loc, api);
    if (atomic) {
        c->tr.atomic_ops++;
        c->tr.atomic_bytes += moved;
        c->tr.atomic_dtype = c->atomic_type;
    }
    return true;
}

ASCEMU_DECL bool xfer_ub_to_gm(Core* c, uint8_t* g, const UbView& sv, const Xfer& x, const SL& loc, const char* api,
                               size_t elem, const char* dtype) {
    if (x.count == 0 || x.len == 0) return false;
    uint64_t uspan = (uint64_t)(x.count - 1) * x.ub_pitch + x.len;
    c->psv.cur = PX_MTE3;  // §5.5: UB->GM runs on MTE3
    uint8_t* u = ub_operand(c, sv, uspan, UB_PR, loc, "src");
    if (!u) return false;
    // UNINIT_TO_GM instead of UB_UNINIT_READ: padded tails legitimately carry poison to GM.
    for (uint32_t i = 0; i < x.count; ++i) {
        uint64_t uo = sv.off + (uint64_t)i * x.ub_pitch;
        if (!c->ubw.all(uo, uo + x.len)) {
            diag("UNINIT_TO_GM", Sev::Warning, loc,
                 strf("%s copies never-written UB bytes (poison) to GM", api),
                 jd("ub_offset", (long long)uo, "bytes", x.len));
            break;
        }
    }
    return gm_store(c, g, u, x, loc, api, elem, dtype);
}

ASCEMU_DECL bool params_ok(const AscendC::DataCopyParams& p, const SL& loc, const char* api) {
    if (p.blockCount < 1 || p.blockCount > 4095 || p.blockLen < 1) {
        diag("PARAM_RANGE", Sev::Error, loc,
             strf("%s: DataCopyParams blockCount %u (1..4095) / blockLen %u (1..65535) out of range; copy skipped", api,
                  p.blockCount, p.blockLen),
             jd("blockCount", p.blockCount, "blockLen", p.blockLen));
        return false;
    }
    return true;
}

}  // namespace ascemu
