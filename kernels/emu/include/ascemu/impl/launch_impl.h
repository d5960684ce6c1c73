// ascemu/impl/launch_impl.h — GM allocation and mapping, crash isolation, core threads, end-of-launch checks, launch, CPU-twin shims.
// Definitions of the ASCEMU_DECL functions of ascemu/launch.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL std::map<const uint8_t*, size_t>& gm_mappings() {
    static auto* m = new std::map<const uint8_t*, size_t>();  // never destroyed (crash paths end in process_exit)
    return *m;
}

ASCEMU_DECL void split_work(size_t n, const std::function<void(size_t, size_t)>& fn) {
    static const unsigned hw = std::thread::hardware_concurrency();
    if (hw < 2 || n < (16u << 20)) return fn(0, n);
    size_t mid = (n / 2 + 4095) & ~(size_t)4095;
    std::thread helper([&fn, mid, n] { fn(mid, n); });
    fn(0, mid);
    helper.join();
}

ASCEMU_DECL GmBuf* gm_register(uint8_t* base, size_t bytes, size_t alloc, const std::string& name, Role role, int fill,
                               size_t preloaded) {
    Runtime& R = rt();
    auto b = std::make_unique<GmBuf>();
    b->base = base;
    b->bytes = bytes;
    b->alloc = alloc;
    preloaded = std::min(preloaded, bytes);
    if (bytes > preloaded)
        split_work(bytes - preloaded, [&](size_t lo, size_t hi) {
            std::memset(b->base + preloaded + lo, fill < 0 ? 0xFF : fill, hi - lo);
        });
    if (b->alloc > bytes) std::memset(b->base + bytes, 0xFF, b->alloc - bytes);
    b->name = name;
    b->role = role;
    b->prefilled = role == Role::Input || role == Role::Tiling || fill >= 0;
    // Per-byte write tracking feeds GM_UNINIT_READ (skipped for prefilled buffers) and OUTPUT_UNWRITTEN (outputs
    // only).  A buffer that is prefilled (input, tiling, a fill byte or the caller's data) and not an output needs
    // no bitmap: an empty Bitmap ignores set() and reports nothing (saves alloc/8 bytes of zeroed memory, 8 MiB for
    // a 64 MiB input).
    bool untracked = role != Role::Output && (b->prefilled || preloaded > 0);
    b->written.init(untracked ? 0 : b->alloc, false);
    GmBuf* raw = b.get();
    auto it = std::upper_bound(R.gm.begin(), R.gm.end(), raw->base,
                               [](const uint8_t* v, const std::unique_ptr<GmBuf>& x) { return v < x->base; });
    R.gm.insert(it, std::move(b));
    return raw;
}

ASCEMU_DECL GmBuf* gm_alloc(size_t bytes, const std::string& name, Role role, int fill /*-1 poison*/, bool exact,
                            size_t preloaded) {
    size_t alloc = gm_alloc_size(bytes, exact);
    size_t cap = std::max<size_t>(64, (alloc + 63) / 64 * 64) + kGmGuardBytes;  // + the guard zone (runtime.h)
    auto* base = (uint8_t*)std::aligned_alloc(64, cap);
    if (!base) harness_fatal(strf("cannot allocate %zu bytes of GM for '%s'", bytes, name.c_str()));
    std::memset(base + alloc, 0xFF, cap - alloc);  // a raw pointer that strays into the guard reads poison
    return gm_register(base, bytes, alloc, name, role, fill, preloaded);
}

ASCEMU_DECL bool madv_populate_ok() {
    static const bool ok = [] {
        void* q = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED) return false;
        bool r = ::madvise(q, 4096, MADV_POPULATE_READ) == 0;
        ::munmap(q, 4096);
        return r;
    }();
    return ok;
}

ASCEMU_DECL std::map<std::string, GmFileMap>& gm_file_maps() {
    static auto* m = new std::map<std::string, GmFileMap>();  // never destroyed, as gm_mappings()
    return *m;
}

ASCEMU_DECL void gm_unmap(void* p, size_t len) {
    ::munmap(p, len);
    gm_mappings().erase((const uint8_t*)p);
}

