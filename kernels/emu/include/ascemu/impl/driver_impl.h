// ascemu/impl/driver_impl.h — the launch-file driver: JSON parsing, GM set-up per args[], the `--serve` loop, the command line.
// Definitions of the ASCEMU_DECL functions of ascemu/driver.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu::json {

ASCEMU_DECL bool Parser::parse(Value& v) {
    ws();
    if (p >= end) return fail("unexpected end");
    char ch = *p;
    if (ch == '{') {
        v.k = Value::Obj;
        ++p;
        ws();
        if (p < end && *p == '}') { ++p; return true; }
        for (;;) {
            ws();
            Value key;
            if (p >= end || *p != '"' || !str(key.s)) return fail("expected key");
            ws();
            if (p >= end || *p != ':') return fail("expected ':'");
            ++p;
            Value val;
            if (!parse(val)) return false;
            v.o.emplace_back(key.s, std::move(val));
            ws();
            if (p < end && *p == ',') { ++p; continue; }
            if (p < end && *p == '}') { ++p; return true; }
            return fail("expected ',' or '}'");
        }
    }
    if (ch == '[') {
        v.k = Value::Arr;
        ++p;
        ws();
        if (p < end && *p == ']') { ++p; return true; }
        for (;;) {
            Value val;
            if (!parse(val)) return false;
            v.a.push_back(std::move(val));
            ws();
            if (p < end && *p == ',') { ++p; continue; }
            if (p < end && *p == ']') { ++p; return true; }
            return fail("expected ',' or ']'");
        }
    }
    if (ch == '"') { v.k = Value::Str; return str(v.s); }
    if (!std::strncmp(p, "true", 4)) { v.k = Value::Bool; v.b = true; p += 4; return true; }
    if (!std::strncmp(p, "false", 5)) { v.k = Value::Bool; v.b = false; p += 5; return true; }
    if (!std::strncmp(p, "null", 4)) { v.k = Value::Null; p += 4; return true; }
    char* e = nullptr;
    v.n = std::strtod(p, &e);
    if (e == p) return fail("bad value");
    v.k = Value::Num;
    p = e;
    return true;
}

ASCEMU_DECL bool Parser::str(std::string& out) {
    ++p;
    while (p < end && *p != '"') {
        if (*p == '\\') {
            ++p;
            if (p >= end) return fail("bad escape");
            char e = *p++;
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    if (end - p < 4) return fail("bad \\u");
                    unsigned cp = (unsigned)std::strtoul(std::string(p, 4).c_str(), nullptr, 16);
                    p += 4;
                    if (cp < 0x80) out += (char)cp;
                    else if (cp < 0x800) { out += (char)(0xC0 | (cp >> 6)); out += (char)(0x80 | (cp & 63)); }
                    else {
                        out += (char)(0xE0 | (cp >> 12));
                        out += (char)(0x80 | ((cp >> 6) & 63));
                        out += (char)(0x80 | (cp & 63));
                    }
                    break;
                }
                default: out += e;
            }
        } else {
            out += *p++;
        }
    }
    if (p >= end) return fail("unterminated string");
    ++p;
    return true;
}

ASCEMU_DECL bool parse(const std::string& text, Value& v, std::string& err) {
    Parser ps{text.data(), text.data() + text.size(), {}};
    if (!ps.parse(v)) { err = ps.err; return false; }
    ps.ws();
    if (ps.p != ps.end) { err = "trailing characters"; return false; }
    return true;
}

}  // namespace ascemu::json

namespace ascemu {

ASCEMU_DECL void usage_fail(const std::string& m) {
    Runtime& R = rt();
    {
        std::lock_guard<std::mutex> g(R.dm);
        DiagRec d;
        d.seq = ++R.dseq;
        d.kind = "HARNESS";
        d.sev = Sev::Fatal;
        d.message = m;
        R.diags.push_back(d);
        R.kind_counts["HARNESS"]++;
        std::string line = "ASCEMU_DIAG " + diag_json(d) + "\n";
        (void)!::write(2, line.data(), line.size());
    }
    if (!R.cfg.report_path.empty()) write_report(5);
    process_exit(5);
}

ASCEMU_DECL std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) usage_fail("cannot read file '" + path + "'");
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

ASCEMU_DECL std::string resolve(const std::string& base_dir, const std::string& p) {
    if (p.empty() || p[0] == '/' || base_dir.empty()) return p;
    return base_dir + "/" + p;
}

