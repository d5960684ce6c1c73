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

#include "ascemu/linkage.h"

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

// The clone functions below are defined in impl/fast_impl.h: static (a copy per translation unit) header-only, once
// in the runtime with -DASCEMU_SEPARATE_RUNTIME (ascemu/linkage.h).  Where they are target_clones (x86, without
// -DASCEMU_NO_CLONES) they are never inlined either way (called through their resolver), so a kernel loses nothing by
// not compiling them: their three instruction-set versions are most of the code a kernel with float vector ops
// generates otherwise.
#ifdef ASCEMU_SEPARATE_RUNTIME
#define ASCEMU_FAST_LINKAGE
#else
#define ASCEMU_FAST_LINKAGE static
#endif

// t[i] = a[i] op b[i], or a[i] op b[0] when b_stride is 0 (the scalar forms).  Returns whether any result is
// not finite.
ASCEMU_FAST_LINKAGE bool bin_f32(Bin op, float* t, const float* a, const float* b, int b_stride, int n);

// exp: k = round(x * 4/ln2), r = x - k*ln2/4 (Cody-Waite: k*LN2_4_HI is exact for |k| < 2^11),
// exp(x) = 2^(k>>2) * 2^((k&3)/4) * P7(r) with |r| <= ln2/8: Taylor truncation 0.0867^8/8! < 2^-43.
// x outside [-87, 88] (subnormal, overflowing or NaN results) is left to the exact path.
ASCEMU_FAST_LINKAGE bool exp_f32(float* t, const float* src, int n);

// Adjacent-pair tree of 64 lanes (numeric.h repeat_tree_sum for one whole float repeat).
ASCEMU_FAST_LINKAGE float tree64_f32(const float* x);

// First index of the largest value (-0 == +0, as float compares), or -1 when x holds a NaN.  The max runs on
// order-preserving unsigned keys, which vectorise where a float compare-select reduction does not.
ASCEMU_FAST_LINKAGE int64_t argmax_f32(const float* x, int64_t n);

// Whether w[0, n) are all ones (Bitmap::all over whole words: every UB operand read checks one).
ASCEMU_FAST_LINKAGE bool all_ones(const uint64_t* w, int64_t n);

// Zero bits in w[0, n): a written-bitmap's unwritten bytes (the x86-64 baseline has no popcnt instruction).
ASCEMU_FAST_LINKAGE int64_t zero_bits(const uint64_t* w, int64_t n);

// Duplicate of a 2- or 4-byte pattern.
ASCEMU_FAST_LINKAGE void fill32(uint32_t* d, uint32_t v, int64_t n);
ASCEMU_FAST_LINKAGE void fill16(uint16_t* d, uint16_t v, int64_t n);

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

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/fast_impl.h"
#endif
