// ascemu/impl/runtime_impl.h — diagnostics, GM registry and checks, scheduler, GM race detection, trace and report.
// Definitions of the ASCEMU_DECL functions of ascemu/runtime.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL Core::Core() = default;
ASCEMU_DECL Core::~Core() = default;
ASCEMU_DECL Runtime::Runtime() = default;
ASCEMU_DECL Runtime::~Runtime() = default;

ASCEMU_DECL std::string diag_json(const DiagRec& d) {
    std::string o = "{\"seq\":" + std::to_string(d.seq) + ",\"kind\":" + jstr(d.kind) +
                    ",\"severity\":" + jstr(sev_name(d.sev)) + ",\"core\":" + std::to_string(d.core) +
                    ",\"api\":" + jstr(d.api) + ",\"file\":" + jstr(d.file) + ",\"line\":" + std::to_string(d.line) +
                    ",\"column\":" + std::to_string(d.column) + ",\"function\":" + jstr(d.function) +
                    ",\"message\":" + jstr(d.message) + ",\"details\":" + (d.details.empty() ? "{}" : d.details) +
                    ",\"count\":" + std::to_string(d.count) + "}";
    return o;
}

ASCEMU_DECL int fatal_code(const std::string& kind) {
    if (kind == "DEADLOCK" || kind == "TIMEOUT") return 3;
    if (kind == "CRASH") return 4;
    if (kind == "HARNESS") return 5;
    return 2;
}

ASCEMU_DECL void diag(const char* kind, Sev sev, const SL& loc, const std::string& msg, const std::string& details,
                      unsigned flags) {
    diag_at(kind, sev, loc.file_name(), loc.line(), loc.column(), loc.function_name(), msg, details, flags);
}

ASCEMU_DECL void diag_at(const char* kind, Sev sev, const char* file, uint32_t line, uint32_t column,
                         const char* function, const std::string& msg, const std::string& details, unsigned flags) {
    Runtime& R = rt();
    Core* c = t_core;
    if (in_emulator(file)) {  // a line of the emulator's own code: the kernel's call site instead, else no line
        const SL at = c ? c->last_loc : SL{};
        file = at.file_name();
        line = at.line();
        column = at.column();
        function = at.function_name();
    }
    if ((flags & DF_STRICT_ERR) && R.cfg.strict && sev < Sev::Error) sev = Sev::Error;
    bool fatal = sev == Sev::Fatal || (R.cfg.strict && sev >= Sev::Error);
    if (fatal) {
        // two cores reaching a fatal record at once (each calling exit(), say) would both be recorded, or one, as
        // the schedule falls: the first one ends the launch, and a later one's core stops where it is
        bool after_the_end;
        {
            std::lock_guard<std::mutex> g(R.dm);
            after_the_end = std::exchange(R.fatal_recorded, true);
        }
        if (after_the_end)
            for (;;) pause();  // the thread of the first fatal record ends the process
    }
    {
        std::lock_guard<std::mutex> g(R.dm);
        R.kind_counts[kind]++;
        if (sev >= Sev::Error) R.any_error = true;
        // the severity is part of the key: a kind whose severity depends on the case (GM_WRITE_RACE: identical
        // bytes or not) never folds an error into an earlier record of lower severity
        std::string key = std::string(kind) + "|" + sev_name(sev) + "|" + std::to_string(c ? c->idx : -1) + "|" +
                          file + "|" + std::to_string(line);
        auto& k = R.dkeys[key];
        k.first++;
        if (k.first <= 20 || fatal) {
            DiagRec d;
            d.seq = ++R.dseq;
            d.kind = kind;
            d.sev = sev;
            d.core = c ? c->idx : -1;
            d.api = c ? c->last_api : "";
            d.file = file;
            d.line = line;
            d.column = column;
            d.function = function;
            d.message = msg;
            d.details = details;
            if (k.first == 1) k.second = R.diags.size();
            R.diags.push_back(std::move(d));
            if (R.cfg.diag_stderr_all || (R.cfg.diag_stderr && sev >= Sev::Error)) {
                std::string echo = "ASCEMU_DIAG " + diag_json(R.diags.back()) + "\n";
                (void)!::write(2, echo.data(), echo.size());
            }
        } else {
            R.diags[k.second].count++;
        }
    }
    if (fatal) fatal_exit(sev == Sev::Fatal ? fatal_code(kind) : 2);
}

