// ascemu/tensor.h — GlobalTensor / LocalTensor (spec §3.4) and UB operand checks (§5.2).
#pragma once
#include <cstring>
#include <type_traits>

#include "ascemu/macros.h"
#include "ascemu/runtime.h"

// The platform as compile-time error messages name it.
#ifndef ASCEMU_ARCH_LABEL
#if ASCEMU_IS_310P
#define ASCEMU_ARCH_LABEL "ascend310p (__NPU_ARCH__ 2002)"
#else
#define ASCEMU_ARCH_LABEL "ascend910b (__NPU_ARCH__ 2201)"
#endif
#endif

namespace ascemu {

// ------------------------------------------------------------------------------------------------ UB operands
// UB_R / UB_W: read / write the whole extent (uninitialised-read check, written shadow, pipe model).
// UB_PR / UB_PW: pipe model only, for strided operands whose shadow bits the caller handles per lane.
enum UbAccess : unsigned { UB_R = 1, UB_W = 2, UB_PR = 4, UB_PW = 8 };

struct UbView {
    uint32_t off = 0;    // byte offset in the arena
    uint32_t size = 0;   // elements
    int32_t buf = -1;    // index into Core::bufs, -1 = invalid tensor
    uint32_t gen = 0;
    uint8_t pos = 0;
    uint8_t elem = 1;    // element size of the view
};

// ------------------------------------------------------------------------------------------------ pipe model
// §5.5 pipe/event sync model (advisory); the data structures and their invariants are in runtime.h.
inline const char* pipe_ix_name(int p) {
    static const char* n[] = {"S", "V", "MTE2", "MTE3"};
    return p >= 0 && p < PX_N ? n[p] : "?";
}
inline int pipe_level(Core* c) {
    int8_t& l = c->psv.level;
    if (l < 0) {
        std::string m = rt().cfg.pipe_check;
        if (m.empty())
            if (const char* e = std::getenv("ASCEMU_PIPE_CHECK")) m = e;
        l = (m == "off" || m == "0" || m == "false") ? 0 : m == "strict" ? 2 : 1;
    }
    return l;
}
// Instructions are issued by the scalar unit in program order, so a pipe-q instruction issued after the
// scalar waited on p (WaitFlag<p_S>) is ordered after p as well.  The scalar's own UB stores are not
// (that is what S_V / S_MTE3 are for), so S's own component is not inherited.
inline void pipe_inherit(PipeState& s, int q) {
    if (q == PX_S) return;
    for (int x = 1; x < PX_N; ++x) s.vc[q][x] = std::max(s.vc[q][x], s.vc[PX_S][x]);
}
// One flag src -> dst (SetFlag/WaitFlag, or the flag a queue position implies).  The signal snapshots src's
// clock; the caller then starts a new src epoch, so later src writes are not covered.
inline void pipe_signal(PipeState& s, int src, uint32_t* snap) {
    pipe_inherit(s, src);
    for (int x = 0; x < PX_N; ++x) snap[x] = s.vc[src][x];
}
inline void pipe_wait(PipeState& s, int dst, const uint32_t* snap) {
    for (int x = 0; x < PX_N; ++x)
        if (x != dst) s.vc[dst][x] = std::max(s.vc[dst][x], snap[x]);
    s.done[dst] = std::max(s.done[dst], snap[dst]);  // what src knew of dst's own progress
}
// PipeBarrier<PIPE_ALL>, SyncAll: every pipe waits for everything issued so far, then all start a new epoch.
inline void pipe_barrier_all(Core* c) {
    PipeState& s = c->psv;
    uint32_t t[PX_N];
    for (int x = 0; x < PX_N; ++x) t[x] = s.vc[x][x]++;
    for (int q = 0; q < PX_N; ++q) {
        for (int x = 0; x < PX_N; ++x)
            if (x != q) s.vc[q][x] = std::max(s.vc[q][x], t[x]);
        s.done[q] = std::max(s.done[q], t[q]);
    }
}
// PipeBarrier<p> for one pipe: later p instructions wait for earlier ones (only MTE overlap cares).
inline void pipe_barrier_one(Core* c, int p) {
    PipeState& s = c->psv;
    s.done[p] = s.vc[p][p]++;
}

inline void pipe_report(Core* c, PipeTag& t, int q, bool write, uint32_t lo, uint32_t hi, const SL& loc,
                        const char* role) {
    Sev sev = pipe_level(c) >= 2 ? Sev::Warning : Sev::Info;
    std::string ev = std::string(pipe_ix_name(t.pipe)) + "_" + pipe_ix_name(q);
    uint32_t olo = std::max(lo, t.lo), ohi = std::min(hi, t.hi);
    // a TQue carries MTE2_V (VECIN) / V_MTE3 (VECOUT) only, so it is a fix only when the scalar is not involved
    const char* alt = (q != PX_S && t.pipe != PX_S) ? ", a TQue EnQue/DeQue between them," : "";
    diag("PIPE_HAZARD", sev, loc,
         strf("%s (%s pipe) %s UB [%u, %u) (operand %s) that %s wrote on the %s pipe at line %u with no happens-before "
              "edge: add SetFlag/WaitFlag<HardEvent::%s>%s or PipeBarrier<PIPE_ALL> ([DOC] §6.2.3.7; advisory, §5.5)",
              c->last_api, pipe_ix_name(q), write ? "overwrites" : "reads", olo, ohi, role, t.api, pipe_ix_name(t.pipe),
              t.line, ev.c_str(), alt),
         jd("access", write ? "write" : "read", "reader_pipe", pipe_ix_name(q), "writer_pipe", pipe_ix_name(t.pipe),
            "event", ev, "writer_api", t.api, "writer_file", t.file, "writer_line", t.line, "ub_lo", olo, "ub_hi", ohi,
            "operand", role));
}

// V -> V read-after-write with no PipeBarrier<PIPE_V> between the two instructions.  CANN's PipeBarrier page asks
// for the barrier between same-pipe instructions with a data dependency and notes that the compiler's automatic
// synchronisation (on by default) inserts it, hence info by default and a warning under pipe_check "strict", as
// PIPE_HAZARD.  Reported once per reading statement and core.
inline void pipe_report_vraw(Core* c, const PipeTag& t, uint32_t lo, uint32_t hi, const SL& loc, const char* role) {
    if (!c->psv.vraw_seen.emplace(loc.file_name(), loc.line()).second) return;
    Sev sev = pipe_level(c) >= 2 ? Sev::Warning : Sev::Info;
    uint32_t olo = std::max(lo, t.lo), ohi = std::min(hi, t.hi);
    diag("V_RAW_NO_BARRIER", sev, loc,
         strf("%s reads UB [%u, %u) (operand %s) that %s wrote at line %u on the same vector pipe with no "
              "PipeBarrier<PIPE_V> between them ([DOC] PipeBarrier: same-pipe data dependencies need it; the "
              "compiler's auto-sync may insert it)",
              c->last_api, olo, ohi, role, t.api, t.line),
         jd("writer_api", t.api, "writer_file", t.file, "writer_line", t.line, "ub_lo", olo, "ub_hi", ohi, "operand",
            role));
}

// A UB access [lo, hi) by the current API's pipe: checks reads (RAW) and writes (WAW) against the tags, then
// tags written bytes.  Write-after-read is not modelled (it would need read tags).
inline void pipe_ub(Core* c, uint32_t lo, uint32_t hi, bool rd, bool wr, const SL& loc, const char* role) {
    if (lo >= hi || pipe_level(c) == 0) return;
    PipeState& s = c->psv;
    const int q = s.cur;
    pipe_inherit(s, q);
    // V instructions issued after the scalar waited on V (V_S) start after every V write it waited for.
    const uint32_t v_done = std::max(s.done[PX_V], s.vc[PX_S][PX_V]);
    auto& T = s.tags;
    size_t i = std::partition_point(T.begin(), T.end(), [lo](const PipeTag& t) { return t.hi <= lo; }) - T.begin();
    size_t j = i;
    for (; j < T.size() && T[j].lo < hi; ++j) {
        PipeTag& t = T[j];
        if (rd && q == PX_V && t.pipe == PX_V && t.epoch > v_done && t.call != c->api_calls)
            pipe_report_vraw(c, t, lo, hi, loc, role);
        if (t.pipe != q && t.epoch > s.vc[q][t.pipe]) {
            if (rd && !(t.reported & (1u << q))) {
                t.reported |= (uint8_t)(1u << q);
                pipe_report(c, t, q, false, lo, hi, loc, role);
            } else if (!rd && wr && !(t.reported & (17u << q))) {  // an in-place op's read report covers it
                t.reported |= (uint8_t)(16u << q);
                pipe_report(c, t, q, true, lo, hi, loc, role);
            }
        }
        // §5.3: MTE2 copies into overlapping UB need PipeBarrier<PIPE_MTE2> between them ([DOC] p.896); a queue
        // round trip or a flag chain back to MTE2 orders them as well.
        if (wr && q == PX_MTE2 && t.pipe == PX_MTE2 && t.epoch > s.done[PX_MTE2] && !(t.reported & 0x80)) {
            t.reported |= 0x80;
            diag("MTE_OVERLAP_NO_BARRIER", Sev::Warning, loc,
                 strf("DataCopy into UB [%u, %u) overlaps the destination of an earlier MTE2 copy (line %u) with no "
                      "PipeBarrier<PIPE_MTE2> between them ([DOC] p.896)",
                      std::max(lo, t.lo), std::min(hi, t.hi), t.line),
                 jd("ub_lo", std::max(lo, t.lo), "ub_hi", std::min(hi, t.hi), "other_file", t.file, "other_line",
                    t.line));
        }
    }
    if (!wr) return;
    PipeTag nt{lo, hi, s.vc[q][q], (uint8_t)q, 0, loc.line(), loc.file_name(), c->last_api, c->api_calls};
    // Inside one tag of the same pipe and epoch (an in-place op, a row of a tile): the split and merge below
    // would rebuild that tag, taking this call as its writer when it starts at lo.  Adjacent tags never share
    // (pipe, epoch), as every change merges them, so nothing else would change.
    if (j == i + 1 && T[i].lo <= lo && hi <= T[i].hi && T[i].pipe == q && T[i].epoch == nt.epoch) {
        T[i].call = nt.call;
        if (T[i].lo == lo) {
            T[i].reported = 0;
            T[i].line = nt.line;
            T[i].file = nt.file;
            T[i].api = nt.api;
        }
        return;
    }
    // replace [i, j) by: left remainder, the new tag, right remainder; merge equal-tag neighbours
    PipeTag buf[3];
    int n = 0;
    if (i < j && T[i].lo < lo) { buf[n] = T[i]; buf[n].hi = lo; ++n; }
    buf[n++] = nt;
    if (i < j && T[j - 1].hi > hi) { buf[n] = T[j - 1]; buf[n].lo = hi; ++n; }
    if (j - i == (size_t)n) std::copy(buf, buf + n, T.begin() + i);
    else {
        T.erase(T.begin() + i, T.begin() + j);
        T.insert(T.begin() + i, buf, buf + n);
    }
    // merge adjacent intervals with the same (pipe, epoch) around the change: element-wise SetValue loops and
    // row loops then keep one interval; the merged tag keeps the first writer's location.
    size_t k = i ? i - 1 : 0, e = std::min(T.size(), i + n + 1);
    while (k + 1 < e) {
        if (T[k].hi == T[k + 1].lo && T[k].pipe == T[k + 1].pipe && T[k].epoch == T[k + 1].epoch) {
            T[k].hi = T[k + 1].hi;
            T[k].call = std::max(T[k].call, T[k + 1].call);
            T.erase(T.begin() + k + 1);
            --e;
        } else {
            ++k;
        }
    }
}

// Validates one UB operand covering `bytes` from the view start.  Returns the host pointer, or nullptr when
// the operation must be skipped (invalid tensor, arena overflow).  Marks written bytes for UB_W.
inline uint8_t* ub_operand(Core* c, const UbView& v, size_t bytes, unsigned acc, const SL& loc, const char* role,
                           uint32_t align = 32) {
    if (v.buf < 0 || (size_t)v.buf >= c->bufs.size()) {
        diag("UB_INVALID_TENSOR", Sev::Error, loc,
             strf("%s operand %s is not a live UB tensor (default-constructed, or returned by a DeQue on an empty "
                  "queue); operation skipped",
                  c->last_api, role),
             jd("operand", role));
        return nullptr;
    }
    const UbBuf& b = c->bufs[v.buf];
    if (b.gen != v.gen)
        diag("UB_USE_AFTER_FREE", Sev::Error, loc,
             strf("%s operand %s uses a tensor whose buffer was freed (FreeTensor) since it was obtained", c->last_api,
                  role),
             jd("operand", role, "ub_offset", v.off, "tensor_gen", v.gen, "buffer_gen", b.gen));
    if (align > 1 && (v.off % align) != 0)
        diag("UB_MISALIGNED", Sev::Error, loc,
             strf("%s operand %s at UB offset %u is not %u-byte aligned", c->last_api, role, v.off, align),
             jd("operand", role, "ub_offset", v.off, "align", align));
    uint64_t end = (uint64_t)v.off + bytes;
    uint32_t ubsz = kProfile.ub_size;
    if (end > ubsz) {
        diag("UB_OOB", Sev::Error, loc,
             strf("%s operand %s covers UB [%u, %llu), past the %u-byte arena; operation skipped", c->last_api, role,
                  v.off, (unsigned long long)end, ubsz),
             jd("operand", role, "ub_offset", v.off, "bytes", bytes, "ub_size", ubsz));
        return nullptr;
    }
    if (end > b.hi || v.off < b.lo)
        diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
             strf("%s operand %s covers UB [%u, %llu) but its buffer is [%u, %u)", c->last_api, role, v.off,
                  (unsigned long long)end, b.lo, b.hi),
             jd("operand", role, "ub_offset", v.off, "bytes", bytes, "buffer_lo", b.lo, "buffer_hi", b.hi));
    if (acc & (UB_R | UB_PR | UB_W | UB_PW))
        pipe_ub(c, v.off, (uint32_t)end, acc & (UB_R | UB_PR), acc & (UB_W | UB_PW), loc, role);
    if ((acc & UB_R) && bytes && !c->ubw.all(v.off, end))
        diag("UB_UNINIT_READ", Sev::Warning, loc,
             strf("%s operand %s reads never-written UB bytes in [%u, %llu) (poison)", c->last_api, role, v.off,
                  (unsigned long long)end),
             jd("operand", role, "ub_offset", v.off, "bytes", bytes), DF_STRICT_ERR);
    if (acc & UB_W) {
        if (b.state == SlotState::EnQ)
            diag("QUE_WRITE_AFTER_ENQUE", Sev::Warning, loc,
                 strf("%s writes operand %s after it was EnQue'd", c->last_api, role), jd("operand", role));
        c->ubw.set(v.off, end);
    }
    return c->ub + v.off;
}

