// ascemu/vector.h — vector APIs of spec §3.5 on top of ascemu/numeric.h (values) and the UB operand checks.
#pragma once
#include <cmath>

#include "ascemu/datacopy.h"
#include "ascemu/numeric.h"

namespace ascemu {

template <class T, class... A>
inline constexpr bool one_of_v = (std::is_same_v<T, A> || ...);

template <class T>
inline constexpr bool is_bf16_v = std::is_same_v<T, bfloat16_t>;

inline OverflowMode ovf() { return rt().cfg.overflow; }

// Returns false (after UNSUPPORTED_DTYPE) when the dtype is not allowed for the API on this platform.
template <class T>
inline bool dtype_check(bool ok, Core* c, const SL& loc, const char* api) {
    if (is_bf16_v<T> && kIs310P) ok = false;
    if (!ok)
        diag("UNSUPPORTED_DTYPE", Sev::Error, loc,
             strf("%s does not support dtype %s on %s; no effect", api, dtype_name_v<T>, kProfile.name),
             jd("dtype", dtype_name_v<T>, "platform", kProfile.name));
    (void)c;
    return ok;
}
ASCEMU_DECL bool unsupported_api(const SL& loc, const char* api, const char* why = "");
// A rule CANN states only as an assertion (ASCENDC_ASSERT / ASCENDC_DEBUG_ASSERT, compiled out of the device build:
// [CODE] cann/asc-devkit impl/basic_api/kernel_log.h), so the device runs the instruction anyway.  ascemu runs it
// with the device's semantics (`device_does`) and warns; it skips only what the device has no instruction for.
// The audit of every such path: docs/emulator.md#where-cann-only-asserts.
inline void device_runs_anyway(const char* kind, const SL& loc, const std::string& broken, const char* device_does,
                               const std::string& details) {
    diag(kind, Sev::Warning, loc,
         broken + "; CANN only asserts this (compiled out of device builds), so the device runs it anyway: " +
             device_does,
         details);
}

ASCEMU_DECL bool count_ok(int64_t count, const SL& loc, const char* api);

inline uint64_t repeats_for(int64_t count, size_t maxsz) { return (uint64_t)((count * (int64_t)maxsz + 255) / 256); }

// ------------------------------------------------------------------------------------------------ mask geometry
// Normalised mask: bits for up to 128 lanes, or counter mode with a total element count.
struct Mask {
    uint64_t bits[2] = {0, 0};
    bool counter = false;
    uint64_t total = 0;
};
ASCEMU_DECL Mask mask_from_scalar(Core* c, uint64_t m, int lanes, bool isSetMask);
ASCEMU_DECL Mask mask_from_array(Core* c, const uint64_t* m, int lanes, bool isSetMask);
// Both spellings of CANN's mask parameter (`uint64_t mask[]`, `uint64_t mask`), so that one definition of a
// mask-form API, instantiated once per spelling (the *_MASK macros), reads either.
inline Mask mask_of(Core* c, const uint64_t* m, int lanes, bool isSetMask) {
    return mask_from_array(c, m, lanes, isSetMask);
}
inline Mask mask_of(Core* c, uint64_t m, int lanes, bool isSetMask) { return mask_from_scalar(c, m, lanes, isSetMask); }

struct Opnd {
    const UbView* v;
    uint32_t blk;  // block stride (32-B units)
    uint32_t rep;  // repeat stride (32-B units)
    uint32_t elem; // element size
    unsigned acc;  // UB_R / UB_W
    const char* role;
    uint8_t* base = nullptr;
};

// Walks the masked lanes of `repeat` repeats of 256/lane_elem lanes; calls f(ptrs) per active lane with one
// pointer per operand.  Checks each operand's extent once, uninitialised reads and written marks per lane.
template <int N, class F>
inline void mask_walk(Core* c, Opnd (&ops)[N], uint32_t lane_elem, const Mask& m, int64_t repeat, const SL& loc, F f) {
    const int L = 256 / (int)lane_elem;
    int64_t R = repeat;
    int64_t last_lanes = L;
    if (m.counter) {
        R = (int64_t)((m.total + L - 1) / L);
        last_lanes = (int64_t)(m.total - (R ? (R - 1) * L : 0));
    }
    if (R <= 0) return;
    // extent per operand
    int hi_lane = -1;
    if (m.counter) hi_lane = L - 1;
    else
        for (int i = L - 1; i >= 0; --i)
            if ((m.bits[i >> 6] >> (i & 63)) & 1) { hi_lane = i; break; }
    if (hi_lane < 0) return;
    uint64_t exts[N];
    for (int k = 0; k < N; ++k) {
        Opnd& o = ops[k];
        uint32_t epb = 32 / o.elem;
        exts[k] = (uint64_t)(R - 1) * o.rep * 32 + (uint64_t)(hi_lane / epb) * o.blk * 32 +
                  (uint64_t)(hi_lane % epb) * o.elem + o.elem;
        o.base = ub_operand(c, *o.v, exts[k], 0, loc, o.role);
        if (!o.base) return;
    }
    // §5.5 pipe model over each operand's extent: all sources first, so an in-place op still checks its input
    for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < N; ++k)
            if (ops[k].acc & (pass == 0 ? UB_R : UB_W))
                pipe_ub(c, ops[k].v->off, (uint32_t)(ops[k].v->off + exts[k]), pass == 0, pass == 1, loc, ops[k].role);
    bool uninit_reported = false;
    uint8_t* p[N];
    for (int64_t r = 0; r < R; ++r) {
        int nl = (m.counter && r == R - 1) ? (int)last_lanes : L;
        for (int i = 0; i < nl; ++i) {
            if (!m.counter && !((m.bits[i >> 6] >> (i & 63)) & 1)) continue;
            for (int k = 0; k < N; ++k) {
                const Opnd& o = ops[k];
                uint32_t epb = 32 / o.elem;
                uint64_t off = (uint64_t)r * o.rep * 32 + (uint64_t)(i / epb) * o.blk * 32 + (uint64_t)(i % epb) * o.elem;
                p[k] = o.base + off;
                uint64_t abs = o.v->off + off;
                if ((o.acc & UB_R) && !uninit_reported && !c->ubw.all(abs, abs + o.elem)) {
                    uninit_reported = true;
                    diag("UB_UNINIT_READ", Sev::Warning, loc,
                         strf("%s operand %s reads never-written UB bytes (poison) at offset %llu", c->last_api,
                              o.role, (unsigned long long)abs),
                         jd("operand", o.role, "ub_offset", (long long)abs), DF_STRICT_ERR);
                }
            }
            f(p);
            for (int k = 0; k < N; ++k)
                if (ops[k].acc & UB_W) {
                    uint64_t abs = (uint64_t)(p[k] - c->ub);
                    c->ubw.set(abs, abs + ops[k].elem);
                }
        }
    }
}

// ------------------------------------------------------------------------------------------------ engines
// Fast (optional, float only): fast(t, src + i0, k) -> whether a lane of t needs f (fast.h map_f32).
template <class D, class S, class F, class Fast = std::nullptr_t>
inline void unary_count(Core* c, const char* api, const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<S>& src,
                        int64_t count, const SL& loc, F f, Fast fast_op = nullptr) {
    if (!count_ok(count, loc, api)) return;
    size_t sb = count * sizeof(S), db = count * sizeof(D);
    const uint8_t* s = ub_operand(c, src.v_, sb, UB_R, loc, "src");
    ub_overlap_check(c, dst.v_, db, src.v_, sb, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, db, UB_W, loc, "dst");
    if (!s || !d) return;
    const S* sp = (const S*)s;
    D* dp = (D*)d;
    if constexpr (std::is_same_v<D, float> && std::is_same_v<S, float> && !std::is_null_pointer_v<Fast>)
        fast::map_f32(dp, count, [&](float* t, int64_t i0, int k) { return fast_op(t, sp + i0, k); },
                      [&](int64_t i) { return f(sp[i]); }, fast::disjoint(dp, count, {sp}));
    else
        for (int64_t i = 0; i < count; ++i) dp[i] = f(sp[i]);
    trace_vec(c, api, dtype_name_v<S>, dtype_name_v<D>, count, repeats_for(count, std::max(sizeof(D), sizeof(S))));
}

template <class T, class F, class Fast = std::nullptr_t>
inline void binary_count(Core* c, const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                         const AscendC::LocalTensor<T>& b, int64_t count, const SL& loc, F f, Fast fast_op = nullptr) {
    if (!count_ok(count, loc, api)) return;
    size_t n = count * sizeof(T);
    const uint8_t* pa = ub_operand(c, a.v_, n, UB_R, loc, "src0");
    const uint8_t* pb = ub_operand(c, b.v_, n, UB_R, loc, "src1");
    ub_overlap_check(c, dst.v_, n, a.v_, n, loc, "src0");
    ub_overlap_check(c, dst.v_, n, b.v_, n, loc, "src1");
    uint8_t* pd = ub_operand(c, dst.v_, n, UB_W, loc, "dst");
    if (!pa || !pb || !pd) return;
    const T* x = (const T*)pa;
    const T* y = (const T*)pb;
    T* d = (T*)pd;
    if constexpr (std::is_same_v<T, float> && !std::is_null_pointer_v<Fast>)
        fast::map_f32(d, count, [&](float* t, int64_t i0, int k) { return fast_op(t, x + i0, y + i0, k); },
                      [&](int64_t i) { return f(x[i], y[i]); }, fast::disjoint(d, count, {x, y}));
    else
        for (int64_t i = 0; i < count; ++i) d[i] = f(x[i], y[i]);
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, count, repeats_for(count, sizeof(T)));
}

template <class T, class F>
inline void unary_mask(Core* c, const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       const Mask& m, int64_t repeat, const AscendC::UnaryRepeatParams& rp, const SL& loc, F f) {
    Opnd ops[2] = {{&dst.v_, rp.dstBlkStride, rp.dstRepStride, sizeof(T), UB_W, "dst"},
                   {&src.v_, rp.srcBlkStride, rp.srcRepStride, sizeof(T), UB_R, "src"}};
    mask_walk<2>(c, ops, sizeof(T), m, repeat, loc, [&](uint8_t** p) {
        T v;
        std::memcpy(&v, p[1], sizeof(T));
        T r = f(v);
        std::memcpy(p[0], &r, sizeof(T));
    });
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, -1, (uint64_t)repeat);
}

template <class T, class F>
inline void binary_mask(Core* c, const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                        const AscendC::LocalTensor<T>& b, const Mask& m, int64_t repeat,
                        const AscendC::BinaryRepeatParams& rp, const SL& loc, F f) {
    Opnd ops[3] = {{&dst.v_, rp.dstBlkStride, rp.dstRepStride, sizeof(T), UB_W, "dst"},
                   {&a.v_, rp.src0BlkStride, rp.src0RepStride, sizeof(T), UB_R, "src0"},
                   {&b.v_, rp.src1BlkStride, rp.src1RepStride, sizeof(T), UB_R, "src1"}};
    mask_walk<3>(c, ops, sizeof(T), m, repeat, loc, [&](uint8_t** p) {
        T x, y;
        std::memcpy(&x, p[1], sizeof(T));
        std::memcpy(&y, p[2], sizeof(T));
        T r = f(x, y);
        std::memcpy(p[0], &r, sizeof(T));
    });
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, -1, (uint64_t)repeat);
}