ASCEMU_DECL void gm_release_unused_files() {
    for (auto it = gm_file_maps().begin(); it != gm_file_maps().end();) {
        if (it->second.used) {
            it->second.used = false;
            ++it;
        } else {
            gm_unmap(it->second.p, it->second.len);
            it = gm_file_maps().erase(it);
        }
    }
}

ASCEMU_DECL GmBuf* gm_map_file(const std::string& path, bool shared, size_t bytes, const std::string& name, Role role,
                               int fill, bool exact, size_t preloaded) {
    size_t alloc = gm_alloc_size(bytes, exact);
    if (g_keep_gm_maps) shared = true;  // a private copy would not survive to the next launch
    if (!shared && preloaded == 0) return gm_alloc(bytes, name, role, fill, exact);  // COW of every page: no gain
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (std::max<size_t>(alloc, 64) + page - 1) / page * page;
    // the guard zone (runtime.h) is mapped past the file's end: no other mapping lands there, and a raw access
    // to it faults (SIGBUS, a CRASH record) instead of reaching another buffer
    const size_t maplen = len + (kGmGuardBytes + page - 1) / page * page;
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        harness_fatal(strf("cannot open gm_file '%s' for '%s': %s", path.c_str(), name.c_str(), std::strerror(errno)));
    struct stat st{};
    if (::fstat(fd, &st) != 0 || ((size_t)st.st_size < len && ::ftruncate(fd, (off_t)len) != 0)) {
        int e = errno;
        ::close(fd);
        harness_fatal(strf("cannot size gm_file '%s' to %zu bytes: %s", path.c_str(), len, std::strerror(e)));
    }
    if (g_keep_gm_maps) {
        auto it = gm_file_maps().find(path);
        if (it != gm_file_maps().end()) {
            GmFileMap& m = it->second;
            if (!m.used && m.dev == st.st_dev && m.ino == st.st_ino && m.len == maplen) {
                ::close(fd);
                m.used = true;
                return gm_register((uint8_t*)m.p, bytes, alloc, name, role, fill, preloaded);
            }
            gm_unmap(m.p, m.len);
            gm_file_maps().erase(it);
        }
    }
    const bool madv = madv_populate_ok();
    void* p = ::mmap(nullptr, maplen, PROT_READ | PROT_WRITE,
                     shared ? (MAP_SHARED | (madv ? 0 : MAP_POPULATE)) : MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED)
        harness_fatal(strf("cannot map gm_file '%s' (%zu bytes) for '%s': %s", path.c_str(), len, name.c_str(),
                           std::strerror(errno)));
    if (madv)  // best effort: pages not populated here fault in on use
        split_work(len, [p](size_t lo, size_t hi) { (void)::madvise((uint8_t*)p + lo, hi - lo, MADV_POPULATE_READ); });
    gm_mappings()[(const uint8_t*)p] = maplen;
    if (g_keep_gm_maps) gm_file_maps()[path] = {st.st_dev, st.st_ino, maplen, p, true};
    return gm_register((uint8_t*)p, bytes, alloc, name, role, fill, preloaded);
}

ASCEMU_DECL void gm_free(void* p) {
    Runtime& R = rt();
    for (auto it = R.gm.begin(); it != R.gm.end(); ++it)
        if ((*it)->base == p) {
            auto m = gm_mappings().find((const uint8_t*)p);
            if (m != gm_mappings().end()) {
                std::erase_if(gm_file_maps(), [p](const auto& kv) { return kv.second.p == p; });
                gm_unmap(p, m->second);
            } else {
                std::free((*it)->base);
            }
            R.gm.erase(it);
            return;
        }
}

ASCEMU_DECL void crash_write_line() {
    if (g_crash_written) return;
    g_crash_written = 1;
    (void)!::write(2, g_crash_line, std::strlen(g_crash_line));
}

ASCEMU_DECL void alarm_handler(int) {
    crash_write_line();
    process_exit(4);
}

// The C++ library's and the system's headers (std::source_location, <vector>, ... inlined into the emulator's code):
// never the kernel's own statement.
inline bool in_system_header(const std::string& file) {
    return file.starts_with("/usr/include/") || file.starts_with("/usr/lib/gcc/") ||
           file.starts_with("/usr/local/include/") || file.find("/include/c++/") != std::string::npos;
}

