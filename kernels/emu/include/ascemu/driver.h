// ascemu/driver.h — the launch-file driver behind ASCEMU_MAIN(kernel) (spec §8; kernels/emu/README.md).
//   binary --launch launch.json [--report path] [--mode m] [--timeout s]
// Reads the launch JSON, allocates GM per args[], builds the entry call by type deduction over the kernel's
// parameter list, runs block_dim cores, writes out_files and the report JSON (always, also on faults).
//
// Zero-copy GM (what the Python launcher uses): an args[] entry {"kind":"gm", "gm_file": F, "gm_map":
// "shared"|"private", "preloaded": true|false} makes the buffer a mapping of file F instead of fresh memory
// (gm_map_file in launch.h).  "preloaded": true means F's first `bytes` bytes are the initial content (no copy);
// otherwise `fill`/poison applies as usual, and the slack is always poisoned.  With "shared" the file holds the
// buffer's final bytes after the run, so no out_file is needed.  The top-level key "done_file" names a file the
// driver creates (empty) once every output is final (out_files written, mapped buffers settled): on every path that
// writes outputs (clean end, fatal records, crashes), never when the launch failed before its buffers existed.
// "exit_note": true makes a normally ending run write the line "ASCEMU_EXIT <code>" to stderr and close stdout and
// stderr before it exits, so a launcher reading them to EOF can go on while the process tears down its memory.
#pragma once
#include <malloc.h>

#include <climits>
#include <fstream>
#include <sstream>
#include <variant>

#include "ascemu/linkage.h"
#include "ascemu/serve.h"
#include "kernel_operator.h"

namespace ascemu::json {

struct Value {
    enum Kind { Null, Bool, Num, Str, Arr, Obj } k = Null;
    bool b = false;
    double n = 0;
    std::string s;
    std::vector<Value> a;
    std::vector<std::pair<std::string, Value>> o;
    const Value* get(const std::string& key) const {
        for (auto& kv : o)
            if (kv.first == key) return &kv.second;
        return nullptr;
    }
};

struct Parser {
    const char* p;
    const char* end;
    std::string err;
    void ws() {
        while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    }
    bool fail(const char* m) {
        if (err.empty()) err = m;
        return false;
    }
    bool parse(Value& v);
    bool str(std::string& out);
};

ASCEMU_DECL bool parse(const std::string& text, Value& v, std::string& err);

}  // namespace ascemu::json

