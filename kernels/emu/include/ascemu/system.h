// ascemu/system.h — system variables, debug output, tiling macros, kernel type (spec §3.1, §3.5 System/Debug).
#pragma once
#include <cinttypes>

#include "ascemu/sync.h"

namespace ascemu {

inline int64_t tiling_key() { return rt().cfg.tiling_key; }

struct KernelTypeReg {
    explicit KernelTypeReg(int v, const SL loc = SL::current()) { apply(v, loc); }
    KernelTypeReg(int key, int v, const SL loc = SL::current()) {
        if (key == rt().cfg.tiling_key) apply(v, loc);
    }
    static void apply(int v, const SL& loc);
};

ASCEMU_DECL void load_tiling(void* dst, size_t n, const void* src, const SL& loc);

// printf argument capture
struct PArg {
    enum K { I, U, D, S, P } k;
    long long i;
    unsigned long long u;
    double d;
    const char* s;
    const void* p;
};
template <class A>
inline PArg parg(const A& a) {
    using D = std::decay_t<A>;
    if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16_t>) return PArg{PArg::D, 0, 0, (double)(float)a, 0, 0};
    else if constexpr (std::is_floating_point_v<D>) return PArg{PArg::D, 0, 0, (double)a, 0, 0};
    else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) return PArg{PArg::S, 0, 0, 0, a, 0};
    else if constexpr (std::is_pointer_v<D>) return PArg{PArg::P, 0, 0, 0, 0, (const void*)a};
    else if constexpr (std::is_enum_v<D>) return PArg{PArg::I, (long long)a, (unsigned long long)a, 0, 0, 0};
    else if constexpr (std::is_signed_v<D>) return PArg{PArg::I, (long long)a, (unsigned long long)a, 0, 0, 0};
    else if constexpr (std::is_integral_v<D>) return PArg{PArg::U, (long long)a, (unsigned long long)a, 0, 0, 0};
    else if constexpr (std::is_array_v<std::remove_reference_t<A>>) return PArg{PArg::S, 0, 0, 0, (const char*)a, 0};
    else return PArg{PArg::P, 0, 0, 0, 0, nullptr};
}

ASCEMU_DECL std::string format_printf(const char* fmt, const PArg* a, size_t n);

// The system workspace a launch's framework sets before the kernel starts.  CANN's framework does so for a
// custom-operator project and for a kernel-launch build compiled with HAVE_WORKSPACE, from the kernel's workspace
// argument (the SetSysWorkSpace page: https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0171.html);
// a kernel-launch build without it leaves the pointer null (the GetUserWorkspace page, atlasascendc_api_07_0172).
// ascemu treats an argument of role "workspace" (what the workbench's op launches and emu.Workspace pass, standing
// for the framework's workspace argument) as that argument; with HAVE_WORKSPACE and none, the pointer the kernel
// passes to GetUserWorkspace.  Launches built on raw GM (aclrtMalloc in .asc programs, GmAlloc) get neither.
// The launch's workspace-role argument: `passed` when it lies in one, else the first; null when there is none.
ASCEMU_DECL uint8_t* workspace_argument(uint8_t* passed);
// Inline, not in the separately compiled runtime (ascemu/linkage.h): HAVE_WORKSPACE is the kernel build's macro.
inline uint8_t* framework_sys_workspace(uint8_t* passed) {
    if (uint8_t* w = workspace_argument(passed)) return w;
#ifdef HAVE_WORKSPACE
    return passed;
#else
    return nullptr;
#endif
}

template <class... A>
inline void kprintf(const SL& loc, const char* fmt, const A&... args) {
    Core* c = t_core;
    PArg a[sizeof...(A) + 1] = {parg(args)...};
    std::string s = format_printf(fmt, a, sizeof...(A));
    if (!c) {
        std::fwrite(s.data(), 1, s.size(), stdout);
        return;
    }
    api_enter("printf", loc);
    c->tr.printf_calls++;
    c->out += s;
    std::string line = "[core " + std::to_string(c->idx) + "] " + s;
    std::fwrite(line.data(), 1, line.size(), stdout);
}

}  // namespace ascemu