ASCEMU_DECL bool resolve_pc(uintptr_t pc, std::string& file, unsigned& line, std::string& func) {
    Dl_info di;
    if (!dladdr((void*)pc, &di) || !di.dli_fname) return false;
    uintptr_t base = (uintptr_t)di.dli_fbase;
    uintptr_t addr = pc;
    const Elf64_Ehdr* eh = (const Elf64_Ehdr*)base;
    if (eh && eh->e_type == ET_DYN) addr = pc - base;
    char cmd[1024];
    std::string fname = di.dli_fname;
    if (fname.empty() || fname.find('/') == std::string::npos) fname = "/proc/self/exe";
    std::snprintf(cmd, sizeof cmd, "addr2line -f -C -i -e '%s' 0x%lx 2>/dev/null", fname.c_str(), (unsigned long)addr);
    FILE* f = popen(cmd, "r");
    if (!f) return false;
    char buf[2048];
    std::vector<std::string> lines;
    while (std::fgets(buf, sizeof buf, f)) {
        std::string s = buf;
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
        lines.push_back(s);
    }
    pclose(f);
    // innermost frame first (-i): the first one in code of the kernel's, past what the emulator inlined into it
    for (size_t i = 0; i + 1 < lines.size(); i += 2) {
        const std::string& fl = lines[i + 1];
        size_t colon = fl.rfind(':');
        if (colon == std::string::npos || fl.compare(0, 2, "??") == 0) continue;
        std::string ln = fl.substr(colon + 1);
        size_t sp = ln.find(' ');
        if (sp != std::string::npos) ln = ln.substr(0, sp);
        unsigned l = (unsigned)std::strtoul(ln.c_str(), nullptr, 10);
        if (l == 0 || in_emulator(fl.substr(0, colon).c_str()) || in_system_header(fl.substr(0, colon))) continue;
        file = fl.substr(0, colon);
        line = l;
        func = lines[i];
        return true;
    }
    return false;
}

ASCEMU_DECL void crash_handler(int sig, siginfo_t* si, void* uctx) {
    static volatile sig_atomic_t entered = 0;
    if (entered) process_exit(4);
    entered = 1;
    Runtime& R = rt();
    R.finishing.store(true);
    Core* c = t_core;
    uintptr_t pc = 0;
#if defined(__x86_64__)
    if (uctx) pc = (uintptr_t)((ucontext_t*)uctx)->uc_mcontext.gregs[REG_RIP];
#endif
    const char* sn = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                   : sig == SIGILL ? "SIGILL" : sig == SIGABRT ? "SIGABRT" : "signal";
    const char* api = c ? c->last_api : "";
    const char* afile = c && c->last_loc.file_name() ? c->last_loc.file_name() : "";
    unsigned aline = c ? c->last_loc.line() : 0;
    // 1. preformatted line without the faulting statement (used if resolution hangs)
    std::snprintf(g_crash_line, sizeof g_crash_line,
                  "ASCEMU_DIAG {\"seq\":0,\"kind\":\"CRASH\",\"severity\":\"fatal\",\"core\":%d,\"api\":\"%s\","
                  "\"file\":\"%s\",\"line\":%u,\"column\":0,\"function\":\"\",\"message\":\"%s in kernel code at address "
                  "%p\",\"details\":{\"signal\":%d,\"addr\":\"%p\",\"pc\":\"%p\",\"api_file\":\"%s\",\"api_line\":%u,"
                  "\"resolved\":false},\"count\":1}\n",
                  c ? c->idx : -1, api, afile, aline, sn, si ? si->si_addr : nullptr, sig, si ? si->si_addr : nullptr,
                  (void*)pc, afile, aline);
    struct sigaction sa{};
    sa.sa_handler = alarm_handler;
    sigaction(SIGALRM, &sa, nullptr);
    alarm(5);
    // 2. best effort: resolve the faulting statement, then write the record and the report
    std::string file, func;
    unsigned line = 0;
    bool ok = pc && resolve_pc(pc, file, line, func);
    if (ok && !g_crash_written) {
        std::snprintf(g_crash_line, sizeof g_crash_line,
                      "ASCEMU_DIAG {\"seq\":0,\"kind\":\"CRASH\",\"severity\":\"fatal\",\"core\":%d,\"api\":\"%s\","
                      "\"file\":\"%s\",\"line\":%u,\"column\":0,\"function\":\"%s\",\"message\":\"%s in kernel code "
                      "at address %p\",\"details\":{\"signal\":%d,\"addr\":\"%p\",\"pc\":\"%p\",\"api_file\":\"%s\","
                      "\"api_line\":%u,\"resolved\":true},\"count\":1}\n",
                      c ? c->idx : -1, api, file.c_str(), line, func.c_str(), sn, si ? si->si_addr : nullptr, sig,
                      si ? si->si_addr : nullptr, (void*)pc, afile, aline);
    }
    crash_write_line();
    {
        std::unique_lock<std::mutex> g(R.dm, std::try_to_lock);
        if (g.owns_lock()) {
            DiagRec d;
            d.seq = ++R.dseq;
            d.kind = "CRASH";
            d.sev = Sev::Fatal;
            d.core = c ? c->idx : -1;
            d.api = api;
            d.file = ok ? file : afile;
            d.line = ok ? line : aline;
            d.function = func;
            d.message = strf("%s in kernel code at address %p", sn, si ? si->si_addr : nullptr);
            d.details = jd("signal", sig, "addr", si ? si->si_addr : nullptr, "pc", (void*)pc, "api_file", afile,
                           "api_line", aline, "resolved", ok);
            R.diags.push_back(d);
            R.kind_counts["CRASH"]++;
        }
    }
    // the event log up to the fault, after the report: this handler already calls what is not async-signal-safe
    // (the report, addr2line) on the chance that the fault left the heap and stdio usable; if it did not, the alarm
    // ends the process, and the report is out first.  Writing a large log takes time: a fresh alarm for it.
    const bool log = events_stop_cores();
    write_report(4);
    if (log) {
        alarm(20);
        (void)write_events(R.cfg.events_path, 4);
    }
    process_exit(4);
}