inline void ub_overlap_check(Core* c, const UbView& d, size_t dbytes, const UbView& s, size_t sbytes, const SL& loc,
                             const char* srole) {
    if (d.off == s.off) return;
    if (d.off < s.off + sbytes && s.off < d.off + dbytes)
        diag("UB_PARTIAL_OVERLAP", Sev::Warning, loc,
             strf("%s: dst [%u, %zu) partially overlaps %s [%u, %zu)", c->last_api, d.off, d.off + dbytes, srole, s.off,
                  s.off + sbytes),
             jd("dst", d.off, "src", s.off));
}

// ------------------------------------------------------------------------------------------------ static tensors
// Static-Tensor programming (no TPipe): LocalTensor(TPosition, addr, tileSize) and LocalMemAllocator place a tensor
// at a UB byte address themselves.  Each such tensor gets a buffer record of its own in Core::bufs, so the operand
// checks (UB_OOB, UB_TENSOR_OVERRUN, the written shadow, the pipe model) apply as they do to TPipe buffers.  The
// creation checks are those of CANN's CPU-debug LocalTensor::CreateTensor (impl/basic_api/kernel_tensor_impl.h):
// a UB position, a 32-byte aligned address and length, a non-empty tensor, and the end inside UB.
inline const char kStaticTensorOwner = 0;  // UbBuf::owner of every static tensor
inline int& live_ub_allocators() {          // LocalMemAllocator<Hardware::UB> objects alive on this core thread
    static thread_local int n = 0;
    return n;
}

