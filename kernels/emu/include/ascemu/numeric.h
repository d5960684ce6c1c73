// ascemu/numeric.h — pure value semantics of the Ascend C vector unit (spec §4).
//
// Everything here is a pure function: no global state, no I/O, no diagnostics.  Callers (the API
// wrappers) check cast_supported() first, turn CastFlags into diagnostics, and pick the
// OverflowMode from the platform (default_overflow_mode) or the run options.
//
// Contents
//   cast_supported<D,S>(platform, mode)        §4.4 table
//   cast_value<D,S>(x, mode, ovf, flags)       §4.3 rounding on the exact value, then §4.2
//   cast_array<D,S>(dst, src, n, ...)          bulk cast, bit-identical to cast_value, SIMD where hot
//   deq_value / deq_array                      int32 -> half via SetDeqScale (§4.6)
//   round_result<T>(double, ovf), wrap_result  float ops round once then §4.2; int ops wrap (§4.1)
//   add/sub/mul/div/max/min/abs/relu_value     §4.1 element ops built on the two above
//   exp/ln/sqrt/reciprocal/rsqrt_value, ftz    §4.1 transcendental ops
//   repeat_tree_sum, combine_partials, reduce_sum, repeat_max, reduce_max, tmp-size formulas  §4.7
//
// Conventions: "exact value" means the source value held without rounding (long double holds
// every int64/uint64/half/float/double exactly).  The FP environment is assumed default
// (round-to-nearest); nothing here changes it.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "ascemu/fast.h"
#include "ascemu/types.h"

// AVX2/F16C kernels on x86 (chosen at run time by CPUID); -DASCEMU_NO_SIMD forces the portable path.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(ASCEMU_NO_SIMD)
#include <immintrin.h>
#define ASCEMU_NUM_X86 1
#else
#define ASCEMU_NUM_X86 0
#endif