namespace AscendC {

inline int64_t GetBlockIdx() {
    ascemu::Core* c = ascemu::t_core;
    return c ? c->idx : 0;
}
inline int64_t GetBlockNum() { return (int64_t)ascemu::rt().cores.size(); }
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline int64_t GetTaskRation() { return 1; }
// The workspace APIs as CANN's device implementation has them (kernel_operator_common_impl.h, e.g.
// impl/basic_api/dav_m200/ of cann/asc-devkit): GetUserWorkspace ignores its argument and returns the block's
// system-workspace pointer (g_sysWorkspaceReserved) + RESERVED_WORKSPACE.  That pointer is set by SetSysWorkspace
// (only while it is still null), by SetSysWorkspaceForce, or by the framework (ascemu::framework_sys_workspace);
// otherwise it is null.  CANN's CPU twin differs: there GetUserWorkspace returns its argument unchanged.
inline __gm__ uint8_t* GetSysWorkSpacePtr() {
    ascemu::Core* c = ascemu::t_core;
    if (!c) return nullptr;
    return c->sys_workspace ? c->sys_workspace : ascemu::framework_sys_workspace(nullptr);
}
inline __gm__ uint8_t* GetUserWorkspace(__gm__ uint8_t* workspace, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("GetUserWorkspace", loc);
    uint8_t* sys = c->sys_workspace ? c->sys_workspace : framework_sys_workspace(workspace);
    if (!sys) {
        diag("SYS_WORKSPACE_UNSET", Sev::Error, loc,
             strf("GetUserWorkspace with no system workspace: on the device it returns the system-workspace pointer + "
                  "%llu bytes whatever its argument, and nothing set that pointer (no SetSysWorkspace on this core, "
                  "no HAVE_WORKSPACE build, no workspace argument of a framework launch), so it returns address "
                  "0x%llx; ascemu returns the same, and accesses through it are skipped",
                  (unsigned long long)kProfile.sys_workspace, (unsigned long long)kProfile.sys_workspace),
             jd("workspace_arg", (const void*)workspace, "reserved_bytes", (long long)kProfile.sys_workspace));
        return (__gm__ uint8_t*)(uintptr_t)kProfile.sys_workspace;
    }
    return sys + kProfile.sys_workspace;
}
inline void SetSysWorkspace(__gm__ uint8_t* workspace) {
    ascemu::Core* c = ascemu::t_core;
    if (c && !c->sys_workspace) c->sys_workspace = workspace;
}
inline void SetSysWorkspaceForce(__gm__ uint8_t* workspace) {
    if (ascemu::Core* c = ascemu::t_core) c->sys_workspace = workspace;
}
inline uint32_t GetUBSizeInBytes() { return ascemu::kProfile.ub_size; }
inline int64_t GetSystemCycle() {
    ascemu::Core* c = ascemu::t_core;
    return c ? (int64_t)c->api_calls : 0;
}
inline uint32_t GetCoreNum() { return ascemu::rt().cfg.core_count; }

template <class... Args>
inline void printf(const char* fmt, const Args&... args) {
    ascemu::Core* c = ascemu::t_core;
    ascemu::kprintf(c ? c->last_loc : std::source_location::current(), fmt, args...);
}
template <class... Args>
inline void PRINTF(const char* fmt, const Args&... args) {
    AscendC::printf(fmt, args...);
}

template <typename T>
inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("DumpTensor", loc);
    std::string s = strf("DumpTensor: desc=%u, addr=%u, data_type=%s, position=UB\n", desc, t.v_.off, dtype_name_v<T>);
    uint32_t n = std::min<uint32_t>(dumpSize, (kProfile.ub_size - t.v_.off) / sizeof(T));
    for (uint32_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, c->ub + t.v_.off + i * sizeof(T), sizeof(T));
        if constexpr (num::is_fp_v<T>) s += strf("%g ", (double)(float)v);
        else s += strf("%lld ", (long long)v);
    }
    s += "\n";
    c->out += s;
    std::string line = "[core " + std::to_string(c->idx) + "] " + s;
    std::fwrite(line.data(), 1, line.size(), stdout);
}
template <typename T>
inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize, const ShapeInfo&, ASCEMU_SL) {
    DumpTensor(t, desc, dumpSize, loc);
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& t, uint32_t desc, uint32_t dumpSize, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("DumpTensor", loc);
    std::string s = strf("DumpTensor: desc=%u, addr=%p, data_type=%s, position=GM\n", desc, (void*)t.GetPhyAddr(),
                         dtype_name_v<T>);
    GmAccess a = gm_check(t.GetPhyAddr(), (size_t)dumpSize * sizeof(T), false, 1, loc, "DumpTensor");
    uint32_t n = a.buf ? (uint32_t)(a.ok / sizeof(T)) : 0;
    for (uint32_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, (const uint8_t*)t.GetPhyAddr() + i * sizeof(T), sizeof(T));
        if constexpr (num::is_fp_v<T>) s += strf("%g ", (double)(float)v);
        else s += strf("%lld ", (long long)v);
    }
    s += "\n";
    c->out += s;
    std::string line = "[core " + std::to_string(c->idx) + "] " + s;
    std::fwrite(line.data(), 1, line.size(), stdout);
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& t, uint32_t desc, uint32_t dumpSize, const ShapeInfo&, ASCEMU_SL) {
    DumpTensor(t, desc, dumpSize, loc);
}