// One sample at a time (the watchdog samples the cores one after another); `want`/`done` pair a reply with its
// request.  Only the handler and sample_core use it.
struct CoreSample {
    std::atomic<uint64_t> want{0}, done{0};
    pthread_t target{};  // the thread asked (written before `want`): a late signal to another thread is ignored
    uintptr_t pc = 0;
    int frames_n = 0;
    void* frames[64];
};
inline CoreSample g_core_sample;

ASCEMU_DECL void sample_handler(int, siginfo_t*, void* uctx) {
    CoreSample& s = g_core_sample;
    const uint64_t gen = s.want.load();
    // a late signal of an earlier request (answered already, or to another thread)
    if (s.done.load() == gen || !pthread_equal(pthread_self(), s.target)) return;
    uintptr_t pc = 0;
#if defined(__x86_64__)
    if (uctx) pc = (uintptr_t)((ucontext_t*)uctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    if (uctx) pc = (uintptr_t)((ucontext_t*)uctx)->uc_mcontext.pc;
#endif
    s.pc = pc;
    s.frames_n = backtrace(s.frames, 64);  // libgcc's unwinder was loaded by install_crash_handlers
    s.done.store(gen);
}

ASCEMU_DECL bool sample_core(const Core* c, std::string& file, unsigned& line, std::string& func) {
    if (!c->on_thread.load()) return false;
    CoreSample& s = g_core_sample;
    const uint64_t gen = s.want.load() + 1;
    s.target = c->thread;
    s.want.store(gen);
    if (pthread_kill(c->thread, kSampleSignal) != 0) return false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (s.done.load() != gen)
        if (std::chrono::steady_clock::now() > until) return false;
        else std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (s.pc && resolve_pc(s.pc, file, line, func)) return true;
    // inside the emulator (or a library): the first caller in the kernel's code; return addresses point past the
    // call, so the byte before is resolved.  The frames up to the interrupted one are the handler's own.
    int first = 0;
    for (int i = 0; i < s.frames_n; ++i)
        if ((uintptr_t)s.frames[i] == s.pc) first = i + 1;
    for (int i = first; i < s.frames_n; ++i)
        if (resolve_pc((uintptr_t)s.frames[i] - 1, file, line, func)) return true;
    return false;
}

ASCEMU_DECL void install_crash_handlers() {
    struct sigaction sa{};
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(s, &sa, nullptr);
    struct sigaction ss{};
    ss.sa_sigaction = sample_handler;
    ss.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&ss.sa_mask);
    sigaction(kSampleSignal, &ss, nullptr);
    void* warm[1];
    (void)backtrace(warm, 1);  // loads libgcc_s now: the first backtrace() calls dlopen, unsafe in a handler
}