namespace ascemu::num {

using AscendC::RoundMode;

// ------------------------------------------------------------------------------------------
// Type traits
// ------------------------------------------------------------------------------------------
template <class T>
inline constexpr bool is_fp_v = std::is_floating_point_v<T> || std::is_same_v<T, half> ||
                                std::is_same_v<T, bfloat16_t>;
template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T> struct fp_format;  // P = significand bits incl. hidden, EMIN = min normal exponent
template <> struct fp_format<half>       { static constexpr int P = 11, EMIN = -14;    static constexpr long double MAX = 65504.0L; };
template <> struct fp_format<bfloat16_t> { static constexpr int P = 8,  EMIN = -126;   static constexpr long double MAX = 0x1.fep127L; };
template <> struct fp_format<float>      { static constexpr int P = 24, EMIN = -126;   static constexpr long double MAX = FLT_MAX; };
template <> struct fp_format<double>     { static constexpr int P = 53, EMIN = -1022;  static constexpr long double MAX = DBL_MAX; };

// ------------------------------------------------------------------------------------------
// §4.4 Cast support table
// ------------------------------------------------------------------------------------------
enum class CastStatus { Ok, UnsupportedPair, UnsupportedMode };

namespace detail {
// Bit set over RoundMode values.
constexpr unsigned bit(RoundMode m) { return 1u << int(m); }
constexpr unsigned N = bit(RoundMode::CAST_NONE), R = bit(RoundMode::CAST_RINT),
                   F = bit(RoundMode::CAST_FLOOR), C = bit(RoundMode::CAST_CEIL),
                   A = bit(RoundMode::CAST_ROUND), Z = bit(RoundMode::CAST_TRUNC),
                   O = bit(RoundMode::CAST_ODD), RFCAZ = R | F | C | A | Z, ANY = 0xffu;

// Allowed-mode set for (D,S) on a platform; 0 = pair not supported.
template <class D, class S>
constexpr unsigned cast_modes(Platform p) {
    using std::is_same_v;
    const bool p310 = p == Platform::P310;
    if constexpr (is_same_v<S, half>) {
        if constexpr (is_same_v<D, int32_t>) return RFCAZ;               // NONE rejected (§4.3)
        else if constexpr (is_same_v<D, int16_t>) return p310 ? R : RFCAZ;
        else if constexpr (is_same_v<D, float>) return N;
        else if constexpr (is_same_v<D, int8_t> || is_same_v<D, uint8_t>) return p310 ? (F | C | A | Z | N) : (RFCAZ | N);
        else if constexpr (is_same_v<D, AscendC::int4b_t>) return p310 ? N : (RFCAZ | N);  // vconv_f162s4{,r,f,c,a,z}
        else return 0;
    } else if constexpr (is_same_v<S, float>) {
        if constexpr (is_same_v<D, int32_t>) return RFCAZ;
        else if constexpr (is_same_v<D, half>) return p310 ? (N | O) : (RFCAZ | O | N);
        else if constexpr (is_same_v<D, float> || is_same_v<D, int16_t> || is_same_v<D, int64_t> ||
                           is_same_v<D, bfloat16_t>) return p310 ? 0 : RFCAZ;
        else return 0;
    } else if constexpr (is_same_v<S, bfloat16_t>) {
        if constexpr (is_same_v<D, float>) return p310 ? 0 : N;
        else if constexpr (is_same_v<D, int32_t>) return p310 ? 0 : RFCAZ;
        else return 0;
    } else if constexpr (is_same_v<S, uint8_t> || is_same_v<S, int8_t>) {
        return is_same_v<D, half> ? N : 0;
    } else if constexpr (is_same_v<S, AscendC::int4b_t>) {
        return is_same_v<D, half> && !p310 ? N : 0;  // vconv_s42f16: dav_c220 only
    } else if constexpr (is_same_v<S, int16_t>) {
        if constexpr (is_same_v<D, half>) return p310 ? N : (RFCAZ | N);
        else if constexpr (is_same_v<D, float>) return p310 ? 0 : N;
        else return 0;
    } else if constexpr (is_same_v<S, int32_t>) {
        if constexpr (is_same_v<D, float>) return p310 ? N : (RFCAZ | N);
        else if constexpr (is_same_v<D, int16_t>) return N;
        else if constexpr (is_same_v<D, half>) return ANY;                 // deq: mode ignored (§4.6)
        else if constexpr (is_same_v<D, int64_t>) return p310 ? 0 : N;
        else return 0;
    } else if constexpr (is_same_v<S, int64_t>) {
        if constexpr (is_same_v<D, int32_t>) return p310 ? 0 : N;
        else if constexpr (is_same_v<D, float>) return p310 ? 0 : RFCAZ;
        else return 0;
    } else {
        return 0;
    }
}
}  // namespace detail

// Whether CANN has any Cast implementation for (D <- S) on the platform: the CastIntrinsicsImpl overloads of
// dav_m200 / dav_c220 kernel_operator_vec_vconv_impl.h.  A pair without one does not compile
// with CANN; a pair with one can still be refused at run time (its overload reports "not supported").
template <class T, class... A>
inline constexpr bool is_any_v = (std::is_same_v<T, A> || ...);

template <class D, class S>
constexpr bool cast_has_impl(Platform p) {
    using std::is_same_v;
    constexpr bool common =
        (is_same_v<S, int32_t> && is_any_v<D, half, float, int16_t, int64_t>) ||
        (is_same_v<S, half> && is_any_v<D, float, int32_t, int8_t, uint8_t, int16_t>) ||
        (is_same_v<S, float> && is_any_v<D, half, int32_t, float, int64_t, int16_t>) ||
        (is_same_v<S, int16_t> && is_any_v<D, uint8_t, int8_t, half, float>) ||
        (is_same_v<S, int8_t> && is_same_v<D, half>) || (is_same_v<S, uint8_t> && is_same_v<D, half>) ||
        (is_same_v<S, int64_t> && is_any_v<D, float, int32_t>);
    constexpr bool bf16 = (is_same_v<S, float> && is_same_v<D, bfloat16_t>) ||
                          (is_same_v<S, bfloat16_t> && is_any_v<D, float, int32_t>);
    constexpr bool int4_out = is_same_v<S, half> && is_same_v<D, AscendC::int4b_t>;  // both chips
    constexpr bool int4_in = is_same_v<S, AscendC::int4b_t> && is_same_v<D, half>;   // 910B only
    return common || int4_out || (p == Platform::P910B && (bf16 || int4_in));
}

template <class D, class S>
constexpr CastStatus cast_supported(Platform p, RoundMode m) {
    unsigned modes = detail::cast_modes<D, S>(p);
    if (modes == 0) return CastStatus::UnsupportedPair;
    if (int(m) < 0 || int(m) > 7 || !(modes & detail::bit(m))) return CastStatus::UnsupportedMode;
    return CastStatus::Ok;
}

// ------------------------------------------------------------------------------------------
// §4.3 rounding on exact values
// ------------------------------------------------------------------------------------------
struct CastFlags {
    bool negative_to_unsigned = false;  // -> CAST_NEGATIVE_TO_UNSIGNED (warning)
};

namespace detail {

template <class S>
inline long double exact(S x) {
    if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bfloat16_t>) return float(x);
    else return (long double)x;
}

// y (finite) rounded to an integral value per mode.  NONE/RINT (and HYBRID, never supported)
// are ties-to-even, written out so the result does not depend on the FP environment.
inline long double rnd_integral(long double y, RoundMode m) {
    switch (m) {
        case RoundMode::CAST_FLOOR: return std::floor(y);
        case RoundMode::CAST_CEIL: return std::ceil(y);
        case RoundMode::CAST_TRUNC: return std::trunc(y);
        case RoundMode::CAST_ROUND: return std::round(y);  // half away from zero
        case RoundMode::CAST_ODD: {                         // von Neumann: sticky LSB
            long double t = std::trunc(y);
            if (t != y && std::fmod(t, 2.0L) == 0) t += y < 0 ? -1 : 1;
            return t;
        }
        default: {
            long double f = std::floor(y), d = y - f;
            if (d > 0.5L || (d == 0.5L && std::fmod(f, 2.0L) != 0)) f += 1;
            return f;
        }
    }
}

// Finite v rounded to D's precision (§4.3: ulp = 2^(max(floor(log2|v|), emin) - p + 1)), with an
// unbounded exponent; the caller applies overflow.  Zero results keep v's sign (IEEE).
template <class D>
inline long double round_to_fp(long double v, RoundMode m) {
    if (v == 0) return v;
    int e;
    std::frexp(v, &e);
    int uexp = std::max(e - 1, fp_format<D>::EMIN) - (fp_format<D>::P - 1);
    return std::copysign(std::ldexp(rnd_integral(std::ldexp(v, -uexp), m), uexp), v);
}

// §4.2 for a finite result beyond MAX.  Saturation: ±MAX.  InfNan: IEEE 754 overflow, i.e. modes
// that round toward zero (TRUNC, ODD, FLOOR of a positive, CEIL of a negative) give ±MAX,
// the others ±inf.  (This is also what x86 F16C does for float->half.)
template <class D>
inline long double fp_overflow(bool neg, RoundMode m, OverflowMode om) {
    bool to_max = om == OverflowMode::Saturation || m == RoundMode::CAST_TRUNC || m == RoundMode::CAST_ODD ||
                  (m == RoundMode::CAST_FLOOR && !neg) || (m == RoundMode::CAST_CEIL && neg);
    long double a = to_max ? fp_format<D>::MAX : (long double)INFINITY;
    return neg ? -a : a;
}

// r is representable in D (or ±inf): convert without further rounding.
template <class D>
inline D fp_from_exact(long double r) {
    if constexpr (std::is_same_v<D, double>) return double(r);
    else return D(float(r));  // exact in float, then exact in half/bf16
}

template <class D>
inline D fp_max() { return fp_from_exact<D>(fp_format<D>::MAX); }

}  // namespace detail