ASCEMU_DECL void trap(ASCEMU_SL);

ASCEMU_DECL void Trap(ASCEMU_SL);

// CANN: "AI Core has global state, such as the atomic-accumulation state and the mask mode, that an operator run
// before this one may have changed; with static-Tensor programming the kernel must call InitSocState at its entry
// to initialise it" (Ascend C API reference, InitSocState, CANN 8.3.RC1:
// https://www.hiascend.com/document/detail/zh/canncommercial/83RC1/API/ascendcopapi/atlasascendc_api_07_00094.html).
// Every emulated core starts a launch in that state already, so at a kernel's entry this changes nothing; called
// later it restores it (atomics off, normal mask mode, every lane enabled), as the device does.
inline void InitSocState(ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("InitSocState", loc);
    c->atomic_fn = nullptr;
    c->atomic_type = nullptr;
    c->mask_counter = false;
    c->vmask[0] = c->vmask[1] = ~0ull;
}

// CANN's CPU twin: which cores of a separated (AIC + AIV) chip a CPU-debug run simulates, called by a host main
// before ICPU_RUN_KF.  Every emulated core is a vector core, so AIV_MODE and MIX_MODE change nothing.
ASCEMU_DECL void SetKernelMode(KernelMode m, ASCEMU_SL);

}  // namespace AscendC

// `block_idx` / `block_num`: the kernel's core index and core count as global variables, the spelling CANN's
// newest examples use (`x + block_idx * blockLength`).  Each reads the running core's value when used.
namespace ascemu {
struct BlockIdxVar {
    operator int64_t() const { return AscendC::GetBlockIdx(); }
};
struct BlockNumVar {
    operator int64_t() const { return AscendC::GetBlockNum(); }
};
}  // namespace ascemu
inline constexpr ascemu::BlockIdxVar block_idx{};
inline constexpr ascemu::BlockNumVar block_num{};

// ------------------------------------------------------------------------------------------------ macros
#define ASCEMU_CAT2(a, b) a##b
#define ASCEMU_CAT(a, b) ASCEMU_CAT2(a, b)

#define KERNEL_TASK_TYPE_DEFAULT(v) \
    static const ::ascemu::KernelTypeReg ASCEMU_CAT(ascemu_ktt_, __LINE__) { (int)(v) }
#define KERNEL_TASK_TYPE(key, v) \
    static const ::ascemu::KernelTypeReg ASCEMU_CAT(ascemu_ktt_, __LINE__) { (int)(key), (int)(v) }

#define TILING_KEY_IS(k) (::ascemu::tiling_key() == (int64_t)(k))
namespace ascemu {
template <class... K>
inline bool tiling_key_in(K... k) { return ((tiling_key() == (int64_t)k) || ...); }
}  // namespace ascemu
#define TILING_KEY_LIST(...) (::ascemu::tiling_key_in(__VA_ARGS__))

