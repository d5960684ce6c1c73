// ascemu/types.h — storage types and enums shared by the whole emulator (spec §3.2, §3.3).
//
// `half` and `bfloat16_t` are 2-byte trivially copyable wrappers around their bit pattern.
// They convert implicitly from every arithmetic type (round to nearest even) and implicitly to
// float, and deliberately define no arithmetic operators: `h * 2` and `h1 + h2` compute in
// float, exactly like the CPU twin of CANN (spec §3.2).  Comparisons go through float too;
// compound assignment (h += x) computes in float and rounds back once.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ascemu::detail {

// float -> binary16 bits, round to nearest even; overflow -> inf; NaN -> quiet NaN keeping the
// sign and the top payload bits (the same bits as x86 F16C `vcvtps2ph`, so a SIMD path can be
// bit-identical).  Technique: F. Giesen / Maratyszcza FP16 ("magic" re-biasing).
constexpr uint16_t f32_to_f16_bits(float f) noexcept {
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)  // inf or NaN
        return uint16_t(sign | (ax > 0x7f800000u ? 0x7e00u | ((ax >> 13) & 0x3ffu) : 0x7c00u));
    if (ax >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // >= 65520 rounds to inf
    if (ax < 0x38800000u) {  // below 2^-14: half subnormal (or 0); let the FPU round via 0.5f
        float r = std::bit_cast<float>(ax) + 0.5f;
        return uint16_t(sign | (std::bit_cast<uint32_t>(r) - 0x3f000000u));
    }
    uint32_t odd = (ax >> 13) & 1u;  // ties to even
    ax += 0xc8000fffu + odd;         // re-bias exponent (15-127) and add the rounding bias
    return uint16_t(sign | (ax >> 13));
}

// binary16 bits -> float (exact).  NaN payload kept, quiet bit set (as F16C `vcvtph2ps`).
constexpr float f16_bits_to_f32(uint16_t h) noexcept {
    uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t o = uint32_t(h & 0x7fffu) << 13;
    uint32_t exp = o & 0x0f800000u;
    o += (127u - 15u) << 23;
    if (exp == 0x0f800000u) {  // inf / NaN
        o += (128u - 16u) << 23;
        if (o & 0x007fffffu) o |= 0x00400000u;
    } else if (exp == 0) {  // subnormal: renormalise through the FPU (exact)
        o += 1u << 23;
        o = std::bit_cast<uint32_t>(std::bit_cast<float>(o) - std::bit_cast<float>(113u << 23));
    }
    return std::bit_cast<float>(o | sign);
}

// float -> bfloat16 bits, round to nearest even; NaN -> quiet NaN (sign and top payload kept).
constexpr uint16_t f32_to_bf16_bits(float f) noexcept {
    uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);
    return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
constexpr float bf16_bits_to_f32(uint16_t b) noexcept { return std::bit_cast<float>(uint32_t(b) << 16); }

// double -> 16-bit float (1 sign, 15-M exponent bits, M mantissa bits, bias B) bits, round to
// nearest even in one step (no double rounding through float).  Same NaN rule as above.
template <int M, int B>
constexpr uint16_t f64_to_small_bits(double d) noexcept {
    constexpr int E = 15 - M, EMAX = (1 << E) - 2 - B;
    constexpr uint16_t EXPMASK = uint16_t(((1u << E) - 1) << M);
    constexpr uint64_t THR = (uint64_t(EMAX + 1023) << 52) | (((1ull << (M + 1)) - 1) << (51 - M));
    constexpr uint64_t MINNORM = uint64_t(1 - B + 1023) << 52;
    constexpr uint64_t MAGIC = uint64_t(1 - B - M + 52 + 1023) << 52;  // ulp(MAGIC) = target subnormal ulp
    uint64_t x = std::bit_cast<uint64_t>(d);
    uint16_t sign = uint16_t((x >> 48) & 0x8000u);
    uint64_t ax = x & 0x7fffffffffffffffull;
    if (ax >= 0x7ff0000000000000ull)
        return uint16_t(sign | EXPMASK |
                        (ax > 0x7ff0000000000000ull ? (1u << (M - 1)) | ((ax >> (52 - M)) & ((1u << M) - 1)) : 0));
    if (ax >= THR) return uint16_t(sign | EXPMASK);  // rounds past MAX: inf
    if (ax < MINNORM) {
        double r = std::bit_cast<double>(ax) + std::bit_cast<double>(MAGIC);
        return uint16_t(sign | (std::bit_cast<uint64_t>(r) - MAGIC));
    }
    ax += (uint64_t(int64_t(B - 1023)) << 52) + ((1ull << (51 - M)) - 1) + ((ax >> (52 - M)) & 1u);
    return uint16_t(sign | (ax >> (52 - M)));
}
constexpr uint16_t f64_to_f16_bits(double d) noexcept { return f64_to_small_bits<10, 15>(d); }
constexpr uint16_t f64_to_bf16_bits(double d) noexcept { return f64_to_small_bits<7, 127>(d); }