inline bool pos_is_ub_code(uint8_t p) {
    using AscendC::TPosition;
    return p == (uint8_t)TPosition::VECIN || p == (uint8_t)TPosition::VECOUT || p == (uint8_t)TPosition::VECCALC;
}

// The buffer record of a static tensor covering UB [addr, addr + bytes): an existing one for the same range (a
// tensor re-created in a loop), else a new one.  -1 when the position is not UB (the tensor stays invalid).
inline int32_t static_ub_buf(Core* c, uint8_t pos, uint32_t addr, uint64_t bytes, const SL& loc, const char* api) {
    using AscendC::TPosition;
    if (pos == (uint8_t)TPosition::GM || pos >= (uint8_t)TPosition::MAX) {
        diag("PARAM_RANGE", Sev::Error, loc, strf("%s at TPosition %u: a LocalTensor cannot be at GM (or MAX)", api, pos),
             jd("position", pos));
        return -1;
    }
    if (!pos_is_ub_code(pos)) {
        diag("UNSUPPORTED_API", Sev::Error, loc,
             strf("%s at a non-UB TPosition (%u): only VECIN/VECOUT/VECCALC are emulated", api, pos),
             jd("position", pos));
        return -1;
    }
    const uint64_t end = (uint64_t)addr + bytes;
    const uint32_t hi = (uint32_t)std::min<uint64_t>(end, UINT32_MAX);
    for (size_t i = 0; i < c->bufs.size(); ++i) {
        const UbBuf& b = c->bufs[i];
        if (b.owner == &kStaticTensorOwner && b.lo == addr && b.hi == hi) return (int32_t)i;
    }
    if (addr % 32)
        diag("UB_MISALIGNED", Sev::Error, loc, strf("%s: UB address %u is not 32-byte aligned", api, addr),
             jd("ub_offset", addr, "align", 32));
    if (bytes == 0)
        diag("PARAM_RANGE", Sev::Error, loc, strf("%s: a tensor of 0 elements", api), jd("ub_offset", addr));
    else if (bytes % 32)
        diag("UB_MISALIGNED", Sev::Error, loc,
             strf("%s: the tensor is %llu bytes long, not a multiple of 32 bytes", api, (unsigned long long)bytes),
             jd("ub_offset", addr, "bytes", (long long)bytes, "align", 32));
    const uint32_t limit = kProfile.ub_size - rt().cfg.ub_reserved;
    if (end > limit)
        diag("UB_OVERFLOW", Sev::Error, loc,
             strf("%s places UB [%u, %llu) but only %u bytes are available (ub_size %u - ub_reserved %u)", api, addr,
                  (unsigned long long)end, limit, kProfile.ub_size, rt().cfg.ub_reserved),
             jd("ub_offset", addr, "end", (long long)end, "limit", limit));
    for (const UbBuf& b : c->bufs)  // CANN: static tensors and LocalMemAllocator cannot be mixed with TPipe buffers
        if (b.owner != &kStaticTensorOwner && b.lo < hi && addr < b.hi) {
            diag("UB_STATIC_OVERLAP", Sev::Warning, loc,
                 strf("%s places UB [%u, %u), which overlaps the TPipe buffer [%u, %u): static tensors "
                      "(LocalMemAllocator, LocalTensor(pos, addr, tileSize)) must not be mixed with TPipe",
                      api, addr, hi, b.lo, b.hi),
                 jd("ub_lo", addr, "ub_hi", hi, "buffer_lo", b.lo, "buffer_hi", b.hi));
            break;
        }
    UbBuf nb;
    nb.lo = addr;
    nb.hi = hi;
    nb.owner = &kStaticTensorOwner;
    nb.pos = pos;
    nb.state = SlotState::TBuf;
    c->bufs.push_back(nb);
    c->tr.ub_peak = std::max<uint64_t>(c->tr.ub_peak, hi);
    return (int32_t)c->bufs.size() - 1;
}

