// ascemu/impl/tensor_impl.h — the §5.5 pipe model, UB operand checks, static tensors and the §5.1 DCache.
// Definitions of the ASCEMU_DECL functions of ascemu/tensor.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL int pipe_level(Core* c) {
    int8_t& l = c->psv.level;
    if (l < 0) {
        std::string m = rt().cfg.pipe_check;
        if (m.empty())
            if (const char* e = std::getenv("ASCEMU_PIPE_CHECK")) m = e;
        l = (m == "off" || m == "0" || m == "false") ? 0 : m == "strict" ? 2 : 1;
    }
    return l;
}

ASCEMU_DECL void pipe_report(Core* c, PipeTag& t, int q, bool write, uint32_t lo, uint32_t hi, const SL& loc,
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

ASCEMU_DECL void pipe_report_vraw(Core* c, const PipeTag& t, uint32_t lo, uint32_t hi, const SL& loc, const char* role) {
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

ASCEMU_DECL void pipe_ub(Core* c, uint32_t lo, uint32_t hi, bool rd, bool wr, const SL& loc, const char* role) {
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
    const SL& at = kernel_loc(c, loc);  // a later record names the writer's line: the kernel's
    PipeTag nt{lo, hi, s.vc[q][q], (uint8_t)q, 0, at.line(), at.file_name(), c->last_api, c->api_calls};
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

ASCEMU_DECL uint8_t* ub_operand(Core* c, const UbView& v, size_t bytes, unsigned acc, const SL& loc, const char* role,
                                uint32_t align) {
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
    if (g_events) [[unlikely]]
        ev_ub(c, v.buf, v.off, bytes, acc & (UB_W | UB_PW));
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

ASCEMU_DECL void ub_overlap_check(Core* c, const UbView& d, size_t dbytes, const UbView& s, size_t sbytes, const SL& loc,
                                  const char* srole) {
    if (d.off == s.off) return;
    if (d.off < s.off + sbytes && s.off < d.off + dbytes)
        diag("UB_PARTIAL_OVERLAP", Sev::Warning, loc,
             strf("%s: dst [%u, %zu) partially overlaps %s [%u, %zu)", c->last_api, d.off, d.off + dbytes, srole, s.off,
                  s.off + sbytes),
             jd("dst", d.off, "src", s.off));
}

ASCEMU_DECL int32_t static_ub_buf(Core* c, uint8_t pos, uint32_t addr, uint64_t bytes, const SL& loc, const char* api) {
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

ASCEMU_DECL bool dcache_enabled(Core* c) {
    if (c->dcache_on < 0) {
        std::string m = rt().cfg.dcache;
        if (m.empty())
            if (const char* e = std::getenv("ASCEMU_DCACHE")) m = e;
        c->dcache_on = (m == "off" || m == "0" || m == "false") ? 0 : 1;
    }
    return c->dcache_on;
}

ASCEMU_DECL bool dcache_read(Core* c, const uint8_t* p, size_t n, void* out, const SL& loc) {
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

ASCEMU_DECL void dcache_write(Core* c, const uint8_t* p, const void* v, size_t n) {
    if (c->dcache.empty()) return;
    uintptr_t line = (uintptr_t)p & ~(uintptr_t)63;
    size_t off = (uintptr_t)p - line;
    auto it = c->dcache.find(line);
    if (it == c->dcache.end()) return;
    if (off + n > 64) { c->dcache.erase(it); return; }
    std::memcpy(it->second.b + off, v, n);
}

ASCEMU_DECL void dcache_invalidate(Core* c, const void* p, bool entire) {
    if (entire) c->dcache.clear();
    else c->dcache.erase((uintptr_t)p & ~(uintptr_t)63);
}

ASCEMU_DECL void gm_logical_oob(uint64_t offset, uint64_t n, uint64_t size, const SL& loc) {
    diag("GM_LOGICAL_OOB", Sev::Warning, loc,
         strf("access of elements [%llu, %llu) past the SetGlobalBuffer size %llu", (unsigned long long)offset,
              (unsigned long long)(offset + n), (unsigned long long)size),
         jd("offset", (long long)offset, "count", (long long)n, "size", (long long)size));
}

}  // namespace ascemu