// Exact value v (long double holds every int64/uint64/double exactly) rounded to nearest even
// with P significand bits and minimum normal exponent EMIN; the exponent range is unbounded
// above, so a caller detects overflow by comparing with its MAX.  Used for double/integer
// sources, where going through float first would round twice.
template <int P, int EMIN>
inline long double round_rne_ld(long double v) noexcept {
    if (v == 0 || !std::isfinite(v)) return v;
    int e;
    std::frexp(v, &e);  // |v| = m * 2^e, m in [0.5, 1)
    int uexp = (e - 1 < EMIN ? EMIN : e - 1) - (P - 1);
    long double y = std::ldexp(v, -uexp), f = std::floor(y), d = y - f;  // d exact
    if (d > 0.5L || (d == 0.5L && std::fmod(f, 2.0L) != 0)) f += 1;
    return std::copysign(std::ldexp(f, uexp), v);  // keep the sign of a zero result
}

template <class T>
inline constexpr bool is_arith_v = std::is_arithmetic_v<T>;

}  // namespace ascemu::detail

struct bfloat16_t;

// IEEE binary16.  Layout: one uint16_t, so arrays of half alias UB/GM bytes directly.
struct half {
    uint16_t bits = 0;

    constexpr half() noexcept = default;
    template <class T, std::enable_if_t<ascemu::detail::is_arith_v<T>, int> = 0>
    constexpr half(T v) noexcept : bits(encode(v)) {}
    explicit half(bfloat16_t b) noexcept;

    constexpr operator float() const noexcept { return ascemu::detail::f16_bits_to_f32(bits); }
    static constexpr half from_bits(uint16_t b) noexcept { half h; h.bits = b; return h; }
    constexpr uint16_t to_bits() const noexcept { return bits; }
    // Compound assignment computes in float (or wider, for a double operand) and rounds once.
    template <class U> constexpr half& operator+=(const U& u) noexcept { return *this = half(float(*this) + u); }
    template <class U> constexpr half& operator-=(const U& u) noexcept { return *this = half(float(*this) - u); }
    template <class U> constexpr half& operator*=(const U& u) noexcept { return *this = half(float(*this) * u); }
    template <class U> constexpr half& operator/=(const U& u) noexcept { return *this = half(float(*this) / u); }

  private:
    template <class T>
    static constexpr uint16_t encode(T v) noexcept {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, bool> ||
                      (std::is_integral_v<T> && sizeof(T) <= 2)) {
            return ascemu::detail::f32_to_f16_bits(float(v));  // exact in float: single rounding
        } else {
            // double / long double / wide integers: round the exact value once (no double rounding).
            if constexpr (std::is_integral_v<T>) {  // |v| >= 65520 overflows; below that double is exact
                if (v >= T(65520)) return 0x7c00;
                if constexpr (std::is_signed_v<T>) if (v <= T(-65520)) return 0xfc00;
                return ascemu::detail::f64_to_f16_bits(double(v));
            } else if constexpr (std::is_same_v<T, double>) {
                return ascemu::detail::f64_to_f16_bits(v);
            } else {
                long double r = ascemu::detail::round_rne_ld<11, -14>(v);
                return ascemu::detail::f32_to_f16_bits(std::fabs(r) >= 65536.0L ? (r < 0 ? -INFINITY : INFINITY)
                                                                                  : float(r));
            }
        }
    }
};

// bfloat16 (1-8-7).  Same design as half.
struct bfloat16_t {
    uint16_t bits = 0;

    constexpr bfloat16_t() noexcept = default;
    template <class T, std::enable_if_t<ascemu::detail::is_arith_v<T>, int> = 0>
    constexpr bfloat16_t(T v) noexcept : bits(encode(v)) {}
    explicit bfloat16_t(half h) noexcept : bits(ascemu::detail::f32_to_bf16_bits(float(h))) {}

    constexpr operator float() const noexcept { return ascemu::detail::bf16_bits_to_f32(bits); }
    static constexpr bfloat16_t from_bits(uint16_t b) noexcept { bfloat16_t h; h.bits = b; return h; }
    constexpr uint16_t to_bits() const noexcept { return bits; }
    // Compound assignment computes in float (or wider, for a double operand) and rounds once.
    template <class U> constexpr bfloat16_t& operator+=(const U& u) noexcept { return *this = bfloat16_t(float(*this) + u); }
    template <class U> constexpr bfloat16_t& operator-=(const U& u) noexcept { return *this = bfloat16_t(float(*this) - u); }
    template <class U> constexpr bfloat16_t& operator*=(const U& u) noexcept { return *this = bfloat16_t(float(*this) * u); }
    template <class U> constexpr bfloat16_t& operator/=(const U& u) noexcept { return *this = bfloat16_t(float(*this) / u); }