ASCEMU_DECL void setup_altstack() {
    stack_t cur{};
    if (sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) return;
    const size_t sz = 256 * 1024;
    void* mem = mmap(nullptr, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return;
    stack_t ss{};
    ss.ss_sp = mem;
    ss.ss_size = sz;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
}

ASCEMU_DECL CoreThreads& CoreThreads::get() {
    static auto* p = new CoreThreads();
    return *p;
}
ASCEMU_DECL void CoreThreads::start(int n, const std::function<void(int)>& job) {
    std::lock_guard<std::mutex> g(m_);
    job_ = &job;
    n_ = n;
    finished_ = 0;
    queue_.clear();
}
ASCEMU_DECL void CoreThreads::submit(int i) {
    std::lock_guard<std::mutex> g(m_);
    if (idle_ > 0) {
        --idle_;
        queue_.push_back(i);
        go_.notify_one();
        return;
    }
    threads_.emplace_back([this, i] {
        setup_altstack();
        loop(i);
    });
}
ASCEMU_DECL void CoreThreads::wait() {
    std::unique_lock<std::mutex> lk(m_);
    done_.wait(lk, [this] { return finished_ == n_; });
}
ASCEMU_DECL void CoreThreads::loop(int i) {
    for (;;) {
        (*job_)(i);
        std::unique_lock<std::mutex> lk(m_);
        if (++finished_ == n_) done_.notify_all();
        ++idle_;
        go_.wait(lk, [this] { return !queue_.empty(); });
        i = queue_.front();
        queue_.erase(queue_.begin());
    }
}

ASCEMU_DECL UbArenas& UbArenas::get() {
    static auto* p = new UbArenas();
    return *p;
}
ASCEMU_DECL size_t UbArenas::bytes() const {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (kProfile.ub_size + page - 1) / page * page;
}
ASCEMU_DECL uint8_t* UbArenas::take() {
    {
        std::lock_guard<std::mutex> g(m_);
        if (!free_.empty()) {
            uint8_t* p = free_.back();
            free_.pop_back();
            return p;
        }
    }
    // pre-faulted in one call, cheaper than a fault per page; page-aligned, so 64-B aligned too
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) harness_fatal(strf("cannot map a %u-byte UB arena: %s", kProfile.ub_size, std::strerror(errno)));
    return (uint8_t*)p;
}
ASCEMU_DECL void UbArenas::give(uint8_t* p) {
    std::lock_guard<std::mutex> g(m_);
    free_.push_back(p);
}
ASCEMU_DECL void UbArenas::trim() {
    std::lock_guard<std::mutex> g(m_);
    while (free_.size() > kKeep) {
        ::munmap(free_.back(), bytes());
        free_.pop_back();
    }
}

ASCEMU_DECL void core_enter(Core* c) {
    c->live = std::make_unique<CoreLive>();
    c->ub = UbArenas::get().take();
    std::memset(c->ub, rt().cfg.ub_poison, kProfile.ub_size);
    c->ubw.init(kProfile.ub_size, false);
    live_ub_allocators() = 0;
    AscendC::ascemu_current_pipe() = nullptr;
}

ASCEMU_DECL void core_leave(Core* c) {
    c->live.reset();
    UbArenas::get().give(c->ub);
    c->ub = nullptr;
    c->ubw = Bitmap();
    c->psv = PipeState();
    c->dcache = {};
    c->poll_buf = {};
    c->race_snap = {};
    c->ib_consumed = {};
    c->softsync_count = {};
}