// One element of Cast<D,S>(…, mode).  Does not check cast_supported().  int32->half here is a
// plain rounding cast; the hardware path is deq_value (SetDeqScale).
template <class D, class S>
D cast_value(S x, RoundMode m, OverflowMode om, CastFlags& fl) {
    static_assert((is_fp_v<D> || is_int_v<D>) && (is_fp_v<S> || is_int_v<S>), "cast_value: unsupported type");
    if constexpr (is_fp_v<D>) {
        if constexpr (is_fp_v<S>) {
            if (x != x) return om == OverflowMode::Saturation ? D() : D(float(x));  // NaN -> +0 / NaN
        }
        long double v = detail::exact(x);
        if (std::isinf(v))  // an inf input is exact: ±MAX under saturation, ±inf otherwise
            return om == OverflowMode::Saturation ? (v < 0 ? D(-detail::fp_max<D>()) : detail::fp_max<D>())
                                                  : detail::fp_from_exact<D>(v);
        long double r;
        if constexpr (std::is_same_v<D, S>) r = std::copysign(detail::rnd_integral(v, m), v);  // float->float: integral
        else r = detail::round_to_fp<D>(v, m);
        if (std::fabs(r) > fp_format<D>::MAX) r = detail::fp_overflow<D>(r < 0, m, om);
        return detail::fp_from_exact<D>(r);
    } else {
        if constexpr (is_fp_v<S>) {
            if (x != x) return D(0);  // NaN -> 0 in every mode (aclnnCast rule)
        }
        long double v = detail::exact(x);
        if constexpr (std::is_unsigned_v<D>) {
            if (v < 0) { fl.negative_to_unsigned = true; return D(0); }
        }
        long double r = is_fp_v<S> && std::isfinite(v) ? detail::rnd_integral(v, m) : v;
        constexpr D lo = std::numeric_limits<D>::lowest(), hi = std::numeric_limits<D>::max();
        if (r <= (long double)lo) return lo;  // saturate in every mode
        if (r >= (long double)hi) return hi;
        return D(r);
    }
}

// half -> int4b_t: the value rounded to an integer per mode (CAST_NONE as RINT), saturated to [-8, 7] ([DOC] Cast,
// precision conversion rules: overflow saturates), NaN -> 0 (as every float -> integer Cast here).  The 4-bit result
// is returned in an int8_t; packing two to a byte is the caller's.
inline int8_t cast_half_to_int4(half x, RoundMode m) {
    const float f = float(x);
    if (f != f) return 0;
    long double r = std::isfinite(f) ? detail::rnd_integral((long double)f, m) : (long double)f;
    return r <= -8 ? int8_t(-8) : r >= 7 ? int8_t(7) : int8_t(r);
}

// ------------------------------------------------------------------------------------------
// §4.1 float-op result rounding, integer wrap
// ------------------------------------------------------------------------------------------

// A half/bf16/float/double op result computed exactly (or correctly rounded) in double, rounded
// once to T with RNE, then §4.2 (Saturation: ±inf -> ±MAX, NaN -> +0).
template <class T>
inline T round_result(double exact, OverflowMode om) {
    static_assert(is_fp_v<T>, "round_result is for float types; integer ops use wrap_result");
    T r;
    if constexpr (std::is_same_v<T, half>) r = half::from_bits(ascemu::detail::f64_to_f16_bits(exact));
    else if constexpr (std::is_same_v<T, bfloat16_t>) r = bfloat16_t::from_bits(ascemu::detail::f64_to_bf16_bits(exact));
    else r = T(exact);
    if (om == OverflowMode::Saturation) {
        float f = float(r);
        if (f != f) return T();
        if (std::isinf(f)) return f < 0 ? T(-detail::fp_max<T>()) : detail::fp_max<T>();
    }
    return r;
}

// Integer Add/Sub/Mul/Adds/Muls wrap modulo 2^bits [UNVERIFIED] (§4.1).
template <class T>
constexpr T wrap_result(long long v) {
    static_assert(is_int_v<T>);
    return T(std::make_unsigned_t<T>((unsigned long long)v));
}

// Flush a subnormal to a zero of the same sign (ftz option, §4.1).
template <class T>
inline T ftz(T x) {
    if constexpr (std::is_same_v<T, half>) return (x.bits & 0x7c00u) ? x : half::from_bits(x.bits & 0x8000u);
    else if constexpr (std::is_same_v<T, bfloat16_t>) return (x.bits & 0x7f80u) ? x : bfloat16_t::from_bits(x.bits & 0x8000u);
    else return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(T(0), x) : x;
}

// Element ops (§4.1).  Float types: exact/correctly rounded double result, rounded once, §4.2.
// Integer types: wrap.  Max/Min with a NaN operand give NaN [CHOICE] (then §4.2).
// float fast path: IEEE float + - * / are correctly rounded (RNE), so a finite float result equals the
// double result rounded once (53 >= 2*24+2); only a non-finite one needs the §4.2 mode rule.
template <class T, class Op> inline T fp_binary(T a, T b, OverflowMode om, Op op) {
    if constexpr (std::is_same_v<T, float>) {
        float r = op(a, b);
        if (__builtin_expect(std::isfinite(r), 1)) return r;
    }
    return round_result<T>(op(double(a), double(b)), om);
}
template <class T> inline T add_value(T a, T b, OverflowMode om) {
    if constexpr (is_fp_v<T>) return fp_binary(a, b, om, [](auto x, auto y) { return x + y; });
    else return wrap_result<T>((long long)a + (long long)b);
}
template <class T> inline T sub_value(T a, T b, OverflowMode om) {
    if constexpr (is_fp_v<T>) return fp_binary(a, b, om, [](auto x, auto y) { return x - y; });
    else return wrap_result<T>((long long)a - (long long)b);
}
template <class T> inline T mul_value(T a, T b, OverflowMode om) {
    if constexpr (is_fp_v<T>) return fp_binary(a, b, om, [](auto x, auto y) { return x * y; });
    else return wrap_result<T>((long long)a * (long long)b);
}
template <class T> inline T div_value(T a, T b, OverflowMode om) {
    static_assert(is_fp_v<T>, "Div: half/float only");
    return fp_binary(a, b, om, [](auto x, auto y) { return x / y; });
}
template <class T> inline T max_value(T a, T b, OverflowMode om) {
    if constexpr (is_fp_v<T>) {
        double x = double(a), y = double(b);
        return round_result<T>(x != x || y != y ? NAN : (y > x ? y : x), om);
    } else return a < b ? b : a;
}
template <class T> inline T min_value(T a, T b, OverflowMode om) {
    if constexpr (is_fp_v<T>) {
        double x = double(a), y = double(b);
        return round_result<T>(x != x || y != y ? NAN : (y < x ? y : x), om);
    } else return b < a ? b : a;
}
template <class T> inline T abs_value(T a, OverflowMode om) {
    if constexpr (is_fp_v<T>) return round_result<T>(std::fabs(double(a)), om);
    else return a < 0 ? wrap_result<T>(-(long long)a) : a;
}
template <class T> inline T relu_value(T a, OverflowMode om) {
    if constexpr (is_fp_v<T>) { double x = double(a); return round_result<T>(x > 0 || x != x ? x : 0.0, om); }
    else return a > 0 ? a : T(0);
}

