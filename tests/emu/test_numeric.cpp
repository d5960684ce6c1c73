// Unit tests for ascemu/types.h and ascemu/numeric.h (spec §3.2, §4, §9 tests 1-19, 30-37).
// Build: g++ -std=c++20 -O1 -I kernels/emu/include tests/emu/test_numeric.cpp
// Run: ./a.out            -> prints "checks: N failures: F", exit 1 on any failure
//      ./a.out --bench    -> cast_array throughput (compile with -O2 for meaningful numbers)
#include <array>
#include <cmath>
#include <cfloat>
#include <algorithm>
#include <cstdarg>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ascemu/numeric.h"
#include "ascemu/util.h"

using namespace ascemu;
using namespace ascemu::num;
using AscendC::RoundMode;
using P = Platform;
using OM = OverflowMode;

static long g_checks = 0, g_fail = 0;
// CHECK(cond, fmt, ...): a function, so template commas in cond need no parentheses.
__attribute__((format(printf, 4, 5))) static void check_impl(const char* file, int line, bool ok, const char* fmt, ...) {
    ++g_checks;
    if (ok) return;
    ++g_fail;
    std::printf("FAIL %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    std::vprintf(fmt, ap);
    va_end(ap);
    std::printf("\n");
}
#define CHECK(...) check_impl(__FILE__, __LINE__, __VA_ARGS__)

template <class T> uint64_t bits(T x) { uint64_t b = 0; std::memcpy(&b, &x, sizeof(T)); return b; }
template <class T> bool same_bits(T a, T b) { return bits(a) == bits(b); }

constexpr RoundMode kModes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                                RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
const char* mode_name(RoundMode m) {
    static const char* n[] = {"NONE", "RINT", "FLOOR", "CEIL", "ROUND", "TRUNC", "ODD", "HYBRID"};
    return n[int(m)];
}
const char* plat_name(P p) { return p == P::P310 ? "P310" : "P910B"; }

// ---------------------------------------------------------------------------------------------
// types.h
// ---------------------------------------------------------------------------------------------
static void test_types() {
    static_assert(std::is_same_v<decltype(half(1) * 2), float>, "half*int computes in float (§3.2)");
    static_assert(std::is_same_v<decltype(half(1) + half(2)), float>);
    static_assert(std::is_same_v<decltype(bfloat16_t(1) * 2.0f), float>);
    half z;
    CHECK(z.to_bits() == 0, "default half is +0");
    half acc = half(2048);
    acc += 1;      // 2049 -> ties to even 2048
    acc += half(3);
    acc *= 0.5;
    bfloat16_t bacc = bfloat16_t(1.0f);
    bacc /= 3;
    CHECK(acc.to_bits() == half(1026).to_bits() && bacc.to_bits() == 0x3eab, "compound assignment rounds once");
    CHECK(half(1.5f).to_bits() == 0x3e00 && half(65504).to_bits() == 0x7bff, "basic encodings");
    CHECK(half(65519.0).to_bits() == 0x7bff && half(65520.0).to_bits() == 0x7c00, "RNE overflow edge");
    CHECK(half(2049).to_bits() == 0x6800 && half(2051LL).to_bits() == 0x6802, "int ties to even");
    CHECK(half(70000u).to_bits() == 0x7c00 && half(int64_t(-65519)).to_bits() == 0xfbff, "wide ints");
    CHECK(half(1.0 + 0x1p-11 + 0x1p-40).to_bits() == 0x3c01, "double rounds once (no double rounding)");
    CHECK(half(0x1p-25 * 1.0000001).to_bits() == 0x0001 && half(0x1p-25).to_bits() == 0x0000, "subnormal ties");
    CHECK(bfloat16_t(1.0f / 3).to_bits() == 0x3eab && bfloat16_t(int64_t(0x7fffffffffffffff)).to_bits() == 0x5f00, "bf16");
    CHECK(half::from_bits(0x3c00) == 1.0f && half(1) < half(2) && half(2) == 2, "comparisons via float");
    CHECK(std::string(dtype_name_v<half>) == "half" && std::string(dtype_name<int64_t>::value) == "int64" &&
              std::string(dtype_name_v<uint8_t>) == "uint8" && std::string(dtype_name_v<bfloat16_t>) == "bfloat16" &&
              std::string(dtype_name_v<bool>) == "bool" && std::string(dtype_name_v<double>) == "double",
          "dtype names");
    CHECK(default_overflow_mode(P::P310) == OM::Saturation && default_overflow_mode(P::P910B) == OM::InfNan, "platform modes");
    // Exhaustive: half -> float -> half round trip (non-NaN exact; NaN stays NaN, quiet).
    long bad = 0;
    for (uint32_t b = 0; b < 65536; ++b) {
        half h = half::from_bits(uint16_t(b));
        float f = h;
        bool nan = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
        if (nan ? (f == f || (half(f).to_bits() & 0x7e00) != 0x7e00) : half(f).to_bits() != b) ++bad;
        if (!nan && half(double(f)).to_bits() != b) ++bad;
    }
    CHECK(bad == 0, "half round trip: %ld bad", bad);
}

// ---------------------------------------------------------------------------------------------
// §4.4 support table, transcribed independently: letters N R F C A Z O, "*" = any mode.
// ---------------------------------------------------------------------------------------------
static unsigned parse_modes(const char* s) {
    unsigned m = 0;
    for (; *s; ++s) switch (*s) {
            case 'N': m |= 1u << 0; break; case 'R': m |= 1u << 1; break; case 'F': m |= 1u << 2; break;
            case 'C': m |= 1u << 3; break; case 'A': m |= 1u << 4; break; case 'Z': m |= 1u << 5; break;
            case 'O': m |= 1u << 6; break; case '*': m |= 0xff; break;
        }
    return m;
}
template <class D, class S>
static void table_row(const char* name, const char* p310, const char* p910b) {
    for (P p : {P::P310, P::P910B}) {
        unsigned want = parse_modes(p == P::P310 ? p310 : p910b);
        for (int mi = 0; mi < 8; ++mi) {
            CastStatus st = cast_supported<D, S>(p, RoundMode(mi)), exp;
            exp = want == 0 ? CastStatus::UnsupportedPair : (want >> mi & 1) ? CastStatus::Ok : CastStatus::UnsupportedMode;
            CHECK(st == exp, "%s %s %s: status %d want %d", name, plat_name(p), mode_name(RoundMode(mi)), int(st), int(exp));
        }
    }
}
static void test_support_table() {
    table_row<int32_t, half>("half->int32", "RFCAZ", "RFCAZ");
    table_row<int16_t, half>("half->int16", "R", "RFCAZ");
    table_row<float, half>("half->float", "N", "N");
    table_row<int8_t, half>("half->int8", "FCAZN", "RFCAZN");
    table_row<uint8_t, half>("half->uint8", "FCAZN", "RFCAZN");
    table_row<int32_t, float>("float->int32", "RFCAZ", "RFCAZ");
    table_row<half, float>("float->half", "NO", "RFCAZON");
    table_row<float, float>("float->float", "", "RFCAZ");
    table_row<int16_t, float>("float->int16", "", "RFCAZ");
    table_row<int64_t, float>("float->int64", "", "RFCAZ");
    table_row<bfloat16_t, float>("float->bf16", "", "RFCAZ");
    table_row<float, bfloat16_t>("bf16->float", "", "N");
    table_row<int32_t, bfloat16_t>("bf16->int32", "", "RFCAZ");
    table_row<half, uint8_t>("uint8->half", "N", "N");
    table_row<half, int8_t>("int8->half", "N", "N");
    table_row<half, int16_t>("int16->half", "N", "RFCAZN");
    table_row<float, int16_t>("int16->float", "", "N");
    table_row<float, int32_t>("int32->float", "N", "RFCAZN");
    table_row<int16_t, int32_t>("int32->int16", "N", "N");
    table_row<half, int32_t>("int32->half(deq)", "*", "*");
    table_row<int64_t, int32_t>("int32->int64", "", "N");
    table_row<int32_t, int64_t>("int64->int32", "", "N");
    table_row<float, int64_t>("int64->float", "", "RFCAZ");
    // Not listed anywhere -> UnsupportedPair on both.
    table_row<int8_t, int16_t>("int16->int8", "", "");
    table_row<uint8_t, int16_t>("int16->uint8", "", "");
    table_row<bfloat16_t, half>("half->bf16", "", "");
    table_row<half, bfloat16_t>("bf16->half", "", "");
    table_row<uint8_t, float>("float->uint8", "", "");
    table_row<int8_t, float>("float->int8", "", "");
    table_row<half, half>("half->half", "", "");
    table_row<int32_t, int32_t>("int32->int32", "", "");
    table_row<float, uint8_t>("uint8->float", "", "");
    table_row<half, int64_t>("int64->half", "", "");
    // §9 test 15 (explicit), test 2.
    CHECK(cast_supported<float, float>(P::P310, RoundMode::CAST_RINT) == CastStatus::UnsupportedPair &&
              cast_supported<int16_t, float>(P::P310, RoundMode::CAST_RINT) == CastStatus::UnsupportedPair &&
              cast_supported<float, int16_t>(P::P310, RoundMode::CAST_NONE) == CastStatus::UnsupportedPair &&
              cast_supported<int32_t, int64_t>(P::P310, RoundMode::CAST_NONE) == CastStatus::UnsupportedPair,
          "test 15");
    for (P p : {P::P310, P::P910B})
        CHECK(cast_supported<int32_t, half>(p, RoundMode::CAST_NONE) == CastStatus::UnsupportedMode &&
                  cast_supported<int32_t, float>(p, RoundMode::CAST_NONE) == CastStatus::UnsupportedMode,
              "test 2 %s", plat_name(p));
}

// ---------------------------------------------------------------------------------------------
// §4.5 documented examples: every mode on both platforms gives the value or the status.
// exp[] is indexed by mode NONE..ODD; NONE defaults to the RINT value (numerically RINT, §4.3).
// ---------------------------------------------------------------------------------------------
using Exp = std::array<std::optional<double>, 7>;
static Exp rfcaz(double r, double f, double c, double a, double z, std::optional<double> o = {}) {
    return {std::nullopt, r, f, c, a, z, o};
}
static Exp all(double v) { return {v, v, v, v, v, v, v}; }

template <class D, class S>
static void value_row(const char* name, S x, Exp exp) {
    for (P p : {P::P310, P::P910B}) {
        for (RoundMode m : kModes) {
            if (cast_supported<D, S>(p, m) != CastStatus::Ok) continue;  // status checked by the table
            std::optional<double> e = exp[size_t(m)];
            if (m == RoundMode::CAST_NONE && !e) e = exp[1];
            CHECK(e.has_value(), "%s %s %s allowed but the doc row has no value", name, plat_name(p), mode_name(m));
            if (!e) continue;
            CastFlags fl;
            D v = cast_value<D, S>(x, m, default_overflow_mode(p), fl);
            CHECK(double(v) == *e, "%s %s %s: got %.9g want %.9g", name, plat_name(p), mode_name(m), double(v), *e);
            D a[9], b[9];
            S src[9];
            for (auto& s : src) s = x;
            num::detail::cast_array_impl<D, S>(a, src, 9, m, default_overflow_mode(p), fl, true);
            num::detail::cast_array_impl<D, S>(b, src, 9, m, default_overflow_mode(p), fl, false);
            bool ok = true;
            for (int i = 0; i < 9; ++i) ok &= same_bits(a[i], v) && same_bits(b[i], v);
            CHECK(ok, "%s %s %s: cast_array differs from cast_value", name, plat_name(p), mode_name(m));
        }
    }
}
static void test_doc_examples() {
    // §9 test 1: half->int32 worked example (§4.3), per mode, both platforms.
    const float in[] = {1.4f, 1.5f, 1.6f, 2.4f, 2.5f, 2.6f};
    const int want[5][6] = {{1, 2, 2, 2, 2, 3}, {1, 1, 1, 2, 2, 2}, {2, 2, 2, 3, 3, 3}, {1, 2, 2, 2, 3, 3}, {1, 1, 1, 2, 2, 2}};
    const RoundMode ms[5] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
    for (P p : {P::P310, P::P910B})
        for (int k = 0; k < 5; ++k) {
            CHECK(cast_supported<int32_t, half>(p, ms[k]) == CastStatus::Ok, "test 1 status");
            half src[6];
            int32_t dst[6];
            for (int i = 0; i < 6; ++i) src[i] = half(in[i]);
            CastFlags fl;
            cast_array(dst, src, 6, ms[k], default_overflow_mode(p), fl);
            for (int i = 0; i < 6; ++i)
                CHECK(dst[i] == want[k][i] && cast_value<int32_t>(src[i], ms[k], default_overflow_mode(p), fl) == want[k][i],
                      "test 1 %s %s x=%g got %d want %d", plat_name(p), mode_name(ms[k]), in[i], dst[i], want[k][i]);
        }

    value_row<half, float>("float->half", 0.5f + 0x1p-12f, rfcaz(0.5, 0.5, 0.5 + 0x1p-11, 0.5 + 0x1p-11, 0.5, 0.5 + 0x1p-11));
    value_row<int32_t, float>("float->int32", 0x1p22f + 0.5f, rfcaz(0x1p22, 0x1p22, 0x1p22 + 1, 0x1p22 + 1, 0x1p22));
    value_row<int16_t, float>("float->int16", 0x1p22f + 0.5f, all(32767));
    value_row<float, float>("float->float", 0.5f, rfcaz(0, 0, 1, 1, 0));
    value_row<int32_t, half>("half->int32", half(-1.5f), rfcaz(-2, -2, -1, -2, -1));
    value_row<int16_t, half>("half->int16", half(127.5f), rfcaz(128, 127, 128, 128, 127));
    value_row<int8_t, half>("half->int8", half(127.5f), all(127));
    value_row<uint8_t, half>("half->uint8", half(1.75f), rfcaz(2, 1, 2, 2, 1));
    value_row<half, int16_t>("int16->half", int16_t(4098), rfcaz(4096, 4096, 4100, 4100, 4096));
    value_row<float, int32_t>("int32->float", int32_t((1 << 25) + 3), rfcaz(0x1p25 + 4, 0x1p25, 0x1p25 + 4, 0x1p25 + 4, 0x1p25));
    value_row<int16_t, int32_t>("int32->int16", int32_t(2147483647), all(32767));
    value_row<bfloat16_t, float>("float->bf16", 0.5f + 0x1p-9f + 0x1p-11f, rfcaz(0.5 + 0x1p-8, 0.5, 0.5 + 0x1p-8, 0.5 + 0x1p-8, 0.5));
    value_row<int32_t, bfloat16_t>("bf16->int32", bfloat16_t(64.5f), rfcaz(64, 64, 65, 65, 64));

    CastFlags fl;
    // Test 4 (explicit): P310 float->half NONE 0.5, ODD 0.5+2^-11.
    CHECK(double(cast_value<half>(0.5f + 0x1p-12f, RoundMode::CAST_NONE, OM::Saturation, fl)) == 0.5 &&
              double(cast_value<half>(0.5f + 0x1p-12f, RoundMode::CAST_ODD, OM::Saturation, fl)) == 0.5 + 0x1p-11,
          "test 4");
    // Test 5: ODD is sticky only when inexact.
    struct { float x; double want; } odd[] = {
        {0.5f, 0.5}, {0.5f + 0x1p-11f, 0.5 + 0x1p-11},                // exact (even / odd LSB): unchanged
        {0.5f + 0x1p-12f, 0.5 + 0x1p-11}, {0.5f + 0x1p-13f, 0.5 + 0x1p-11},  // 1/2 and 1/4 ulp: forced odd
        {0.5f + 0x1p-11f + 0x1p-13f, 0.5 + 0x1p-11},                   // truncation already odd
        {-(0.5f + 0x1p-13f), -(0.5 + 0x1p-11)}, {0x1p-30f, 0x1p-24}, {1e6f, 65504}};
    for (auto& t : odd) {
        half v = cast_value<half>(t.x, RoundMode::CAST_ODD, OM::InfNan, fl);
        CHECK(double(v) == t.want, "test 5 ODD %a -> %a want %a", t.x, double(v), t.want);
    }
    // Tests 7-13 (value parts beyond the rows above).
    fl = {};
    CHECK(cast_value<uint8_t>(half(-3.0f), RoundMode::CAST_FLOOR, OM::Saturation, fl) == 0 && fl.negative_to_unsigned, "test 10 scalar");
    {
        half s[16];
        uint8_t d[16];
        for (int i = 0; i < 16; ++i) s[i] = half(i == 11 ? -3.0f : 1.75f);
        for (bool simd : {true, false}) {
            CastFlags f2;
            num::detail::cast_array_impl(d, s, 16, RoundMode::CAST_TRUNC, OM::Saturation, f2, simd);
            CHECK(d[11] == 0 && d[0] == 1 && f2.negative_to_unsigned, "test 10 array simd=%d", int(simd));
        }
        CastFlags f3;
        for (int i = 0; i < 16; ++i) s[i] = half(1.75f);
        cast_array(d, s, 16, RoundMode::CAST_CEIL, OM::Saturation, f3);
        CHECK(!f3.negative_to_unsigned && d[5] == 2, "no flag without negatives");
    }
    CHECK(cast_value<int16_t>(int32_t(INT32_MIN), RoundMode::CAST_NONE, OM::Saturation, fl) == -32768, "test 13");
    CHECK(double(cast_value<half>(int16_t(4098), RoundMode::CAST_NONE, OM::Saturation, fl)) == 4096, "test 11 P310");
    CHECK(double(cast_value<float>(int32_t((1 << 25) + 3), RoundMode::CAST_NONE, OM::Saturation, fl)) == 0x1p25 + 4, "test 12 P310");
    // Test 16 (P310 half): bf16 pairs are UnsupportedPair on P310 (covered by the table) — explicit:
    CHECK(cast_supported<bfloat16_t, float>(P::P310, RoundMode::CAST_RINT) == CastStatus::UnsupportedPair, "test 16");
}

// ---------------------------------------------------------------------------------------------
// §4.2 saturation vs inf/nan (tests 17, 18), deq (§4.6), float ops (§4.1)
// ---------------------------------------------------------------------------------------------
static void test_overflow_modes() {
    CastFlags fl;
    const float in[] = {INFINITY, -INFINITY, NAN, 1e6f, -1e6f};
    const uint16_t sat[] = {0x7bff, 0xfbff, 0x0000, 0x7bff, 0xfbff}, ieee[] = {0x7c00, 0xfc00, 0x7e00, 0x7c00, 0xfc00};
    for (RoundMode m : {RoundMode::CAST_NONE, RoundMode::CAST_RINT})
        for (int i = 0; i < 5; ++i) {
            CHECK(cast_value<half>(in[i], m, OM::Saturation, fl).to_bits() == sat[i], "test 17 float->half %g", in[i]);
            CHECK(cast_value<half>(in[i], m, OM::InfNan, fl).to_bits() == ieee[i], "test 18 float->half %g", in[i]);
        }
    // IEEE directed-rounding overflow under InfNan (resolved ambiguity, see numeric.h fp_overflow).
    CHECK(cast_value<half>(1e6f, RoundMode::CAST_TRUNC, OM::InfNan, fl).to_bits() == 0x7bff &&
              cast_value<half>(1e6f, RoundMode::CAST_FLOOR, OM::InfNan, fl).to_bits() == 0x7bff &&
              cast_value<half>(-1e6f, RoundMode::CAST_FLOOR, OM::InfNan, fl).to_bits() == 0xfc00 &&
              cast_value<half>(1e6f, RoundMode::CAST_CEIL, OM::InfNan, fl).to_bits() == 0x7c00 &&
              cast_value<half>(1e6f, RoundMode::CAST_ROUND, OM::InfNan, fl).to_bits() == 0x7c00 &&
              cast_value<half>(INFINITY, RoundMode::CAST_TRUNC, OM::InfNan, fl).to_bits() == 0x7c00,
          "directed overflow");
    for (OM om : {OM::Saturation, OM::InfNan}) {  // integer targets: same in both modes
        CHECK(cast_value<int32_t>(NAN, RoundMode::CAST_RINT, om, fl) == 0, "float->int32 NaN");
        CHECK(cast_value<int32_t>(3e9f, RoundMode::CAST_RINT, om, fl) == INT32_MAX, "float->int32 3e9");
        CHECK(cast_value<int32_t>(-INFINITY, RoundMode::CAST_TRUNC, om, fl) == INT32_MIN, "float->int32 -inf");
        CHECK(cast_value<int8_t>(half(-200.0f), RoundMode::CAST_TRUNC, om, fl) == -128, "half->int8 sat");
    }
    CHECK(add_value(half(60000), half(60000), OM::Saturation).to_bits() == 0x7bff, "test 17 half add");
    CHECK(add_value(half(60000), half(60000), OM::InfNan).to_bits() == 0x7c00, "test 18 half add");
    CHECK(add_value(FLT_MAX, FLT_MAX, OM::Saturation) == FLT_MAX && std::isinf(add_value(FLT_MAX, FLT_MAX, OM::InfNan)), "float add");
    CHECK(sub_value(half(INFINITY), half(INFINITY), OM::Saturation).to_bits() == 0 &&
              std::isnan(float(sub_value(half(INFINITY), half(INFINITY), OM::InfNan))),
          "NaN result");
    CHECK(cast_value<float>(half::from_bits(0x7c00), RoundMode::CAST_NONE, OM::Saturation, fl) == FLT_MAX &&
              cast_value<float>(half::from_bits(0x7e00), RoundMode::CAST_NONE, OM::Saturation, fl) == 0,
          "half->float saturation of inf/NaN inputs");
    // Integer ops wrap; Max/Min NaN.
    CHECK(add_value<int16_t>(32767, 1, OM::Saturation) == -32768 && mul_value<int32_t>(65536, 65536, OM::InfNan) == 0 &&
              wrap_result<uint16_t>(-1) == 65535, "wrap");
    CHECK(std::isnan(max_value(1.0f, NAN, OM::InfNan)) && max_value(1.0f, NAN, OM::Saturation) == 0 &&
              min_value(half(2), half(-3), OM::InfNan) == -3 && max_value<int32_t>(-5, 7, OM::InfNan) == 7, "max/min");
    CHECK(div_value(half(1), half(3), OM::InfNan).to_bits() == 0x3555 && div_value(1.0f, 0.0f, OM::Saturation) == FLT_MAX, "div");
    // §4.6 deq (test 14 value part).
    bool ok = true;
    for (int i = 1; i <= 256; ++i) ok &= double(deq_value(i, half(1.0f), OM::Saturation)) == i;
    CHECK(ok, "deq scale 1.0 identity");
    ok = true;
    for (int i = 1; i <= 256; ++i) ok &= double(deq_value(i, half(0.5f), OM::InfNan)) == i * 0.5;
    CHECK(ok, "deq scale 0.5 halves");
    CHECK(deq_value(100000, half(1.0f), OM::Saturation).to_bits() == 0x7bff && deq_value(100000, half(1.0f), OM::InfNan).to_bits() == 0x7c00 &&
              double(deq_value(4097, half(1.0f), OM::InfNan)) == 4096, "deq overflow / RNE");
    int32_t di[3] = {1, 2, 3};
    half dh[3];
    deq_array(dh, di, 3, half(2.0f), OM::InfNan);
    CHECK(double(dh[2]) == 6, "deq_array");
}

// ---------------------------------------------------------------------------------------------
// cast_array == cast_value, bit for bit (SIMD and scalar layers), exhaustive for 16-bit sources
// and random for 32-bit sources.
// ---------------------------------------------------------------------------------------------
template <class D, class S>
static void bulk_identity(const char* name, const std::vector<S>& src) {
    std::vector<D> ref(src.size()), a(src.size()), b(src.size());
    for (RoundMode m : kModes) {
        if (cast_supported<D, S>(P::P310, m) != CastStatus::Ok && cast_supported<D, S>(P::P910B, m) != CastStatus::Ok) continue;
        for (OM om : {OM::Saturation, OM::InfNan}) {
            CastFlags f0, f1, f2;
            for (size_t i = 0; i < src.size(); ++i) ref[i] = cast_value<D, S>(src[i], m, om, f0);
            num::detail::cast_array_impl<D, S>(a.data(), src.data(), src.size(), m, om, f1, true);
            num::detail::cast_array_impl<D, S>(b.data(), src.data(), src.size(), m, om, f2, false);
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < src.size(); ++i)
                if (!same_bits(a[i], ref[i]) || !same_bits(b[i], ref[i])) { if (!bad++) first = i; }
            CHECK(bad == 0, "%s %s %s: %zu mismatches, first src=%#llx ref=%#llx simd=%#llx scalar=%#llx", name,
                  mode_name(m), om == OM::Saturation ? "sat" : "infnan", bad, (unsigned long long)bits(src[first]),
                  (unsigned long long)bits(ref[first]), (unsigned long long)bits(a[first]), (unsigned long long)bits(b[first]));
            CHECK(f0.negative_to_unsigned == f1.negative_to_unsigned && f0.negative_to_unsigned == f2.negative_to_unsigned,
                  "%s flags", name);
        }
    }
}