ASCEMU_DECL void core_end_checks(Core* c) {
    SL loc = c->last_loc;
    for (auto& b : c->bufs)
        if (b.state == SlotState::Alloc || b.state == SlotState::EnQ || b.state == SlotState::DeQ) {
            diag("QUE_LEAK", Sev::Info, loc, "a queue buffer is still allocated/enqueued at kernel exit",
                 jd("ub_offset", b.lo, "state", (int)b.state));
            break;
        }
    for (int e = 0; e < (int)AscendC::HardEvent::MAX; ++e)
        for (int i = 0; i < 8; ++i)
            if (c->live->ev_pending[e][i] > 0)
                diag("EVENT_UNPAIRED", Sev::Warning, c->live->ev_loc[e][i],
                     strf("SetFlag(event %d, id %d) never matched by a WaitFlag (%d pending at exit)", e, i,
                          c->live->ev_pending[e][i]),
                     jd("event", e, "event_id", i, "pending", c->live->ev_pending[e][i]));
    if (c->atomic_fn)
        diag("ATOMIC_LEFT_ENABLED", Sev::Warning, c->atomic_loc,
             strf("SetAtomicAdd<%s> still enabled at kernel exit", c->atomic_type), jd("dtype", c->atomic_type));
}

ASCEMU_DECL void launch_end_checks() {
    Runtime& R = rt();
    for (auto& p : R.pending_rw) {
        bool in_region = false;
        for (auto& r : R.regions)
            if (r.lo < p.hi && p.lo < r.hi) in_region = true;
        if (in_region) continue;
        std::string msg = strf("core %d reads GM bytes core %d wrote in the same epoch (no barrier between them)",
                               p.reader, p.writer);
        std::string det = jd("reader", p.reader, "writer", p.writer, "reader_file", p.rfile, "reader_line", p.rline,
                             "writer_file", p.wfile, "writer_line", p.wline, "bytes", (long long)(p.hi - p.lo));
        // report at the reader's statement
        {
            std::lock_guard<std::mutex> g(R.dm);
            DiagRec d;
            d.seq = ++R.dseq;
            d.kind = "GM_RW_RACE";
            d.sev = Sev::Warning;
            d.core = p.reader;
            d.api = p.rapi;
            d.file = p.rfile;
            d.line = p.rline;
            d.message = msg;
            d.details = det;
            R.diags.push_back(d);
            R.kind_counts["GM_RW_RACE"]++;
        }
    }
    for (auto& b : R.gm)
        if (b->role == Role::Output) {
            size_t u = b->written.count_unset(0, b->bytes);
            b->unwritten = (int64_t)u;
            // an output no core wrote a byte of is almost always a kernel that did nothing (a body compiled out,
            // a wrong tiling key); a partial write is often by design (rows a kernel leaves to the launcher's fill)
            if (u) diag_launch("OUTPUT_UNWRITTEN", u == b->bytes ? Sev::Warning : Sev::Info,
                               strf("%zu of %zu bytes of output '%s' were never written by the kernel%s", u, b->bytes,
                                    b->name.c_str(), u == b->bytes ? " (no core wrote any of it)" : ""),
                               jd("buffer", b->name, "arg", b->arg_index, "unwritten", u, "bytes", b->bytes));
        }
}

ASCEMU_DECL void configure_mode(Runtime& R) {
    const std::string& m = R.cfg.mode;
    R.interleave = false;
    R.ordered_atomics = false;
    R.permits = 1;
    if (m == "serial" || m.empty()) {
    } else if (m.rfind("interleave", 0) == 0) {
        R.interleave = true;
        if (m.size() > 11 && m[10] == ':') R.cfg.seed = std::strtoull(m.c_str() + 11, nullptr, 10);
        R.rng = 0x9E3779B97F4A7C15ull ^ (R.cfg.seed * 0xBF58476D1CE4E5B9ull + 1);
        if (!R.rng) R.rng = 1;
    } else if (m == "parallel" || m == "ordered") {
        R.permits = std::max(1, R.cfg.threads);
        R.ordered_atomics = m == "ordered";
    } else {
        harness_fatal("unknown mode '" + m + "' (serial | interleave:SEED | parallel | ordered)");
    }
}

