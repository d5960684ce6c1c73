// ascemu/impl/reduce_impl.h — repeat lanes and repeatTime checks of the reductions.
// Definitions of the ASCEMU_DECL functions of ascemu/reduce.h (ascemu/linkage.h): included at the end of that header
// when ASCEMU_WITH_IMPL, else compiled once in kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu {

ASCEMU_DECL RepeatLanes repeat_lanes(const Mask& m, int L, int64_t repeatTime) {
    RepeatLanes k;
    auto low = [](uint64_t (&b)[2], int n) {
        b[0] = n >= 64 ? ~0ull : (1ull << n) - 1;
        b[1] = n >= 128 ? ~0ull : n > 64 ? (1ull << (n - 64)) - 1 : 0;
    };
    if (!m.counter) {
        k.hi = k.hi_last = mask_hi_lane(m, L);
        if (k.hi < 0 || repeatTime <= 0) return k;  // mask 0: no operation ([DOC] ReduceRepeat, 910B)
        k.repeats = repeatTime;
        std::memcpy(k.bits, m.bits, sizeof k.bits);
        std::memcpy(k.last, m.bits, sizeof k.last);
        return k;
    }
    // more elements than UB holds stay that many (ub_operand reports the overrun) without the footprint wrapping
    const uint64_t total = std::min<uint64_t>(m.total, 1ull << 32);
    if (total == 0) return k;
    k.repeats = (int64_t)((total + L - 1) / L);
    k.hi = L - 1;
    k.hi_last = (int)(total - (uint64_t)(k.repeats - 1) * L) - 1;
    low(k.bits, L);
    low(k.last, k.hi_last + 1);
    return k;
}

ASCEMU_DECL int32_t device_repeat_time(int32_t repeatTime, const SL& loc, const char* api) {
    const int32_t runs = (int32_t)(uint8_t)repeatTime;
    if (runs != repeatTime)
        device_runs_anyway("PARAM_RANGE", loc, strf("%s repeatTime %d not in [0,255]", api, repeatTime),
                           strf("its 8-bit repeat field runs %d repeats", runs).c_str(),
                           jd("repeatTime", repeatTime, "runs", runs));
    return runs;
}

}  // namespace ascemu