template <class T>
inline constexpr bool is_b16_v = sizeof(T) == 2;

// ------------------------------------------------------------------------------------------------ DCache
// §5.1: each core caches scalar GM accesses (GlobalTensor::GetValue/SetValue) in 64-B lines; DMA bypasses the
// cache and costs nothing extra.  A GetValue miss fills the line; a hit returns the cached bytes, and when
// those differ from GM (another core, or a DMA, changed them since the fill) that is DCACHE_STALE_READ: on
// the device the kernel would read the old value (a GetValue poll of a flag never sees the flag change).
// ascemu reports it and refreshes the line, so the launch continues.  DataCacheCleanAndInvalid invalidates.
// [CHOICE] SetValue is write-through (GM and the core's own cached copy at once): the write-back half of
// §5.1 (dirty bytes, DCACHE_DMA_INCOHERENT, DCACHE_LINE_CLOBBER) needs a kernel-end flush hook in launch.h.
inline bool dcache_enabled(Core* c) {
    if (c->dcache_on < 0) {
        std::string m = rt().cfg.dcache;
        if (m.empty())
            if (const char* e = std::getenv("ASCEMU_DCACHE")) m = e;
        c->dcache_on = (m == "off" || m == "0" || m == "false") ? 0 : 1;
    }
    return c->dcache_on;
}
// Reads n bytes at p (inside one line, inside an allocation) through the cache into out; false = not cached
// (dcache off, or the access straddles a line), the caller reads GM directly.
inline bool dcache_read(Core* c, const uint8_t* p, size_t n, void* out, const SL& loc) {
    if (!dcache_enabled(c)) return false;
    uintptr_t line = (uintptr_t)p & ~(uintptr_t)63;
    size_t off = (uintptr_t)p - line;
    if (off + n > 64) return false;
    auto [it, miss] = c->dcache.try_emplace(line);
    DLine& L = it->second;
    uint64_t need = (n >= 64 ? ~0ull : ((1ull << n) - 1)) << off;
    auto fill = [&]() {
        GmBuf* b = gm_find(p);
        uintptr_t lo = std::max<uintptr_t>(line, (uintptr_t)b->base);
        uintptr_t hi = std::min<uintptr_t>(line + 64, (uintptr_t)(b->base + b->alloc));
        L.valid = 0;
        std::memcpy(L.b + (lo - line), (const void*)lo, hi - lo);
        for (uintptr_t a = lo; a < hi; ++a) L.valid |= 1ull << (a - line);
        c->tr.dcache_miss_lines++;
    };
    if (miss || (L.valid & need) != need) {
        fill();
    } else if (std::memcmp(L.b + off, p, n) != 0) {
        uint64_t cached = 0, now = 0;
        std::memcpy(&cached, L.b + off, std::min<size_t>(n, 8));
        std::memcpy(&now, p, std::min<size_t>(n, 8));
        diag("DCACHE_STALE_READ", Sev::Error, loc,
             strf("GlobalTensor::GetValue hits DCache line %p, but another core or a DMA changed these GM bytes since "
                  "the line was filled: the device returns the stale value.  Call DataCacheCleanAndInvalid before "
                  "re-reading GM that others update (ascemu refreshes the line and goes on)",
                  (const void*)line),
             jd("line", (const void*)line, "offset", (long long)off, "bytes", (long long)n, "cached_bits",
                (long long)cached, "gm_bits", (long long)now));
        fill();
    }
    std::memcpy(out, L.b + off, n);
    return true;
}
// The core's own scalar store also updates its cached copy (write-through, see above).
inline void dcache_write(Core* c, const uint8_t* p, const void* v, size_t n) {
    if (c->dcache.empty()) return;
    uintptr_t line = (uintptr_t)p & ~(uintptr_t)63;
    size_t off = (uintptr_t)p - line;
    auto it = c->dcache.find(line);
    if (it == c->dcache.end()) return;
    if (off + n > 64) { c->dcache.erase(it); return; }
    std::memcpy(it->second.b + off, v, n);
}
// DataCacheCleanAndInvalid: SINGLE_CACHE_LINE drops the line holding p, ENTIRE_DATA_CACHE every line.
inline void dcache_invalidate(Core* c, const void* p, bool entire) {
    if (entire) c->dcache.clear();
    else c->dcache.erase((uintptr_t)p & ~(uintptr_t)63);
}

}  // namespace ascemu

