// ascemu/impl/vector_impl.h — vector-op argument checks and mask decoding.
// Definitions of the ASCEMU_DECL functions of ascemu/vector.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL bool unsupported_api(const SL& loc, const char* api, const char* why) {
    diag("UNSUPPORTED_API", Sev::Error, loc, strf("%s is not available on %s%s; no effect", api, kProfile.name, why),
         jd("api", api, "platform", kProfile.name));
    return false;
}

ASCEMU_DECL bool count_ok(int64_t count, const SL& loc, const char* api) {
    if (count < 0) {
        diag("PARAM_RANGE", Sev::Error, loc, strf("%s with negative count %lld; no effect", api, (long long)count),
             jd("count", (long long)count));
        return false;
    }
    return true;
}

ASCEMU_DECL Mask mask_from_scalar(Core* c, uint64_t m, int lanes, bool isSetMask) {
    Mask k;
    if (!isSetMask) {
        k.counter = c->mask_counter;
        k.total = c->vmask[0];
        k.bits[0] = c->vmask[0];
        k.bits[1] = c->vmask[1];
        return k;
    }
    if (c->mask_counter) { k.counter = true; k.total = m; return k; }
    uint64_t n = std::min<uint64_t>(m, (uint64_t)lanes);
    if (n >= 64) { k.bits[0] = ~0ull; k.bits[1] = n >= 128 ? ~0ull : ((n - 64) ? ((1ull << (n - 64)) - 1) : 0); }
    else k.bits[0] = n ? ((1ull << n) - 1) : 0;
    return k;
}

ASCEMU_DECL Mask mask_from_array(Core* c, const uint64_t* m, int lanes, bool isSetMask) {
    Mask k;
    if (!isSetMask || m == nullptr) return mask_from_scalar(c, 0, lanes, false);
    if (c->mask_counter) { k.counter = true; k.total = m[0]; return k; }
    k.bits[0] = m[0];
    k.bits[1] = lanes > 64 ? m[1] : 0;
    return k;
}

}  // namespace ascemu

namespace AscendC::ascemu_detail {

ASCEMU_DECL void scratch_check(ascemu::Core* c, const std::source_location& loc, const char* api) {
    using namespace ascemu;
    if constexpr (kIs910B) {
        uint32_t top = 0;
        for (auto& b : c->bufs) top = std::max(top, b.hi);
        if (top > kProfile.tmp_ub_offset)
            diag("UB_SCRATCH_CONFLICT", Sev::Error, loc,
                 strf("%s uses the API scratch zone [%u, %u) but user buffers reach %u", api, kProfile.tmp_ub_offset,
                      kProfile.ub_size, top),
                 jd("scratch_lo", kProfile.tmp_ub_offset, "buffers_end", top));
    }
}

ASCEMU_DECL void select_scratch_check(ascemu::Core* c, SELMODE mode, const std::source_location& loc) {
    using namespace ascemu;
    if (mode == SELMODE::VSEL_CMPMASK_SPR) return;
    uint32_t top = 0;
    for (auto& b : c->bufs) top = std::max(top, b.hi);
    if (top > kProfile.tmp_ub_offset)
        diag("UB_SCRATCH_CONFLICT", Sev::Error, loc,
             strf("Select mode %d uses the API scratch zone [%u, %u) but user buffers reach %u", (int)mode,
                  kProfile.tmp_ub_offset, kProfile.ub_size, top),
             jd("scratch_lo", kProfile.tmp_ub_offset, "buffers_end", top));
}

}  // namespace AscendC::ascemu_detail