ASCEMU_DECL void timeout_record(std::unique_lock<std::mutex>& lk) {
    Runtime& R = rt();
    std::vector<CState> states;  // as the watchdog found them; sampling runs unlocked, while the cores go on
    for (auto& c : R.cores) states.push_back(c->state);
    const std::string cores_json = core_states_json();
    lk.unlock();
    std::string at_words, first_file, first_func;
    unsigned first_line = 0;
    Core* hot = nullptr;
    std::string det = "{\"timeout_s\":" + jnum(R.cfg.timeout_s) + ",\"cores\":" + cores_json + ",\"at\":[";
    int sampled = 0;
    for (size_t i = 0; i < R.cores.size(); ++i) {
        Core* c = R.cores[i].get();
        // the running cores only (the others wait inside an API call, at last_loc); at most kMaxSampled of them,
        // since each address costs an addr2line run
        constexpr int kMaxSampled = 16;
        if (states[i] != CState::Running || sampled++ >= kMaxSampled) continue;
        std::string file, func;
        unsigned line = 0;
        if (!sample_core(c, file, line, func)) continue;
        if (det.back() != '[') det += ',';
        det += jd("core", c->idx, "file", file, "line", line, "function", func);
        const size_t slash = file.rfind('/');
        at_words += strf("%score %d at %s:%u (in %s)", at_words.empty() ? "" : ", ", c->idx,
                         file.c_str() + (slash == std::string::npos ? 0 : slash + 1), line, func.c_str());
        if (!hot) {
            hot = c;
            first_file = file;
            first_line = line;
            first_func = func;
        }
    }
    det += "]}";
    for (size_t i = 0; !hot && i < R.cores.size(); ++i)
        if (states[i] == CState::Running) hot = R.cores[i].get();
    t_core = hot;  // attribute the record to a running core (main thread only reads it)
    const std::string msg = strf("launch exceeded timeout_s = %g s%s%s", R.cfg.timeout_s,
                                 at_words.empty() ? "" : "; ", at_words.c_str());
    if (!first_file.empty()) {
        diag_at("TIMEOUT", Sev::Fatal, first_file.c_str(), first_line, 0, first_func.c_str(), msg, det);
    } else {
        const SL loc = hot ? hot->last_loc : SL{};
        diag("TIMEOUT", Sev::Fatal, loc, msg, det);
    }
}

ASCEMU_DECL int launch(int block_dim, const std::function<void()>& body) {
    Runtime& R = rt();
    if (block_dim < 1 || block_dim > kMaxBlockDim)
        diag_launch("HARNESS", Sev::Fatal,
                    strf("block_dim %d is outside 1..%d (CANN's limit on the blocks of one launch)", block_dim,
                         kMaxBlockDim),
                    jd("block_dim", block_dim, "max", kMaxBlockDim));
    R.cfg.block_dim = block_dim;
    configure_mode(R);
    install_crash_handlers();
    setup_altstack();
    R.cores.clear();
    R.cores.reserve((size_t)block_dim);
    for (int i = 0; i < block_dim; ++i) {
        auto c = std::make_unique<Core>();
        c->idx = i;
        c->poll_thresh = R.cfg.poll_yield;
        c->state = CState::Ready;
        R.cores.push_back(std::move(c));
    }
    R.running = 0;
    R.done_prefix = 0;
    R.all_done = false;
    R.launched = true;
    R.start_core = [](int i) { CoreThreads::get().submit(i); };
    R.t0 = std::chrono::steady_clock::now();
    const std::function<void(int)> run_core = [&body](int i) {
        Runtime& R = rt();
        Core* c = R.cores[i].get();
        t_core = c;
        c->thread = pthread_self();
        c->on_thread.store(true);
        {
            std::unique_lock<std::mutex> lk(R.sm);
            wait_running(lk, c);
        }
        core_enter(c);
        body();
        core_end_checks(c);
        core_leave(c);
        c->on_thread.store(false);
        std::unique_lock<std::mutex> lk(R.sm);
        // a barrier still waiting on this core can never complete (cores wait at a barrier over n cores while its
        // arrivals are counted: the scan for them runs only then, not once per core of a large launch)
        bool awaited = false;
        for (auto& [n, b] : R.barriers) awaited |= n > c->idx && b.arrived > 0;
        for (size_t k = R.done_prefix; awaited && k < R.cores.size(); ++k)
            if (Core* o = R.cores[k].get(); o->state == CState::Barrier && o->barrier_n > c->idx) {
                std::string det = "{\"exited_core\":" + std::to_string(c->idx) + ",\"cores\":" + core_states_json() + "}";
                c->state = CState::Done;
                lk.unlock();
                diag("DEADLOCK", Sev::Fatal, o->last_loc,
                     strf("core %d waits at a barrier over %d cores but core %d has exited", o->idx, o->barrier_n,
                          c->idx),
                     det);
            }
        c->state = CState::Done;
        R.running--;
        dispatch_locked();
        t_core = nullptr;
    };
    CoreThreads::get().start(block_dim, run_core);
    {
        std::unique_lock<std::mutex> lk(R.sm);
        dispatch_locked();
        auto deadline = R.t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(R.cfg.timeout_s));
        while (!R.all_done) {
            if (R.main_cv.wait_until(lk, deadline) == std::cv_status::timeout && !R.all_done) {
                timeout_record(lk);
            }
        }
    }
    CoreThreads::get().wait();
    R.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - R.t0).count();
    UbArenas::get().trim();
    launch_end_checks();
    return R.any_error ? 1 : 0;
}