template <class T>
inline constexpr bool arith_t = one_of_v<T, half, float, int16_t, int32_t>;
template <class T>
inline constexpr bool float_t_ = one_of_v<T, half, float>;
template <class T>
inline constexpr bool bits16_t = one_of_v<T, int16_t, uint16_t>;
// And/Or count form: 910B's CANN also compiles 32-bit types (and reinterprets them as int16_t); 310P does not
template <class T>
inline constexpr bool bitwise_count_t = bits16_t<T> || (kIs910B && one_of_v<T, int32_t, uint32_t>);

}  // namespace ascemu

// ================================================================================================ AscendC API
namespace AscendC {

#define ASCEMU_SL const std::source_location loc = std::source_location::current()

// ------------------------------------------------------------------------------------------------ binary
// The mask forms of an API, once per spelling of CANN's mask: MASK_T is uint64_t* (`uint64_t mask[]`) or uint64_t.
#define ASCEMU_BINARY_MASK(NAME, OKEXPR, FN, MASK_T)                                                                 \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                     MASK_T mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, ASCEMU_SL) {     \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE(#NAME, OKEXPR);                                                                          \
        Core* c = api_enter(#NAME, loc);                                                                             \
        if (!dtype_check<T>(OKEXPR, c, loc, #NAME)) return;                                                          \
        OverflowMode om = ovf();                                                                                     \
        binary_mask<T>(c, #NAME, dst, src0, src1, mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime,          \
                       repeatParams, loc, [om](T x, T y) { return FN(x, y, om); });                                  \
    }

// OKEXPR: the dtypes CANN implements (checked at compile time, and at run time when ASCEMU_CANN_STRICT=0);
// COUNT_OK: what CANN's count form accepts at compile time (910B's And/Or count form also takes 32-bit types).
#define ASCEMU_BINARY(NAME, OKEXPR, COUNT_OK, FN, FAST)                                                              \
    template <typename T>                                                                                            \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,              \
                     const int32_t& count, ASCEMU_SL) {                                                              \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE(#NAME, COUNT_OK);                                                                        \
        Core* c = api_enter(#NAME, loc);                                                                             \
        if (!dtype_check<T>(OKEXPR, c, loc, #NAME)) return;                                                          \
        OverflowMode om = ovf();                                                                                     \
        binary_count<T>(c, #NAME, dst, src0, src1, count, loc, [om](T x, T y) { return FN(x, y, om); }, FAST);       \
    }                                                                                                                \
    ASCEMU_BINARY_MASK(NAME, OKEXPR, FN, uint64_t*)                                                                  \
    ASCEMU_BINARY_MASK(NAME, OKEXPR, FN, uint64_t)                                                                   \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void NAME(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, const uint64_t* mask,      \
                     const uint8_t, const BinaryRepeatParams&, ASCEMU_SL) {                                          \
        ASCEMU_CONST_MASK_REFUSED(#NAME, T);                                                                         \
        (void)mask, (void)loc;                                                                                       \
    }

namespace ascemu_ops {
template <class T> inline T add(T a, T b, ascemu::OverflowMode om) { return ascemu::num::add_value<T>(a, b, om); }
template <class T> inline T sub(T a, T b, ascemu::OverflowMode om) { return ascemu::num::sub_value<T>(a, b, om); }
template <class T> inline T mul(T a, T b, ascemu::OverflowMode om) { return ascemu::num::mul_value<T>(a, b, om); }
template <class T> inline T div(T a, T b, ascemu::OverflowMode om) {
    if constexpr (ascemu::float_t_<T>) return ascemu::num::div_value<T>(a, b, om);
    else return b == 0 ? T(0) : T(a / b);
}
template <class T> inline T max(T a, T b, ascemu::OverflowMode om) { return ascemu::num::max_value<T>(a, b, om); }
template <class T> inline T min(T a, T b, ascemu::OverflowMode om) { return ascemu::num::min_value<T>(a, b, om); }
template <class T> inline T band(T a, T b, ascemu::OverflowMode) { return T(a & b); }
template <class T> inline T bor(T a, T b, ascemu::OverflowMode) { return T(a | b); }
}  // namespace ascemu_ops

// float fast paths (fast.h): the native op, lanes with a non-finite result redone exactly.
#define ASCEMU_FAST_BIN(OP) \
    [](float* t, const float* a, const float* b, int k) { return ascemu::fast::bin_f32(OP, t, a, b, 1, k); }
#define ASCEMU_FAST_SCALAR(OP) \
    [s](auto* t, const auto* a, int k) { return ascemu::fast::bin_f32(OP, t, a, &s, 0, k); }

ASCEMU_BINARY(Add, arith_t<T>, arith_t<T>, ascemu_ops::add<T>, ASCEMU_FAST_BIN(fast::Bin::Add))
ASCEMU_BINARY(Sub, arith_t<T>, arith_t<T>, ascemu_ops::sub<T>, ASCEMU_FAST_BIN(fast::Bin::Sub))
ASCEMU_BINARY(Mul, arith_t<T>, arith_t<T>, ascemu_ops::mul<T>, ASCEMU_FAST_BIN(fast::Bin::Mul))
ASCEMU_BINARY(Div, float_t_<T>, float_t_<T>, ascemu_ops::div<T>, ASCEMU_FAST_BIN(fast::Bin::Div))
ASCEMU_BINARY(Max, arith_t<T>, arith_t<T>, ascemu_ops::max<T>, nullptr)
ASCEMU_BINARY(Min, arith_t<T>, arith_t<T>, ascemu_ops::min<T>, nullptr)
ASCEMU_BINARY(And, bits16_t<T>, bitwise_count_t<T>, ascemu_ops::band<T>, nullptr)
ASCEMU_BINARY(Or, bits16_t<T>, bitwise_count_t<T>, ascemu_ops::bor<T>, nullptr)
#undef ASCEMU_BINARY
#undef ASCEMU_BINARY_MASK

// ------------------------------------------------------------------------------------------------ scalar binary
#define ASCEMU_SCALAR_MASK(NAME, OKEXPR, FN, MASK_T)                                                                 \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                     \
                     MASK_T mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams,                   \
                     ASCEMU_SL) {                                                                                    \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE(#NAME, OKEXPR);                                                                          \
        Core* c = api_enter(#NAME, loc);                                                                             \
        if (!dtype_check<T>(OKEXPR, c, loc, #NAME)) return;                                                          \
        OverflowMode om = ovf();                                                                                     \
        T s = scalarValue;                                                                                           \
        unary_mask<T>(c, #NAME, dst, src, mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime,                  \
                      repeatParams, loc, [om, s](T x) { return FN(x, s, om); });                                     \
    }

#define ASCEMU_SCALAR(NAME, OKEXPR, FN, FAST)                                                                        \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,                     \
                     const int32_t& count, ASCEMU_SL) {                                                              \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE(#NAME, OKEXPR);                                                                          \
        Core* c = api_enter(#NAME, loc);                                                                             \
        if (!dtype_check<T>(OKEXPR, c, loc, #NAME)) return;                                                          \
        OverflowMode om = ovf();                                                                                     \
        T s = scalarValue;                                                                                           \
        unary_count<T, T>(c, #NAME, dst, src, count, loc, [om, s](T x) { return FN(x, s, om); }, FAST);              \
    }                                                                                                                \
    ASCEMU_SCALAR_MASK(NAME, OKEXPR, FN, uint64_t*)                                                                  \
    ASCEMU_SCALAR_MASK(NAME, OKEXPR, FN, uint64_t)                                                                   \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void NAME(const LocalTensor<T>&, const LocalTensor<T>&, const T&, const uint64_t* mask, const uint8_t,    \
                     const UnaryRepeatParams&, ASCEMU_SL) {                                                          \
        ASCEMU_CONST_MASK_REFUSED(#NAME, T);                                                                         \
        (void)mask, (void)loc;                                                                                       \
    }

ASCEMU_SCALAR(Adds, arith_t<T>, ascemu_ops::add<T>, ASCEMU_FAST_SCALAR(fast::Bin::Add))
ASCEMU_SCALAR(Muls, arith_t<T>, ascemu_ops::mul<T>, ASCEMU_FAST_SCALAR(fast::Bin::Mul))
ASCEMU_SCALAR(Maxs, arith_t<T>, ascemu_ops::max<T>, nullptr)
ASCEMU_SCALAR(Mins, arith_t<T>, ascemu_ops::min<T>, nullptr)
#undef ASCEMU_FAST_BIN
#undef ASCEMU_FAST_SCALAR
#undef ASCEMU_SCALAR
#undef ASCEMU_SCALAR_MASK

// ShiftLeft / ShiftRight: 910B (u16, i16, u32, i32); on 310P CANN compiles them and refuses at run time.
// ShiftRight is logical for unsigned, arithmetic for signed; roundEn (mask forms, signed types) adds the last
// bit shifted out ([DOC] ShiftRight page: "src 17 >> 5 with roundEn gives 1").
namespace ascemu_detail {
template <class T>
inline constexpr bool shift_t = ascemu::one_of_v<T, uint16_t, int16_t, uint32_t, int32_t>;
template <class T>
inline T shift_left(T x, T s) {
    using U = std::make_unsigned_t<T>;
    return (T)(U)((U)x << (int)s);
}
template <class T>
inline T shift_right(T x, T s, bool roundEn) {
    T r = (T)(x >> (int)s);
    if (roundEn && std::is_signed_v<T> && s > 0) r = (T)(r + ((x >> ((int)s - 1)) & 1));
    return r;
}
template <class T>
inline bool shift_prepare(ascemu::Core* c, const std::source_location& loc, const char* api) {
    if (ascemu::kIs310P) return ascemu::unsupported_api(loc, api);
    return ascemu::dtype_check<T>(shift_t<T>, c, loc, api);
}
}  // namespace ascemu_detail

template <typename T, bool isSetMask = true>
inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count,
                      ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("ShiftLeft", ascemu_detail::shift_t<T>);
    Core* c = api_enter("ShiftLeft", loc);
    if (!ascemu_detail::shift_prepare<T>(c, loc, "ShiftLeft")) return;
    T s = scalarValue;
    unary_count<T, T>(c, "ShiftLeft", dst, src, count, loc, [s](T x) { return ascemu_detail::shift_left(x, s); });
}
#define ASCEMU_SHIFT_LEFT_MASK(MASK_T)                                                                               \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, MASK_T mask,   \
                          const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {              \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE("ShiftLeft", ascemu_detail::shift_t<T>);                                                 \
        Core* c = api_enter("ShiftLeft", loc);                                                                       \
        if (!ascemu_detail::shift_prepare<T>(c, loc, "ShiftLeft")) return;                                           \
        T s = scalarValue;                                                                                           \
        unary_mask<T>(c, "ShiftLeft", dst, src, mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime,            \
                      repeatParams, loc, [s](T x) { return ascemu_detail::shift_left(x, s); });                      \
    }
ASCEMU_SHIFT_LEFT_MASK(uint64_t*)
ASCEMU_SHIFT_LEFT_MASK(uint64_t)
#undef ASCEMU_SHIFT_LEFT_MASK
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count,
                       ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("ShiftRight", ascemu_detail::shift_t<T>);
    Core* c = api_enter("ShiftRight", loc);
    if (!ascemu_detail::shift_prepare<T>(c, loc, "ShiftRight")) return;
    T s = scalarValue;
    unary_count<T, T>(c, "ShiftRight", dst, src, count, loc, [s](T x) { return ascemu_detail::shift_right(x, s, false); });
}
#define ASCEMU_SHIFT_RIGHT_MASK(MASK_T)                                                                              \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, MASK_T mask,  \
                           const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, bool roundEn = false,    \
                           ASCEMU_SL) {                                                                              \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE("ShiftRight", ascemu_detail::shift_t<T>);                                                \
        Core* c = api_enter("ShiftRight", loc);                                                                      \
        if (!ascemu_detail::shift_prepare<T>(c, loc, "ShiftRight")) return;                                          \
        T s = scalarValue;                                                                                           \
        unary_mask<T>(c, "ShiftRight", dst, src, mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime,           \
                      repeatParams, loc, [s, roundEn](T x) { return ascemu_detail::shift_right(x, s, roundEn); });   \
    }
ASCEMU_SHIFT_RIGHT_MASK(uint64_t*)
ASCEMU_SHIFT_RIGHT_MASK(uint64_t)
#undef ASCEMU_SHIFT_RIGHT_MASK

// ------------------------------------------------------------------------------------------------ unary
#define ASCEMU_UNARY_MASK(NAME, OKEXPR, EXPR, MASK_T)                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, MASK_T mask,                              \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {                   \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE(#NAME, OKEXPR);                                                                          \
        Core* c = api_enter(#NAME, loc);                                                                             \
        if (!dtype_check<T>(OKEXPR, c, loc, #NAME)) return;                                                          \
        OverflowMode om = ovf();                                                                                     \
        (void)om;                                                                                                    \
        unary_mask<T>(c, #NAME, dst, src, mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime,                  \
                      repeatParams, loc, [om](T x) { return EXPR; });                                                \
    }

#define ASCEMU_UNARY(NAME, OKEXPR, EXPR, FAST)                                                                       \
    template <typename T> /* CANN's count forms take no isSetMask */                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count, ASCEMU_SL) {        \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE(#NAME, OKEXPR);                                                                          \
        Core* c = api_enter(#NAME, loc);                                                                             \
        if (!dtype_check<T>(OKEXPR, c, loc, #NAME)) return;                                                          \
        OverflowMode om = ovf();                                                                                     \
        (void)om;                                                                                                    \
        unary_count<T, T>(c, #NAME, dst, src, count, loc, [om](T x) { return EXPR; }, FAST);                         \
    }                                                                                                                \
    ASCEMU_UNARY_MASK(NAME, OKEXPR, EXPR, uint64_t*)                                                                 \
    ASCEMU_UNARY_MASK(NAME, OKEXPR, EXPR, uint64_t)                                                                  \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void NAME(const LocalTensor<T>&, const LocalTensor<T>&, const uint64_t* mask, const uint8_t,              \
                     const UnaryRepeatParams&, ASCEMU_SL) {                                                          \
        ASCEMU_CONST_MASK_REFUSED(#NAME, T);                                                                         \
        (void)mask, (void)loc;                                                                                       \
    }                                                                                                                \
    template <typename T, bool isSetMask> /* only an explicit NAME<T, isSetMask>(dst, src, count) lands here */      \
    inline void NAME(const LocalTensor<T>&, const LocalTensor<T>&, const int32_t& count, ASCEMU_SL) {                \
        static_assert(ascemu::dependent_false_v<T>, #NAME "'s count form takes no isSetMask template argument on "   \
                                                    ASCEMU_PLATFORM_STR " (CANN's signature)");                     \
        (void)count, (void)loc;                                                                                      \
    }

ASCEMU_UNARY(Abs, float_t_<T>, num::abs_value<T>(x, om), nullptr)
ASCEMU_UNARY(Exp, float_t_<T>, num::exp_value<T>(x, om), &fast::exp_f32)
ASCEMU_UNARY(Ln, float_t_<T>, num::ln_value<T>(x, om), nullptr)
ASCEMU_UNARY(Sqrt, float_t_<T>, num::sqrt_value<T>(x, om), nullptr)
ASCEMU_UNARY(Reciprocal, float_t_<T>, num::reciprocal_value<T>(x, om), nullptr)
ASCEMU_UNARY(Rsqrt, float_t_<T>, num::rsqrt_value<T>(x, om), nullptr)
ASCEMU_UNARY(Relu, (one_of_v<T, half, float, int32_t>), num::relu_value<T>(x, om), nullptr)
ASCEMU_UNARY(Not, (one_of_v<T, int16_t, uint16_t>), (T)~x, nullptr)
#undef ASCEMU_UNARY
#undef ASCEMU_UNARY_MASK

// ------------------------------------------------------------------------------------------------ Duplicate
namespace ascemu_detail {
template <class T>  // bfloat16_t on 910B only
inline constexpr bool dup_t =
    ascemu::one_of_v<T, int16_t, uint16_t, half, int32_t, uint32_t, float> || (ascemu::kIs910B && ascemu::is_bf16_v<T>);
}  // namespace ascemu_detail
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("Duplicate", ascemu_detail::dup_t<T>);
    Core* c = api_enter("Duplicate", loc);
    if (!dtype_check<T>(ascemu_detail::dup_t<T>, c, loc, "Duplicate")) return;
    if (!count_ok(count, loc, "Duplicate")) return;
    uint8_t* d = ub_operand(c, dst.v_, count * sizeof(T), UB_W, loc, "dst");
    if (!d) return;
    if constexpr (sizeof(T) == 4) {
        uint32_t bits;
        std::memcpy(&bits, &scalarValue, 4);
        fast::fill32((uint32_t*)d, bits, count);
    } else {
        static_assert(sizeof(T) == 2);
        uint16_t bits;
        std::memcpy(&bits, &scalarValue, 2);
        fast::fill16((uint16_t*)d, bits, count);
    }
    trace_vec(c, "Duplicate", dtype_name_v<T>, dtype_name_v<T>, count, repeats_for(count, sizeof(T)));
}
#define ASCEMU_DUPLICATE_MASK(MASK_T)                                                                                \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, MASK_T mask, const uint8_t repeatTime,    \
                          const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ASCEMU_SL) {                 \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE("Duplicate", ascemu_detail::dup_t<T>);                                                   \
        Core* c = api_enter("Duplicate", loc);                                                                       \
        if (!dtype_check<T>(ascemu_detail::dup_t<T>, c, loc, "Duplicate")) return;                                   \
        Opnd ops[1] = {{&dst.v_, dstBlockStride, dstRepeatStride, sizeof(T), UB_W, "dst"}};                          \
        T s = scalarValue;                                                                                           \
        mask_walk<1>(c, ops, sizeof(T), mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime, loc,               \
                     [&](uint8_t** p) { std::memcpy(p[0], &s, sizeof(T)); });                                        \
        trace_vec(c, "Duplicate", dtype_name_v<T>, dtype_name_v<T>, -1, repeatTime);                                 \
    }
ASCEMU_DUPLICATE_MASK(uint64_t*)
ASCEMU_DUPLICATE_MASK(uint64_t)
#undef ASCEMU_DUPLICATE_MASK

// ------------------------------------------------------------------------------------------------ CreateVecIndex
template <typename T>
inline void CreateVecIndex(LocalTensor<T> dst, const std::type_identity_t<T>& firstValue, uint32_t calCount,
                           ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("CreateVecIndex", arith_t<T>);  // CANN builds it with Adds
    Core* c = api_enter("CreateVecIndex", loc);
    if (!dtype_check<T>(arith_t<T>, c, loc, "CreateVecIndex")) return;
    uint8_t* d = ub_operand(c, dst.v_, (size_t)calCount * sizeof(T), UB_W, loc, "dst");
    if (!d) return;
    T* p = (T*)d;
    if constexpr (num::is_fp_v<T>) {
        double f = (double)(float)firstValue;
        for (uint32_t i = 0; i < calCount; ++i) p[i] = num::round_result<T>(f + (double)i, ovf());
    } else {
        for (uint32_t i = 0; i < calCount; ++i) p[i] = num::wrap_result<T>((long long)firstValue + (long long)i);
    }
    trace_vec(c, "CreateVecIndex", dtype_name_v<T>, dtype_name_v<T>, calCount, repeats_for(calCount, sizeof(T)));
}

// Mask forms.  CANN ([CODE] dav_c220 kernel_operator_vec_createvecindex_impl.h) writes the first repeat from the
// scalar unit (T(float(first) + lane)); the continuous form builds its blocks 2..8 with Adds(previous block, lanes
// per block), and every further repeat is Adds(previous repeat, lanes per repeat): half values round at each step.
namespace ascemu_detail {
template <typename T>
inline T vec_index_value(const T& first, int64_t lane) {
    if constexpr (std::is_integral_v<T>) return ascemu::num::wrap_result<T>((long long)first + lane);
    else return ascemu::num::round_result<T>((double)((float)first + (float)lane), ascemu::ovf());
}
template <typename T>
inline void create_vec_index_mask(LocalTensor<T>& dst, const T& first, const ascemu::Mask& m, bool continuous,
                                  uint8_t repeatTime, uint16_t dstBlkStride, uint8_t dstRepStride,
                                  const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (!dtype_check<T>(arith_t<T>, c, loc, "CreateVecIndex")) return;
    const int L = 256 / (int)sizeof(T), epb = 32 / (int)sizeof(T);
    std::vector<T> cur(L);
    for (int i = 0; i < L; ++i)
        cur[i] = continuous && i >= epb ? num::add_value<T>(cur[i - epb], (T)epb, ovf()) : vec_index_value(first, i);
    std::vector<int> lanes;
    for (int i = 0; i < L; ++i)
        if ((m.bits[i >> 6] >> (i & 63)) & 1) lanes.push_back(i);
    if (lanes.empty()) return;
    Opnd ops[1] = {{&dst.v_, dstBlkStride, dstRepStride, sizeof(T), UB_W, "dst"}};
    size_t k = 0;
    mask_walk<1>(c, ops, sizeof(T), m, repeatTime, loc, [&](uint8_t** p) {
        if (k > 0 && k % lanes.size() == 0)  // a new repeat: Adds(previous repeat, L)
            for (int i = 0; i < L; ++i) cur[i] = num::add_value<T>(cur[i], (T)L, ovf());
        std::memcpy(p[0], &cur[lanes[k % lanes.size()]], sizeof(T));
        ++k;
    });
    trace_vec(c, "CreateVecIndex", dtype_name_v<T>, dtype_name_v<T>, -1, repeatTime);
}
}  // namespace ascemu_detail

template <typename T>
inline void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint64_t mask, uint8_t repeatTime,
                           uint16_t dstBlkStride, uint8_t dstRepStride, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("CreateVecIndex", arith_t<T>);
    Core* c = api_enter("CreateVecIndex", loc);
    bool saved = c->mask_counter;  // CANN sets the lanes from the scalar unit: the mask is always a lane count
    c->mask_counter = false;
    Mask m = mask_from_scalar(c, mask, 256 / sizeof(T), true);
    c->mask_counter = saved;
    ascemu_detail::create_vec_index_mask(dst, firstValue, m, true, repeatTime, dstBlkStride, dstRepStride, loc);
}
template <typename T>
inline void CreateVecIndex(LocalTensor<T>& dst, const T& firstValue, uint64_t mask[], uint8_t repeatTime,
                           uint16_t dstBlkStride, uint8_t dstRepStride, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("CreateVecIndex", arith_t<T>);
    api_enter("CreateVecIndex", loc);
    Mask m;
    m.bits[0] = mask[0];
    m.bits[1] = sizeof(T) == 2 ? mask[1] : 0;
    ascemu_detail::create_vec_index_mask(dst, firstValue, m, false, repeatTime, dstBlkStride, dstRepStride, loc);
}

// ------------------------------------------------------------------------------------------------ DeqScale / masks
inline void SetDeqScale(half scale, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("SetDeqScale", loc);
    c->deq_scale = scale;
    c->deq_set = true;
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("SetVectorMask", loc);
    c->vmask[0] = maskLow;
    c->vmask[1] = maskHigh;
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("SetVectorMask", loc);
    if (c->mask_counter) { c->vmask[0] = (uint64_t)len; c->vmask[1] = 0; return; }
    ascemu::Mask m = ascemu::mask_from_scalar(c, (uint64_t)len, 256 / sizeof(T), true);
    c->vmask[0] = m.bits[0];
    c->vmask[1] = m.bits[1];
}
inline void SetMaskCount(ASCEMU_SL) { ascemu::api_enter("SetMaskCount", loc)->mask_counter = true; }
inline void SetMaskNorm(ASCEMU_SL) { ascemu::api_enter("SetMaskNorm", loc)->mask_counter = false; }
inline void ResetMask(ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("ResetMask", loc);
    c->vmask[0] = c->vmask[1] = ~0ull;
}

// ------------------------------------------------------------------------------------------------ Cast
namespace ascemu_detail {
template <typename T, typename U>
inline bool cast_prepare(ascemu::Core* c, const RoundMode& mode, const std::source_location& loc, bool& deq) {
    using namespace ascemu;
    if ((is_bf16_v<T> || is_bf16_v<U>) && kIs310P) {
        diag("UNSUPPORTED_DTYPE", Sev::Error, loc, "Cast with bfloat16_t: bf16 is not available on 310P; no effect",
             jd("src", dtype_name_v<U>, "dst", dtype_name_v<T>));
        return false;
    }
    deq = std::is_same_v<T, half> && std::is_same_v<U, int32_t>;
    if (deq) {
        if (!c->deq_set)
            diag("DEQSCALE_UNSET", Sev::Warning, loc,
                 "Cast int32->half uses the DeqScale register, but SetDeqScale was never called; scale 1.0 is used",
                 "{}");
        return true;
    }
    num::CastStatus st = num::cast_supported<T, U>(kProfile.platform, mode);
    if (st == num::CastStatus::UnsupportedPair) {
        diag("UNSUPPORTED_CAST_PAIR", Sev::Error, loc,
             strf("Cast %s -> %s is not supported on %s; dst unchanged", dtype_name_v<U>, dtype_name_v<T>,
                  kProfile.name),
             jd("src", dtype_name_v<U>, "dst", dtype_name_v<T>, "round_mode", (int)mode));
        return false;
    }
    if (st == num::CastStatus::UnsupportedMode) {
        static const char* mn[] = {"CAST_NONE", "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                   "CAST_ROUND", "CAST_TRUNC", "CAST_ODD",   "CAST_HYBRID"};
        int mi = (int)mode;
        diag("UNSUPPORTED_CAST_MODE", Sev::Error, loc,
             strf("Cast %s -> %s does not support %s on %s; dst unchanged", dtype_name_v<U>, dtype_name_v<T>,
                  (mi >= 0 && mi < 8) ? mn[mi] : "?", kProfile.name),
             jd("src", dtype_name_v<U>, "dst", dtype_name_v<T>, "round_mode", mi));
        return false;
    }
    return true;
}
}  // namespace ascemu_detail

// A (dst <- src) pair for which CANN has no Cast implementation on this platform does not compile.
#define ASCEMU_STRICT_CAST_PAIR()                                                                                 \
    static_assert(!ASCEMU_CANN_STRICT || ascemu::num::cast_has_impl<T, U>(ascemu::kProfile.platform),             \
                  "Cast: CANN has no implementation of this (dst, src) dtype pair on " ASCEMU_PLATFORM_STR)
template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint32_t count, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_CAST_PAIR();
    Core* c = api_enter("Cast", loc);
    bool deq = false;
    if (!ascemu_detail::cast_prepare<T, U>(c, round_mode, loc, deq)) return;
    size_t sb = (size_t)count * sizeof(U), db = (size_t)count * sizeof(T);
    const uint8_t* s = ub_operand(c, src.v_, sb, UB_R, loc, "src");
    bool overlap = dst.v_.off < src.v_.off + sb && src.v_.off < dst.v_.off + db;
    std::vector<uint8_t> snap;
    if (overlap && sizeof(T) > sizeof(U)) {
        diag("CAST_WIDEN_OVERLAP", Sev::Warning, loc,
             "widening Cast with overlapping src and dst; computed from a snapshot of src",
             jd("src", src.v_.off, "dst", dst.v_.off));
        if (s) { snap.assign(s, s + sb); s = snap.data(); }
    } else if (overlap && dst.v_.off != src.v_.off) {
        ub_overlap_check(c, dst.v_, db, src.v_, sb, loc, "src");
    }
    uint8_t* d = ub_operand(c, dst.v_, db, UB_W, loc, "dst");
    if (!s || !d) return;
    if constexpr (std::is_same_v<T, half> && std::is_same_v<U, int32_t>) {
        num::deq_array((half*)d, (const int32_t*)s, count, c->deq_set ? c->deq_scale : half(1.0f), ovf());
    } else {
        num::CastFlags fl;
        num::cast_array<T, U>((T*)d, (const U*)s, count, round_mode, ovf(), fl);
        if (fl.negative_to_unsigned)
            diag("CAST_NEGATIVE_TO_UNSIGNED", Sev::Warning, loc,
                 strf("Cast %s -> %s of a negative value (the doc: exception); ascemu writes 0", dtype_name_v<U>,
                      dtype_name_v<T>),
                 "{}");
    }
    (void)deq;
    trace_vec(c, "Cast", dtype_name_v<U>, dtype_name_v<T>, count, repeats_for(count, std::max(sizeof(T), sizeof(U))));
}

namespace ascemu_detail {
template <typename T, typename U>
inline void cast_mask(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                      const ascemu::Mask& m, uint8_t repeatTime, const UnaryRepeatParams& rp,
                      const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    bool deq = false;
    if (!cast_prepare<T, U>(c, round_mode, loc, deq)) return;
    Opnd ops[2] = {{&dst.v_, rp.dstBlkStride, rp.dstRepStride, sizeof(T), UB_W, "dst"},
                   {&src.v_, rp.srcBlkStride, rp.srcRepStride, sizeof(U), UB_R, "src"}};
    OverflowMode om = ovf();
    num::CastFlags fl;
    half scale = c->deq_set ? c->deq_scale : half(1.0f);
    mask_walk<2>(c, ops, std::max(sizeof(T), sizeof(U)), m, repeatTime, loc, [&](uint8_t** p) {
        U v;
        std::memcpy(&v, p[1], sizeof(U));
        T r;
        if constexpr (std::is_same_v<T, half> && std::is_same_v<U, int32_t>) r = num::deq_value(v, scale, om);
        else r = num::cast_value<T, U>(v, round_mode, om, fl);
        std::memcpy(p[0], &r, sizeof(T));
    });
    if (fl.negative_to_unsigned)
        diag("CAST_NEGATIVE_TO_UNSIGNED", Sev::Warning, loc, "Cast of a negative value to an unsigned type; 0 written",
             "{}");
    trace_vec(c, "Cast", dtype_name_v<U>, dtype_name_v<T>, -1, repeatTime);
}
}  // namespace ascemu_detail

#define ASCEMU_CAST_MASK(MASK_T)                                                                                     \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,              \
                     MASK_T mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {      \
        ASCEMU_STRICT_CAST_PAIR();                                                                                   \
        ascemu::Core* c = ascemu::api_enter("Cast", loc);                                                            \
        ascemu_detail::cast_mask(dst, src, round_mode,                                                               \
                                 ascemu::mask_of(c, mask, 256 / std::max(sizeof(T), sizeof(U)), isSetMask),          \
                                 repeatTime, repeatParams, loc);                                                     \
    }
ASCEMU_CAST_MASK(const uint64_t*)
ASCEMU_CAST_MASK(uint64_t)
#undef ASCEMU_CAST_MASK

// ------------------------------------------------------------------------------------------------ Gather
namespace ascemu_detail {
// What a Gather's element reads found, reported once per call, in the same words by each form.
struct GatherFindings {
    bool bad_range = false, bad_align = false, uninit = false;
    uint64_t first_bad = 0;  // the offset index of the first element outside the src buffer
    void out_of_range(uint64_t k) {
        if (!bad_range) first_bad = k;
        bad_range = true;
    }
    template <typename T>
    void report(const uint32_t* off, const ascemu::UbBuf& sb, const std::source_location& loc) const {
        using namespace ascemu;
        if (bad_range)
            diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
                 strf("Gather offset[%llu] = %u addresses UB outside the src buffer [%u, %u)",
                      (unsigned long long)first_bad, off[first_bad], sb.lo, sb.hi),
                 jd("index", (long long)first_bad, "offset", off[first_bad]));
        if (bad_align)
            diag("UB_MISALIGNED", Sev::Error, loc, strf("Gather offsets must be multiples of sizeof(T)=%zu", sizeof(T)),
                 "{}");
        if (uninit)
            diag("UB_UNINIT_READ", Sev::Warning, loc, "Gather reads never-written UB bytes (poison)", "{}",
                 DF_STRICT_ERR);
    }
};
}  // namespace ascemu_detail
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Gather", loc);
    if (!dtype_check<T>(sizeof(T) == 2 || sizeof(T) == 4, c, loc, "Gather")) return;
    const uint8_t* po = ub_operand(c, srcOffset.v_, (size_t)count * 4, UB_R, loc, "srcOffset");
    if (!po || src.v_.buf < 0) {
        if (src.v_.buf < 0) ub_operand(c, src.v_, 0, 0, loc, "src");
        return;
    }
    // validate the src operand's base (alignment, liveness); element addresses are checked below
    ub_operand(c, src.v_, sizeof(T), 0, loc, "src");
    const UbBuf& sb = c->bufs[src.v_.buf];
    std::vector<T> out(count);
    const uint32_t* off = (const uint32_t*)po;
    ascemu_detail::GatherFindings found;
    uint64_t amin = ~0ull, amax = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t a = (uint64_t)src.v_.off + srcBaseAddr + off[i];
        amin = std::min(amin, a);
        amax = std::max(amax, a + sizeof(T));
        if (a % sizeof(T)) found.bad_align = true;
        if (a + sizeof(T) > kProfile.ub_size) {
            found.out_of_range(i);
            std::memset(&out[i], 0xFF, sizeof(T));
            continue;
        }
        if (a < sb.lo || a + sizeof(T) > sb.hi) found.out_of_range(i);
        if (!found.uninit && !c->ubw.all(a, a + sizeof(T))) found.uninit = true;
        std::memcpy(&out[i], c->ub + a, sizeof(T));
    }
    found.report<T>(off, sb, loc);
    if (count && amax <= kProfile.ub_size) pipe_ub(c, (uint32_t)amin, (uint32_t)amax, true, false, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, (size_t)count * sizeof(T), UB_W, loc, "dst");
    if (!d) return;
    std::memcpy(d, out.data(), (size_t)count * sizeof(T));
    trace_vec(c, "Gather", dtype_name_v<T>, dtype_name_v<T>, count, repeats_for(count, sizeof(T)));
}
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime,
                   const uint16_t dstRepStride, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Gather", loc);
    if (!dtype_check<T>(sizeof(T) == 2 || sizeof(T) == 4, c, loc, "Gather")) return;
    const uint32_t L = 256 / sizeof(T);
    uint32_t n = (uint32_t)std::min<uint64_t>(mask, L);
    for (uint32_t r = 0; r < repeatTime; ++r) {
        LocalTensor<T> d = dst[r * dstRepStride * (32 / sizeof(T))];
        LocalTensor<uint32_t> o = srcOffset[r * L];
        Gather(d, src, o, srcBaseAddr, n, loc);
    }
}

// Mask bit-wise form: lane i of repeat r (bit i set) reads srcOffset[r * L + i] and writes dst at
// r * dstRepStride blocks + i.
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime,
                   const uint16_t dstRepStride, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Gather", loc);
    if (!dtype_check<T>(sizeof(T) == 2 || sizeof(T) == 4, c, loc, "Gather")) return;
    const uint32_t L = 256 / sizeof(T);
    Mask m;
    m.bits[0] = mask[0];
    m.bits[1] = L > 64 ? mask[1] : 0;
    const int hi = [&] {
        for (int i = (int)L - 1; i >= 0; --i)
            if ((m.bits[i >> 6] >> (i & 63)) & 1) return i;
        return -1;
    }();
    if (repeatTime == 0 || hi < 0) return;
    const uint8_t* po =
        ub_operand(c, srcOffset.v_, ((size_t)(repeatTime - 1) * L + hi + 1) * 4, UB_PR, loc, "srcOffset");
    uint64_t dext = (uint64_t)(repeatTime - 1) * dstRepStride * 32 + (uint64_t)(hi + 1) * sizeof(T);
    uint8_t* d = ub_operand(c, dst.v_, dext, UB_PW, loc, "dst");
    if (!po || !d || src.v_.buf < 0) {
        if (src.v_.buf < 0) ub_operand(c, src.v_, 0, 0, loc, "src");
        return;
    }
    ub_operand(c, src.v_, sizeof(T), 0, loc, "src");
    const UbBuf& sb = c->bufs[src.v_.buf];
    const uint32_t* off = (const uint32_t*)po;
    ascemu_detail::GatherFindings found;
    std::vector<std::pair<uint64_t, T>> out;  // (dst byte offset, value): written after every read
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (int i = 0; i <= hi; ++i) {
            if (!((m.bits[i >> 6] >> (i & 63)) & 1)) continue;
            uint64_t k = (uint64_t)r * L + i;
            if (!c->ubw.all(srcOffset.v_.off + k * 4, srcOffset.v_.off + k * 4 + 4)) found.uninit = true;
            uint64_t a = (uint64_t)src.v_.off + srcBaseAddr + off[k];
            T v;
            std::memset((void*)&v, 0xFF, sizeof(T));
            if (a % sizeof(T)) found.bad_align = true;
            if (a + sizeof(T) > kProfile.ub_size || a < sb.lo || a + sizeof(T) > sb.hi) found.out_of_range(k);
            if (a + sizeof(T) <= kProfile.ub_size) {
                if (!c->ubw.all(a, a + sizeof(T))) found.uninit = true;
                pipe_ub(c, (uint32_t)a, (uint32_t)(a + sizeof(T)), true, false, loc, "src");
                std::memcpy((void*)&v, c->ub + a, sizeof(T));
            }
            out.push_back({(uint64_t)r * dstRepStride * 32 + (uint64_t)i * sizeof(T), v});
        }
    found.report<T>(off, sb, loc);
    for (auto& [o, v] : out) {
        std::memcpy(d + o, (const void*)&v, sizeof(T));
        c->ubw.set(dst.v_.off + o, dst.v_.off + o + sizeof(T));
    }
    trace_vec(c, "Gather", dtype_name_v<T>, dtype_name_v<T>, -1, repeatTime);
}

// ------------------------------------------------------------------------------------------------ GatherMask
namespace ascemu_detail {
// The lanes GatherMask walks.  Normal mode: repeatTimes repeats of 256 B.  Counter mode ([DOC] GatherMask):
// 910B takes `mask` elements in each of repeatTimes repeats (its "configuration 1"); 310P takes `mask` elements
// in total, in repeats of 256 B, and ignores repeatTimes ("configuration 2").  A repeat of more than 256 B
// continues over the following blocks at src0BlockStride.
struct GatherMaskWalk {
    uint32_t repeats = 0, lanes = 0, last = 0;  // lanes per repeat; lanes of the last repeat
};
template <typename T>
inline GatherMaskWalk gather_mask_walk(bool reduceMode, uint32_t mask, const GatherMaskParams& gp) {
    const uint32_t L = 256 / sizeof(T);
    GatherMaskWalk w;
    if (!reduceMode) w = {gp.repeatTimes, L, L};
    else if (ascemu::kIs910B) w = {gp.repeatTimes, mask, mask};
    else w = {(mask + L - 1) / L, L, mask - (mask ? (mask - 1) / L * L : 0)};
    if (w.repeats == 0 || w.lanes == 0) w = {};
    return w;
}
template <typename T, class Sel>
inline void gather_mask_impl(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const GatherMaskWalk& w,
                             const GatherMaskParams& gp, uint64_t& rsvdCnt, const std::source_location& loc, Sel sel) {
    using namespace ascemu;
    Core* c = t_core;
    const uint32_t epb = 32 / sizeof(T);
    rsvdCnt = 0;
    if (w.repeats == 0) return;
    const uint32_t R = w.repeats;
    // Up to the last element read: the last repeat ends at its own lane count (counter mode reads the counted
    // elements only, not the whole 256 bytes); a full repeat before it may reach further with a wide block stride.
    auto reach = [&](uint32_t repeats, uint32_t lanes) {
        return (uint64_t)(repeats - 1) * gp.src0RepeatStride * 32 +
               (uint64_t)((lanes - 1) / epb) * gp.src0BlockStride * 32 + (uint64_t)((lanes - 1) % epb + 1) * sizeof(T);
    };
    uint64_t ext = std::max(reach(R, w.last), R > 1 ? reach(R - 1, w.lanes) : 0);
    const uint8_t* s = ub_operand(c, src0.v_, ext, UB_PR, loc, "src0");
    if (!s) return;
    std::vector<T> out;
    out.reserve((size_t)R * w.lanes);
    bool uninit = false;
    for (uint32_t r = 0; r < R; ++r) {
        uint32_t nl = (r == R - 1) ? w.last : w.lanes;
        for (uint32_t i = 0; i < nl; ++i) {
            if (!sel(r, i)) continue;
            uint64_t o = (uint64_t)r * gp.src0RepeatStride * 32 + (uint64_t)(i / epb) * gp.src0BlockStride * 32 +
                         (uint64_t)(i % epb) * sizeof(T);
            if (!uninit && !c->ubw.all(src0.v_.off + o, src0.v_.off + o + sizeof(T))) uninit = true;
            T v;
            std::memcpy(&v, s + o, sizeof(T));
            out.push_back(v);
        }
    }
    if (uninit)
        diag("UB_UNINIT_READ", Sev::Warning, loc, "GatherMask reads never-written UB bytes (poison)", "{}",
             DF_STRICT_ERR);
    rsvdCnt = out.size();
    if (out.empty()) return;
    uint8_t* d = ub_operand(c, dst.v_, out.size() * sizeof(T), UB_W, loc, "dst");
    if (!d) return;
    std::memcpy(d, out.data(), out.size() * sizeof(T));
    trace_vec(c, "GatherMask", dtype_name_v<T>, dtype_name_v<T>, (int64_t)((uint64_t)(R - 1) * w.lanes + w.last), R);
}
}  // namespace ascemu_detail

// Built-in patterns 1-6, and 7 (every element) on 910B ([DOC] GatherMask: "Atlas A2 ... 1-7; 310P AI Core 1-6").
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("GatherMask", loc);
    rsvdCnt = 0;
    // Another element size: the dtype check is an assertion (ASCENDC_ASSERT / ASCENDC_DEBUG_ASSERT), and
    // GatherMaskCal's plain `if (sizeof(T) == sizeof(uint16_t)) ... else` runs every other size as uint32_t elements
    // ([CODE] cann/asc-devkit impl/basic_api/dav_c220 and dav_m200 kernel_operator_vec_gather_mask_impl.h).
    if constexpr (sizeof(T) != 2 && sizeof(T) != 4) {
        device_runs_anyway("UNSUPPORTED_DTYPE", loc,
                           strf("GatherMask of %s (CANN lists 2- and 4-byte types)", dtype_name_v<T>),
                           "it gathers dst and src0 as uint32_t elements", jd("dtype", dtype_name_v<T>));
        GatherMask<uint32_t, mode>(dst.template ReinterpretCast<uint32_t>(), src0.template ReinterpretCast<uint32_t>(),
                                   src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt, loc);
        return;
    }
    if (!dtype_check<T>(true, c, loc, "GatherMask")) return;
    const uint8_t top = kIs910B ? 7 : 6;
    if (src1Pattern < 1 || src1Pattern > top) {
        diag("PARAM_RANGE", Sev::Error, loc,
             strf("GatherMask built-in pattern %u not in 1..%u on %s", src1Pattern, top, kProfile.name),
             jd("pattern", src1Pattern));
        return;
    }
    uint8_t pt = src1Pattern;
    ascemu_detail::gather_mask_impl(dst, src0, ascemu_detail::gather_mask_walk<T>(reduceMode, mask, gatherMaskParams),
                                    gatherMaskParams, rsvdCnt, loc, [pt](uint32_t, uint32_t i) {
                                        switch (pt) {
                                            case 1: return i % 2 == 0;
                                            case 2: return i % 2 == 1;
                                            case 7: return true;
                                            default: return i % 4 == (uint32_t)(pt - 3);
                                        }
                                    });
}
// Pattern tensor: the bits of a repeat are consumed in order; repeat r starts src1RepeatStride blocks after r - 1.
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("GatherMask", loc);
    rsvdCnt = 0;
    // T of another size than the pattern's: CANN checks the pair with an assertion only and runs dst and src0 as
    // elements of the pattern's type (GatherMaskCal: reinterpret_cast<__ubuf__ U*>, same headers as above).
    if constexpr ((sizeof(U) == 2 || sizeof(U) == 4) && sizeof(T) != sizeof(U)) {
        device_runs_anyway("UNSUPPORTED_DTYPE", loc,
                           strf("GatherMask of %s with a %s pattern (CANN lists %d-byte types for it)",
                                dtype_name_v<T>, dtype_name_v<U>, (int)sizeof(U)),
                           "it gathers dst and src0 as elements of the pattern's type",
                           jd("dtype", dtype_name_v<T>, "pattern", dtype_name_v<U>));
        using E = std::conditional_t<sizeof(U) == 2, uint16_t, uint32_t>;
        GatherMask<E, U, mode>(dst.template ReinterpretCast<E>(), src0.template ReinterpretCast<E>(), src1Pattern,
                               reduceMode, mask, gatherMaskParams, rsvdCnt, loc);
        return;
    }
    if (!dtype_check<T>(sizeof(T) == 2 || sizeof(T) == 4, c, loc, "GatherMask")) return;
    ascemu_detail::GatherMaskWalk w = ascemu_detail::gather_mask_walk<T>(reduceMode, mask, gatherMaskParams);
    if (w.repeats == 0) return;
    auto bits_reach = [&](uint32_t repeats, uint32_t lanes) {  // the last repeat's bits end at its own lane count
        return (uint64_t)(repeats - 1) * gatherMaskParams.src1RepeatStride * 32 + (lanes + 7) / 8;
    };
    uint64_t pbytes = std::max(bits_reach(w.repeats, w.last), w.repeats > 1 ? bits_reach(w.repeats - 1, w.lanes) : 0);
    const uint8_t* pp = ub_operand(c, src1Pattern.v_, pbytes, UB_R, loc, "src1Pattern");
    if (!pp) return;
    uint32_t rs = gatherMaskParams.src1RepeatStride;
    ascemu_detail::gather_mask_impl(dst, src0, w, gatherMaskParams, rsvdCnt, loc, [pp, rs](uint32_t r, uint32_t i) {
        const uint8_t* base = pp + (uint64_t)r * rs * 32;
        return ((base[i >> 3] >> (i & 7)) & 1) != 0;
    });
}

// ------------------------------------------------------------------------------------------------ Brcb
template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime,
                 const BrcbRepeatParams& repeatParams, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Brcb", loc);
    if (!dtype_check<T>(sizeof(T) == 2 || sizeof(T) == 4, c, loc, "Brcb")) return;
    if (repeatTime == 0) return;
    const uint32_t epb = 32 / sizeof(T);
    const uint8_t* s = ub_operand(c, src0.v_, (size_t)repeatTime * 8 * sizeof(T), UB_R, loc, "src0");
    uint64_t ext = (uint64_t)(repeatTime - 1) * repeatParams.dstRepStride * 32 + 7ull * repeatParams.dstBlkStride * 32 + 32;
    uint8_t* d = ub_operand(c, dst.v_, ext, UB_PW, loc, "dst");
    if (!s || !d) return;
    std::vector<T> src((const T*)s, (const T*)s + (size_t)repeatTime * 8);
    for (uint32_t r = 0; r < repeatTime; ++r)
        for (uint32_t j = 0; j < 8; ++j) {
            uint64_t o = (uint64_t)r * repeatParams.dstRepStride * 32 + (uint64_t)j * repeatParams.dstBlkStride * 32;
            T v = src[r * 8 + j];
            for (uint32_t k = 0; k < epb; ++k) std::memcpy(d + o + k * sizeof(T), &v, sizeof(T));
            c->ubw.set(dst.v_.off + o, dst.v_.off + o + 32);
        }
    trace_vec(c, "Brcb", dtype_name_v<T>, dtype_name_v<T>, -1, repeatTime);
}

// ------------------------------------------------------------------------------------------------ Compare / Select
namespace ascemu_detail {
ASCEMU_DECL void scratch_check(ascemu::Core* c, const std::source_location& loc, const char* api);
template <class T>
inline bool cmp(T a, T b, CMPMODE m) {
    float x = (float)a, y = (float)b;
    if constexpr (std::is_integral_v<T>) { x = 0; y = 0; }
    switch (m) {
        case CMPMODE::LT: return std::is_integral_v<T> ? a < b : x < y;
        case CMPMODE::GT: return std::is_integral_v<T> ? a > b : x > y;
        case CMPMODE::EQ: return std::is_integral_v<T> ? a == b : x == y;
        case CMPMODE::LE: return std::is_integral_v<T> ? a <= b : x <= y;
        case CMPMODE::GE: return std::is_integral_v<T> ? a >= b : x >= y;
        default: return std::is_integral_v<T> ? a != b : x != y;
    }
}
// The dtypes of Compare / Compares.  910B's int32_t has only vcmpv_eq / vcmpvs_eq: CANN's int32_t overload of
// VcmpvIntrinsicsImpl / VcmpvsIntrinsicsImpl issues the EQ instruction whatever cmpMode says, and the mode check is an
// ASCENDC_DEBUG_ASSERT ([CODE] cann/asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_cmp_impl.h
// CheckVcmpvDtype, "int32_t only support CMPMODE::EQ"), so another mode compares for equality; `mode` becomes EQ.
template <typename T>
inline bool compare_dtype(const char* api, CMPMODE& mode, ascemu::Core* c, const std::source_location& loc) {
    using namespace ascemu;
    if (kIs910B && std::is_same_v<T, int32_t> && mode != CMPMODE::EQ) {
        device_runs_anyway("UNSUPPORTED_DTYPE", loc,
                           strf("%s of int32_t supports CMPMODE::EQ only (mode %d)", api, (int)mode),
                           "the int32_t instruction compares for equality, whatever the mode",
                           jd("dtype", "int32", "mode", (int)mode));
        mode = CMPMODE::EQ;
        return true;
    }
    return dtype_check<T>(one_of_v<T, half, float> || (kIs910B && std::is_same_v<T, int32_t>), c, loc, api);
}
// The elements the count form compares: CANN runs count * sizeof(T) / 256 whole repeats (CompareCompute /
// CompareScalarCompute on both chips); that the bytes are a multiple of 256 is an ASCENDC_DEBUG_ASSERT
// ([CODE] cann/asc-devkit impl/basic_api/kernel_operator_vec_cmpsel_intf_impl.h Compare, dav_c220 / dav_m200
// CompareCompute), so a tail is left uncompared and its dst bits keep what they held.
template <typename T>
inline uint32_t compare_count(const char* api, uint32_t count, const std::source_location& loc) {
    using namespace ascemu;
    const uint32_t whole = (uint32_t)((uint64_t)count * sizeof(T) / 256 * 256 / sizeof(T));
    if (whole != count)
        device_runs_anyway("PARAM_RANGE", loc,
                           strf("%s requires count*sizeof(T) to be a multiple of 256 (count %u)", api, count),
                           strf("it compares the first %u elements (whole repeats) and leaves the dst bits of the "
                                "other %u unchanged",
                                whole, count - whole)
                               .c_str(),
                           jd("count", count, "compared", whole));
    return whole;
}
template <typename T, typename U, class G>
inline void compare_impl(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, CMPMODE mode,
                         uint32_t count, const std::source_location& loc, G get1) {
    using namespace ascemu;
    Core* c = t_core;
    if (!compare_dtype<T>(api, mode, c, loc)) return;
    scratch_check(c, loc, api);
    const uint8_t* s = ub_operand(c, src0.v_, (size_t)count * sizeof(T), UB_R, loc, "src0");
    uint8_t* d = ub_operand(c, dst.v_, (count + 7) / 8, UB_W, loc, "dst");
    if (!s || !d) return;
    std::vector<uint8_t> bits((count + 7) / 8, 0);
    for (uint32_t i = 0; i < count; ++i)
        if (cmp<T>(((const T*)s)[i], get1(i), mode)) bits[i / 8] |= (uint8_t)(1u << (i % 8));
    std::memcpy(d, bits.data(), bits.size());
    trace_vec(c, api, dtype_name_v<T>, "uint8", count, repeats_for(count, sizeof(T)));
}
}  // namespace ascemu_detail

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Compare", loc);
    count = ascemu_detail::compare_count<T>("Compare", count, loc);
    const uint8_t* s1 = ub_operand(c, src1.v_, (size_t)count * sizeof(T), UB_R, loc, "src1");
    if (!s1) return;
    ascemu_detail::compare_impl<T, U>("Compare", dst, src0, cmpMode, count, loc,
                                      [s1](uint32_t i) { return ((const T*)s1)[i]; });
}
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count, ASCEMU_SL) {
    ascemu::api_enter("Compares", loc);
    count = ascemu_detail::compare_count<T>("Compares", count, loc);
    ascemu_detail::compare_impl<T, U>("Compares", dst, src0, cmpMode, count, loc, [src1Scalar](uint32_t) { return src1Scalar; });
}

// Mask forms of Compare / Compares.  CANN hands `mask` to no instruction (dav_c220 and dav_m200 VcmpvImpl:
// `(void)(mask)`; the 310P page: "reserved, no effect"): every lane of each repeat is compared, and the result
// bits are packed, repeat r at byte r * lanes / 8 (the count form's layout).
namespace ascemu_detail {
template <typename T, typename U, int N, class Get1>
inline void compare_repeats(const char* api, const LocalTensor<U>& dst, ascemu::Opnd (&ops)[N], CMPMODE mode,
                            uint8_t repeatTime, const std::source_location& loc, Get1 get1) {
    using namespace ascemu;
    Core* c = t_core;
    if (!compare_dtype<T>(api, mode, c, loc) || repeatTime == 0) return;
    scratch_check(c, loc, api);
    const uint32_t L = 256 / sizeof(T);
    Mask all;
    all.bits[0] = all.bits[1] = ~0ull;
    std::vector<uint8_t> bits((size_t)repeatTime * L / 8, 0);
    size_t k = 0;
    mask_walk<N>(c, ops, sizeof(T), all, repeatTime, loc, [&](uint8_t** p) {
        T a;
        std::memcpy(&a, p[0], sizeof(T));
        if (cmp<T>(a, get1(p), mode)) bits[k / 8] |= (uint8_t)(1u << (k % 8));
        ++k;
    });
    if (k != (size_t)repeatTime * L) return;  // an operand was refused
    uint8_t* d = ub_operand(c, dst.v_, bits.size(), UB_W, loc, "dst");
    if (!d) return;
    std::memcpy(d, bits.data(), bits.size());
    trace_vec(c, api, dtype_name_v<T>, "uint8", -1, repeatTime);
}
template <typename T, typename U>
inline void compare_mask(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                         CMPMODE mode, uint8_t repeatTime, const BinaryRepeatParams& rp,
                         const std::source_location& loc) {
    using namespace ascemu;
    Opnd ops[2] = {{&src0.v_, rp.src0BlkStride, rp.src0RepStride, sizeof(T), UB_R, "src0"},
                   {&src1.v_, rp.src1BlkStride, rp.src1RepStride, sizeof(T), UB_R, "src1"}};
    compare_repeats<T, U, 2>("Compare", dst, ops, mode, repeatTime, loc, [](uint8_t** p) {
        T b;
        std::memcpy(&b, p[1], sizeof(T));
        return b;
    });
}
template <typename T, typename U>
inline void compares_mask(const LocalTensor<U>& dst, const LocalTensor<T>& src0, T scalar, CMPMODE mode,
                          uint8_t repeatTime, const UnaryRepeatParams& rp, const std::source_location& loc) {
    using namespace ascemu;
    Opnd ops[1] = {{&src0.v_, rp.srcBlkStride, rp.srcRepStride, sizeof(T), UB_R, "src0"}};
    compare_repeats<T, U, 1>("Compares", dst, ops, mode, repeatTime, loc, [scalar](uint8_t**) { return scalar; });
}
}  // namespace ascemu_detail

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& repeatParams, ASCEMU_SL) {
    ascemu::api_enter("Compare", loc);
    (void)mask;
    ascemu_detail::compare_mask(dst, src0, src1, cmpMode, repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams, ASCEMU_SL) {
    ascemu::api_enter("Compare", loc);
    (void)mask;
    ascemu_detail::compare_mask(dst, src0, src1, cmpMode, repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     const uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {
    ascemu::api_enter("Compares", loc);
    (void)mask;
    ascemu_detail::compares_mask(dst, src0, src1Scalar, cmpMode, repeatTime, repeatParams, loc);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     const uint64_t mask, uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {
    ascemu::api_enter("Compares", loc);
    (void)mask;
    ascemu_detail::compares_mask(dst, src0, src1Scalar, cmpMode, repeatTime, repeatParams, loc);
}

// Compare with its result in the CMPMASK register (one repeat; the mask selects the lanes, a lane outside it
// gives 0 [CHOICE]); GetCmpMask / SetCmpMask move the register's 128 bits to / from UB.
namespace ascemu_detail {
template <typename T>
inline void compare_to_cmpmask(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                               const ascemu::Mask& m, const BinaryRepeatParams& rp, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (!dtype_check<T>(one_of_v<T, half, float>, c, loc, "Compare")) return;
    Opnd ops[2] = {{&src0.v_, rp.src0BlkStride, rp.src0RepStride, sizeof(T), UB_R, "src0"},
                   {&src1.v_, rp.src1BlkStride, rp.src1RepStride, sizeof(T), UB_R, "src1"}};
    const int L = 256 / (int)sizeof(T);
    uint64_t out[2] = {0, 0};
    std::vector<int> lanes;
    for (int i = 0; i < L; ++i)
        if (m.counter ? (uint64_t)i < m.total : ((m.bits[i >> 6] >> (i & 63)) & 1)) lanes.push_back(i);
    size_t k = 0;
    mask_walk<2>(c, ops, sizeof(T), m, 1, loc, [&](uint8_t** p) {
        T a, b;
        std::memcpy(&a, p[0], sizeof(T));
        std::memcpy(&b, p[1], sizeof(T));
        int i = lanes[k++];
        if (cmp<T>(a, b, mode)) out[i >> 6] |= 1ull << (i & 63);
    });
    c->cmpmask[0] = out[0];
    c->cmpmask[1] = out[1];
    trace_vec(c, "Compare", dtype_name_v<T>, "cmpmask", -1, 1);
}
}  // namespace ascemu_detail

#define ASCEMU_COMPARE_CMPMASK_MASK(MASK_T)                                                                          \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, MASK_T mask,        \
                        const BinaryRepeatParams& repeatParams, ASCEMU_SL) {                                         \
        using namespace ascemu;                                                                                      \
        Core* c = api_enter("Compare", loc);                                                                         \
        Mask m = mask_of(c, mask, 256 / sizeof(T), isSetMask);                                                       \
        ascemu_detail::compare_to_cmpmask(src0, src1, cmpMode, m, repeatParams, loc);                                \
    }
ASCEMU_COMPARE_CMPMASK_MASK(const uint64_t*)
ASCEMU_COMPARE_CMPMASK_MASK(const uint64_t)
#undef ASCEMU_COMPARE_CMPMASK_MASK
template <typename T>
inline void GetCmpMask(const LocalTensor<T>& dst, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("GetCmpMask", loc);
    uint8_t* d = ub_operand(c, dst.v_, 128, UB_PW, loc, "dst", 16);  // [DOC] GetCmpMask: dst of >= 128 bytes
    if (!d) return;
    std::memcpy(d, c->cmpmask, 16);
    c->ubw.set(dst.v_.off, dst.v_.off + 16);
}
template <typename T>
inline void SetCmpMask(const LocalTensor<T>& src, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("SetCmpMask", loc);
    const uint8_t* s = ub_operand(c, src.v_, 16, UB_R, loc, "src", 16);
    if (s) std::memcpy(c->cmpmask, s, 16);
}

// Select ([DOC] Select; dav_c220 / dav_m200 kernel_operator_vec_cmpsel_impl.h).  selMask bit 1 takes src0,
// bit 0 src1 (the scalar in mode 1).  Mode 0 (VSEL_CMPMASK_SPR) loads the first 256/sizeof(T) bits of selMask
// into CMPMASK once, and every repeat uses them; modes 1 and 2 consume selMask continuously, 256/sizeof(T) bits
// per repeat.  The count forms run as one counter-mode instruction, so mode 0 reuses its bits every 256 bytes
// too.  Lanes outside a mask form's mask keep dst.  Modes 1 and 2 stage their operand in the API scratch zone
// (the page's "reserve 8 KB of UB", on 310P as on 910B).
namespace ascemu_detail {
ASCEMU_DECL void select_scratch_check(ascemu::Core* c, SELMODE mode, const std::source_location& loc);
template <typename T, typename U>
inline bool select_prepare(ascemu::Core* c, SELMODE mode, const std::source_location& loc) {
    using namespace ascemu;
    if (!dtype_check<T>(one_of_v<T, half, float>, c, loc, "Select")) return false;
    // selMask's dtype: CANN lists uint8_t..uint64_t, but checks it only with ASCENDC_ASSERT, and the instruction
    // takes selMask as bits (set_cmpmask(__ubuf__ void*), vsel's selMask operand, or its address in mode 2), so the
    // device reads any tensor's bytes as the mask ([CODE] cann/asc-devkit impl/basic_api/dav_c220 and dav_m200
    // kernel_operator_vec_cmpsel_impl.h VselImpl).  The data dtype T has half and float encodings only.
    if constexpr (!one_of_v<U, uint8_t, uint16_t, uint32_t, uint64_t>)
        device_runs_anyway("UNSUPPORTED_DTYPE", loc,
                           strf("Select with a selMask of %s (CANN lists uint8/uint16/uint32/uint64)",
                                dtype_name_v<U>),
                           "the instruction reads the selMask bytes as bits",
                           jd("dtype", dtype_name_v<U>, "operand", "selMask"));
    if ((int)mode > 2) {
        diag("PARAM_RANGE", Sev::Error, loc, strf("Select mode %d not in 0..2", (int)mode), jd("mode", (int)mode));
        return false;
    }
    select_scratch_check(c, mode, loc);
    return true;
}
// Bit of element `e` (e-th processed element, e = repeat * L + lane) under `mode`.
inline bool sel_bit(const uint8_t* m, SELMODE mode, uint64_t e, uint32_t L) {
    uint64_t b = mode == SELMODE::VSEL_CMPMASK_SPR ? e % L : e;
    return ((m[b >> 3] >> (b & 7)) & 1) != 0;
}
template <typename T, typename U, class Src1>
inline void select_count(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                         SELMODE mode, uint32_t count, const std::source_location& loc, Src1 src1) {
    using namespace ascemu;
    Core* c = t_core;
    const uint32_t L = 256 / sizeof(T);
    uint64_t mbytes = mode == SELMODE::VSEL_CMPMASK_SPR ? std::min<uint64_t>(count, L) : count;
    const uint8_t* m = ub_operand(c, selMask.v_, (mbytes + 7) / 8, UB_R, loc, "selMask", 32);
    const uint8_t* a = ub_operand(c, src0.v_, (size_t)count * sizeof(T), UB_R, loc, "src0");
    const T* b = src1();
    uint8_t* d = ub_operand(c, dst.v_, (size_t)count * sizeof(T), UB_W, loc, "dst");
    if (!m || !a || !b || !d) return;
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) out[i] = sel_bit(m, mode, i, L) ? ((const T*)a)[i] : b[i];
    std::memcpy(d, out.data(), (size_t)count * sizeof(T));
    trace_vec(c, "Select", dtype_name_v<T>, dtype_name_v<T>, count, repeats_for(count, sizeof(T)));
}
// Mask forms: `bits` is the select pattern (CMPMASK for mode 0, selMask otherwise); `scalar` non-null in mode 1.
template <typename T>
inline void select_mask(const LocalTensor<T>& dst, const uint8_t* bits, SELMODE mode, const LocalTensor<T>& src0,
                        const LocalTensor<T>* src1, const T* scalar, const ascemu::Mask& m, uint8_t repeatTime,
                        const BinaryRepeatParams& rp, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    const uint32_t L = 256 / sizeof(T);
    std::vector<int> lanes;  // the lanes mask_walk visits, in its order
    for (uint32_t i = 0; i < L; ++i)
        if (m.counter || ((m.bits[i >> 6] >> (i & 63)) & 1)) lanes.push_back((int)i);
    Opnd ops[3] = {{&dst.v_, rp.dstBlkStride, rp.dstRepStride, sizeof(T), UB_W, "dst"},
                   {&src0.v_, rp.src0BlkStride, rp.src0RepStride, sizeof(T), UB_R, "src0"},
                   {src1 ? &src1->v_ : &src0.v_, rp.src1BlkStride, rp.src1RepStride, sizeof(T), UB_R, "src1"}};
    Opnd ops2[2] = {ops[0], ops[1]};
    size_t k = 0;
    auto pick = [&](uint8_t** p) {
        uint64_t r = m.counter ? k / L : k / lanes.size(), i = m.counter ? k % L : (uint64_t)lanes[k % lanes.size()];
        ++k;
        bool take0 = sel_bit(bits, mode, r * L + i, L);
        if (take0) std::memcpy(p[0], p[1], sizeof(T));
        else if (scalar) std::memcpy(p[0], scalar, sizeof(T));
        else std::memcpy(p[0], p[2], sizeof(T));
    };
    if (src1) mask_walk<3>(c, ops, sizeof(T), m, repeatTime, loc, pick);
    else mask_walk<2>(c, ops2, sizeof(T), m, repeatTime, loc, pick);
    trace_vec(c, "Select", dtype_name_v<T>, dtype_name_v<T>, -1, repeatTime);
}
// The selMask bytes a mask form reads: one repeat's bits in mode 0, repeatTime repeats' bits otherwise.
template <typename T, typename U>
inline const uint8_t* select_mask_bits(ascemu::Core* c, const LocalTensor<U>& selMask, SELMODE mode,
                                       uint8_t repeatTime, const std::source_location& loc) {
    const uint32_t L = 256 / sizeof(T);
    uint64_t nbits = mode == SELMODE::VSEL_CMPMASK_SPR ? L : (uint64_t)std::max<uint32_t>(repeatTime, 1) * L;
    return ascemu::ub_operand(c, selMask.v_, nbits / 8, ascemu::UB_R, loc, "selMask", 32);
}
}  // namespace ascemu_detail

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Select", loc);
    if (!ascemu_detail::select_prepare<T, U>(c, selMode, loc)) return;
    const T* b = (const T*)ub_operand(c, src1.v_, (size_t)count * sizeof(T), UB_R, loc, "src1");
    ascemu_detail::select_count(dst, selMask, src0, selMode, count, loc, [b] { return b; });
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint32_t count, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Select", loc);
    if (!ascemu_detail::select_prepare<T, U>(c, SELMODE::VSEL_TENSOR_SCALAR_MODE, loc)) return;
    (void)selMode;
    std::vector<T> rep(count, src1);
    const T* b = rep.data();
    ascemu_detail::select_count(dst, selMask, src0, SELMODE::VSEL_TENSOR_SCALAR_MODE, count, loc, [b] { return b; });
}
#define ASCEMU_SELECT_MASK(MASK_T)                                                                                   \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,         \
                       const LocalTensor<T>& src1, SELMODE selMode, MASK_T mask, uint8_t repeatTime,                 \
                       const BinaryRepeatParams& repeatParams, ASCEMU_SL) {                                          \
        using namespace ascemu;                                                                                      \
        Core* c = api_enter("Select", loc);                                                                          \
        if (!ascemu_detail::select_prepare<T, U>(c, selMode, loc)) return;                                           \
        const uint8_t* bits = ascemu_detail::select_mask_bits<T>(c, selMask, selMode, repeatTime, loc);              \
        if (!bits) return;                                                                                           \
        ascemu_detail::select_mask(dst, bits, selMode, src0, &src1, (const T*)nullptr,                               \
                                   mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime, repeatParams, loc);     \
    }
ASCEMU_SELECT_MASK(uint64_t*)
ASCEMU_SELECT_MASK(uint64_t)
#undef ASCEMU_SELECT_MASK
#define ASCEMU_SELECT_SCALAR_MASK(MASK_T)                                                                            \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1, \
                       SELMODE selMode, MASK_T mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams,     \
                       ASCEMU_SL) {                                                                                  \
        using namespace ascemu;                                                                                      \
        Core* c = api_enter("Select", loc);                                                                          \
        (void)selMode;                                                                                               \
        const SELMODE m1 = SELMODE::VSEL_TENSOR_SCALAR_MODE;                                                         \
        if (!ascemu_detail::select_prepare<T, U>(c, m1, loc)) return;                                                \
        const uint8_t* bits = ascemu_detail::select_mask_bits<T>(c, selMask, m1, repeatTime, loc);                   \
        if (!bits) return;                                                                                           \
        ascemu_detail::select_mask(dst, bits, m1, src0, (const LocalTensor<T>*)nullptr, &src1, mask_of(c, mask, 256 / sizeof(T), isSetMask), \
                                   repeatTime, repeatParams, loc);                                                   \
    }
ASCEMU_SELECT_SCALAR_MASK(uint64_t*)
ASCEMU_SELECT_SCALAR_MASK(uint64_t)
#undef ASCEMU_SELECT_SCALAR_MASK
// No mask argument: the mask register (SetVectorMask) selects the lanes; mode 0 takes its bits from CMPMASK
// (Compare with the result in the register, or SetCmpMask).  Mode 2 would need CMPMASK to hold selMask's address
// (set by SetCmpMask of an address), which ascemu does not model.
template <typename T, SELMODE selMode>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   uint8_t repeatTime, const BinaryRepeatParams& repeatParams, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Select", loc);
    if constexpr (selMode != SELMODE::VSEL_CMPMASK_SPR) {
        unsupported_api(loc, "Select<T, mode> without selMask", " in modes 1 and 2 (not emulated)");
        return;
    } else {
        if (!dtype_check<T>(one_of_v<T, half, float>, c, loc, "Select")) return;
        uint64_t reg[2] = {c->cmpmask[0], c->cmpmask[1]};
        ascemu_detail::select_mask(dst, (const uint8_t*)reg, selMode, src0, &src1, (const T*)nullptr,
                                   mask_from_scalar(c, 0, 256 / sizeof(T), false), repeatTime, repeatParams, loc);
    }
}
// Mode 1 with the scalar already in CMPMASK (SetCmpMask of a block holding it) and the mask register's lanes.
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   uint8_t repeatTime, const BinaryRepeatParams& repeatParams, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Select", loc);
    const SELMODE m1 = SELMODE::VSEL_TENSOR_SCALAR_MODE;
    if (!ascemu_detail::select_prepare<T, U>(c, m1, loc)) return;
    const uint8_t* bits = ascemu_detail::select_mask_bits<T>(c, selMask, m1, repeatTime, loc);
    if (!bits) return;
    T scalar;
    std::memcpy(&scalar, c->cmpmask, sizeof(T));
    ascemu_detail::select_mask(dst, bits, m1, src0, (const LocalTensor<T>*)nullptr, &scalar, mask_from_scalar(c, 0, 256 / sizeof(T), false),
                               repeatTime, repeatParams, loc);
}

// ------------------------------------------------------------------------------------------------ operators
// The whole-tensor forms of CANN's symbol overloads (impl/basic_api/kernel_operator_symbol_override_impl.h):
// `dst = src0 + src1` is Add over dst.GetSize() elements, `dst = src0 < src1` is Compare over src0.GetSize();
// And/Or of 32-bit types run as their 16-bit halves.  The call site is the line of the right operand.
namespace ascemu_detail {
template <class T>
struct Operand {  // a right operand that remembers where the expression was written
    Operand(const LocalTensor<T>& t, const std::source_location l = std::source_location::current()) : t(t), loc(l) {}
    const LocalTensor<T>& t;
    std::source_location loc;
};
enum class TensorOp { Add, Sub, Mul, Div, And, Or };
template <class T, TensorOp op>
struct BinaryExpr {
    LocalTensor<T> a, b;
    std::source_location loc;
    void ascemu_assign_to(const LocalTensor<T>& dst) const {
        const int32_t n = (int32_t)dst.GetSize();
        if constexpr (op == TensorOp::Add) Add(dst, a, b, n, loc);
        else if constexpr (op == TensorOp::Sub) Sub(dst, a, b, n, loc);
        else if constexpr (op == TensorOp::Mul) Mul(dst, a, b, n, loc);
        else if constexpr (op == TensorOp::Div) Div(dst, a, b, n, loc);
        else if constexpr (sizeof(T) == 4) {
            using H = std::conditional_t<std::is_signed_v<T>, int16_t, uint16_t>;
            auto d = dst.template ReinterpretCast<H>();
            auto x = a.template ReinterpretCast<H>();
            auto y = b.template ReinterpretCast<H>();
            if constexpr (op == TensorOp::And) And(d, x, y, 2 * n, loc);
            else Or(d, x, y, 2 * n, loc);
        } else if constexpr (op == TensorOp::And) And(dst, a, b, n, loc);
        else Or(dst, a, b, n, loc);
    }
};
template <class T>
struct CompareExpr {
    LocalTensor<T> a, b;
    CMPMODE mode;
    std::source_location loc;
    template <class U>
    void ascemu_assign_to(const LocalTensor<U>& dst) const {
        Compare(dst, a, b, mode, a.GetSize(), loc);
    }
};
}  // namespace ascemu_detail

#define ASCEMU_TENSOR_BINOP(SYM, OP)                                                                         \
    template <class T>                                                                                       \
    inline ascemu_detail::BinaryExpr<T, ascemu_detail::TensorOp::OP> operator SYM(                           \
        const LocalTensor<T>& a, const ascemu_detail::Operand<std::type_identity_t<T>>& b) {                 \
        return {a, b.t, b.loc};                                                                              \
    }
ASCEMU_TENSOR_BINOP(+, Add)
ASCEMU_TENSOR_BINOP(-, Sub)
ASCEMU_TENSOR_BINOP(*, Mul)
ASCEMU_TENSOR_BINOP(/, Div)
ASCEMU_TENSOR_BINOP(&, And)
ASCEMU_TENSOR_BINOP(|, Or)
#undef ASCEMU_TENSOR_BINOP
#define ASCEMU_TENSOR_CMPOP(SYM, MODE)                                                                                  \
    template <class T>                                                                                                  \
    inline ascemu_detail::CompareExpr<T> operator SYM(const LocalTensor<T>& a,                                          \
                                                      const ascemu_detail::Operand<std::type_identity_t<T>>& b) {       \
        return {a, b.t, CMPMODE::MODE, b.loc};                                                                          \
    }
ASCEMU_TENSOR_CMPOP(<, LT)
ASCEMU_TENSOR_CMPOP(>, GT)
ASCEMU_TENSOR_CMPOP(==, EQ)
ASCEMU_TENSOR_CMPOP(!=, NE)
ASCEMU_TENSOR_CMPOP(<=, LE)
ASCEMU_TENSOR_CMPOP(>=, GE)
#undef ASCEMU_TENSOR_CMPOP

}  // namespace AscendC

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/vector_impl.h"
#endif