ASCEMU_DECL void diag_launch(const char* kind, Sev sev, const std::string& msg, const std::string& details) {
    Core* saved = t_core;
    t_core = nullptr;
    diag(kind, sev, SL{}, msg, details);
    t_core = saved;
}

[[noreturn]] ASCEMU_DECL void harness_fatal(const std::string& msg, const SL& loc) {
    diag("HARNESS", Sev::Fatal, loc, msg);
    fatal_exit(5);
}

ASCEMU_DECL void api_outside_launch(const char* api, const SL& loc) {
    harness_fatal(std::string("Ascend C API ") + api + " called outside a kernel launch", loc);
}

ASCEMU_DECL void api_budget_exhausted(const SL& loc) {
    diag("TIMEOUT", Sev::Fatal, loc, "per-core API-call budget exhausted", jd("budget", (long long)rt().cfg.api_budget));
}

ASCEMU_DECL GmBuf* gm_find(const void* p) {
    Runtime& R = rt();
    auto it = std::upper_bound(R.gm.begin(), R.gm.end(), (const uint8_t*)p,
                               [](const uint8_t* v, const std::unique_ptr<GmBuf>& b) { return v < b->base; });
    if (it == R.gm.begin()) return nullptr;
    GmBuf* b = (--it)->get();
    if ((const uint8_t*)p < b->base + b->alloc) return b;
    return nullptr;
}