// Random 32-bit float patterns biased toward the interesting places: full random bits, the half
// and bf16 ranges, exact ties for half/bf16, subnormals, NaN/inf, near-integer halves.
static std::vector<float> float_patterns(size_t n, uint64_t seed) {
    std::mt19937_64 g(seed);
    std::vector<float> v(n);
    const float specials[] = {0.f, -0.f, INFINITY, -INFINITY, NAN, -NAN, 65504.f, 65519.996f, 65520.f, -65520.f, 0x1p-14f,
                              0x1p-24f, 0x1p-25f, 0x1.8p-25f, 2147483520.f, 2147483648.f, -2147483648.f, 0.5f, -0.5f,
                              1.5f, 2.5f, -2.5f, 127.5f, 255.5f, 32767.5f, FLT_MAX, -FLT_MAX, FLT_MIN, 1e-45f};
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = g();
        uint32_t b = uint32_t(r);
        switch ((r >> 32) % 8) {
            case 0: case 1: break;                                                              // any bits
            case 2: b = (b & 0x807fffffu) | (uint32_t(103 + (r >> 40) % 40) << 23); break;     // half range
            case 3: b = (b & 0x807fe000u) | 0x1000u | (uint32_t(103 + (r >> 40) % 40) << 23); break;  // half ties
            case 4: b = (b & 0xffff0000u) | ((r >> 40) & 1 ? 0x8000u : 0x7fffu); break;        // bf16 ties/near
            case 5: b &= 0x807fffffu; break;                                                    // subnormals
            case 6: v[i] = float(int64_t(r >> 40) % 70000) + float((r >> 36) & 3) * 0.25f; if (r & 1) v[i] = -v[i]; continue;
            default: v[i] = specials[(r >> 40) % (sizeof specials / sizeof *specials)]; continue;
        }
        std::memcpy(&v[i], &b, 4);
    }
    return v;
}

