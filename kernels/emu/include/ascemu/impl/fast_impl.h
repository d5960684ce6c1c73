// ascemu/impl/fast_impl.h — the vectorised float32 loops of ascemu/fast.h, each compiled for three instruction sets.
// Definitions of the clone functions fast.h declares (ASCEMU_FAST_LINKAGE): included at the end of that header
// when ASCEMU_WITH_IMPL (static, a copy per translation unit), else compiled once in
// kernels/emu/runtime/ascemu_runtime.cpp.
#pragma once

namespace ascemu::fast {

ASCEMU_FAST_LINKAGE ASCEMU_CLONES bool bin_f32(Bin op, float* t, const float* a, const float* b, int b_stride, int n) {
    uint32_t bad = 0;
    const float s = b[0];
#define ASCEMU_FAST_LOOP(Y, EXPR)                                         \
    for (int i = 0; i < n; ++i) {                                         \
        const float x = a[i], y = Y;                                      \
        t[i] = EXPR;                                                      \
        bad |= non_finite(t[i]);                                          \
    }
#define ASCEMU_FAST_OP(EXPR)                         \
    if (b_stride) ASCEMU_FAST_LOOP(b[i], EXPR)       \
    else ASCEMU_FAST_LOOP(s, EXPR)                   \
    break;
    switch (op) {  // one loop per op and operand form, so that each one vectorises
        case Bin::Add: ASCEMU_FAST_OP(x + y)
        case Bin::Sub: ASCEMU_FAST_OP(x - y)
        case Bin::Mul: ASCEMU_FAST_OP(x * y)
        case Bin::Div: ASCEMU_FAST_OP(x / y)
    }
#undef ASCEMU_FAST_OP
#undef ASCEMU_FAST_LOOP
    return bad != 0;
}

ASCEMU_FAST_LINKAGE ASCEMU_FMA_CLONES bool exp_f32(float* t, const float* src, int n) {
    constexpr double kShift = 0x1.8p52, kInvLn2x4 = 0x1.71547652b82fep+2;
    constexpr double kLn2x4Hi = 0x1.62e42fefa3800p-3, kLn2x4Lo = 0x1.ef35793c76730p-47;
    constexpr double kRoot2[4] = {1.0, 0x1.306fe0a31b715p+0, 0x1.6a09e667f3bcdp+0, 0x1.ae89f995ad3adp+0};
    constexpr int64_t kHalfway = int64_t(1) << 28, kMargin = int64_t(1) << 13;  // in double ulps (29 dropped bits)
    uint32_t bad = 0;
    for (int i = 0; i < n; ++i) {  // selects, no branches: the loop must if-convert to vectorise
        double x = src[i];
        const bool in = (x >= -87.0) & (x <= 88.0);  // outside, the lane computes garbage and is flagged
        double kd = x * kInvLn2x4 + kShift;
        uint64_t kb;
        std::memcpy(&kb, &kd, 8);
        const int64_t k = (int64_t)(int32_t)(uint32_t)kb;
        kd -= kShift;
        const double r = (x - kd * kLn2x4Hi) - kd * kLn2x4Lo;
        double p = 1.0 / 5040;
        p = p * r + 1.0 / 720;
        p = p * r + 1.0 / 120;
        p = p * r + 1.0 / 24;
        p = p * r + 1.0 / 6;
        p = p * r + 0.5;
        p = p * r + 1.0;
        p = p * r + 1.0;
        const double odd = (k & 1) ? kRoot2[1] : kRoot2[0], odd2 = (k & 1) ? kRoot2[3] : kRoot2[2];
        p *= (k & 2) ? odd2 : odd;
        uint64_t pb;
        std::memcpy(&pb, &p, 8);
        pb += (uint64_t)(k >> 2) << 52;  // normal in, normal out: x in [-87, 88]
        std::memcpy(&p, &pb, 8);
        const int64_t dist = (int64_t)(pb & ((uint64_t(1) << 29) - 1)) - kHalfway;
        const bool sure = in & ((dist > kMargin) | (dist < -kMargin));
        const uint32_t out = f32_bits((float)p) | (uint32_t)!sure * 0x7fc00000u;  // NaN unless sure
        std::memcpy(&t[i], &out, 4);
        bad |= !sure;
    }
    return bad != 0;
}

ASCEMU_FAST_LINKAGE ASCEMU_CLONES float tree64_f32(const float* x) {
    float a[32], b[16];
    for (int i = 0; i < 32; ++i) a[i] = x[2 * i] + x[2 * i + 1];
    for (int i = 0; i < 16; ++i) b[i] = a[2 * i] + a[2 * i + 1];
    for (int i = 0; i < 8; ++i) a[i] = b[2 * i] + b[2 * i + 1];
    for (int i = 0; i < 4; ++i) b[i] = a[2 * i] + a[2 * i + 1];
    return (b[0] + b[1]) + (b[2] + b[3]);
}

ASCEMU_FAST_LINKAGE ASCEMU_CLONES int64_t argmax_f32(const float* x, int64_t n) {
    uint32_t best = 0, nan = 0;
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t b = f32_bits(x[i]);
        const uint32_t key = (b >> 31) ? ~b : (b | 0x80000000u);
        best = key > best ? key : best;
        nan |= (b & 0x7fffffffu) > 0x7f800000u;
    }
    if (nan || n <= 0) return -1;
    const uint32_t mb = (best >> 31) ? (best & 0x7fffffffu) : ~best;
    float m;
    std::memcpy(&m, &mb, 4);
    for (int64_t i = 0; i < n; ++i)
        if (x[i] == m) return i;
    return -1;
}

ASCEMU_FAST_LINKAGE ASCEMU_CLONES bool all_ones(const uint64_t* w, int64_t n) {
    uint64_t acc = ~0ull;
    for (int64_t i = 0; i < n; ++i) acc &= w[i];
    return acc == ~0ull;
}

ASCEMU_FAST_LINKAGE ASCEMU_POPCNT_CLONES int64_t zero_bits(const uint64_t* w, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n; ++i) c += 64 - __builtin_popcountll(w[i]);
    return c;
}

ASCEMU_FAST_LINKAGE ASCEMU_CLONES void fill32(uint32_t* d, uint32_t v, int64_t n) {
    for (int64_t i = 0; i < n; ++i) d[i] = v;
}
ASCEMU_FAST_LINKAGE ASCEMU_CLONES void fill16(uint16_t* d, uint16_t v, int64_t n) {
    for (int64_t i = 0; i < n; ++i) d[i] = v;
}

}  // namespace ascemu::fast