ASCEMU_DECL GmAccess gm_outside_view(GmBuf* set_on, const GmBuf* lands_in, const void* p, size_t len, bool write,
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

// How far an allocation reaches, in words: the aclrtMalloc model, or (gm_alloc="exact") the tensor's own bytes.
inline std::string gm_alloc_words(const GmBuf* b) {
    if (b->alloc == gm_acl_alloc(b->bytes))
        return strf("its aclrtMalloc allocation of %zu bytes (ALIGN_UP(%zu, 32) + 32)", b->alloc, b->bytes);
    return strf("its allocation of %zu bytes", b->alloc);
}

ASCEMU_DECL GmAccess gm_check_access(const void* p, size_t len, bool write, size_t elem, const SL& loc, const char* what,
                              bool block_granular) {
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
    const size_t end = a.off + len;
    const size_t rounded = gm_rounded(b->bytes);
    // A DataCopy ending inside ALIGN_UP(size, 32) of an aclrtMalloc-model buffer is a tail copy of whole blocks:
    // every allocator CANN documents gives the tensor those bytes (runtime.h, gm_rounded), so it is not reported.
    const bool own_blocks = block_granular && b->alloc == gm_acl_alloc(b->bytes) && end <= rounded;
    if (a.ok < len) {
        diag("GM_OOB", Sev::Error, loc,
             strf("%s %s bytes [%zu, %zu) of '%s': %zu bytes past the tensor's %zu-byte size and %zu past %s; %s",
                  what, write ? "writes" : "reads", a.off, end, b->name.c_str(), end - b->bytes, b->bytes,
                  len - a.ok, gm_alloc_words(b).c_str(), write ? "dropped" : "read as poison"),
             jd("buffer", b->name, "offset", a.off, "bytes", len, "usable", b->bytes, "allocation", b->alloc,
                "write", write));
    } else if (end > b->bytes && !own_blocks) {
        // Inside the allocation but past what every allocator gives the tensor: aclrtMallocAlign32 adds no 32 bytes,
        // and a tensor that is a view of a larger one has a neighbour there (even an atomic +0 can change it).
        const std::string why =
            end > rounded
                ? strf("its last %zu bytes lie past ALIGN_UP(%zu, 32) = %zu, in the 32 bytes aclrtMalloc adds, which "
                       "aclrtMallocAlign32 and a view of a larger tensor do not give",
                       end - std::max(rounded, a.off), b->bytes, rounded)
                : std::string("a scalar access past the tensor's last element, which no 32-byte block needs; in a view "
                              "of a larger tensor those bytes are a neighbour's");
        const std::string msg =
            strf("%s %s bytes [%zu, %zu) of '%s' (%s): %zu bytes past the tensor's %zu-byte size but inside %s; %s",
                 what, write ? "writes" : "reads", a.off, end, b->name.c_str(), role_name(b->role), end - b->bytes,
                 b->bytes, gm_alloc_words(b).c_str(), why.c_str());
        const std::string det = jd("buffer", b->name, "role", role_name(b->role), "offset", a.off, "bytes", len,
                                   "usable", b->bytes, "allocation", b->alloc, "past_end", end - b->bytes,
                                   "past_rounded", end > rounded ? end - rounded : 0, "write", write);
        // a write there can change a neighbour (even an atomic +0 does: -0 becomes +0); strict makes it an error
        if (write)
            diag("GM_WRITE_PAST_END", Sev::Warning, loc, msg, det, DF_STRICT_ERR);
        else
            diag("GM_SLACK_ACCESS", Sev::Warning, loc, msg, det);
    }
    if (write && a.ok && c && !c->atomic_fn && rt().cores.size() > 1) race_snapshot(c, (const uint8_t*)p, a.ok);
    return a;
}

ASCEMU_DECL void gm_uninit_check(const GmAccess& a, const SL& loc, const char* what) {
    if (!a.buf || a.buf->prefilled || a.ok == 0) return;
    size_t hi = std::min(a.off + a.ok, a.buf->bytes);
    if (a.off < hi && !a.buf->written.all(a.off, hi))
        diag("GM_UNINIT_READ", Sev::Warning, loc,
             strf("%s reads never-written bytes of '%s' (%s) in [%zu, %zu)", what, a.buf->name.c_str(),
                  role_name(a.buf->role), a.off, hi),
             jd("buffer", a.buf->name, "offset", a.off, "bytes", hi - a.off));
}

ASCEMU_DECL std::string core_states_json() {
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

ASCEMU_DECL void promote_turns_locked() {
    Runtime& R = rt();
    bool lower_runnable = false;
    for (size_t i = R.done_prefix; i < R.cores.size(); ++i) {
        Core* c = R.cores[i].get();
        if (c->state == CState::Turn && !lower_runnable) c->state = CState::Ready;
        if (c->state == CState::Ready || c->state == CState::Running || c->state == CState::Turn) lower_runnable = true;
    }
}

ASCEMU_DECL void run_core_locked(Core* c) {
    c->state = CState::Running;
    if (c->started) {
        c->cv.notify_one();
        return;
    }
    c->started = true;
    rt().start_core(c->idx);
}

ASCEMU_DECL void dispatch_locked() {
    Runtime& R = rt();
    for (;;) {
        while (R.done_prefix < R.cores.size() && R.cores[R.done_prefix]->state == CState::Done) R.done_prefix++;
        if (R.ordered_atomics) promote_turns_locked();
        while (R.running < R.permits) {
            Core* pick = nullptr;
            for (size_t i = R.done_prefix; i < R.cores.size(); ++i)
                if (R.cores[i]->state == CState::Ready) { pick = R.cores[i].get(); break; }
            if (!pick) break;
            R.running++;
            run_core_locked(pick);
        }
        if (R.running > 0) return;
        bool all_done = true, any_wait = false;
        for (size_t i = R.done_prefix; i < R.cores.size(); ++i) {
            if (R.cores[i]->state != CState::Done) all_done = false;
            if (R.cores[i]->state == CState::Wait) any_wait = true;
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
        SL loc = me ? me->last_loc : SL{};
        diag("DEADLOCK", Sev::Fatal, loc, "no core can make progress (all unfinished cores wait at a barrier or poll GM)",
             det);
        return;
    }
}

ASCEMU_DECL void block_current(std::unique_lock<std::mutex>& lk, Core* c, CState st) {
    Runtime& R = rt();
    c->state = st;
    R.running--;
    dispatch_locked();
    wait_running(lk, c);
}

ASCEMU_DECL void atomic_turn(Core* c) {
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

ASCEMU_DECL void wake_range(const uint8_t* lo, const uint8_t* hi) {
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

ASCEMU_DECL void maybe_yield(Core* c) {
    Runtime& R = rt();
    if (!R.interleave) return;
    std::unique_lock<std::mutex> lk(R.sm);
    if (!(rng_next(R) & 1)) return;
    Core* cand[256];
    int n = 0;
    cand[n++] = c;
    for (size_t i = R.done_prefix; i < R.cores.size(); ++i)
        if (R.cores[i]->state == CState::Ready && n < 256) cand[n++] = R.cores[i].get();
    Core* t = cand[rng_next(R) % n];
    if (t == c) return;
    c->state = CState::Ready;
    run_core_locked(t);
    wait_running(lk, c);
}

ASCEMU_DECL bool region_overlap_locked(uintptr_t lo, uintptr_t hi, std::vector<SyncRegion*>* out) {
    bool any = false;
    for (auto& r : rt().regions)
        if (r.lo < hi && lo < r.hi) {
            any = true;
            if (out) out->push_back(&r);
        }
    return any;
}

ASCEMU_DECL void declare_sync_region(const void* p, size_t bytes) {
    Runtime& R = rt();
    std::lock_guard<std::mutex> g(R.rm);
    uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    for (auto& r : R.regions)
        if (r.lo <= lo && hi <= r.hi) return;
    SyncRegion s{lo, hi, {}};
    auto it = R.wlog.lower_bound(lo > R.wlog_maxlen ? lo - R.wlog_maxlen : 0);
    for (; it != R.wlog.end() && it->first < hi; ++it) {
        const WRec& w = it->second;
        if (w.hi <= lo) continue;
        s.vc.raise(w.core, w.epoch);
        R.cores[w.core]->epoch = std::max(R.cores[w.core]->epoch, w.epoch + 1);
    }
    R.regions.push_back(std::move(s));
}

ASCEMU_DECL void race_snapshot(Core* c, const uint8_t* p, size_t len) {
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

ASCEMU_DECL bool race_same_bytes(const Core* c, uintptr_t lo, uintptr_t hi) {
    const uintptr_t slo = c->race_snap_lo, shi = slo + c->race_snap.size();
    return slo <= lo && hi <= shi && std::memcmp((const void*)lo, c->race_snap.data() + (lo - slo), hi - lo) == 0;
}

ASCEMU_DECL void race_on_write(Core* c, uintptr_t lo, uintptr_t hi, bool atomic, const SL& site, const char* api) {
    Runtime& R = rt();
    if (R.cores.size() < 2) return;
    const SL& loc = kernel_loc(c, site);  // kept in the write log: another core's record names this line
    std::string report, identical;  // a conflicting overlap; an overlap rewritten with the same bytes
    {
        std::lock_guard<std::mutex> g(R.rm);
        std::vector<SyncRegion*> rs;
        if (region_overlap_locked(lo, hi, &rs)) {
            for (auto* r : rs) r->vc.raise(c->idx, c->epoch);
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

ASCEMU_DECL void race_on_read(Core* c, uintptr_t lo, uintptr_t hi, const SL& site, const char* api) {
    Runtime& R = rt();
    if (R.cores.size() < 2) return;
    const SL& loc = kernel_loc(c, site);  // kept until the launch ends (GM_RW_RACE is recorded then)
    std::lock_guard<std::mutex> g(R.rm);
    std::vector<SyncRegion*> rs;
    if (region_overlap_locked(lo, hi, &rs)) {
        for (auto* r : rs)
            c->vc.merge(r->vc);
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

ASCEMU_DECL void race_on_barrier(int n) {
    Runtime& R = rt();
    std::lock_guard<std::mutex> g(R.rm);
    if (n == (int)R.cores.size()) {
        // Every record goes, and every core starts a new epoch: a later record of core j has an epoch above any j
        // had here, so what the cores learn of each other's epochs here orders nothing still to come.  Their
        // clocks start empty instead of holding every core's epoch (block_dim entries each).
        for (auto& c : R.cores) {
            c->vc.clear();
            c->epoch++;
        }
        R.wlog.clear();
        R.wlog_maxlen = 0;
        R.last_wrec.clear();
        return;
    }
    std::vector<uint64_t> e(n, 0);
    for (int i = 0; i < n; ++i) e[i] = R.cores[i]->epoch;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) R.cores[i]->vc.raise(j, e[j]);
        R.cores[i]->epoch++;
    }
    R.last_wrec.erase(R.last_wrec.begin(), R.last_wrec.lower_bound({n, 0u}));
}

ASCEMU_DECL void gm_after_write(Core* c, const GmAccess& a, const uint8_t* p, size_t len, bool atomic, const SL& loc,
                                const char* api) {
    (void)len;
    if (!a.buf || a.ok == 0) return;
    a.buf->written.set(a.off, a.off + a.ok, rt().permits > 1);
    c->own_writes++;
    race_on_write(c, (uintptr_t)p, (uintptr_t)p + a.ok, atomic, loc, api);
    wake_range(p, p + a.ok);
}

ASCEMU_DECL void poll_blockdim_check(Core* c, const uint8_t* p, size_t len, const SL& loc) {
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

ASCEMU_DECL void gm_note_read(Core* c, const uint8_t* p, size_t len, const SL& loc, const char* api) {
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

ASCEMU_DECL void barrier_wait(Core* c, int n, const SL& loc) {
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

ASCEMU_DECL void wait_until_changed(Core* c, const uint8_t* p, size_t len, const std::vector<uint8_t>& old) {
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

ASCEMU_DECL void trace_vec(Core* c, const char* api, const char* src, const char* dst, int64_t count, uint64_t repeats,
                           uint64_t internal) {
    const VecKey key{api, src, dst, count};
    auto& hot = c->live->vec_hot[(VecKeyPtrHash()(key) >> 4) % std::size(c->live->vec_hot)];
    if (!hot.a || !VecKeyPtrEq()(hot.k, key)) {
        VecAgg*& seen = c->tr.vec_seen[key];
        if (!seen) seen = &c->tr.vec[key];
        hot = {key, seen};
    }
    VecAgg& a = *hot.a;
    if (g_events) [[unlikely]]
        ev_vec(c, api, src, dst, count, repeats + internal);
    a.calls++;
    a.repeats += repeats;
    a.internal_repeats += internal;
    a.single_repeat_calls += repeats == 1;  // one 256-B repeat per instruction: issue cost dominates
}

ASCEMU_DECL std::string trace_json(Core& c) {
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
                "internal_repeats", v.internal_repeats,
                "single_repeat_calls", v.single_repeat_calls);
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

ASCEMU_DECL const char* kernel_type_name(int64_t v) {
    static const char* names[] = {"KERNEL_TYPE_AIV_ONLY",    "KERNEL_TYPE_AIC_ONLY",       "KERNEL_TYPE_MIX_AIV_1_0",
                                  "KERNEL_TYPE_MIX_AIC_1_0", "KERNEL_TYPE_MIX_AIC_1_1",    "KERNEL_TYPE_MIX_AIC_1_2",
                                  "KERNEL_TYPE_AICORE",      "KERNEL_TYPE_VECTORCORE",     "KERNEL_TYPE_MIX_AICORE",
                                  "KERNEL_TYPE_MIX_VECTOR_CORE"};
    return v >= 0 && v < (int64_t)(sizeof(names) / sizeof(names[0])) ? names[v] : "";
}

ASCEMU_DECL std::string report_json(int exit_code) {
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
    o += "]";
    if (!g_events_skipped.empty()) o += ",\"events_skipped\":" + jstr(g_events_skipped);  // a fatal launch's
    o += ",\"wall_time_s\":" + jnum(R.wall) + ",\"output_unwritten\":{";
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

ASCEMU_DECL void write_report(int exit_code) {
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

[[noreturn]] ASCEMU_DECL void fatal_exit(int code) {
    Runtime& R = rt();
    if (R.finishing.exchange(true)) {
        for (;;) pause();  // another thread is finalising; it ends the process (process_exit)
    }
    // the event log up to the fault, before the report (which says why when there is none): outside a signal
    // handler, nothing here can wait on a lock the report would not
    if (events_stop_cores() && !write_events(R.cfg.events_path, code))
        g_events_skipped = "the emulator could not write the file '" + R.cfg.events_path + "'";
    write_report(code);
    std::fflush(stdout);
    std::fflush(stderr);
    process_exit(code);
}

ASCEMU_DECL void process_exit(int code) {
    for (;;) ::syscall(SYS_exit_group, code);  // what _exit does, without going through this program's _exit
}

}  // namespace ascemu
