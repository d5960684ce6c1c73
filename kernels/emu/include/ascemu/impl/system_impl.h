// ascemu/impl/system_impl.h — kernel types, GET_TILING_DATA, printf formatting, trap.
// Definitions of the ASCEMU_DECL functions of ascemu/system.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL uint8_t* workspace_argument(uint8_t* passed) {
    Runtime& R = rt();
    if (const GmBuf* in = passed ? gm_find(passed) : nullptr; in && in->role == Role::Workspace) return in->base;
    for (auto& b : R.gm)
        if (b->role == Role::Workspace) return b->base;
    return nullptr;
}

ASCEMU_DECL void load_tiling(void* dst, size_t n, const void* src, const SL& loc) {
    Core* c = api_enter("GET_TILING_DATA", loc);
    (void)c;
    GmAccess a = gm_check(src, n, false, 1, loc, "GET_TILING_DATA");
    std::memset(dst, 0, n);
    if (a.buf) std::memcpy(dst, src, a.ok);
    else if (src) std::memcpy(dst, src, n);  // raw host pointer (CPU-twin style): unchecked
}

ASCEMU_DECL std::string format_printf(const char* fmt, const PArg* a, size_t n) {
    std::string o;
    size_t k = 0;
    for (const char* p = fmt; *p; ++p) {
        if (*p != '%') { o += *p; continue; }
        if (p[1] == '%') { o += '%'; ++p; continue; }
        std::string spec = "%";
        ++p;
        while (*p && std::strchr("-+ #0123456789.", *p)) spec += *p++;
        while (*p && std::strchr("hlLqjzt", *p)) ++p;
        if (!*p) break;
        char conv = *p;
        if (k >= n) { o += "<missing>"; continue; }
        const PArg& x = a[k++];
        char buf[128];
        switch (conv) {
            case 'd': case 'i':
                std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), x.k == PArg::D ? (long long)x.d : x.i);
                break;
            case 'u': case 'x': case 'X': case 'o':
                std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), x.k == PArg::D ? (unsigned long long)x.d : x.u);
                break;
            case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
                std::snprintf(buf, sizeof buf, (spec + conv).c_str(),
                              x.k == PArg::D ? x.d : (x.k == PArg::U ? (double)x.u : (double)x.i));
                break;
            case 's': std::snprintf(buf, sizeof buf, (spec + 's').c_str(), x.k == PArg::S && x.s ? x.s : "(null)"); break;
            case 'p': std::snprintf(buf, sizeof buf, "%p", x.p); break;
            case 'c': std::snprintf(buf, sizeof buf, "%c", (char)x.i); break;
            default: std::snprintf(buf, sizeof buf, "<%%%c?>", conv);
        }
        o += buf;
    }
    return o;
}

}  // namespace ascemu

namespace AscendC {

ASCEMU_DECL void trap(const std::source_location loc) {
    ascemu::api_enter("trap", loc);
    ascemu::diag("KERNEL_ABORT", ascemu::Sev::Fatal, loc, "trap() called by the kernel", "{}");
}

ASCEMU_DECL void Trap(const std::source_location loc) {
    ascemu::api_enter("Trap", loc);
    ascemu::diag("KERNEL_ABORT", ascemu::Sev::Fatal, loc, "Trap() called by the kernel", "{}");
}

ASCEMU_DECL void SetKernelMode(KernelMode m, const std::source_location loc) {
    if (m == KernelMode::AIC_MODE)
        ascemu::diag("UNSUPPORTED_API", ascemu::Sev::Error, loc, "SetKernelMode(AIC_MODE): cube is not emulated", "{}");
}

}  // namespace AscendC

namespace ascemu {

ASCEMU_DECL void KernelTypeReg::apply(int v, const SL& loc) {
    rt().kernel_type = v;
    bool ok;
    if constexpr (kIs310P) ok = v == KERNEL_TYPE_AICORE;
    else
        ok = v == KERNEL_TYPE_AIV_ONLY || v == KERNEL_TYPE_AIC_ONLY || v == KERNEL_TYPE_MIX_AIV_1_0 ||
             v == KERNEL_TYPE_MIX_AIC_1_0 || v == KERNEL_TYPE_MIX_AIC_1_1 || v == KERNEL_TYPE_MIX_AIC_1_2;
    if (!ok)
        diag("UNSUPPORTED_KERNEL_TYPE", Sev::Warning, loc,
             strf("kernel type %d is not emulated on %s; the kernel runs on AI Cores/AIV instead", v,
                  kProfile.name),
             jd("kernel_type", v));
}

}  // namespace ascemu