// Unary transcendental ops: glibc double result rounded to T (§4.1), optional ftz of the input
// and the output.  Hardware ULP is unpublished [UNVERIFIED].
namespace detail {
template <class T, class Fn>
inline T unary(T x, OverflowMode om, bool flush, Fn fn) {
    static_assert(is_fp_v<T>);
    if (flush) x = num::ftz(x);
    T r = round_result<T>(fn(double(x)), om);
    return flush ? num::ftz(r) : r;
}
}  // namespace detail
template <class T> inline T exp_value(T x, OverflowMode om = OverflowMode::InfNan, bool flush = false) {
    return detail::unary(x, om, flush, [](double v) { return std::exp(v); });
}
template <class T> inline T ln_value(T x, OverflowMode om = OverflowMode::InfNan, bool flush = false) {
    return detail::unary(x, om, flush, [](double v) { return std::log(v); });
}
template <class T> inline T sqrt_value(T x, OverflowMode om = OverflowMode::InfNan, bool flush = false) {
    return detail::unary(x, om, flush, [](double v) { return std::sqrt(v); });
}
template <class T> inline T reciprocal_value(T x, OverflowMode om = OverflowMode::InfNan, bool flush = false) {
    return detail::unary(x, om, flush, [](double v) { return 1.0 / v; });
}
template <class T> inline T rsqrt_value(T x, OverflowMode om = OverflowMode::InfNan, bool flush = false) {
    return detail::unary(x, om, flush, [](double v) { return 1.0 / std::sqrt(v); });
}

// §4.6 int32 -> half through SetDeqScale: RNE((double)x * scale) then §4.2.  The product is
// exact in double (31 + 11 significant bits).
inline half deq_value(int32_t x, half scale, OverflowMode om) {
    return round_result<half>(double(x) * double(float(scale)), om);
}
inline void deq_array(half* dst, const int32_t* src, size_t n, half scale, OverflowMode om) {
    for (size_t i = 0; i < n; ++i) dst[i] = deq_value(src[i], scale, om);
}

// ------------------------------------------------------------------------------------------
// Bulk cast.  Three layers, all bit-identical (tested): cast_value (long double reference),
// scalar fast paths (double / bit arithmetic), and AVX2+F16C kernels for the hot pairs.
// ------------------------------------------------------------------------------------------
namespace detail {

template <class D> using bits_t = std::conditional_t<sizeof(D) == 2, uint16_t, uint32_t>;
template <class D> inline bits_t<D> to_bits(D x) {
    if constexpr (sizeof(D) == 2) return x.bits;
    else return std::bit_cast<uint32_t>(x);
}
template <class D> inline D from_bits(bits_t<D> b) {
    if constexpr (sizeof(D) == 2) return D::from_bits(b);
    else return std::bit_cast<float>(b);
}
template <class D> inline bits_t<D> rne_bits(double e) {
    if constexpr (std::is_same_v<D, half>) return ascemu::detail::f64_to_f16_bits(e);
    else if constexpr (std::is_same_v<D, bfloat16_t>) return ascemu::detail::f64_to_bf16_bits(e);
    else return std::bit_cast<uint32_t>(float(e));
}
template <class D> constexpr bits_t<D> sign_bit() { return bits_t<D>(bits_t<D>(1) << (sizeof(D) * 8 - 1)); }
template <class D> constexpr bits_t<D> inf_bits() {
    if constexpr (std::is_same_v<D, half>) return 0x7c00;
    else if constexpr (std::is_same_v<D, bfloat16_t>) return 0x7f80;
    else return 0x7f800000u;
}
// Adjacent representable values (bit patterns are sign-magnitude; ±0 handled).
template <class D> inline bits_t<D> step_down(bits_t<D> b) {
    constexpr bits_t<D> S = sign_bit<D>();
    if (b & S) return bits_t<D>(b + 1);
    return b == 0 ? bits_t<D>(S | 1) : bits_t<D>(b - 1);
}
template <class D> inline bits_t<D> step_up(bits_t<D> b) {
    constexpr bits_t<D> S = sign_bit<D>();
    if (!(b & S)) return bits_t<D>(b + 1);
    return b == S ? bits_t<D>(1) : bits_t<D>(b - 1);
}
// Saturation fix-up on a float-type bit pattern: inf -> ±MAX, NaN -> +0.
template <class D> inline bits_t<D> sat_bits(bits_t<D> b) {
    bits_t<D> a = bits_t<D>(b & ~sign_bit<D>());
    if (a > inf_bits<D>()) return 0;
    if (a == inf_bits<D>()) return bits_t<D>(b - 1);
    return b;
}

// Float target from a value e that is exact in double (never NaN).  RNE first, then the other
// modes pick the right neighbour of the RNE result.
template <class D>
inline D fp_from_double(double e, RoundMode m, OverflowMode om) {
    bits_t<D> b = rne_bits<D>(e);
    if (m != RoundMode::CAST_NONE && m != RoundMode::CAST_RINT && m != RoundMode::CAST_HYBRID) {
        double rd = double(float(from_bits<D>(b)));
        if (rd != e) {
            bits_t<D> lo, hi;
            if (rd > e) { hi = b; lo = step_down<D>(b); } else { lo = b; hi = step_up<D>(b); }
            switch (m) {
                case RoundMode::CAST_FLOOR: b = lo; break;
                case RoundMode::CAST_CEIL: b = hi; break;
                case RoundMode::CAST_TRUNC: b = e > 0 ? lo : hi; break;
                case RoundMode::CAST_ODD: b = (lo & 1) ? lo : hi; break;
                case RoundMode::CAST_ROUND:  // differs from RNE only on exact ties
                    if (e - double(float(from_bits<D>(lo))) == double(float(from_bits<D>(hi))) - e) b = e > 0 ? hi : lo;
                    break;
                default: break;
            }
        }
    }
    return from_bits<D>(om == OverflowMode::Saturation ? sat_bits<D>(b) : b);
}

inline double rnd_double(double y, RoundMode m) {
    switch (m) {
        case RoundMode::CAST_FLOOR: return std::floor(y);
        case RoundMode::CAST_CEIL: return std::ceil(y);
        case RoundMode::CAST_TRUNC: return std::trunc(y);
        case RoundMode::CAST_ROUND: return std::round(y);
        case RoundMode::CAST_ODD: { double t = std::trunc(y); return (t != y && std::fmod(t, 2.0) == 0) ? t + (y < 0 ? -1 : 1) : t; }
        default: return std::nearbyint(y);  // default FP environment: ties to even
    }
}

// Integer target from a double-exact source value.
template <class D>
inline D int_from_double(double v, RoundMode m, CastFlags& fl) {
    if (v != v) return D(0);
    if constexpr (std::is_unsigned_v<D>) {
        if (v < 0) { fl.negative_to_unsigned = true; return D(0); }
    }
    double r = rnd_double(v, m);
    constexpr D lo = std::numeric_limits<D>::lowest(), hi = std::numeric_limits<D>::max();
    if (r <= double(lo)) return lo;
    if (r >= double(hi)) return hi;
    return D(r);
}

template <class S>
inline constexpr bool exact_in_double_v = is_fp_v<S> ? !std::is_same_v<S, long double> : sizeof(S) <= 4;

template <class D, class S>
void cast_scalar(D* dst, const S* src, size_t n, RoundMode m, OverflowMode om, CastFlags& fl) {
    const bool sat = om == OverflowMode::Saturation;
    if constexpr (std::is_same_v<D, half> && std::is_same_v<S, float>) {
        if (m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT) {
            for (size_t i = 0; i < n; ++i) {
                uint16_t b = ascemu::detail::f32_to_f16_bits(src[i]);
                dst[i] = half::from_bits(sat ? sat_bits<half>(b) : b);
            }
            return;
        }
    }
    if constexpr (std::is_same_v<D, float> && (std::is_same_v<S, half> || std::is_same_v<S, bfloat16_t>)) {
        for (size_t i = 0; i < n; ++i) {  // exact widening; only §4.2 applies
            uint32_t b = std::bit_cast<uint32_t>(float(src[i]));
            dst[i] = std::bit_cast<float>(sat ? sat_bits<float>(b) : b);
        }
        return;
    }
    if constexpr (is_fp_v<D> && !std::is_same_v<D, S> && !std::is_same_v<D, double> && exact_in_double_v<S>) {
        for (size_t i = 0; i < n; ++i) {
            if constexpr (is_fp_v<S>) {
                if (src[i] != src[i]) { dst[i] = sat ? D() : D(float(src[i])); continue; }
            }
            dst[i] = fp_from_double<D>(double(src[i]), m, om);
        }
    } else if constexpr (is_int_v<D> && is_fp_v<S> && exact_in_double_v<S>) {
        for (size_t i = 0; i < n; ++i) dst[i] = int_from_double<D>(double(src[i]), m, fl);
    } else {
        for (size_t i = 0; i < n; ++i) dst[i] = cast_value<D, S>(src[i], m, om, fl);
    }
}

}  // namespace detail