static void test_bulk_identity(bool quick) {
    std::vector<half> h(65536 + 5);
    std::vector<bfloat16_t> bf(65536 + 5);
    std::vector<int16_t> i16(65536 + 5);
    for (size_t i = 0; i < h.size(); ++i) {  // exhaustive (+5: an odd tail)
        h[i] = half::from_bits(uint16_t(i * 40503u));
        bf[i] = bfloat16_t::from_bits(uint16_t(i * 40503u));
        i16[i] = int16_t(uint16_t(i * 40503u));
    }
    std::vector<int8_t> i8(259);
    std::vector<uint8_t> u8(259);
    for (size_t i = 0; i < i8.size(); ++i) { i8[i] = int8_t(i); u8[i] = uint8_t(i); }
    bulk_identity<float, half>("half->float", h);
    bulk_identity<int32_t, half>("half->int32", h);
    bulk_identity<int16_t, half>("half->int16", h);
    bulk_identity<int8_t, half>("half->int8", h);
    bulk_identity<uint8_t, half>("half->uint8", h);
    bulk_identity<float, bfloat16_t>("bf16->float", bf);
    bulk_identity<int32_t, bfloat16_t>("bf16->int32", bf);
    bulk_identity<half, int16_t>("int16->half", i16);
    bulk_identity<float, int16_t>("int16->float", i16);
    bulk_identity<half, int8_t>("int8->half", i8);
    bulk_identity<half, uint8_t>("uint8->half", u8);

    const size_t nf = quick ? 200000 : 1000003;
    auto f = float_patterns(nf, 1);
    bulk_identity<half, float>("float->half", f);
    auto f2 = float_patterns(nf / 4 + 3, 2);
    bulk_identity<int32_t, float>("float->int32", f2);
    bulk_identity<int16_t, float>("float->int16", f2);
    bulk_identity<int64_t, float>("float->int64", f2);
    bulk_identity<bfloat16_t, float>("float->bf16", f2);
    bulk_identity<float, float>("float->float", f2);

    std::mt19937_64 g(3);
    std::vector<int32_t> i32(nf / 4 + 7);
    for (auto& x : i32) {
        uint64_t r = g();
        x = (r >> 62) == 0 ? int32_t(r) : (r >> 62) == 1 ? int32_t(r % 70000) - 35000 : int32_t((r >> 8) % (1 << 27)) * ((r & 1) ? -1 : 1);
    }
    i32[0] = INT32_MIN; i32[1] = INT32_MAX; i32[2] = (1 << 25) + 3; i32[3] = 16777217;
    bulk_identity<float, int32_t>("int32->float", i32);
    bulk_identity<int16_t, int32_t>("int32->int16", i32);
    bulk_identity<int64_t, int32_t>("int32->int64", i32);
    std::vector<int64_t> i64(20011);
    for (auto& x : i64) { uint64_t r = g(); x = (r & 1) ? int64_t(r) : int64_t(r) >> (r % 60); }
    i64[0] = INT64_MIN; i64[1] = INT64_MAX; i64[2] = (1ll << 31); i64[3] = -(1ll << 31) - 1;
    bulk_identity<int32_t, int64_t>("int64->int32", i64);
    bulk_identity<float, int64_t>("int64->float", i64);
}