// CANN's build generates the kernel-side tiling struct from the op_host registration; ascemu learns it from
// REGISTER_TILING_DEFAULT in the kernel (a local alias that hides this global one) or from -DASCEMU_TILING_STRUCT.
// Without either, GET_TILING_DATA stops the build at its own line, naming the fix.
namespace ascemu {
struct TilingStructNotRegistered {};
}  // namespace ascemu
using ascemu_tiling_t = ::ascemu::TilingStructNotRegistered;
#define ASCEMU_TILING_NOT_REGISTERED                                                                                 \
    "GET_TILING_DATA: the tiling struct's type is not known here. Write REGISTER_TILING_DEFAULT(YourTilingData); in " \
    "the kernel before GET_TILING_DATA, or build with -DASCEMU_TILING_STRUCT=YourTilingData (for a struct defined "  \
    "with BEGIN_TILING_DATA_DEF in an op_host header, also -DASCEMU_TILING_HEADER='\"xxx_tiling.h\"' with its "       \
    "folder on the include path), or use GET_TILING_DATA_WITH_STRUCT(YourTilingData, data, tiling)"
#define REGISTER_TILING_DEFAULT(S) using ascemu_tiling_t = S
#define REGISTER_TILING_FOR_TILINGKEY(k, S)
#ifdef ASCEMU_TILING_STRUCT
#define GET_TILING_DATA(d, t) \
    ASCEMU_TILING_STRUCT d;   \
    ::ascemu::load_tiling(&d, sizeof(d), (const void*)(t), std::source_location::current())
#else
#define GET_TILING_DATA(d, t)                                                                              \
    static_assert(!std::is_same_v<ascemu_tiling_t, ::ascemu::TilingStructNotRegistered>,                   \
                  ASCEMU_TILING_NOT_REGISTERED);                                                           \
    ascemu_tiling_t d;                                                                                     \
    ::ascemu::load_tiling(&d, sizeof(d), (const void*)(t), std::source_location::current())
#endif
#define GET_TILING_DATA_WITH_STRUCT(S, d, t) \
    S d;                                     \
    ::ascemu::load_tiling(&d, sizeof(d), (const void*)(t), std::source_location::current())
#define GET_TILING_DATA_MEMBER(S, member, var, t)                                                       \
    decltype(S::member) var;                                                                            \
    ::ascemu::load_tiling(&var, sizeof(var), (const uint8_t*)(t) + offsetof(S, member),                 \
                          std::source_location::current())

#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, name) type name;
#define TILING_DATA_FIELD_DEF_ARR(type, n, name) type name[n];
#define TILING_DATA_FIELD_DEF_STRUCT(type, name) type name;
#define END_TILING_DATA_DEF \
    }                       \
    ;
#define REGISTER_TILING_DATA_CLASS(op, cls)
// The op_host header that defines the tiling struct (BEGIN_TILING_DATA_DEF), for -DASCEMU_TILING_STRUCT: CANN's
// kernels do not include it, CANN's build generates the struct from it.
#ifdef ASCEMU_TILING_HEADER
#include ASCEMU_TILING_HEADER
#endif
// CANN's operator build force-includes (-include) a header it generates from the op's registered tiling classes
// (cann/asc-devkit tools/build/asc_op_compile_base/asc_op_compiler/get_op_tiling.py, get_dynamic_tiling_struct and
// compile_op.py): each class is declared at global scope under its own name, whatever namespace the op_host header
// put it in (`namespace optiling` in msOpGen projects).  So op_kernel files name it unqualified.  ascemu declares it
// where the op_host header does and makes the names of `optiling` visible at global scope, which lets a kernel write
// both `TilingData` and `optiling::TilingData`.
namespace optiling {}
using namespace optiling;

#define ascendc_assert(cond, ...)                                                                                \
    do {                                                                                                         \
        if (!(cond))                                                                                             \
            ::ascemu::diag("KERNEL_ABORT", ::ascemu::Sev::Fatal, std::source_location::current(),              \
                           std::string("ascendc_assert failed: ") + #cond, "{}");                               \
    } while (0)
#define ASCENDC_ASSERT(cond, ...) ascendc_assert(cond)

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/system_impl.h"
#endif