#if ASCEMU_NUM_X86
// AVX2 + F16C kernels.  Each returns how many leading elements it converted (a multiple of 8;
// 0 when it has no kernel for the pair/mode); the scalar layer finishes the tail.
namespace simd {
#define ASCEMU_SIMD __attribute__((target("avx2,f16c"))) inline

inline bool available() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c"); }

// §4.2 saturation on 8 half/bf16 lanes: inf -> ±MAX (bits - 1), NaN -> +0.
ASCEMU_SIMD __m128i sat16(__m128i h, short inf) {
    __m128i a = _mm_and_si128(h, _mm_set1_epi16(0x7fff)), vinf = _mm_set1_epi16(inf);
    h = _mm_add_epi16(h, _mm_cmpeq_epi16(a, vinf));
    return _mm_andnot_si128(_mm_cmpgt_epi16(a, vinf), h);
}
ASCEMU_SIMD __m256 sat32(__m256 v) {
    __m256i b = _mm256_castps_si256(v), vinf = _mm256_set1_epi32(0x7f800000);
    __m256i a = _mm256_and_si256(b, _mm256_set1_epi32(0x7fffffff));
    b = _mm256_add_epi32(b, _mm256_cmpeq_epi32(a, vinf));
    return _mm256_castsi256_ps(_mm256_andnot_si256(_mm256_cmpgt_epi32(a, vinf), b));
}

// float -> half.  IMM: 0 RNE, 1 floor, 2 ceil, 3 trunc (F16C rounding; IEEE overflow).  ODD =
// truncate, then set the LSB where the result is inexact (von Neumann rounding).
template <int IMM, bool ODD, bool SAT>
ASCEMU_SIMD size_t f32_f16(uint16_t* dst, const float* src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(src + i);
        __m128i h = _mm256_cvtps_ph(v, IMM | _MM_FROUND_NO_EXC);
        if constexpr (ODD) {
            __m256 back = _mm256_cvtph_ps(h);
            __m256 inexact = _mm256_and_ps(_mm256_cmp_ps(back, v, _CMP_NEQ_UQ), _mm256_cmp_ps(v, v, _CMP_ORD_Q));
            __m256i m = _mm256_castps_si256(inexact);
            __m128i m16 = _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
            h = _mm_or_si128(h, _mm_and_si128(m16, _mm_set1_epi16(1)));
        }
        if constexpr (SAT) h = sat16(h, 0x7c00);
        _mm_storeu_si128((__m128i*)(dst + i), h);
    }
    return i;
}
template <bool SAT>
ASCEMU_SIMD size_t f16_f32(float* dst, const uint16_t* src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(src + i)));
        if constexpr (SAT) v = sat32(v);
        _mm256_storeu_ps(dst + i, v);
    }
    return i;
}
template <bool SAT>
ASCEMU_SIMD size_t bf16_f32(float* dst, const uint16_t* src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)(src + i))), 16);
        __m256 v = _mm256_castsi256_ps(w);
        if constexpr (SAT) v = sat32(v);
        _mm256_storeu_ps(dst + i, v);
    }
    return i;
}
template <bool SAT>  // float -> bf16, RNE only
ASCEMU_SIMD size_t f32_bf16(uint16_t* dst, const float* src, size_t n) {
    size_t i = 0;
    const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff);
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(src + i);
        __m256i x = _mm256_castps_si256(v);
        __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, bias),
                                                       _mm256_and_si256(_mm256_srli_epi32(x, 16), one)), 16);
        __m256i q = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
        r = _mm256_blendv_epi8(r, q, _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
        __m128i h = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        if constexpr (SAT) h = sat16(h, 0x7f80);
        _mm_storeu_si128((__m128i*)(dst + i), h);
    }
    return i;
}