namespace AscendC {

template <typename T>
class LocalTensor;

// ------------------------------------------------------------------------------------------------ GlobalTensor
template <typename T>
class GlobalTensor {
    static_assert(!std::is_same_v<T, int4b_t>, "GlobalTensor<int4b_t>: " ASCEMU_INT4_TENSOR_REFUSED);

  public:
    using PrimType = T;
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        base_ = buffer;
        origin_ = buffer;
        size_ = bufferSize;
    }
    void SetGlobalBuffer(__gm__ T* buffer) {
        base_ = buffer;
        origin_ = buffer;
        size_ = 0;
    }
    T GetValue(const uint64_t offset, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("GlobalTensor::GetValue", loc);
        maybe_yield(c);
        T v;
        std::memset((void*)&v, 0xFF, sizeof(T));
        const uint8_t* p = (const uint8_t*)(base_ + offset);
        logical_check(offset, 1, loc);
        gm_note_view(p, origin_);
        GmAccess a = gm_check(p, sizeof(T), false, sizeof(T), loc, "GlobalTensor::GetValue");
        c->tr.gm_get++;
        if (a.ok == sizeof(T)) {
            gm_uninit_check(a, loc, "GlobalTensor::GetValue");
            if (!dcache_read(c, p, sizeof(T), (void*)&v, loc)) std::memcpy((void*)&v, p, sizeof(T));
            gm_note_read(c, p, sizeof(T), loc, "GlobalTensor::GetValue");
        }
        return v;
    }
    void SetValue(const uint64_t offset, const T& value,
                  const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = api_enter("GlobalTensor::SetValue", loc);
        maybe_yield(c);
        uint8_t* p = (uint8_t*)(base_ + offset);
        logical_check(offset, 1, loc);
        gm_note_view(p, origin_);
        GmAccess a = gm_check(p, sizeof(T), true, sizeof(T), loc, "GlobalTensor::SetValue");
        c->tr.gm_set++;
        if (a.ok == sizeof(T)) {
            std::memcpy(p, (const void*)&value, sizeof(T));
            dcache_write(c, p, (const void*)&value, sizeof(T));
            gm_after_write(c, a, p, sizeof(T), false, loc, "GlobalTensor::SetValue");
        }
    }
    GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor g;
        g.base_ = base_ + offset;
        g.origin_ = origin_;
        g.size_ = size_ > offset ? size_ - offset : 0;
        g.logical_ = size_ ? true : logical_;
        return g;
    }
    // A raw reference into GM, as CANN's (include/basic_api/kernel_tensor.h declares it for every architecture).
    // Accesses through it bypass the DCache model and the written / race bookkeeping (spec P5); the address is
    // checked: an element outside every GM allocation is reported and the reference goes to a scratch element.
    __gm__ T& operator()(const uint64_t offset, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        if (!t_core) return base_[offset];
        api_enter("GlobalTensor::operator()", loc);
        logical_check(offset, 1, loc);
        gm_note_view(base_ + offset, origin_);
        if (gm_check(base_ + offset, sizeof(T), false, sizeof(T), loc, "GlobalTensor::operator()").ok == sizeof(T))
            return base_[offset];
        static thread_local T scratch;
        std::memset((void*)&scratch, 0xFF, sizeof(T));
        return scratch;
    }
    // CANN declares GlobalTensor::ReinterpretCast only for __NPU_ARCH__ 3510 / 5102 (Ascend 950 generation; the
    // `#if` around it in include/basic_api/kernel_tensor.h of cann/asc-devkit), so CANN's compiler rejects it for
    // 310P (2002) and 910B (2201): a compile error here too.
    template <typename U>
    GlobalTensor<U> ReinterpretCast() const {
        static_assert(sizeof(U) == 0,
                      "GlobalTensor::ReinterpretCast needs a newer architecture: CANN provides it for __NPU_ARCH__ "
                      "3510/5102 (Ascend 950) only, not for " ASCEMU_ARCH_LABEL
                      "; reinterpret the __gm__ pointer and call SetGlobalBuffer instead");
        return {};
    }
    uint64_t GetSize() const { return size_; }
    // The APIs that take a GlobalTensor's address from here are judged by the allocation it was set on (gm_check).
    __gm__ T* GetPhyAddr() const {
        ascemu::gm_note_view(base_, origin_);
        return base_;
    }
    __gm__ T* GetPhyAddr(const uint64_t offset) const {
        ascemu::gm_note_view(base_ + offset, origin_);
        return base_ + offset;
    }
    // CANN's signature; ascemu has no L2, so the hint changes nothing (CacheMode in api_types.h).
    template <CacheRwMode rwMode = CacheRwMode::RW>
    void SetL2CacheHint(CacheMode mode) {
        (void)mode;
    }

    // ascemu-internal
    void logical_check(uint64_t offset, uint64_t n, const std::source_location& loc) const {
        if (size_ && offset + n > size_)
            ascemu::diag("GM_LOGICAL_OOB", ascemu::Sev::Warning, loc,
                         ascemu::strf("access of elements [%llu, %llu) past the SetGlobalBuffer size %llu",
                                      (unsigned long long)offset, (unsigned long long)(offset + n),
                                      (unsigned long long)size_),
                         ascemu::jd("offset", (long long)offset, "count", (long long)n, "size", (long long)size_));
    }

    __gm__ T* base_ = nullptr;
    const void* origin_ = nullptr;  // what SetGlobalBuffer was given: the tensor's allocation (gm_note_view)
    uint64_t size_ = 0;
    bool logical_ = false;
};