namespace ascemu {

struct ArgSpec {
    std::string kind;  // gm | bytes | scalar
    size_t bytes = 0;
    std::string role = "input", in_file, out_file, type, gm_file;
    bool gm_shared = true, preloaded = false;
    int fill = -1;
    double value = 0;
    std::string raw_value;
    GmBuf* gm = nullptr;
    std::vector<uint8_t> data;  // bytes kind
};

[[noreturn]] ASCEMU_DECL void usage_fail(const std::string& m);
ASCEMU_DECL std::vector<uint8_t> read_file(const std::string& path);
ASCEMU_DECL std::string resolve(const std::string& base_dir, const std::string& p);

// ASCEMU_PROFILE=1 in the environment: one stderr line "ASCEMU_PROF {stage: seconds}" with the driver's own stages.
struct StageClock {
    bool on = std::getenv("ASCEMU_PROFILE") != nullptr;
    std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
    std::string out;
    void lap(const char* stage) {
        if (!on) return;
        auto n = std::chrono::steady_clock::now();
        out += strf("%s\"%s\":%.6f", out.empty() ? "" : ",", stage, std::chrono::duration<double>(n - t).count());
        t = n;
    }
    void emit() {
        if (!on) return;
        std::string line = "ASCEMU_PROF {" + out + "}\n";
        (void)!::write(2, line.data(), line.size());
    }
};

struct Overrides {
    std::string report, mode;
    double timeout = -1;
};

// ------------------------------------------------------------------------------------------------ the entry
// What the driver knows of the kernel entry: how each parameter is filled from its args[] entry, and a call of the
// entry with those arguments.  Only this part is a template over the entry's signature (Entry, made by driver_main);
// the launch file, GM set-up, the `--serve` loop and the report are not, so a separately compiled runtime
// (ascemu/linkage.h) holds them once for every kernel.
enum class ParamKind : uint8_t {
    Pointer,     // GM_ADDR: kind "gm" (or "bytes", which becomes a tiling GM buffer)
    Arithmetic,  // kind "scalar" (its value converted), or "bytes" of exactly its size
    Struct,      // a trivially copyable by-value parameter (a tiling struct, half, bfloat16_t): "bytes" of its size
};
struct ParamDesc {
    ParamKind kind = ParamKind::Struct;
    size_t bytes = 0;                     // sizeof the parameter
    const char* scalar_type = nullptr;    // `--signature` "scalar" (arithmetic, half, bfloat16_t): its dtype name
};
struct Entry {
    const ParamDesc* params;
    size_t count;
    void (*fn)();  // the entry, its type erased; call() restores it
    // Runs fn with args[] converted to its parameters (every check was made before the launch: check_entry_args).
    void (*call)(void (*fn)(), const std::vector<ArgSpec>& args);
};

template <class P>
constexpr ParamDesc param_desc() {
    if constexpr (std::is_pointer_v<P>) {
        return {ParamKind::Pointer, sizeof(P), nullptr};
    } else if constexpr (std::is_arithmetic_v<P>) {
        return {ParamKind::Arithmetic, sizeof(P), dtype_name_v<P>};
    } else {
        static_assert(std::is_trivially_copyable_v<P>, "ascemu: by-value kernel parameters must be trivially copyable");
        const bool scalar = std::is_same_v<P, half> || std::is_same_v<P, bfloat16_t>;
        return {ParamKind::Struct, sizeof(P), scalar ? dtype_name_v<P> : nullptr};
    }
}

template <class P>
inline P entry_arg(const ArgSpec& a) {
    if constexpr (std::is_pointer_v<P>) {
        return (P)a.gm->base;
    } else {
        if constexpr (std::is_arithmetic_v<P>)
            if (a.kind == "scalar") return (P)a.value;
        P v;
        std::memcpy((void*)&v, a.data.data(), sizeof(P));
        return v;
    }
}
template <class... P, size_t... I>
inline void entry_call(void (*fn)(), const std::vector<ArgSpec>& args, std::index_sequence<I...>) {
    ((void (*)(P...))fn)(entry_arg<P>(args[I])...);
}
template <class... P>
inline void entry_invoke(void (*fn)(), const std::vector<ArgSpec>& args) {
    entry_call<P...>(fn, args, std::index_sequence_for<P...>{});
}

// usage_fail (HARNESS) unless args[i] suits parameter i, for every i.
ASCEMU_DECL void check_entry_args(const std::vector<ArgSpec>& specs, const Entry& entry);

// `--signature`: the entry's declared parameter list as one JSON line on stdout, so a launcher can follow it (a kernel
// that takes no tiling gets none): {"params":[{"kind":"gm"}, {"kind":"scalar","type":"int32","bytes":4},
// {"kind":"struct","bytes":16}, ...]}.  gm: a pointer (GM_ADDR); scalar: an arithmetic type, half or bfloat16;
// struct: any other by-value type (a tiling struct), passed as its bytes.
ASCEMU_DECL std::string signature_json(const Entry& entry);

// One launch: reads the launch file, sets up GM per args[], runs the entry on block_dim cores, writes the outputs
// and the report.  Returns the exit code (fatal paths end the process).
ASCEMU_DECL int run_launch_file(const std::string& launch_path, const Overrides& ov, const Entry& entry,
                                bool& exit_note);

// One launch per line of stdin (a launch-file path) until EOF; after each, "ASCEMU_EXIT <code>" on stderr.
// A fatal record still ends the process (exit code and report as in a one-shot run): the caller starts another.
ASCEMU_DECL int serve(const Overrides& ov, const Entry& entry);

// The command line (--launch, --serve, --signature, --report, --mode, --timeout).
ASCEMU_DECL int run_driver(int argc, char** argv, const Entry& entry);

template <class... P>
inline int driver_main(int argc, char** argv, void (*fn)(P...)) {
    static constexpr ParamDesc params[] = {param_desc<P>()..., ParamDesc{}};  // + 1: an entry without parameters
    const Entry entry{params, sizeof...(P), (void (*)())fn, &entry_invoke<P...>};
    return run_driver(argc, argv, entry);
}

}  // namespace ascemu

// Variadic, so that an entry that is a template specialisation with several arguments (ASCEMU_MAIN(add<float, 8>),
// whose comma would otherwise split it into two macro arguments) names one function.
#define ASCEMU_MAIN(...) \
    int main(int argc, char** argv) { return ::ascemu::driver_main(argc, argv, &__VA_ARGS__); }

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/driver_impl.h"
#endif