// RM: 0 RNE, 1 floor, 2 ceil, 3 trunc, 4 half-away (trunc + |frac| >= 0.5).
template <int RM>
ASCEMU_SIMD __m256 round_ps(__m256 v) {
    if constexpr (RM < 4) {
        return _mm256_round_ps(v, RM | _MM_FROUND_NO_EXC);
    } else {
        __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        __m256 sgn = _mm256_and_ps(v, _mm256_set1_ps(-0.0f));
        __m256 ad = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(v, t));
        __m256 up = _mm256_and_ps(_mm256_cmp_ps(ad, _mm256_set1_ps(0.5f), _CMP_GE_OQ), _mm256_or_ps(sgn, _mm256_set1_ps(1.0f)));
        return _mm256_add_ps(t, up);
    }
}
template <class S>
ASCEMU_SIMD __m256 load8(const S* p) {
    if constexpr (std::is_same_v<S, float>) return _mm256_loadu_ps(p);
    else return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p));  // half
}
// half/float -> int32/int16/int8/uint8: round, saturate, NaN -> 0, negative -> unsigned flagged.
template <class D, class S, int RM>
ASCEMU_SIMD size_t fp_int(D* dst, const S* src, size_t n, CastFlags& fl) {
    size_t i = 0;
    int neg = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = load8<S>(src + i);
        __m256 r = round_ps<RM>(v);
        __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        __m256i q;
        if constexpr (std::is_same_v<D, int32_t>) {
            q = _mm256_cvttps_epi32(r);  // out of range -> INT32_MIN; fix the positive side
            q = _mm256_add_epi32(q, _mm256_castps_si256(_mm256_cmp_ps(r, _mm256_set1_ps(2147483648.0f), _CMP_GE_OQ)));
        } else {
            float lo = float(std::numeric_limits<D>::lowest()), hi = float(std::numeric_limits<D>::max());
            r = _mm256_min_ps(_mm256_max_ps(r, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
            q = _mm256_cvttps_epi32(r);
        }
        q = _mm256_andnot_si256(nan, q);
        if constexpr (std::is_unsigned_v<D>) neg |= _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
        if constexpr (sizeof(D) == 4) {
            _mm256_storeu_si256((__m256i*)(dst + i), q);
        } else {
            __m128i p = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
            if constexpr (sizeof(D) == 2) _mm_storeu_si128((__m128i*)(dst + i), p);
            else if constexpr (std::is_signed_v<D>) _mm_storel_epi64((__m128i*)(dst + i), _mm_packs_epi16(p, p));
            else _mm_storel_epi64((__m128i*)(dst + i), _mm_packus_epi16(p, p));
        }
    }
    if (neg) fl.negative_to_unsigned = true;
    return i;
}
// int8/uint8/int16 -> half (IMM as in f32_f16; exact for 8-bit sources).
template <class S, int IMM>
ASCEMU_SIMD size_t int_f16(uint16_t* dst, const S* src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i w;
        if constexpr (std::is_same_v<S, int16_t>) w = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i*)(src + i)));
        else if constexpr (std::is_same_v<S, int8_t>) w = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)(src + i)));
        else w = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)(src + i)));
        _mm_storeu_si128((__m128i*)(dst + i), _mm256_cvtps_ph(_mm256_cvtepi32_ps(w), IMM | _MM_FROUND_NO_EXC));
    }
    return i;
}
ASCEMU_SIMD size_t i32_f32_rne(float* dst, const int32_t* src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i*)(src + i))));
    return i;
}
ASCEMU_SIMD size_t i32_i16(int16_t* dst, const int32_t* src, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_loadu_si256((const __m256i*)(src + i)), b = _mm256_loadu_si256((const __m256i*)(src + i + 8));
        _mm256_storeu_si256((__m256i*)(dst + i), _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
    }
    return i;
}
#undef ASCEMU_SIMD

// Runtime mode -> template instantiation.  RNE covers NONE and RINT.
inline int rm_index(RoundMode m) {
    switch (m) {
        case RoundMode::CAST_NONE: case RoundMode::CAST_RINT: return 0;
        case RoundMode::CAST_FLOOR: return 1;
        case RoundMode::CAST_CEIL: return 2;
        case RoundMode::CAST_TRUNC: return 3;
        case RoundMode::CAST_ROUND: return 4;
        default: return -1;
    }
}
template <class D, class S>
size_t fp_int_dispatch(D* d, const S* s, size_t n, RoundMode m, CastFlags& fl) {
    switch (rm_index(m)) {
        case 0: return fp_int<D, S, 0>(d, s, n, fl);
        case 1: return fp_int<D, S, 1>(d, s, n, fl);
        case 2: return fp_int<D, S, 2>(d, s, n, fl);
        case 3: return fp_int<D, S, 3>(d, s, n, fl);
        case 4: return fp_int<D, S, 4>(d, s, n, fl);
        default: return 0;
    }
}
template <class D, class S>
size_t cast(D* dst, const S* src, size_t n, RoundMode m, OverflowMode om, CastFlags& fl) {
    using std::is_same_v;
    const bool sat = om == OverflowMode::Saturation;
    auto* d16 = reinterpret_cast<uint16_t*>(dst);
    const auto* s16 = reinterpret_cast<const uint16_t*>(src);
    if constexpr (is_same_v<D, half> && is_same_v<S, float>) {
        if (m == RoundMode::CAST_ODD) return sat ? f32_f16<3, true, true>(d16, src, n) : f32_f16<3, true, false>(d16, src, n);
        switch (rm_index(m)) {
            case 0: return sat ? f32_f16<0, false, true>(d16, src, n) : f32_f16<0, false, false>(d16, src, n);
            case 1: return sat ? f32_f16<1, false, true>(d16, src, n) : f32_f16<1, false, false>(d16, src, n);
            case 2: return sat ? f32_f16<2, false, true>(d16, src, n) : f32_f16<2, false, false>(d16, src, n);
            case 3: return sat ? f32_f16<3, false, true>(d16, src, n) : f32_f16<3, false, false>(d16, src, n);
            default: return 0;
        }
    } else if constexpr (is_same_v<D, float> && is_same_v<S, half>) {
        return sat ? f16_f32<true>(dst, s16, n) : f16_f32<false>(dst, s16, n);
    } else if constexpr (is_same_v<D, float> && is_same_v<S, bfloat16_t>) {
        return sat ? bf16_f32<true>(dst, s16, n) : bf16_f32<false>(dst, s16, n);
    } else if constexpr (is_same_v<D, bfloat16_t> && is_same_v<S, float>) {
        if (rm_index(m) != 0) return 0;
        return sat ? f32_bf16<true>(d16, src, n) : f32_bf16<false>(d16, src, n);
    } else if constexpr ((is_same_v<S, half> || is_same_v<S, float>) &&
                         (is_same_v<D, int32_t> || is_same_v<D, int16_t> || is_same_v<D, int8_t> || is_same_v<D, uint8_t>)) {
        return fp_int_dispatch<D, S>(dst, src, n, m, fl);
    } else if constexpr (is_same_v<D, half> && (is_same_v<S, int8_t> || is_same_v<S, uint8_t>)) {
        return int_f16<S, 0>(d16, src, n);  // exact: mode irrelevant
    } else if constexpr (is_same_v<D, half> && is_same_v<S, int16_t>) {
        switch (rm_index(m)) {
            case 0: return int_f16<S, 0>(d16, src, n);
            case 1: return int_f16<S, 1>(d16, src, n);
            case 2: return int_f16<S, 2>(d16, src, n);
            case 3: return int_f16<S, 3>(d16, src, n);
            default: return 0;
        }
    } else if constexpr (is_same_v<D, float> && is_same_v<S, int32_t>) {
        return rm_index(m) == 0 ? i32_f32_rne(dst, src, n) : 0;
    } else if constexpr (is_same_v<D, int16_t> && is_same_v<S, int32_t>) {
        return i32_i16(dst, src, n);
    } else {
        (void)sat; (void)d16; (void)s16; (void)m; (void)fl;
        return 0;
    }
}
}  // namespace simd
#endif  // ASCEMU_NUM_X86