ASCEMU_DECL void* GmAlloc(size_t bytes, const char* name, const char* role, int fill) {
    std::string r = role;
    Role ro = r == "input" ? Role::Input : r == "output" ? Role::Output : r == "workspace" ? Role::Workspace
            : r == "tiling" ? Role::Tiling : Role::Other;
    return gm_alloc(bytes, name, ro, fill, rt().cfg.gm_exact)->base;
}

ASCEMU_DECL void GmFree(void* p) { gm_free(p); }

ASCEMU_DECL void config_from_env() {
    Runtime& R = rt();
    if (const char* s = std::getenv("ASCEMU_REPORT")) R.cfg.report_path = s;
    if (const char* s = std::getenv("ASCEMU_MODE")) R.cfg.mode = s;
    if (const char* s = std::getenv("ASCEMU_STRICT")) R.cfg.strict = std::atoi(s) != 0;
    if (const char* s = std::getenv("ASCEMU_TIMEOUT")) R.cfg.timeout_s = std::atof(s);
}

}  // namespace ascemu

namespace AscendC {

ASCEMU_DECL void* GmAlloc(size_t size) {
    return ascemu::gm_alloc(size, "GmAlloc", ascemu::Role::Other, 0)->base;
}

ASCEMU_DECL void GmFree(void* p) { ascemu::gm_free(p); }

}  // namespace AscendC

namespace ascemu {

ASCEMU_DECL void exit_called(const char* name, int status, void* return_address) {
    Core* c = t_core;
    if (!c) {  // not kernel code: the C library's function, after this executable's definition
        if (auto real = (void (*)(int))::dlsym(RTLD_NEXT, name)) real(status);
        process_exit(status);
    }
    Runtime& R = rt();
    if (R.finishing.load())
        for (;;) pause();  // another thread is ending the launch (a fatal record, a crash); it ends the process
    // the call instruction: the byte before the return address
    const uintptr_t pc = (uintptr_t)return_address - 1;
    std::string file, func;
    unsigned line = 0;
    const bool ok = resolve_pc(pc, file, line, func);
    const char* api_file = c->last_loc.file_name() ? c->last_loc.file_name() : "";
    const unsigned api_line = c->last_loc.line();
    diag_at("KERNEL_EXIT", Sev::Fatal, ok ? file.c_str() : api_file, ok ? line : api_line, 0, ok ? func.c_str() : "",
            strf("kernel code called %s(%d): exit()/_exit() (and _Exit, quick_exit) would end the process, which a "
                 "kernel on the device has none of, so the launch ends here as a fatal record; return from the kernel "
                 "function instead",
                 name, status),
            jd("call", name, "status", status, "pc", (const void*)pc, "api_file", api_file, "api_line", api_line,
               "resolved", ok));
    fatal_exit(2);  // not reached: a fatal record ends the launch
}

}  // namespace ascemu

// Weak: every translation unit that includes launch.h (header-only builds) defines them, and one is kept.
extern "C" {
__attribute__((weak, noinline)) void exit(int status) noexcept {
    ascemu::exit_called("exit", status, __builtin_return_address(0));
}
__attribute__((weak, noinline)) void _Exit(int status) noexcept {
    ascemu::exit_called("_Exit", status, __builtin_return_address(0));
}
__attribute__((weak, noinline)) void quick_exit(int status) noexcept {
    ascemu::exit_called("quick_exit", status, __builtin_return_address(0));
}
__attribute__((weak, noinline)) void _exit(int status) {
    ascemu::exit_called("_exit", status, __builtin_return_address(0));
}
}