// Independent check that cast_value's float->half rounding is IEEE: compare with F16C hardware
// for every mode the hardware has (RNE, floor, ceil, trunc), InfNan mode.
#if ASCEMU_NUM_X86
__attribute__((target("f16c"))) static uint16_t f16c(float x, int mode) {
    switch (mode) {
        case 1: return _cvtss_sh(x, 1); case 2: return _cvtss_sh(x, 2); case 3: return _cvtss_sh(x, 3);
        default: return _cvtss_sh(x, 0);
    }
}
static void test_against_f16c() {
    if (!__builtin_cpu_supports("f16c")) return;
    auto f = float_patterns(300000, 9);
    const RoundMode ms[] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_TRUNC};
    for (int k = 0; k < 4; ++k) {
        long bad = 0;
        CastFlags fl;
        for (float x : f) bad += cast_value<half>(x, ms[k], OM::InfNan, fl).to_bits() != f16c(x, k);
        CHECK(bad == 0, "cast_value float->half %s vs F16C: %ld", mode_name(ms[k]), bad);
    }
}
#else
static void test_against_f16c() {}
#endif

// ---------------------------------------------------------------------------------------------
// §4.7 reductions (tests 30-35)
// ---------------------------------------------------------------------------------------------
static void test_reductions() {
    half d[4] = {half(60000), half(60000), half(-30000), half(100)};
    CHECK(sum_step(d[0], d[1], OM::InfNan).to_bits() == 0x7bff, "test 30: 60000+60000 clamps to 65504 in both modes");
    for (int method : {1, 2})
        for (OM om : {OM::Saturation, OM::InfNan}) {
            half tmp[16];
            half s = reduce_sum(d, 4, method, om, tmp);
            CHECK(s.to_bits() == 0x7858, "test 30 method %d: got %g (%#x), want 35584", method, float(s), s.to_bits());
        }
    // Method 2 clamps half in the sequential phase too: repeat partials 60000, 60000, -30000:
    // 65504 - 30000 = 35504 is a half tie (ulp 32) -> 35520.
    std::vector<half> h3(384, half(0));
    h3[0] = half(60000); h3[128] = half(60000); h3[256] = half(-30000);
    CHECK(double(reduce_sum(h3.data(), 384, 2, OM::InfNan)) == 35520, "method 2 sequential clamp: got %g",
          double(reduce_sum(h3.data(), 384, 2, OM::InfNan)));
    // Test 31: 4 float repeats with partials [1, 1e8, -1e8, 1].
    std::vector<float> x(256, 0.0f);
    x[0] = 1; x[64] = 1e8f; x[128] = -1e8f; x[192] = 1;
    CHECK(reduce_sum(x.data(), 256, 1, OM::Saturation) == 0.0f, "test 31 method 1 -> 0");
    CHECK(reduce_sum(x.data(), 256, 2, OM::InfNan) == 1.0f, "test 31 method 2 -> 1");
    float p[4] = {1, 1e8f, -1e8f, 1};
    CHECK(combine_partials(p, 4, 1, OM::InfNan) == 0.0f, "test 31 mask form (method 1) -> 0");
    // Tree order inside a repeat: (a+b)+(c+d), not ((a+b)+c)+d.
    float t[4] = {1e8f, 1, 1, -1e8f};  // (1e8+1)+(1-1e8) = 1e8 + -99999999 -> 0 in float? check exactly
    float want = float(double(float(double(t[0]) + t[1])) + double(float(double(t[2]) + t[3])));
    CHECK(repeat_tree_sum(t, 4, OM::InfNan) == want, "pairwise tree");
    uint64_t mask[1] = {0x5};  // lanes 0 and 2 only
    CHECK(repeat_tree_sum(t, 4, OM::InfNan, mask) == float(1e8f + 1.0f), "masked lanes add 0");
    // Method 1 over more than one level (> epr partials): 200 repeats of halves each summing 1.
    std::vector<half> many(200 * 128, half(0));
    for (int r = 0; r < 200; ++r) many[size_t(r) * 128] = half(1);
    CHECK(double(reduce_sum(many.data(), int64_t(many.size()), 1, OM::InfNan)) == 200, "two-level method 1");
    // Test 32 / tmp sizes.
    CHECK(reduce_sum_tmp_elems<half>(8320) == 80, "test 32: 8320 halves need 80");
    CHECK(reduce_sum_tmp_elems<half>(1) == 16 && reduce_sum_tmp_elems<float>(64 * 9) == 16, "reduce_sum tmp small");
    // Test 33.
    float m5[5] = {3, 7, 7, 1, 7};
    auto r5 = reduce_max(m5, 5);
    CHECK(r5.first == 7 && r5.second == 1, "test 33: got %g @%u", r5.first, r5.second);
    std::vector<half> hm(512, half(0));
    hm[130] = half(9); hm[260] = half(9);
    CHECK(reduce_max(hm.data(), 512).second == 130, "test 33: tie across repeats -> first repeat");
    hm[127] = half(9);
    CHECK(reduce_max(hm.data(), 512).second == 127, "test 33: first index overall");
    // Test 34: max at 114 of 512 halves -> index bits 0x0072, read as half 6.8e-06.
    std::vector<half> h34(512);
    for (int i = 0; i < 512; ++i) h34[size_t(i)] = half(float(i % 97) / 100.0f);
    h34[114] = half(0.9985f);
    auto r34 = reduce_max(h34.data(), 512);
    half idx = half::from_bits(uint16_t(r34.second));
    CHECK(r34.second == 114 && idx.to_bits() == 0x0072 && std::fabs(float(idx) - 6.8e-06f) < 1e-8f, "test 34");
    auto rn = reduce_max(std::vector<float>{1, NAN, 5, NAN}.data(), 4);
    CHECK(std::isnan(rn.first) && rn.second == 1, "NaN -> NaN (first NaN index)");
    auto rw = repeat_max(m5, 5, mask);
    CHECK(rw.first == 7 && rw.second == 2, "repeat_max with mask skips lane 1");
    // Test 35: the six [DOC] ReduceMax examples (AscC ReduceMax "sharedTmpBuffer空间计算示例" 1-6).
    CHECK(reduce_max_tmp_elems_for_repeats<half>(65, true) == 176 && reduce_max_tmp_elems<half>(8320, true) == 176, "ex1 176");
    CHECK(reduce_max_tmp_elems_for_repeats<half>(255, true) == 544 && reduce_max_tmp_elems<half>(32640, true) == 544, "ex2 544");
    CHECK(reduce_max_tmp_elems<half>(65408, true) == 1056, "ex3 1056");
    CHECK(reduce_max_tmp_elems_for_repeats<half>(4, true) == 32 && reduce_max_tmp_elems<half>(512, true) == 32, "ex4 32");
    CHECK(reduce_max_tmp_elems<half>(65408, false) == 1024, "ex5 1024");
    CHECK(reduce_max_tmp_elems_for_repeats<float>(130, true) == 288 && reduce_max_tmp_elems<float>(8320, true) == 288, "ex6 288");
}