ASCEMU_DECL void check_entry_args(const std::vector<ArgSpec>& specs, const Entry& entry) {
    for (size_t i = 0; i < entry.count; ++i) {
        const ArgSpec& a = specs[i];
        const ParamDesc& p = entry.params[i];
        if (p.kind == ParamKind::Pointer) {
            if (!a.gm)
                usage_fail(strf("kernel parameter %zu is a pointer (GM_ADDR) but args[%zu] has kind '%s'", i, i,
                                a.kind.c_str()));
        } else if (p.kind == ParamKind::Arithmetic) {
            if (a.kind == "bytes" && a.data.size() != p.bytes)
                usage_fail(strf("args[%zu]: %zu bytes for a %zu-byte scalar parameter", i, a.data.size(), p.bytes));
            if (a.kind != "scalar" && a.kind != "bytes")
                usage_fail(strf("kernel parameter %zu is a scalar but args[%zu] has kind '%s'", i, i, a.kind.c_str()));
        } else {
            if (a.kind != "bytes")
                usage_fail(strf("kernel parameter %zu is a struct passed by value but args[%zu] has kind '%s'", i, i,
                                a.kind.c_str()));
            if (a.data.size() != p.bytes)
                usage_fail(strf("args[%zu]: tiling file has %zu bytes but the kernel's struct parameter %zu is %zu "
                                "bytes (sizeof)",
                                i, a.data.size(), i, p.bytes));
        }
    }
}

ASCEMU_DECL std::string signature_json(const Entry& entry) {
    std::string o = "{\"params\":[";
    for (size_t i = 0; i < entry.count; ++i) {
        const ParamDesc& p = entry.params[i];
        if (i) o += ',';
        if (p.kind == ParamKind::Pointer) o += "{\"kind\":\"gm\"}";
        else if (p.scalar_type) o += strf("{\"kind\":\"scalar\",\"type\":\"%s\",\"bytes\":%zu}", p.scalar_type, p.bytes);
        else o += strf("{\"kind\":\"struct\",\"bytes\":%zu}", p.bytes);
    }
    return o + "]}";
}

ASCEMU_DECL int serve(const Overrides& ov, const Entry& entry) {
    KernelStatics statics;
    if (!statics.take()) usage_fail("--serve needs the binary's symbol table (it was stripped)");
    g_keep_gm_maps = true;
    const int64_t kernel_type = rt().kernel_type;
    // Freed launch memory (written-bitmaps, race logs, traces) stays in the heap for the next launch instead of
    // going back to the kernel and faulting in again: large blocks up to glibc's limit, and no trimming.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    auto say = [](const std::string& line) { (void)!::write(2, line.data(), line.size()); };
    say("ASCEMU_READY " + std::to_string(statics.count()) + "\n");
    char buf[8192];
    for (bool first = true; std::fgets(buf, sizeof buf, stdin); first = false) {
        std::string path = buf;
        while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
        if (path.empty()) continue;
        if (!first) serve_reset(kernel_type);
        statics.restore();
        bool exit_note = false;
        int rc = run_launch_file(path, ov, entry, exit_note);
        std::fflush(stdout);
        std::fflush(stderr);
        say("ASCEMU_EXIT " + std::to_string(rc) + "\n");
    }
    return 0;
}

ASCEMU_DECL int run_driver(int argc, char** argv, const Entry& entry) {
    std::string launch_path;
    Overrides ov;
    bool serving = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) usage_fail("missing value after " + a);
            return argv[++i];
        };
        if (a == "--launch") launch_path = next();
        else if (a == "--serve") serving = true;
        else if (a == "--signature") {
            std::printf("%s\n", signature_json(entry).c_str());
            return 0;
        }
        else if (a == "--report") ov.report = next();
        else if (a == "--mode") ov.mode = next();
        else if (a == "--timeout") ov.timeout = std::atof(next().c_str());
        else if (a == "--help" || a == "-h") {
            std::printf("usage: %s --launch launch.json [--report report.json] [--mode serial|parallel|interleave:SEED] "
                        "[--timeout S]\n       %s --serve   (launch-file paths on stdin, one per line)\n"
                        "       %s --signature   (the entry's parameter list as JSON)\n",
                        argv[0], argv[0], argv[0]);
            return 0;
        } else if (launch_path.empty() && a[0] != '-') launch_path = a;
        else usage_fail("unknown argument " + a);
    }
    if (serving) return serve(ov, entry);
    if (launch_path.empty()) usage_fail("no launch file (--launch launch.json)");
    bool exit_note = false;
    int rc = run_launch_file(launch_path, ov, entry, exit_note);
    if (exit_note) {
        // Tell the launcher the exit code, then close stdout/stderr so its reader sees EOF now: tearing down the
        // address space (mapped GM, UB arenas) still takes milliseconds, and the launcher need not wait for it.
        std::string note = "ASCEMU_EXIT " + std::to_string(rc) + "\n";
        std::fflush(stderr);
        (void)!::write(2, note.data(), note.size());
        ::close(1);
        ::close(2);
        process_exit(rc);
    }
    return rc;
}

