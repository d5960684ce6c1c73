// ascemu/fast.h — vectorised float32 paths for the hot count-form APIs (Add Sub Mul Div Adds Muls Exp,
// ReduceSum trees, ReduceMax).  Each one yields bits identical to the exact per-element path of numeric.h,
// or flags the lanes where it cannot vouch for that (NaN out), which the caller then redoes exactly:
//   + - * /  a finite native float result is the exact result rounded once (numeric.h fp_binary);
//   exp      a double evaluation good to 2^-43 that lies more than 2^13 double ulps from a float rounding
//            midpoint rounds as glibc's exp (< 1 ulp from the truth) does (spec §4.2 "glibc double result").
// The loops are compiled for AVX-512, AVX2 and the x86-64 baseline and picked at load time (target_clones), so
// a cached binary still runs on an older CPU; they vectorise whatever -O the kernel is built with, and never
// contract a*b+c into an FMA, so every clone gives the same bits (exp may: only its kept lanes count, and
// those are the correctly rounded value whichever way the double was computed).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(ASCEMU_NO_CLONES)
#define ASCEMU_CLONES                                                                                     \
    __attribute__((target_clones("avx512f", "avx2", "default"),                                          \
                   optimize("O2", "tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off"), unused))
#define ASCEMU_FMA_CLONES                                                                                 \
    __attribute__((target_clones("avx512f", "arch=haswell", "default"),                                  \
                   optimize("O2", "tree-vectorize", "vect-cost-model=dynamic", "fp-contract=fast"), unused))
#define ASCEMU_POPCNT_CLONES __attribute__((target_clones("popcnt", "default"), unused))
#else
#define ASCEMU_CLONES __attribute__((unused))
#define ASCEMU_FMA_CLONES __attribute__((unused))
#define ASCEMU_POPCNT_CLONES __attribute__((unused))
#endif

namespace ascemu::fast {

constexpr int kChunk = 256;  // lanes per fast call: a stack buffer, so dst may alias a source

inline uint32_t f32_bits(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
}
inline bool non_finite(float v) { return (f32_bits(v) & 0x7f800000u) == 0x7f800000u; }

enum class Bin { Add, Sub, Mul, Div };

// t[i] = a[i] op b[i], or a[i] op b[0] when b_stride is 0 (the scalar forms).  Returns whether any result is
// not finite.
static ASCEMU_CLONES bool bin_f32(Bin op, float* t, const float* a, const float* b, int b_stride, int n) {
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

// exp: k = round(x * 4/ln2), r = x - k*ln2/4 (Cody-Waite: k*LN2_4_HI is exact for |k| < 2^11),
// exp(x) = 2^(k>>2) * 2^((k&3)/4) * P7(r) with |r| <= ln2/8: Taylor truncation 0.0867^8/8! < 2^-43.
// x outside [-87, 88] (subnormal, overflowing or NaN results) is left to the exact path.
static ASCEMU_FMA_CLONES bool exp_f32(float* t, const float* src, int n) {
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

// Adjacent-pair tree of 64 lanes (numeric.h repeat_tree_sum for one whole float repeat).
static ASCEMU_CLONES float tree64_f32(const float* x) {
    float a[32], b[16];
    for (int i = 0; i < 32; ++i) a[i] = x[2 * i] + x[2 * i + 1];
    for (int i = 0; i < 16; ++i) b[i] = a[2 * i] + a[2 * i + 1];
    for (int i = 0; i < 8; ++i) a[i] = b[2 * i] + b[2 * i + 1];
    for (int i = 0; i < 4; ++i) b[i] = a[2 * i] + a[2 * i + 1];
    return (b[0] + b[1]) + (b[2] + b[3]);
}

// First index of the largest value (-0 == +0, as float compares), or -1 when x holds a NaN.  The max runs on
// order-preserving unsigned keys, which vectorise where a float compare-select reduction does not.
static ASCEMU_CLONES int64_t argmax_f32(const float* x, int64_t n) {
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

// Whether w[0, n) are all ones (Bitmap::all over whole words: every UB operand read checks one).
static ASCEMU_CLONES bool all_ones(const uint64_t* w, int64_t n) {
    uint64_t acc = ~0ull;
    for (int64_t i = 0; i < n; ++i) acc &= w[i];
    return acc == ~0ull;
}

// Zero bits in w[0, n): a written-bitmap's unwritten bytes (the x86-64 baseline has no popcnt instruction).
static ASCEMU_POPCNT_CLONES int64_t zero_bits(const uint64_t* w, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n; ++i) c += 64 - __builtin_popcountll(w[i]);
    return c;
}

// Duplicate of a 2- or 4-byte pattern.
static ASCEMU_CLONES void fill32(uint32_t* d, uint32_t v, int64_t n) {
    for (int64_t i = 0; i < n; ++i) d[i] = v;
}
static ASCEMU_CLONES void fill16(uint16_t* d, uint16_t v, int64_t n) {
    for (int64_t i = 0; i < n; ++i) d[i] = v;
}

// Whether n floats at d overlap none of the sources (each n floats long).
inline bool disjoint(const float* d, int64_t n, std::initializer_list<const float*> srcs) {
    for (const float* s : srcs)
        if (d < s + n && s < d + n) return false;
    return true;
}

// d[i] = op(i) over n lanes, chunk by chunk through `fast(t, i0, k)` (returns whether a lane needs the exact
// path); only the non-finite lanes are redone with exact(i), which reads the sources.  Unless d overlaps no
// source (`direct`), a chunk goes through a stack buffer: the sources stay intact until the chunk is done.
template <class Fast, class Exact>
inline void map_f32(float* d, int64_t n, Fast fast, Exact exact, bool direct = false) {
    float buf[kChunk];
    for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
        const int k = (int)std::min<int64_t>(kChunk, n - i0);
        float* t = direct ? d + i0 : buf;
        if (fast(t, i0, k))
            for (int j = 0; j < k; ++j)
                if (non_finite(t[j])) t[j] = exact(i0 + j);
        if (!direct) std::memcpy(d + i0, t, (size_t)k * sizeof(float));
    }
}

}  // namespace ascemu::fast