// ---------------------------------------------------------------------------------------------
// Test 37: Exp / Ln / Div (+ Sqrt, Reciprocal, Rsqrt) on 1e5 random inputs vs a reference that
// rounds through an independent path (long double + round_rne_ld), and ftz.
// ---------------------------------------------------------------------------------------------
template <class T>
static T ref_round(long double v) {  // independent of round_result: long double rounding helper
    if (v != v) return T(NAN);
    constexpr int Pp = fp_format<T>::P, E = fp_format<T>::EMIN;
    long double r = ascemu::detail::round_rne_ld<Pp, E>(v);
    if (std::fabs(r) > fp_format<T>::MAX) return T(r < 0 ? -INFINITY : INFINITY);
    return T(float(r));
}
template <class T>
static void transcendental(uint64_t seed, float lo, float hi) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<float> U(lo, hi), Upos(0.0f, hi);
    long bad[6] = {};
    for (int i = 0; i < 100000; ++i) {
        T x = T(U(g)), y = T(U(g)), px = T(Upos(g));
        if (float(y) == 0) y = T(1);
        bad[0] += !same_bits(exp_value(x), ref_round<T>(std::exp(double(x))));
        bad[1] += !same_bits(ln_value(px), ref_round<T>(std::log(double(px))));
        bad[2] += !same_bits(div_value(x, y, OM::InfNan), ref_round<T>((long double)float(x) / (long double)float(y)));
        bad[3] += !same_bits(sqrt_value(px), ref_round<T>(std::sqrt((long double)float(px))));
        bad[4] += !same_bits(reciprocal_value(y), ref_round<T>(1.0L / (long double)float(y)));
        bad[5] += !same_bits(rsqrt_value(px), ref_round<T>(1.0 / std::sqrt(double(px))));
    }
    for (int k = 0; k < 6; ++k) CHECK(bad[k] == 0, "test 37 %s op %d: %ld mismatches", dtype_name_v<T>, k, bad[k]);
}
static void test_transcendental() {
    transcendental<float>(11, -90.0f, 90.0f);
    transcendental<half>(12, -11.0f, 11.0f);
    // Special values and §4.2.
    CHECK(std::isinf(exp_value(100.0f)) && exp_value(100.0f, OM::Saturation) == FLT_MAX, "exp overflow");
    CHECK(ln_value(half(0), OM::Saturation).to_bits() == 0xfbff && std::isnan(float(ln_value(half(-1)))) &&
              ln_value(-1.0f, OM::Saturation) == 0, "ln(0), ln(-1)");
    CHECK(exp_value(half(12)).to_bits() == 0x7c00 && exp_value(half(12), OM::Saturation).to_bits() == 0x7bff, "half exp overflow");
    // ftz: subnormal input flushed (exp(0) = 1), subnormal output flushed to signed zero.
    CHECK(exp_value(1e-40f, OM::InfNan, true) == 1.0f && ln_value(1e-40f, OM::InfNan, true) == -INFINITY, "ftz input");
    CHECK(same_bits(div_value(1e-30f, -1e10f, OM::InfNan), -1e-40f) && same_bits(ftz(div_value(1e-30f, -1e10f, OM::InfNan)), -0.0f),
          "ftz output float");
    CHECK(ftz(half::from_bits(0x83ff)).to_bits() == 0x8000 && ftz(half::from_bits(0x0400)).to_bits() == 0x0400 &&
              reciprocal_value(half(30000), OM::InfNan, true).to_bits() == 0 && reciprocal_value(half(30000)).to_bits() != 0,
          "ftz half");
    CHECK(ftz(bfloat16_t::from_bits(0x0001)).to_bits() == 0 && abs_value(half(-2), OM::InfNan) == 2 && relu_value(-3.0f, OM::InfNan) == 0,
          "ftz bf16, abs, relu");
}