  private:
    template <class T>
    static constexpr uint16_t encode(T v) noexcept {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, bool> ||
                      (std::is_integral_v<T> && sizeof(T) <= 2)) {
            return ascemu::detail::f32_to_bf16_bits(float(v));
        } else {
            if constexpr (std::is_same_v<T, double> || (std::is_integral_v<T> && sizeof(T) <= 4))
                return ascemu::detail::f64_to_bf16_bits(double(v));  // exact in double: one rounding
            // 64-bit integers / long double: bf16 shares float's exponent range.
            long double r = ascemu::detail::round_rne_ld<8, -126>((long double)v);
            return ascemu::detail::f32_to_bf16_bits(
                std::fabs(r) >= 0x1p128L ? (r < 0 ? -INFINITY : INFINITY) : float(r));
        }
    }
};

inline half::half(bfloat16_t b) noexcept : bits(ascemu::detail::f32_to_f16_bits(float(b))) {}

static_assert(sizeof(half) == 2 && std::is_trivially_copyable_v<half> && std::is_standard_layout_v<half>);
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable_v<bfloat16_t> &&
              std::is_standard_layout_v<bfloat16_t>);

// `float16_t` / `float32_t`: the names many Ascend C kernels (cann-ops operators, course code) use for half and
// float, unqualified, both outside and inside `namespace AscendC` code.  CANN's open basic-API headers
// (cann/asc-devkit include/basic_api, impl/basic_api) do not declare them; they come with CANN's compiler
// environment.  [CHOICE] ascemu declares them as aliases in the global namespace, where both spellings resolve.
using float16_t = half;
using float32_t = float;

namespace AscendC {
// Values exactly as CANN (facts §2.1).  CAST_HYBRID is Atlas 350 only; never supported here.
enum class RoundMode : int { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID };

// CANN's 4-bit signed integer (IntegerSubType<4, true> of impl/basic_api/utils/kernel_utils_constants.h): a byte
// holding the low 4 bits of what it was built from, read back sign-extended as int8_t, compared as a 4-bit value.
// Tensors of it are packed two values a byte, element 2k in the low nibble of byte k and 2k+1 in the high nibble
// (LocalTensor / GlobalTensor GetValue / SetValue of cann/asc-devkit impl/basic_api/kernel_tensor_impl.h); see
// tensor.h for sizes and offsets, and int4.h for Cast to / from half.
struct int4b_t {
    static constexpr int kBits = 4;
    static constexpr bool kSigned = true;
    using T = int8_t;
    using Storage = uint8_t;
    static constexpr Storage mask = 0x0F;
    Storage storage = 0;

    int4b_t() = default;
    constexpr int4b_t(uint32_t value) : storage(Storage(value & mask)) {}
    constexpr int4b_t(int32_t value) : storage(Storage(uint32_t(value) & mask)) {}
    constexpr operator T() const { return (storage & 0x8) ? T(storage | ~mask) : T(storage); }
    constexpr bool operator==(const int4b_t& rhs) const { return storage == rhs.storage; }
    constexpr bool operator!=(const int4b_t& rhs) const { return storage != rhs.storage; }
    constexpr bool operator<(const int4b_t& rhs) const { return T(*this) < T(rhs); }
    constexpr bool operator<=(const int4b_t& rhs) const { return T(*this) <= T(rhs); }
    constexpr bool operator>(const int4b_t& rhs) const { return T(*this) > T(rhs); }
    constexpr bool operator>=(const int4b_t& rhs) const { return T(*this) >= T(rhs); }
};
}  // namespace AscendC

namespace ascemu {

enum class Platform { P310, P910B };
// Float overflow behaviour (spec §4.2): P310 saturates (inf -> ±MAX, NaN -> +0), P910B is IEEE.
enum class OverflowMode { Saturation, InfNan };

constexpr OverflowMode default_overflow_mode(Platform p) noexcept {
    return p == Platform::P310 ? OverflowMode::Saturation : OverflowMode::InfNan;
}

// Short dtype names for diagnostics and the trace: dtype_name<T>::value or dtype_name_v<T>.
template <class T>
constexpr const char* dtype_name_of() noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, half>) return "half";
    else if constexpr (std::is_same_v<U, AscendC::int4b_t>) return "int4";
    else if constexpr (std::is_same_v<U, bfloat16_t>) return "bfloat16";
    else if constexpr (std::is_same_v<U, float>) return "float";
    else if constexpr (std::is_same_v<U, double>) return "double";
    else if constexpr (std::is_same_v<U, bool>) return "bool";
    else if constexpr (std::is_integral_v<U>) {
        constexpr bool s = std::is_signed_v<U>;
        if constexpr (sizeof(U) == 1) return s ? "int8" : "uint8";
        else if constexpr (sizeof(U) == 2) return s ? "int16" : "uint16";
        else if constexpr (sizeof(U) == 4) return s ? "int32" : "uint32";
        else return s ? "int64" : "uint64";
    } else return "unknown";
}
template <class T>
struct dtype_name { static constexpr const char* value = dtype_name_of<T>(); };
template <class T>
inline constexpr const char* dtype_name_v = dtype_name_of<T>();

}  // namespace ascemu