namespace detail {
template <class D, class S>
void cast_array_impl(D* dst, const S* src, size_t n, RoundMode m, OverflowMode om, CastFlags& fl, bool use_simd) {
    size_t done = 0;
#if ASCEMU_NUM_X86
    if (use_simd && n >= 8 && simd::available()) done = simd::cast<D, S>(dst, src, n, m, om, fl);
#else
    (void)use_simd;
#endif
    cast_scalar<D, S>(dst + done, src + done, n - done, m, om, fl);
}
}  // namespace detail

// Bulk Cast: dst[i] = cast_value<D,S>(src[i], …) for i < n, bit-identical.  Processes elements
// in increasing order, reading each src element before writing dst at or below it, so an
// in-place *narrowing* cast with dst == src is safe; widening casts need a snapshot of src
// (the caller's job, §4.4 "Overlap").  Does not check cast_supported().
template <class D, class S>
void cast_array(D* dst, const S* src, size_t n, RoundMode m, OverflowMode om, CastFlags& fl) {
    detail::cast_array_impl<D, S>(dst, src, n, m, om, fl, true);
}

// ------------------------------------------------------------------------------------------
// §4.7 Reductions
// ------------------------------------------------------------------------------------------
template <class T> constexpr int elems_per_repeat() { return 256 / int(sizeof(T)); }
template <class T> constexpr int elems_per_block() { return 32 / int(sizeof(T)); }

// One pairwise-sum step.  Rounds to T; a half step that overflows from finite operands clamps to
// ±65504 in both modes (doc: saturation of fp16 intermediates); inf/NaN operands follow §4.2.
template <class T>
inline T sum_step(T a, T b, OverflowMode om) {
    T r = add_value<T>(a, b, om);
    if constexpr (std::is_same_v<T, half>) {
        if (std::isinf(float(r)) && std::isfinite(float(a)) && std::isfinite(float(b)))
            return float(r) < 0 ? half::from_bits(0xfbff) : half::from_bits(0x7bff);
    }
    return r;
}

// Tree sum of one repeat: lanes beyond nlanes (and lanes whose mask bit is 0, if mask_bits is
// given: bit i of mask_bits[i/64]) count as 0; the tree runs over max(epr, 2^ceil(log2 n)) lanes,
// adding adjacent pairs level by level (d0+d1, d2+d3, …).
template <class T>
T repeat_tree_sum(const T* lanes, int nlanes, OverflowMode om, const uint64_t* mask_bits = nullptr) {
    constexpr int epr = elems_per_repeat<T>();
    if constexpr (std::is_same_v<T, float>) {
        if (nlanes <= epr) {  // a finite native tree had no overflowing step: it is the exact tree
            float v[epr];
            const float* x = lanes;
            if (nlanes < epr || mask_bits) {  // absent lanes are +0
                for (int i = 0; i < epr; ++i)
                    v[i] = (i < nlanes && (!mask_bits || (mask_bits[i / 64] >> (i % 64) & 1))) ? lanes[i] : 0.0f;
                x = v;
            }
            float s = fast::tree64_f32(x);
            if (!fast::non_finite(s)) return s;
        }
    }
    int w = epr;
    while (w < nlanes) w *= 2;
    T local[epr];  // the usual case avoids a heap allocation
    std::vector<T> big(w > epr ? size_t(w) : 0);
    T* v = w > epr ? big.data() : local;
    for (int i = 0; i < w; ++i)
        v[i] = (i < nlanes && (!mask_bits || (mask_bits[i / 64] >> (i % 64) & 1))) ? lanes[i] : T(0);
    for (; w > 1; w /= 2)
        for (int i = 0; i < w / 2; ++i) v[i] = sum_step(v[2 * i], v[2 * i + 1], om);
    return v[0];
}

// Reduce per-repeat partials p[0..R) to one value.  method 1: tree the partials repeat by
// repeat again until one value remains (overwrites p, as the hardware overwrites tmp);
// method 2: acc = p0; acc += p1; … sequentially in T.
template <class T>
T combine_partials(T* p, int64_t R, int method, OverflowMode om) {
    if (R <= 0) return T(0);
    if (method == 2) {
        T acc = p[0];
        for (int64_t r = 1; r < R; ++r) acc = sum_step(acc, p[r], om);
        return acc;
    }
    const int64_t epr = elems_per_repeat<T>();
    while (R > 1) {
        int64_t R2 = (R + epr - 1) / epr;
        for (int64_t j = 0; j < R2; ++j)
            p[j] = repeat_tree_sum(p + j * epr, int(std::min(epr, R - j * epr)), om);
        R = R2;
    }
    return p[0];
}