// args[i].links: the GM buffers a list in args[i]'s buffer points to (a ListTensorDesc's tensors, laid out by the
// Python launcher, workbench/running/emu/launch.py ListArg).  Each is a GM buffer of its own, made like a "gm" entry
// from a gm_file, and its device address is written as the 8-byte word at byte `at` of the list's buffer.
inline void link_gm(const json::Value& links, size_t i, GmBuf& list, const std::string& base_dir, bool exact) {
    if (links.k != json::Value::Arr) usage_fail(strf("args[%zu]: links is not an array", i));
    for (size_t k = 0; k < links.a.size(); ++k) {
        const json::Value& m = links.a[k];
        auto g = [&](const char* key, json::Value::Kind kind) {
            const json::Value* v = m.get(key);
            return v && v->k == kind ? v : nullptr;
        };
        const json::Value *at = g("at", json::Value::Num), *bytes = g("bytes", json::Value::Num);
        const json::Value *file = g("gm_file", json::Value::Str), *role = g("role", json::Value::Str);
        if (m.k != json::Value::Obj || !at || !bytes || !file || !role)
            usage_fail(strf("args[%zu].links[%zu] needs at, bytes, gm_file and role", i, k));
        const size_t off = (size_t)at->n;
        if (off % 8 != 0 || off + 8 > list.bytes)
            usage_fail(strf("args[%zu].links[%zu]: at %zu is not an 8-byte word of the %zu-byte list", i, k, off,
                            list.bytes));
        const Role ro = role->s == "input" ? Role::Input : role->s == "output" ? Role::Output : Role::Other;
        const json::Value *map = g("gm_map", json::Value::Str), *pre = g("preloaded", json::Value::Bool);
        const json::Value* fill = g("fill", json::Value::Num);
        const bool preloaded = pre && pre->b;
        const size_t n = (size_t)bytes->n;
        GmBuf* b = gm_map_file(resolve(base_dir, file->s), !map || map->s == "shared", n,
                               strf("arg%zu[%zu]:%s", i, k, role->s.c_str()), ro, fill ? (int)fill->n & 0xFF : -1, exact,
                               preloaded ? n : 0);
        if (preloaded) b->prefilled = true;
        const uint64_t address = (uint64_t)(uintptr_t)b->base;
        std::memcpy(list.base + off, &address, 8);
    }
}