// ---------------------------------------------------------------------------------------------
static void bench() {
    const size_t n = size_t(16) << 20;
    std::vector<float> f(n), f2(n);
    std::vector<half> h(n);
    std::mt19937 g(1);
    std::uniform_real_distribution<float> U(-70000.f, 70000.f);
    for (auto& x : f) x = U(g);
    CastFlags fl;
    auto time = [&](const char* name, auto fn) {
        double best = 1e9;
        for (int rep = 0; rep < 5; ++rep) {
            auto t0 = std::chrono::steady_clock::now();
            fn();
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::printf("%-34s %7.2f ms  %.3f ns/elem\n", name, best * 1e3, best * 1e9 / double(n));
    };
    time("float->half NONE sat (simd)", [&] { num::detail::cast_array_impl(h.data(), f.data(), n, RoundMode::CAST_NONE, OM::Saturation, fl, true); });
    time("float->half ODD sat (simd)", [&] { num::detail::cast_array_impl(h.data(), f.data(), n, RoundMode::CAST_ODD, OM::Saturation, fl, true); });
    time("float->half NONE sat (scalar)", [&] { num::detail::cast_array_impl(h.data(), f.data(), n, RoundMode::CAST_NONE, OM::Saturation, fl, false); });
    time("half->float NONE infnan (simd)", [&] { num::detail::cast_array_impl(f2.data(), h.data(), n, RoundMode::CAST_NONE, OM::InfNan, fl, true); });
    time("half->float NONE infnan (scalar)", [&] { num::detail::cast_array_impl(f2.data(), h.data(), n, RoundMode::CAST_NONE, OM::InfNan, fl, false); });
    std::vector<int32_t> i(n);
    time("half->int32 RINT (simd)", [&] { cast_array(i.data(), h.data(), n, RoundMode::CAST_RINT, OM::Saturation, fl); });
    time("float->int32 TRUNC (simd)", [&] { cast_array(i.data(), f.data(), n, RoundMode::CAST_TRUNC, OM::Saturation, fl); });
    time("float->half ROUND (scalar only)", [&] { cast_array(h.data(), f.data(), n, RoundMode::CAST_ROUND, OM::Saturation, fl); });
}


// ---------------------------------------------------------------------------------------------
// fast.h: every vectorised path against the exact per-element path it stands in for
static float f32_from(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }

static std::vector<float> fast_operands(std::mt19937& g, size_t n) {
    const float edges[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX, FLT_MIN, 1e-45f,
                           -87.0f, 88.0f, -87.3f, 88.72f, -103.9f, 89.0f, 3e38f, -3e38f, 1e-30f, 65504.0f};
    std::vector<float> v(std::begin(edges), std::end(edges));
    std::uniform_int_distribution<uint32_t> any;
    std::uniform_real_distribution<float> mid(-100.0f, 100.0f);
    while (v.size() < n) v.push_back((v.size() & 1) ? f32_from(any(g)) : mid(g));
    return v;
}

static void test_fast_paths() {
    std::mt19937 g(7);
    // exp: a sweep of every 61st float bit pattern in [-90, 90] plus edges; a lane the fast path keeps must be
    // glibc's double exp rounded once (exp_value), and it may give up on only a few lanes in range.
    std::vector<float> xs = fast_operands(g, 64);
    for (uint32_t b = 0; b <= 0x42b40000u; b += 61) {
        xs.push_back(f32_from(b));
        xs.push_back(f32_from(b | 0x80000000u));
    }
    long kept_bad = 0, gave_up_in_range = 0, in_range = 0;
    for (size_t i0 = 0; i0 < xs.size(); i0 += fast::kChunk) {
        float t[fast::kChunk];
        const int k = (int)std::min<size_t>(fast::kChunk, xs.size() - i0);
        fast::exp_f32(t, xs.data() + i0, k);
        for (int j = 0; j < k; ++j) {
            const float x = xs[i0 + j];
            const bool in = x >= -87.0f && x <= 88.0f;
            in_range += in;
            if (std::isnan(t[j])) gave_up_in_range += in;
            else kept_bad += !same_bits(t[j], exp_value<float>(x)) || !in;
        }
    }
    CHECK(kept_bad == 0, "fast exp kept %ld lanes that differ from exp_value", kept_bad);
    CHECK(in_range > 20000000 && gave_up_in_range * 10000 < in_range, "fast exp gave up on %ld of %ld in-range lanes",
          gave_up_in_range, in_range);

    // + - * / and the scalar forms through map_f32, both overflow modes, specials included
    std::vector<float> a = fast_operands(g, 100000), b = fast_operands(g, 100000);
    std::shuffle(b.begin(), b.end(), g);
    const fast::Bin ops[] = {fast::Bin::Add, fast::Bin::Sub, fast::Bin::Mul, fast::Bin::Div};
    for (OM om : {OM::InfNan, OM::Saturation})
        for (fast::Bin op : ops)
            for (int scalar = 0; scalar < 2; ++scalar)
            for (int direct = 0; direct < 2; ++direct) {  // into d itself (no source overlaps it), or via the buffer
                auto exact = [&](float x, float y) {
                    return op == fast::Bin::Add ? add_value(x, y, om) : op == fast::Bin::Sub ? sub_value(x, y, om)
                         : op == fast::Bin::Mul ? mul_value(x, y, om) : div_value(x, y, om);
                };
                std::vector<float> d(a.size());
                fast::map_f32(
                    d.data(), (int64_t)a.size(),
                    [&](float* t, int64_t i0, int k) {
                        return fast::bin_f32(op, t, a.data() + i0, scalar ? &b[7] : b.data() + i0, !scalar, k);
                    },
                    [&](int64_t i) { return exact(a[i], scalar ? b[7] : b[i]); }, direct != 0);
                long bad = 0;
                for (size_t i = 0; i < a.size(); ++i) bad += !same_bits(d[i], exact(a[i], scalar ? b[7] : b[i]));
                CHECK(bad == 0, "fast binary op %d scalar %d direct %d mode %d: %ld lanes differ", int(op), scalar,
                      direct, int(om), bad);
            }
    // in place: dst is src0
    std::vector<float> inplace = a;
    fast::map_f32(
        inplace.data(), (int64_t)inplace.size(),
        [&](float* t, int64_t i0, int k) { return fast::bin_f32(fast::Bin::Mul, t, inplace.data() + i0, b.data() + i0, 1, k); },
        [&](int64_t i) { return mul_value(inplace[i], b[i], OM::InfNan); });
    long bad_inplace = 0;
    for (size_t i = 0; i < a.size(); ++i) bad_inplace += !same_bits(inplace[i], mul_value(a[i], b[i], OM::InfNan));
    CHECK(bad_inplace == 0, "in-place fast Mul: %ld lanes differ", bad_inplace);

    // ReduceSum's 64-lane tree: against the tree spelled out with add_value, overflowing steps included
    for (OM om : {OM::InfNan, OM::Saturation})
        for (int trial = 0; trial < 2000; ++trial) {
            float lanes[64];
            std::uniform_real_distribution<float> u(trial % 3 ? -1e3f : -3.3e38f, trial % 3 ? 1e3f : 3.3e38f);
            for (float& x : lanes) x = u(g);
            if (trial % 50 == 0) lanes[trial % 64] = trial % 100 ? INFINITY : NAN;
            // partial repeats and masks: the missing lanes are +0
            const int nl = trial % 4 ? 64 : 1 + trial % 64;
            const uint64_t mask[1] = {trial % 5 == 1 ? std::uniform_int_distribution<uint64_t>()(g) : ~0ull};
            float ref[64];
            for (int i = 0; i < 64; ++i) ref[i] = i < nl && (mask[0] >> i & 1) ? lanes[i] : 0.0f;
            for (int w = 64; w > 1; w /= 2)
                for (int i = 0; i < w / 2; ++i) ref[i] = add_value(ref[2 * i], ref[2 * i + 1], om);
            CHECK(same_bits(repeat_tree_sum<float>(lanes, nl, om, mask), ref[0]), "tree sum trial %d mode %d", trial,
                  int(om));
        }

    // ReduceMax: first index of the maximum, -0 == +0, NaN wins (first NaN)
    for (int trial = 0; trial < 3000; ++trial) {
        std::vector<float> v(1 + trial % 300);
        std::uniform_int_distribution<int> small(-3, 3);
        for (float& x : v) x = trial % 2 ? float(small(g)) : f32_from(std::uniform_int_distribution<uint32_t>()(g));
        if (trial % 7 == 0) v[trial % v.size()] = -0.0f;
        if (trial % 11 == 0) v[(trial / 11) % v.size()] = NAN;
        size_t want = 0;
        for (size_t i = 0; i < v.size(); ++i) {
            if (std::isnan(v[i])) { want = i; break; }
            if (v[i] > v[want]) want = i;
        }
        auto [val, idx] = reduce_max<float>(v.data(), (int64_t)v.size());
        CHECK(idx == want && same_bits(val, v[want]), "reduce_max trial %d: index %u want %zu", trial, idx, want);
    }

    // Duplicate's fills
    std::vector<uint32_t> w32(1001, 1);
    std::vector<uint16_t> w16(1003, 1);
    fast::fill32(w32.data(), 0xdeadbeefu, 1000);
    fast::fill16(w16.data(), 0xbeefu, 1002);
    CHECK(std::count(w32.begin(), w32.end(), 0xdeadbeefu) == 1000 && w32[1000] == 1, "fill32");
    CHECK(std::count(w16.begin(), w16.end(), uint16_t(0xbeef)) == 1002 && w16[1002] == 1, "fill16");

    // Bitmap::all and count_unset (fast::all_ones / zero_bits over whole words) against bit-by-bit loops
    long bitmap_bad = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        Bitmap bm;
        bm.init(700 + g() % 900, false);
        for (int k = 0; k < 6; ++k) {
            size_t lo = g() % bm.n, hi = lo + g() % 400;
            bm.set(lo, hi);
        }
        size_t lo = g() % bm.n, hi = lo + g() % (bm.n - lo + 1);
        size_t unset = 0;
        for (size_t i = lo; i < hi; ++i) unset += !bm.get(i);
        bitmap_bad += bm.count_unset(lo, hi) != unset || bm.all(lo, hi) != (unset == 0);
    }
    CHECK(bitmap_bad == 0, "Bitmap count_unset/all differ from a bit loop in %ld cases", bitmap_bad);
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--bench") { bench(); return 0; }
    bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    test_types();
    test_support_table();
    test_doc_examples();
    test_overflow_modes();
    test_bulk_identity(quick);
    test_against_f16c();
    test_reductions();
    test_transcendental();
    test_fast_paths();
    std::printf("checks: %ld failures: %ld\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