// ReduceSum count form: partials of each 256-B repeat (the last one partial), then
// combine_partials.  tmp (>= ceil(count/epr) elements) receives the partials when given.
template <class T>
T reduce_sum(const T* x, int64_t count, int method, OverflowMode om, T* tmp_partials_or_null = nullptr) {
    if (count <= 0) return T(0);
    const int64_t epr = elems_per_repeat<T>(), R = (count + epr - 1) / epr;
    std::vector<T> own;
    T* p = tmp_partials_or_null;
    if (!p) { own.resize(size_t(R)); p = own.data(); }
    for (int64_t r = 0; r < R; ++r) p[r] = repeat_tree_sum(x + r * epr, int(std::min(epr, count - r * epr)), om);
    return combine_partials(p, R, method, om);
}

// The extremum of one repeat with its intra-repeat index: the lane for which `better(v, best)` holds first; first
// index wins on ties; a NaN lane wins (first NaN) [CHOICE]; lanes whose mask bit is 0 are skipped.
// nlanes == 0 -> (0, 0).
template <class T, class Better>
std::pair<T, uint32_t> repeat_extremum(const T* lanes, int nlanes, const uint64_t* mask_bits, Better better) {
    bool have = false;
    T best = T(0);
    uint32_t idx = 0;
    for (int i = 0; i < nlanes; ++i) {
        if (mask_bits && !(mask_bits[i / 64] >> (i % 64) & 1)) continue;
        float v = float(lanes[i]);
        if (v != v) return {lanes[i], uint32_t(i)};
        if (!have || better(v, float(best))) { best = lanes[i]; idx = uint32_t(i); have = true; }
    }
    return {best, idx};
}
template <class T>
std::pair<T, uint32_t> repeat_max(const T* lanes, int nlanes, const uint64_t* mask_bits = nullptr) {
    return repeat_extremum(lanes, nlanes, mask_bits, [](float v, float best) { return v > best; });
}
template <class T>
std::pair<T, uint32_t> repeat_min(const T* lanes, int nlanes, const uint64_t* mask_bits = nullptr) {
    return repeat_extremum(lanes, nlanes, mask_bits, [](float v, float best) { return v < best; });
}

// ReduceMin count form, the mirror of reduce_max.
template <class T>
std::pair<T, uint32_t> reduce_min(const T* x, int64_t count) {
    const int64_t epr = elems_per_repeat<T>();
    std::pair<T, uint32_t> best{T(0), 0};
    for (int64_t r = 0, base = 0; base < count; ++r, base += epr) {
        auto [v, i] = repeat_min(x + base, int(std::min(epr, count - base)));
        if (float(v) != float(v)) return {v, uint32_t(base + i)};
        if (r == 0 || float(v) < float(best.first)) best = {v, uint32_t(base + i)};
    }
    return best;
}

// Tree sum of n = 2^k lanes (a DataBlock of ReduceDataBlock / BlockReduceSum): adjacent pairs, level by level;
// lanes whose bit in `active` is 0 count as +0.
template <class T>
T block_tree_sum(const T* lanes, int n, uint32_t active, OverflowMode om) {
    T v[16];
    for (int i = 0; i < n; ++i) v[i] = (active >> i & 1) ? lanes[i] : T(0);
    for (int w = n; w > 1; w /= 2)
        for (int i = 0; i < w / 2; ++i) v[i] = sum_step(v[2 * i], v[2 * i + 1], om);
    return v[0];
}

// ReduceMax count form: max value and its global index (first occurrence; per repeat, then the
// first repeat among equal maxima).  NaN -> (first NaN, its index).
template <class T>
std::pair<T, uint32_t> reduce_max(const T* x, int64_t count) {
    const int64_t epr = elems_per_repeat<T>();
    if constexpr (std::is_same_v<T, float>) {  // without a NaN: the first occurrence of the maximum
        int64_t i = fast::argmax_f32(x, count);
        if (i >= 0) return {x[i], uint32_t(i)};
    }
    std::pair<T, uint32_t> best{T(0), 0};
    for (int64_t r = 0, base = 0; base < count; ++r, base += epr) {
        auto [v, i] = repeat_max(x + base, int(std::min(epr, count - base)));
        if (float(v) != float(v)) return {v, uint32_t(base + i)};
        if (r == 0 || float(v) > float(best.first)) best = {v, uint32_t(base + i)};
    }
    return best;
}

// Minimum sharedTmpBuffer sizes in elements of T.
namespace detail {
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t align_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
}  // namespace detail

// ReduceSum method 1: RoundUp(ceil(count/epr), epb) elements ([DOC] uses count/epr; the ceil
// is a superset; [DOC] RoundUp(a,b) = ceil(a/b), so the doc's RoundUp(..)*epb aligns to a block).
// 8320 halves -> 80.  Method 2 accepts any size.
template <class T>
constexpr int64_t reduce_sum_tmp_elems(int64_t count) {
    int64_t R = std::max<int64_t>(1, detail::ceil_div(count, elems_per_repeat<T>()));
    return detail::align_up(R, elems_per_block<T>());
}

// ReduceMax for `repeats` first-round repeats.  Every round emits (value, index) pairs:
// round 1 outputs 2R elements, round k+1 outputs 2*ceil(out_k/epr), until a round outputs 2.
// Without index the rounds reuse round 1's block-aligned space; with index every round's
// block-aligned output is kept (the doc's iter2AlignStart + iter3AlignStart + iter3AlignEnd,
// which stops early when round 2 already outputs 2 — the doc's example 4).
template <class T>
constexpr int64_t reduce_max_tmp_elems_for_repeats(int64_t repeats, bool calIndex) {
    const int64_t epb = elems_per_block<T>(), epr = elems_per_repeat<T>();
    int64_t out = 2 * std::max<int64_t>(1, repeats), total = detail::align_up(out, epb);
    if (!calIndex) return total;
    while (out > 2) {
        out = 2 * detail::ceil_div(out, epr);
        total += detail::align_up(out, epb);
    }
    return total;
}
// Count form: R = ceil(count/epr) ([DOC] writes count/epr; equal for whole repeats).
template <class T>
constexpr int64_t reduce_max_tmp_elems(int64_t count, bool calIndex) {
    return reduce_max_tmp_elems_for_repeats<T>(detail::ceil_div(count, elems_per_repeat<T>()), calIndex);
}

}  // namespace ascemu::num
