// ascemu/impl/events_impl.h — the event log's hooks and its file (ascemu/events.h).
// Definitions of the ASCEMU_DECL functions of ascemu/events.h (ascemu/linkage.h): included at the end of
// ascemu/runtime.h when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>

#include <cstdio>
#include <unordered_map>

namespace ascemu {

ASCEMU_DECL bool ev_membarrier_available() {
    const long cmds = ::syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    return cmds > 0 && (cmds & (MEMBARRIER_CMD_PRIVATE_EXPEDITED | MEMBARRIER_CMD_GLOBAL)) != 0;
}

// The fatal path's fence on every thread of the process at once.  Registering for the expedited command costs tens
// of milliseconds the first time, paid here rather than by every traced launch; the global command needs none.
inline bool ev_fence_every_thread() {
    if (::syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
        ::syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
        return true;
    return ::syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0;
}

// A hook's hold on its core's log.  Once the fatal path has set g_events_stop, a core parks at its next hook (the
// process ends while it waits there); the fatal path waits for the cores already inside one to leave it (events_busy).
// Each side stores its flag, fences, then loads the other's: one of them sees the other.  The hooks' fence is only
// the compiler's when the fatal path's membarrier fences every core thread for them (an asymmetric Dekker: a hook
// costs no locked instruction), else a full one.
struct EvHold {
    Core* c;
    explicit EvHold(Core* core) : c(core) {
        if (!c) return;
        c->events_busy.store(true, std::memory_order_relaxed);
        if (g_events_membarrier)
            std::atomic_signal_fence(std::memory_order_seq_cst);
        else
            std::atomic_thread_fence(std::memory_order_seq_cst);
        if (g_events_stop.load(std::memory_order_relaxed)) [[unlikely]] {
            c->events_busy.store(false);
            for (;;) pause();
        }
    }
    ~EvHold() {
        if (c) c->events_busy.store(false, std::memory_order_release);
    }
    EvHold(const EvHold&) = delete;
    EvHold& operator=(const EvHold&) = delete;
};

// Room for one more event of core c: its reserved block, else a new block (g_event_block) of the launch's
// g_max_events (the last block only what is left of it, so a launch never records more than its cap).
inline bool ev_reserve(Core* c) {
    if (c->events_left == 0) [[unlikely]] {
        const uint64_t taken = g_event_count.fetch_add(g_event_block, std::memory_order_relaxed);
        if (taken >= g_max_events) {
            g_events_truncated.store(true, std::memory_order_relaxed);
            return false;
        }
        c->events_left = std::min<uint64_t>(g_event_block, g_max_events - taken);
    }
    c->events_left--;
    return true;
}

// The event the hooks of the current API call fill in: the core's latest, when that call opened one.
inline Event* ev_current(Core* c) { return c && c->events_open ? &c->events.back() : nullptr; }

ASCEMU_DECL void ev_call(Core* c, const char* api, const char* file, uint32_t line) {
    EvHold hold(c);
    if (c->events_open) {
        Event& prev = c->events.back();  // the previous call has ended: the pipe it settled on is its pipe
        if (prev.kind == EvKind::Call || prev.kind == EvKind::Vector || prev.kind == EvKind::UbCopy)
            prev.pipe = c->psv.cur;
    }
    if (c->call_in_emulator) return;  // an API another API calls: its effects belong to the outer call's event
    c->events_open = false;
    if (!ev_reserve(c)) return;
    Event& e = c->events.push();
    e.seq = c->events.size() - 1;
    e.api = api;
    e.file = file;
    e.line = line;
    e.pipe = PX_V;  // settled when the call ends (ev_call of the next one) or by the hook that knows it
    c->events_open = true;
}

// A second GM range in one call (a copy that checks its rows one by one): an event of its own, same call site.
inline Event* ev_gm_slot(Core* c) {
    Event* e = ev_current(c);
    if (!e) return nullptr;
    if (e->kind == EvKind::GmRead || e->kind == EvKind::GmWrite || e->kind == EvKind::GmAtomic) {
        if (!ev_reserve(c)) return nullptr;
        Event copy = *e;
        copy.seq = c->events.size();
        Event& next = c->events.push();
        copy.bytes = 0;
        copy.flags = 0;
        next = copy;
        e = &next;
    }
    return e;
}

ASCEMU_DECL void ev_gm(const void* p, size_t len, bool write, const GmAccess& a) {
    Core* c = t_core;
    EvHold hold(c);
    Event* e = ev_gm_slot(c);
    if (!e) return;
    e->kind = !write ? EvKind::GmRead : c->atomic_fn ? EvKind::GmAtomic : EvKind::GmWrite;
    e->gm_buf = a.buf;
    e->gm_off = a.buf ? a.off : (uint64_t)(uintptr_t)p;
    e->gm_span = len;
    e->gm_ok = a.buf ? std::min<uint64_t>(a.ok, len) : 0;
    e->gm_rows = 1;
    e->gm_row_bytes = (uint32_t)std::min<uint64_t>(len, UINT32_MAX);
    e->gm_pitch = len;
    if (e->gm_ok < len) e->flags |= EVF_OUTSIDE;
    // a DataCopy has set its MTE pipe by now; any other GM access (GetValue, SetValue) is the scalar unit's
    e->pipe = c->psv.cur == PX_MTE2 || c->psv.cur == PX_MTE3 ? c->psv.cur : (uint8_t)PX_S;
}

ASCEMU_DECL void ev_rows(uint32_t count, uint32_t len, uint64_t pitch) {
    EvHold hold(t_core);
    Event* e = ev_current(t_core);
    if (!e || e->kind < EvKind::GmRead || e->kind > EvKind::GmAtomic) return;
    e->gm_rows = count;
    e->gm_row_bytes = len;
    e->gm_pitch = pitch;
}

ASCEMU_DECL void ev_ub(Core* c, int32_t buf, uint32_t off, uint64_t bytes, bool write) {
    EvHold hold(c);
    Event* e = ev_current(c);
    if (!e || (!write && e->ub_len)) return;  // the destination wins; else the first source
    e->ub_lo = off;
    e->ub_len = (uint32_t)std::min<uint64_t>(bytes, UINT32_MAX);
    if (buf >= 0 && (size_t)buf < c->bufs.size()) {
        const UbBuf& b = c->bufs[buf];
        e->ub_pos = b.pos;
        auto& owners = c->event_owners;
        auto it = std::find(owners.begin(), owners.end(), b.owner);
        e->ub_buffer = (int16_t)(it - owners.begin());
        if (it == owners.end()) owners.push_back(b.owner);
    }
}

ASCEMU_DECL void ev_moved(Core* c, bool ub_to_ub, uint64_t bytes) {
    EvHold hold(c);
    Event* e = ev_current(c);
    if (!e) return;
    e->bytes += bytes;
    if (ub_to_ub) e->kind = EvKind::UbCopy;
}

ASCEMU_DECL void ev_vec(Core* c, const char* api, const char* src, const char* dst, int64_t count, uint64_t repeats) {
    EvHold hold(c);
    Event* e = ev_current(c);
    if (!e) return;
    e->kind = EvKind::Vector;
    e->repeats += repeats;
    e->count = count;
    e->s1 = api;
    e->s2 = src;
    e->s3 = dst;
}

// The pipe a control event belongs to: a SetFlag to its source pipe, a WaitFlag to the pipe that waits, a
// PipeBarrier to its pipe (PIPE_ALL and SyncAll to the scalar unit, which issues them).
inline uint8_t ev_control_pipe(EvKind kind, int32_t a, int32_t b) {
    if (kind == EvKind::SetFlag && a >= 0) return (uint8_t)a;
    if (kind == EvKind::WaitFlag && b >= 0) return (uint8_t)b;
    if (kind == EvKind::Barrier)
        switch (a) {
            case PIPE_V: return PX_V;
            case PIPE_MTE2: return PX_MTE2;
            case PIPE_MTE3: return PX_MTE3;
            default: return PX_S;
        }
    return PX_S;
}

ASCEMU_DECL void ev_mark(Core* c, EvKind kind, int32_t a, int32_t b, int64_t id) {
    EvHold hold(c);
    Event* e = ev_current(c);
    if (!e) return;
    e->kind = kind;
    e->pipe = ev_control_pipe(kind, a, b);
    e->a = a;
    e->b = b;
    e->id = id;
}

ASCEMU_DECL void ev_queue(Core* c, EvKind kind, const void* queue, uint8_t pos, uint32_t lo, uint32_t len) {
    EvHold hold(c);
    Event* e = ev_current(c);
    if (!e) return;
    e->kind = kind;
    e->ub_lo = lo;
    e->ub_len = len;
    e->ub_pos = pos;
    e->a = pos;
    // a queue's producer fills a slot (AllocTensor .. EnQue), its consumer drains it (DeQue .. FreeTensor): VECIN is
    // filled by MTE2 and read by V, VECOUT filled by V and read by MTE3, VECCALC both V
    const bool producer_side = kind == EvKind::Alloc || kind == EvKind::EnQue;
    const auto p = (AscendC::TPosition)pos;
    e->pipe = p == AscendC::TPosition::VECIN ? (producer_side ? PX_MTE2 : PX_V)
            : p == AscendC::TPosition::VECOUT ? (producer_side ? PX_V : PX_MTE3) : (uint8_t)PX_V;
    auto& owners = c->event_owners;
    auto it = std::find(owners.begin(), owners.end(), queue);
    e->ub_buffer = (int16_t)(it - owners.begin());
    if (it == owners.end()) owners.push_back(queue);
}

ASCEMU_DECL bool events_stop_cores() {
    if (!g_events) return false;
    Runtime& R = rt();
    g_events_stop.store(true);
    if (g_events_membarrier && !ev_fence_every_thread()) {
        g_events_skipped = "the system refused the memory barrier that makes the cores' logs safe to read";
        return false;
    }
    // the cores inside a hook leave it within microseconds; a thread the machine does not schedule for this long
    // (or one stuck inside a hook) leaves its log in an unknown state, and then none is written
    constexpr auto kWait = std::chrono::seconds(2);
    const auto until = std::chrono::steady_clock::now() + kWait;
    for (auto& c : R.cores) {
        if (c.get() == t_core && c->started && pthread_equal(c->thread, pthread_self())) continue;  // this thread's
        while (c->events_busy.load())
            if (std::chrono::steady_clock::now() > until) {
                g_events_skipped = strf("core %d was still recording an event %lld s after the fault, so the logs "
                                        "could not be read safely",
                                        c->idx, (long long)kWait.count());
                return false;
            } else {
                sched_yield();
            }
    }
    return true;
}

// The launch's fatal record (its first one): kind and core, for the trailer; "" when the launch did not end in one.
inline std::pair<std::string, int> ev_fault() {
    Runtime& R = rt();
    std::unique_lock<std::mutex> g(R.dm, std::try_to_lock);  // the crash handler may have interrupted its holder
    if (g.owns_lock())
        for (const DiagRec& d : R.diags)
            if (d.sev == Sev::Fatal) return {d.kind, d.core};
    return {"", -1};
}

ASCEMU_DECL bool write_events(const std::string& path, int exit_code) {
    Runtime& R = rt();
    std::vector<std::string> strings{""};
    std::unordered_map<const char*, uint32_t> ids{{"", 0}};
    std::unordered_map<std::string, uint32_t> by_text{{"", 0}};
    // a few hundred distinct names over up to millions of events: a direct-mapped cache in front of the map
    struct Hot { const char* s = nullptr; uint32_t id = 0; };
    std::vector<Hot> hot(4096);
    auto intern = [&](const char* s) -> uint32_t {
        if (!s) return 0;
        Hot& h = hot[((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 52];
        if (h.s == s) return h.id;
        auto [it, fresh] = ids.try_emplace(s, 0);
        if (fresh) {  // one literal may exist at several addresses (one per translation unit)
            auto [jt, new_text] = by_text.try_emplace(s, (uint32_t)strings.size());
            if (new_text) strings.emplace_back(s);
            it->second = jt->second;
        }
        h = {s, it->second};
        return it->second;
    };
    std::unordered_map<const void*, int32_t> tensor_of;
    for (size_t i = 0; i < R.gm.size(); ++i) tensor_of[R.gm[i].get()] = (int32_t)i;
    std::string tmp = path + ".part";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return false;
    uint64_t n = 0;
    for (auto& c : R.cores) n += c->events.size();
    bool ok = std::fwrite(kEventsMagic, 1, 8, f) == 8;
    const uint32_t head[2] = {kEventsVersion, (uint32_t)sizeof(EventDisk)};
    ok = ok && std::fwrite(head, sizeof head, 1, f) == 1 && std::fwrite(&n, 8, 1, f) == 1;
    std::vector<EventDisk> chunk;
    chunk.reserve(4096);
    auto flush = [&]() {
        ok = ok && (chunk.empty() || std::fwrite(chunk.data(), sizeof(EventDisk), chunk.size(), f) == chunk.size());
        chunk.clear();
    };
    for (auto& c : R.cores) {
        if (!c->events.empty() && c->events_open) {
            Event& last = c->events.back();
            if (last.kind == EvKind::Call || last.kind == EvKind::Vector || last.kind == EvKind::UbCopy)
                last.pipe = c->psv.cur;
        }
        for (size_t i = 0; i < c->events.size(); ++i) {
            const Event& e = c->events.at(i);
            EventDisk d{};
            d.seq = e.seq, d.gm_off = e.gm_off, d.gm_span = e.gm_span, d.gm_ok = e.gm_ok, d.gm_pitch = e.gm_pitch;
            d.bytes = e.bytes, d.repeats = e.repeats, d.count = e.count, d.id = e.id;
            d.core = (uint32_t)c->idx, d.api = intern(e.api), d.file = intern(e.file), d.line = e.line;
            d.gm_rows = e.gm_rows, d.gm_row_bytes = e.gm_row_bytes, d.ub_lo = e.ub_lo, d.ub_len = e.ub_len;
            d.s1 = intern(e.s1), d.s2 = intern(e.s2), d.s3 = intern(e.s3);
            d.a = e.a, d.b = e.b;
            auto t = e.gm_buf ? tensor_of.find(e.gm_buf) : tensor_of.end();
            d.gm_tensor = t == tensor_of.end() ? -1 : t->second;
            d.ub_buffer = e.ub_buffer;
            d.kind = (uint8_t)e.kind, d.pipe = e.pipe, d.ub_pos = e.ub_pos, d.flags = e.flags;
            chunk.push_back(d);
            if (chunk.size() == 4096) flush();
        }
        c->events.clear();
        c->events_open = false;
    }
    flush();
    std::string t = "{\"version\":" + std::to_string(kEventsVersion) + ",\"block_dim\":" +
                    std::to_string(R.cfg.block_dim) + ",\"platform\":" + jstr(R.cfg.platform) +
                    ",\"truncated\":" + (g_events_truncated.load() ? "true" : "false") +
                    ",\"max_events\":" + std::to_string(g_max_events) + ",\"kinds\":[";
    const auto [fault, fault_core] = exit_code >= 2 ? ev_fault() : std::pair<std::string, int>{"", -1};
    t = "{\"fatal\":" + std::string(exit_code >= 2 ? "true" : "false") + ",\"exit_code\":" + std::to_string(exit_code) +
        ",\"fault\":" + jstr(fault) + ",\"fault_core\":" + std::to_string(fault_core) + "," + t.substr(1);
    for (size_t i = 0; i < std::size(kEvKindNames); ++i) t += (i ? "," : "") + jstr(kEvKindNames[i]);
    t += "],\"tensors\":[";
    for (size_t i = 0; i < R.gm.size(); ++i) {
        const GmBuf& b = *R.gm[i];
        t += (i ? "," : "") + jd("name", b.name, "arg", b.arg_index, "role", role_name(b.role), "bytes", b.bytes);
    }
    t += "],\"strings\":[";
    for (size_t i = 0; i < strings.size(); ++i) t += (i ? "," : "") + jstr(strings[i]);
    t += "]}";
    ok = ok && std::fwrite(t.data(), 1, t.size(), f) == t.size();
    ok = std::fclose(f) == 0 && ok;
    if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
    if (!ok) std::remove(tmp.c_str());
    return ok;
}

}  // namespace ascemu