ASCEMU_DECL int run_launch_file(const std::string& launch_path, const Overrides& ov, const Entry& entry,
                                bool& exit_note) {
    StageClock clk;
    Runtime& R = rt();
    const std::string& report_override = ov.report;
    const std::string& mode_override = ov.mode;
    const double timeout_override = ov.timeout;
    if (!report_override.empty()) R.cfg.report_path = report_override;
    std::string base_dir;
    if (auto pos = launch_path.rfind('/'); pos != std::string::npos) base_dir = launch_path.substr(0, pos);
    std::vector<uint8_t> raw = read_file(launch_path);
    json::Value L;
    std::string err;
    if (!json::parse(std::string(raw.begin(), raw.end()), L, err) || L.k != json::Value::Obj)
        usage_fail("launch file " + launch_path + ": invalid JSON (" + err + ")");
    auto num = [&](const char* k, double d) { auto* v = L.get(k); return v && v->k == json::Value::Num ? v->n : d; };
    auto str = [&](const char* k, const std::string& d) {
        auto* v = L.get(k);
        return v && v->k == json::Value::Str ? v->s : d;
    };
    auto boo = [&](const char* k, bool d) { auto* v = L.get(k); return v && v->k == json::Value::Bool ? v->b : d; };
    Config& C = R.cfg;
    if (report_override.empty()) C.report_path = resolve(base_dir, str("report_path", ""));
    C.platform = str("platform", kProfile.name);
    C.soc = str("soc", kProfile.soc);
    C.core_count = (uint32_t)num("core_count", kProfile.core_count);
    const double block_dim = num("block_dim", 1);
    if (!(block_dim >= 1 && block_dim <= kMaxBlockDim && block_dim == (double)(int64_t)block_dim))
        usage_fail(strf("launch file %s: block_dim %.17g is not an integer in 1..%d (CANN's limit on the blocks of one "
                        "launch)",
                        launch_path.c_str(), block_dim, kMaxBlockDim));
    C.block_dim = (int)block_dim;
    C.tiling_key = (int64_t)num("tiling_key", 0);
    C.mode = mode_override.empty() ? str("mode", "serial") : mode_override;
    C.seed = (uint64_t)num("seed", 0);
    C.strict = boo("strict", false);
    C.timeout_s = timeout_override > 0 ? timeout_override : num("timeout_s", 60);
    C.poll_yield = std::max(2, (int)num("poll_yield", 3));
    C.threads = (int)num("threads", 2);
    C.gm_exact = str("gm_alloc", "acl") == "exact";
    C.ub_poison = (int)num("ub_poison", 0xFF);
    C.ub_reserved = (uint32_t)num("ub_reserved", 0);
    C.api_budget = (uint64_t)num("api_budget", 2e9);
    C.diag_stderr = boo("diag_stderr", true);
    C.pipe_check = str("pipe_check", "");  // empty: the environment / default decides (runtime.h Config)
    C.dcache = str("dcache", "");
    C.events_path = resolve(base_dir, str("events_path", ""));
    g_events = !C.events_path.empty();
    g_events_membarrier = g_events && ev_membarrier_available();
    g_event_count = 0;
    g_events_truncated = false;
    const double max_events = num("max_events", (double)kMaxEvents);
    if (!(max_events >= 1 && max_events <= (double)kMaxEvents && max_events == (double)(uint64_t)max_events))
        usage_fail(strf("launch file %s: max_events %.17g is not an integer in 1..%llu", launch_path.c_str(), max_events,
                        (unsigned long long)kMaxEvents));
    g_max_events = (uint64_t)max_events;
    g_event_block = std::clamp<uint64_t>(g_max_events / (8 * (uint64_t)C.block_dim), 1, kEventBlock);
    g_events_skipped.clear();
    std::string om = str("overflow_mode", "");
    if (om == "saturation") C.overflow = OverflowMode::Saturation;
    else if (om == "inf_nan" || om == "infnan") C.overflow = OverflowMode::InfNan;
    if (C.mode.rfind("interleave:", 0) == 0) C.seed = std::strtoull(C.mode.c_str() + 11, nullptr, 10);
    if (C.platform != kProfile.name)
        usage_fail("launch platform '" + C.platform + "' does not match the binary's compile-time platform '" +
                   kProfile.name + "' (-DASCEMU_PLATFORM)");
    clk.lap("parse");
    const json::Value* args = L.get("args");
    if (!args || args->k != json::Value::Arr) usage_fail("launch file has no args[] array");
    if (args->a.size() != entry.count)
        usage_fail(strf("args[] has %zu entries but the kernel entry takes %zu parameters", args->a.size(),
                        entry.count));
    std::vector<ArgSpec> specs(args->a.size());
    for (size_t i = 0; i < args->a.size(); ++i) {
        const json::Value& a = args->a[i];
        ArgSpec& s = specs[i];
        auto g = [&](const char* k) { return a.get(k); };
        if (a.k != json::Value::Obj || !g("kind") || g("kind")->k != json::Value::Str)
            usage_fail(strf("args[%zu] has no kind", i));
        s.kind = g("kind")->s;
        if (g("in_file") && g("in_file")->k == json::Value::Str) s.in_file = resolve(base_dir, g("in_file")->s);
        if (g("out_file") && g("out_file")->k == json::Value::Str) s.out_file = resolve(base_dir, g("out_file")->s);
        if (g("role") && g("role")->k == json::Value::Str) s.role = g("role")->s;
        if (g("fill") && g("fill")->k == json::Value::Num) s.fill = (int)g("fill")->n & 0xFF;
        if (g("bytes") && g("bytes")->k == json::Value::Num) s.bytes = (size_t)g("bytes")->n;
        if (g("type") && g("type")->k == json::Value::Str) s.type = g("type")->s;
        if (g("gm_file") && g("gm_file")->k == json::Value::Str) s.gm_file = resolve(base_dir, g("gm_file")->s);
        if (g("gm_map") && g("gm_map")->k == json::Value::Str) {
            if (g("gm_map")->s != "shared" && g("gm_map")->s != "private")
                usage_fail(strf("args[%zu]: gm_map '%s' (shared | private)", i, g("gm_map")->s.c_str()));
            s.gm_shared = g("gm_map")->s == "shared";
        }
        if (g("preloaded") && g("preloaded")->k == json::Value::Bool) s.preloaded = g("preloaded")->b;
        if (g("value") && g("value")->k == json::Value::Num) s.value = g("value")->n;
        if (s.kind == "gm") {
            size_t in_size = 0;
            FILE* inf = nullptr;
            if (!s.in_file.empty()) {
                inf = std::fopen(s.in_file.c_str(), "rb");
                if (!inf) usage_fail("cannot read file '" + s.in_file + "'");
                std::fseek(inf, 0, SEEK_END);
                in_size = (size_t)std::ftell(inf);
                std::fseek(inf, 0, SEEK_SET);
                if (!g("bytes")) s.bytes = in_size;
                if (in_size > s.bytes)
                    usage_fail(strf("args[%zu]: in_file %s has %zu bytes > bytes %zu", i, s.in_file.c_str(), in_size,
                                    s.bytes));
            }
            Role ro = s.role == "input" ? Role::Input : s.role == "output" ? Role::Output
                    : s.role == "workspace" ? Role::Workspace : s.role == "tiling" ? Role::Tiling : Role::Other;
            std::string nm = strf("arg%zu:%s", i, s.role.c_str());
            if (!s.gm_file.empty() && !g("bytes")) usage_fail(strf("args[%zu]: gm_file needs bytes", i));
            if (s.gm_file.empty()) {
                s.gm = gm_alloc(s.bytes, nm, ro, s.fill, C.gm_exact, in_size);
            } else {
                if (s.preloaded && inf)
                    usage_fail(strf("args[%zu]: preloaded gm_file and in_file are exclusive", i));
                size_t pre = s.preloaded ? s.bytes : in_size;
                s.gm = gm_map_file(s.gm_file, s.gm_shared, s.bytes, nm, ro, s.fill, C.gm_exact, pre);
                if (s.preloaded) s.gm->prefilled = true;
            }
            s.gm->arg_index = (int)i;
            s.gm->out_file = s.out_file;
            if (inf) {
                if (in_size && std::fread(s.gm->base, 1, in_size, inf) != in_size)
                    usage_fail("short read of '" + s.in_file + "'");
                std::fclose(inf);
                s.gm->prefilled = true;
            }
            if (const json::Value* links = g("links")) link_gm(*links, i, *s.gm, base_dir, C.gm_exact);
        } else if (s.kind == "bytes") {
            if (s.in_file.empty()) usage_fail(strf("args[%zu]: kind bytes needs in_file", i));
            s.data = read_file(s.in_file);
        } else if (s.kind == "scalar") {
        } else {
            usage_fail(strf("args[%zu]: unknown kind '%s' (gm | bytes | scalar)", i, s.kind.c_str()));
        }
    }
    // GM_ADDR parameters given as kind "bytes" (tiling pointers for GET_TILING_DATA) become tiling GM buffers
    {
        for (size_t i = 0; i < specs.size(); ++i)
            if (entry.params[i].kind == ParamKind::Pointer && specs[i].kind == "bytes") {
                specs[i].gm = gm_alloc(specs[i].data.size(), strf("arg%zu:tiling", i), Role::Tiling, 0, C.gm_exact);
                std::memcpy(specs[i].gm->base, specs[i].data.data(), specs[i].data.size());
                specs[i].gm->arg_index = (int)i;
            }
    }
    std::string done_file = resolve(base_dir, str("done_file", ""));
    exit_note = boo("exit_note", false);
    R.write_outputs = [&specs, done_file](int) {
        for (auto& s : specs)
            if (s.gm && !s.out_file.empty()) {
                FILE* f = std::fopen(s.out_file.c_str(), "wb");
                if (!f) continue;
                std::fwrite(s.gm->base, 1, s.gm->bytes, f);
                std::fclose(f);
            }
        // MAP_SHARED stores are already in the page cache (what any reader of the file sees): nothing to flush.
        if (!done_file.empty()) {
            int fd = ::open(done_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) ::close(fd);
        }
    };
    check_entry_args(specs, entry);
    clk.lap("gm_setup");
    int rc = launch(C.block_dim, [&entry, &specs]() { entry.call(entry.fn, specs); });
    clk.lap("launch");
    if (g_events && !write_events(C.events_path, rc))
        diag_launch("HARNESS", Sev::Warning, "cannot write the event log to '" + C.events_path + "'");
    g_events = false;
    write_report(rc);
    std::fflush(stdout);
    clk.lap("report_outputs");
    clk.emit();
    return rc;
}

}  // namespace ascemu