// ------------------------------------------------------------------------------------------------ LocalTensor
template <typename T>
class LocalTensor {
    static_assert(!std::is_same_v<T, int4b_t>, "LocalTensor<int4b_t>: " ASCEMU_INT4_TENSOR_REFUSED);

  public:
    using PrimType = T;
    LocalTensor() = default;
    // The whole-tensor operator forms (dst = src0 + src1, dst = src0 < src1, ...): vector.h's expression objects.
    template <class Expr>
        requires requires(const Expr& e, const LocalTensor& d) { e.ascemu_assign_to(d); }
    void operator=(const Expr& e) {
        e.ascemu_assign_to(*this);
    }
    // Static-Tensor programming: a tensor of tileSize elements at UB byte address `addr` (see static_ub_buf).
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize,
                const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = t_core;
        if (!c) return;  // built outside a launch: stays invalid (UB_INVALID_TENSOR when used)
        api_enter("LocalTensor(pos, addr, tileSize)", loc);
        int32_t b = static_ub_buf(c, (uint8_t)pos, addr, (uint64_t)tileSize * sizeof(T), loc, "LocalTensor(pos, addr, tileSize)");
        if (b >= 0) v_ = UbView{addr, tileSize, b, c->bufs[b].gen, (uint8_t)pos, (uint8_t)sizeof(T)};
    }

    T GetValue(const uint32_t index, const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("LocalTensor::GetValue", loc);
        c->psv.cur = PX_S;
        c->tr.ub_get++;
        T v;
        std::memset((void*)&v, 0xFF, sizeof(T));
        UbView e = v_;
        e.off = v_.off + index * (uint32_t)sizeof(T);
        uint8_t* p = ub_operand(c, e, sizeof(T), UB_R, loc, "tensor", 1);
        if (p) std::memcpy((void*)&v, p, sizeof(T));
        return v;
    }
    template <typename T1>
    void SetValue(const uint32_t index, const T1 value,
                  const std::source_location loc = std::source_location::current()) const {
        using namespace ascemu;
        Core* c = api_enter("LocalTensor::SetValue", loc);
        c->psv.cur = PX_S;
        c->tr.ub_set++;
        UbView e = v_;
        e.off = v_.off + index * (uint32_t)sizeof(T);
        uint8_t* p = ub_operand(c, e, sizeof(T), UB_W, loc, "tensor", 1);
        if (p) {
            T v = static_cast<T>(value);
            std::memcpy(p, (const void*)&v, sizeof(T));
        }
    }
    struct Ref {
        LocalTensor t;
        uint32_t i;
        operator T() const { return t.GetValue(i); }
        Ref& operator=(const T& v) {
            t.SetValue(i, v);
            return *this;
        }
    };
    Ref operator()(const uint32_t index) const { return Ref{*this, index}; }

    LocalTensor operator[](const uint32_t offset) const {
        LocalTensor r = *this;
        r.v_.off = v_.off + offset * (uint32_t)sizeof(T);
        r.v_.size = v_.size > offset ? v_.size - offset : 0;
        return r;
    }
    template <typename U>
    LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> r;
        r.v_ = v_;
        r.v_.size = (uint32_t)((uint64_t)v_.size * sizeof(T) / sizeof(U));
        r.v_.elem = sizeof(U);
        return r;
    }
    uint32_t GetSize() const { return v_.size; }
    void SetSize(const uint32_t size) { v_.size = size; }
    uint32_t GetLength() const { return v_.size * (uint32_t)sizeof(T); }
    uint64_t GetPhyAddr() const { return v_.off; }
    uint64_t GetPhyAddr(const uint32_t offset) const { return v_.off + offset * sizeof(T); }
    TPosition GetPosition() const { return (TPosition)v_.pos; }
    void SetUserTag(int32_t tag) { tag_ = tag; }
    int32_t GetUserTag() const { return tag_; }
    void SetAddrWithOffset(LocalTensor<T>& src, uint32_t offset) { *this = src[offset]; }
    template <class U>
    void SetAddrWithOffset(LocalTensor<U>& src, uint32_t offset) {
        v_ = src.v_;
        v_.off += offset * (uint32_t)sizeof(U);
        v_.size = (uint32_t)((uint64_t)(src.v_.size > offset ? src.v_.size - offset : 0) * sizeof(U) / sizeof(T));
        v_.elem = sizeof(T);
    }

    // ascemu-internal
    void elem_oob(ascemu::Core* c, uint32_t index, const std::source_location& loc) const {
        ascemu::diag("UB_TENSOR_OVERRUN", ascemu::Sev::Error, loc,
                     ascemu::strf("%s index %u is past the tensor size %u", c->last_api, index, v_.size),
                     ascemu::jd("index", index, "size", v_.size, "ub_offset", v_.off));
    }
    T* host_ptr() const { return (T*)(ascemu::t_core->ub + v_.off); }
    ascemu::UbView v_{};
    int32_t tag_ = 0;
};

}  // namespace AscendC
