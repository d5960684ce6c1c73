// ascemu/vector_ext.h — the vector APIs issue 11 added: Axpy, LeakyRelu, FusedMulAdd, MulAddDst, Copy (UB -> UB
// mask forms), Transpose, Scatter, Gatherb, Fill / InitGlobalMemory (GM), the scalar Cast / ToBfloat16 / ToFloat
// conversions, and the refusal of APIs that CANN provides only for architectures newer than 310P (dav-m200) and
// 910B (dav-c220).
//
// Semantics follow CANN's public API pages and basic-API implementation (cann/asc-devkit: docs/zh/api/SIMD-API,
// impl/basic_api/dav_m200 and dav_c220).  Where those leave a numeric detail open, the choice is marked [CHOICE].
#pragma once
#include "ascemu/vector.h"

namespace ascemu {

// dst = round(a * b + c): one rounding, as a fused multiply-add [CHOICE: the device's vaxpy / vmadd / vmla
// rounding is unpublished].  a * b of two halves or two floats is exact in double; fma rounds the sum once more
// before the final rounding to T, which can differ from a true single rounding only on ties far below T's ulp.
template <class T, class U>
inline T fused_mul_add(U a, U b, T c, OverflowMode om) {
    double r = std::fma((double)(float)a, (double)(float)b, (double)(float)c);
    return num::round_result<T>(r, om);
}

template <class T>
inline T leaky_relu(T x, T alpha, OverflowMode om) {
    double v = (double)(float)x;
    return v >= 0 ? num::round_result<T>(v, om) : num::round_result<T>(v * (double)(float)alpha, om);
}

// Count form of an op that reads dst too (dst = f(src..., dst)).  Every operand spans `count` elements.
template <class T, class U, class F>
inline void accumulate_count(Core* c, const char* api, const AscendC::LocalTensor<T>& dst,
                             const AscendC::LocalTensor<U>& a, const AscendC::LocalTensor<U>* b, int64_t count,
                             const SL& loc, F f) {
    if (!count_ok(count, loc, api)) return;
    const uint8_t* pa = ub_operand(c, a.v_, (size_t)count * sizeof(U), UB_R, loc, "src0");
    const uint8_t* pb = b ? ub_operand(c, b->v_, (size_t)count * sizeof(U), UB_R, loc, "src1") : pa;
    uint8_t* pd = ub_operand(c, dst.v_, (size_t)count * sizeof(T), UB_R | UB_W, loc, "dst");
    if (!pa || !pb || !pd) return;
    for (int64_t i = 0; i < count; ++i) {
        U x, y;
        T d;
        std::memcpy(&x, pa + i * sizeof(U), sizeof(U));
        std::memcpy(&y, pb + i * sizeof(U), sizeof(U));
        std::memcpy(&d, pd + i * sizeof(T), sizeof(T));
        d = f(x, y, d);
        std::memcpy(pd + i * sizeof(T), &d, sizeof(T));
    }
    trace_vec(c, api, dtype_name_v<U>, dtype_name_v<T>, count, repeats_for(count, std::max(sizeof(T), sizeof(U))));
}

// Mask form of the same: a repeat covers 256 / max(sizeof(T), sizeof(U)) lanes.
template <class T, class U, class F>
inline void accumulate_mask(Core* c, const char* api, const AscendC::LocalTensor<T>& dst,
                            const AscendC::LocalTensor<U>& a, const AscendC::LocalTensor<U>* b, const Mask& m,
                            int64_t repeat, uint32_t dblk, uint32_t drep, uint32_t ablk, uint32_t arep, uint32_t bblk,
                            uint32_t brep, const SL& loc, F f) {
    Opnd ops[3] = {{&dst.v_, dblk, drep, sizeof(T), UB_R | UB_W, "dst"},
                   {&a.v_, ablk, arep, sizeof(U), UB_R, "src0"},
                   {b ? &b->v_ : &a.v_, bblk, brep, sizeof(U), UB_R, "src1"}};
    auto lane = [&](uint8_t** p) {
        U x, y;
        T d;
        std::memcpy(&x, p[1], sizeof(U));
        std::memcpy(&y, b ? p[2] : p[1], sizeof(U));
        std::memcpy(&d, p[0], sizeof(T));
        d = f(x, y, d);
        std::memcpy(p[0], &d, sizeof(T));
    };
    if (b) mask_walk<3>(c, ops, std::max(sizeof(T), sizeof(U)), m, repeat, loc, lane);
    else {
        Opnd two[2] = {ops[0], ops[1]};
        mask_walk<2>(c, two, std::max(sizeof(T), sizeof(U)), m, repeat, loc, lane);
    }
    trace_vec(c, api, dtype_name_v<U>, dtype_name_v<T>, -1, (uint64_t)repeat);
}

// (dst, src) dtype pairs of Axpy and MulAddDst: half/half, float/float, float/half (both platforms).
template <class T, class U>
inline constexpr bool mla_pair_v =
    (std::is_same_v<T, half> && std::is_same_v<U, half>) || (std::is_same_v<T, float> && std::is_same_v<U, float>) ||
    (std::is_same_v<T, float> && std::is_same_v<U, half>);

}  // namespace ascemu

namespace AscendC {

// ------------------------------------------------------------------------------------------------ Axpy
// dst = scalar * src + dst ([DOC] Axpy).  CANN checks the dtype pair at run time (ASCENDC_ASSERT).
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count,
                 ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Axpy", loc);
    if (!dtype_check<T>(mla_pair_v<T, U>, c, loc, "Axpy")) return;
    U s = scalarValue;
    OverflowMode om = ovf();
    accumulate_count<T, U>(c, "Axpy", dst, src, nullptr, count, loc,
                           [s, om](U x, U, T d) { return fused_mul_add<T, U>(s, x, d, om); });
}
#define ASCEMU_AXPY_MASK(MASK_T)                                                                                     \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, MASK_T mask,        \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {                   \
        using namespace ascemu;                                                                                      \
        Core* c = api_enter("Axpy", loc);                                                                            \
        if (!dtype_check<T>(mla_pair_v<T, U>, c, loc, "Axpy")) return;                                               \
        U s = scalarValue;                                                                                           \
        OverflowMode om = ovf();                                                                                     \
        const UnaryRepeatParams& r = repeatParams;                                                                   \
        accumulate_mask<T, U>(c, "Axpy", dst, src, nullptr,                                                          \
                              mask_of(c, mask, 256 / std::max(sizeof(T), sizeof(U)), isSetMask), repeatTime,         \
                              r.dstBlkStride, r.dstRepStride, r.srcBlkStride, r.srcRepStride, 0, 0, loc,             \
                              [s, om](U x, U, T d) { return fused_mul_add<T, U>(s, x, d, om); });                    \
    }
ASCEMU_AXPY_MASK(uint64_t*)
ASCEMU_AXPY_MASK(uint64_t)
#undef ASCEMU_AXPY_MASK

// ------------------------------------------------------------------------------------------------ LeakyRelu
// dst = src >= 0 ? src : scalar * src, half / float (a static_assert of CANN's dav_m200 and dav_c220).
template <typename T, bool isSetMask = true>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count,
                      ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("LeakyRelu", float_t_<T>);
    Core* c = api_enter("LeakyRelu", loc);
    if (!dtype_check<T>(float_t_<T>, c, loc, "LeakyRelu")) return;
    T s = scalarValue;
    OverflowMode om = ovf();
    unary_count<T, T>(c, "LeakyRelu", dst, src, count, loc, [s, om](T x) { return leaky_relu(x, s, om); });
}
#define ASCEMU_LEAKY_RELU_MASK(MASK_T)                                                                               \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, MASK_T mask,   \
                          const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {              \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE("LeakyRelu", float_t_<T>);                                                               \
        Core* c = api_enter("LeakyRelu", loc);                                                                       \
        if (!dtype_check<T>(float_t_<T>, c, loc, "LeakyRelu")) return;                                               \
        T s = scalarValue;                                                                                           \
        OverflowMode om = ovf();                                                                                     \
        unary_mask<T>(c, "LeakyRelu", dst, src, mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime,            \
                      repeatParams, loc, [s, om](T x) { return leaky_relu(x, s, om); });                             \
    }
ASCEMU_LEAKY_RELU_MASK(uint64_t*)
ASCEMU_LEAKY_RELU_MASK(uint64_t)
#undef ASCEMU_LEAKY_RELU_MASK

// ------------------------------------------------------------------------------------------------ FusedMulAdd
// dst = src0 * dst + src1 ([DOC] FusedMulAdd), half / float (CANN's static_assert).
template <typename T>
inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        const int32_t& count, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("FusedMulAdd", float_t_<T>);
    Core* c = api_enter("FusedMulAdd", loc);
    if (!dtype_check<T>(float_t_<T>, c, loc, "FusedMulAdd")) return;
    OverflowMode om = ovf();
    accumulate_count<T, T>(c, "FusedMulAdd", dst, src0, &src1, count, loc,
                           [om](T a, T b, T d) { return fused_mul_add<T, T>(a, d, b, om); });
}
#define ASCEMU_FUSED_MUL_ADD_MASK(MASK_T)                                                                            \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,       \
                            MASK_T mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, ASCEMU_SL) { \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE("FusedMulAdd", float_t_<T>);                                                             \
        Core* c = api_enter("FusedMulAdd", loc);                                                                     \
        if (!dtype_check<T>(float_t_<T>, c, loc, "FusedMulAdd")) return;                                             \
        OverflowMode om = ovf();                                                                                     \
        const BinaryRepeatParams& r = repeatParams;                                                                  \
        accumulate_mask<T, T>(c, "FusedMulAdd", dst, src0, &src1, mask_of(c, mask, 256 / sizeof(T), isSetMask),      \
                              repeatTime, r.dstBlkStride, r.dstRepStride, r.src0BlkStride, r.src0RepStride,          \
                              r.src1BlkStride, r.src1RepStride, loc,                                                 \
                              [om](T a, T b, T d) { return fused_mul_add<T, T>(a, d, b, om); });                     \
    }
ASCEMU_FUSED_MUL_ADD_MASK(uint64_t*)
ASCEMU_FUSED_MUL_ADD_MASK(uint64_t)
#undef ASCEMU_FUSED_MUL_ADD_MASK

// ------------------------------------------------------------------------------------------------ MulAddDst
// dst = src0 * src1 + dst ([DOC] MulAddDst); (dst, src) half/half, float/float, float/half (CANN's static_assert).
template <typename T, typename U>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const int32_t& count, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_STRICT_DTYPE("MulAddDst", (mla_pair_v<T, U>));
    Core* c = api_enter("MulAddDst", loc);
    if (!dtype_check<T>(mla_pair_v<T, U>, c, loc, "MulAddDst")) return;
    OverflowMode om = ovf();
    accumulate_count<T, U>(c, "MulAddDst", dst, src0, &src1, count, loc,
                           [om](U a, U b, T d) { return fused_mul_add<T, U>(a, b, d, om); });
}
#define ASCEMU_MUL_ADD_DST_MASK(MASK_T)                                                                              \
    template <typename T, typename U, bool isSetMask = true>                                                         \
    inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,         \
                          MASK_T mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams, ASCEMU_SL) { \
        using namespace ascemu;                                                                                      \
        ASCEMU_STRICT_DTYPE("MulAddDst", (mla_pair_v<T, U>));                                                        \
        Core* c = api_enter("MulAddDst", loc);                                                                       \
        if (!dtype_check<T>(mla_pair_v<T, U>, c, loc, "MulAddDst")) return;                                          \
        OverflowMode om = ovf();                                                                                     \
        const BinaryRepeatParams& r = repeatParams;                                                                  \
        accumulate_mask<T, U>(c, "MulAddDst", dst, src0, &src1,                                                      \
                              mask_of(c, mask, 256 / std::max(sizeof(T), sizeof(U)), isSetMask), repeatTime,         \
                              r.dstBlkStride, r.dstRepStride, r.src0BlkStride, r.src0RepStride, r.src1BlkStride,     \
                              r.src1RepStride, loc, [om](U a, U b, T d) { return fused_mul_add<T, U>(a, b, d, om); }); \
    }
// CANN's MulAddDst takes `const uint64_t mask[]` (include/basic_api/kernel_operator_vec_binary_intf.h).
ASCEMU_MUL_ADD_DST_MASK(const uint64_t*)
ASCEMU_MUL_ADD_DST_MASK(uint64_t)
#undef ASCEMU_MUL_ADD_DST_MASK

// ------------------------------------------------------------------------------------------------ Copy
// UB -> UB vector copy with a mask and block strides ([DOC] Copy (UBToUB mask high-dimensional); 910B; the
// dav_m200 CopyImpl reports "not supported" at run time).  CopyRepeatParams is CANN's: block strides default to 0.
// In counter mode the mask counts the elements of each repeat, and a repeat continues past 8 blocks.
struct CopyRepeatParams {
    CopyRepeatParams() {}
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                     uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
          srcRepeatSize(srcRepeatSizeIn) {}
    uint16_t dstStride = 0;
    uint16_t srcStride = 0;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

namespace ascemu_detail {
template <typename T>
inline void copy_impl(const LocalTensor<T>& dst, const LocalTensor<T>& src, const ascemu::Mask& m, uint8_t repeatTime,
                      const CopyRepeatParams& rp, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (kIs310P) {
        unsupported_api(loc, "Copy");
        return;
    }
    if (!dtype_check<T>(sizeof(T) == 2 || sizeof(T) == 4, c, loc, "Copy")) return;
    if (rp.dstRepeatSize > 4095 || rp.srcRepeatSize > 4095) {
        diag("PARAM_RANGE", Sev::Error, loc,
             strf("Copy dstRepeatSize %u / srcRepeatSize %u not in [0, 4095]", rp.dstRepeatSize, rp.srcRepeatSize),
             jd("dstRepeatSize", rp.dstRepeatSize, "srcRepeatSize", rp.srcRepeatSize));
        return;
    }
    if (!m.counter) {
        Opnd ops[2] = {{&dst.v_, rp.dstStride, rp.dstRepeatSize, sizeof(T), UB_W, "dst"},
                       {&src.v_, rp.srcStride, rp.srcRepeatSize, sizeof(T), UB_R, "src"}};
        mask_walk<2>(c, ops, sizeof(T), m, repeatTime, loc, [](uint8_t** p) { std::memcpy(p[0], p[1], sizeof(T)); });
    } else if (repeatTime && m.total) {
        const uint64_t n = m.total, epb = 32 / sizeof(T);
        auto off = [&](uint64_t r, uint64_t i, uint32_t blk, uint32_t rep) {
            return r * rep * 32 + (i / epb) * blk * 32 + (i % epb) * sizeof(T);
        };
        const uint64_t sext = off(repeatTime - 1, n - 1, rp.srcStride, rp.srcRepeatSize) + sizeof(T);
        const uint64_t dext = off(repeatTime - 1, n - 1, rp.dstStride, rp.dstRepeatSize) + sizeof(T);
        const uint8_t* s = ub_operand(c, src.v_, sext, UB_PR, loc, "src");
        uint8_t* d = ub_operand(c, dst.v_, dext, UB_PW, loc, "dst");
        if (!s || !d) return;
        bool uninit = false;
        for (uint64_t r = 0; r < repeatTime; ++r)
            for (uint64_t i = 0; i < n; ++i) {
                uint64_t so = off(r, i, rp.srcStride, rp.srcRepeatSize), dof = off(r, i, rp.dstStride, rp.dstRepeatSize);
                if (!uninit && !c->ubw.all(src.v_.off + so, src.v_.off + so + sizeof(T))) uninit = true;
                std::memmove(d + dof, s + so, sizeof(T));
                c->ubw.set(dst.v_.off + dof, dst.v_.off + dof + sizeof(T));
            }
        if (uninit)
            diag("UB_UNINIT_READ", Sev::Warning, loc, "Copy reads never-written UB bytes (poison)", "{}", DF_STRICT_ERR);
    }
    trace_vec(c, "Copy", dtype_name_v<T>, dtype_name_v<T>, -1, repeatTime);
}
}  // namespace ascemu_detail

#define ASCEMU_COPY_MASK(MASK_T)                                                                                     \
    template <typename T, bool isSetMask = true>                                                                     \
    inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, MASK_T mask, const uint8_t repeatTime,    \
                     const CopyRepeatParams& repeatParams, ASCEMU_SL) {                                              \
        ascemu::Core* c = ascemu::api_enter("Copy", loc);                                                            \
        ascemu_detail::copy_impl(dst, src, ascemu::mask_of(c, mask, 256 / sizeof(T), isSetMask), repeatTime,         \
                                 repeatParams, loc);                                                                 \
    }
ASCEMU_COPY_MASK(const uint64_t*)
ASCEMU_COPY_MASK(const uint64_t)
#undef ASCEMU_COPY_MASK
// The count form Copy(dst, src, count) is Ascend 950's (CANN declares it for __NPU_ARCH__ 3510 / 5102 only).
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count, ASCEMU_SL) {
    ASCEMU_NOT_ON_PLATFORM("Copy(dst, src, count)", T,
                           ": CANN provides the count form for Ascend 950 (__NPU_ARCH__ 3510/5102) only; use "
                           "DataCopy(dst, src, count) or the mask form");
    (void)dst, (void)src, (void)count, (void)loc;
}

// ------------------------------------------------------------------------------------------------ Transpose
// The 16x16 transpose of 2-byte elements, and the enhanced form: TRANSPOSE_ND2ND_B16 (16x16, uint16_t on 310P and
// 910B), TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW ([DOC] Transpose).  The 910B's NCHW forms stage through
// sharedTmpBuffer ((cSize + 2) or (2 cSize + 1) blocks of h0 x w0, h0 = 16 (32 for 8-bit types), w0 = 32 /
// sizeof(T)); the 310P needs none.  The other TransposeType values are not supported on these chips.
enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE,
    TRANSPOSE_NZ2ND_0213,
    TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TRANSPOSE_ND2ND_ONLY,
    TRANSPOSE_ND_UB_GM,
    TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW,
};
struct TransposeParamsExt {
    constexpr TransposeParamsExt() = default;
    constexpr TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn,
                                 const uint16_t wSizeIn, const TransposeType transposeTypeIn)
        : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
    uint16_t nSize = 0;
    uint16_t cSize = 0;
    uint16_t hSize = 0;
    uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

namespace ascemu_detail {
template <typename T>
inline void transpose16(ascemu::Core* c, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                        const std::source_location& loc) {
    using namespace ascemu;
    const uint8_t* s = ub_operand(c, src.v_, 512, UB_R, loc, "src");
    if (!s) return;
    T in[256], out[256];
    std::memcpy(in, s, 512);  // in place is allowed
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) out[j * 16 + i] = in[i * 16 + j];
    uint8_t* d = ub_operand(c, dst.v_, 512, UB_W, loc, "dst");
    if (!d) return;
    std::memcpy(d, out, 512);
    trace_vec(c, "Transpose", dtype_name_v<T>, dtype_name_v<T>, 256, 1);
}
}  // namespace ascemu_detail

template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Transpose", loc);
    if (!dtype_check<T>(one_of_v<T, int16_t, uint16_t, half>, c, loc, "Transpose")) return;
    ascemu_detail::transpose16(c, dst, src, loc);
}
template <typename T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const TransposeParamsExt& p, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Transpose", loc);
    if (p.transposeType == TransposeType::TRANSPOSE_TYPE_NONE) return;
    if (p.transposeType == TransposeType::TRANSPOSE_ND2ND_B16 && p.hSize == 16 && p.wSize == 16) {
        if (!dtype_check<T>(std::is_same_v<T, uint16_t>, c, loc, "Transpose(TRANSPOSE_ND2ND_B16)")) return;
        ascemu_detail::transpose16(c, dst, src, loc);
        return;
    }
    const bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    if (!to_nhwc && p.transposeType != TransposeType::TRANSPOSE_NHWC2NCHW) {
        unsupported_api(loc, "Transpose", " with this TransposeType (or ND2ND_B16 with hSize, wSize other than 16)");
        return;
    }
    if (!dtype_check<T>(one_of_v<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>, c, loc,
                        "Transpose"))
        return;
    const uint64_t hw = (uint64_t)p.hSize * p.wSize, n = p.nSize, ch = p.cSize, total = n * ch * hw;
    if (p.cSize > 4095 || hw > 4095 || (hw * sizeof(T)) % 32 != 0) {
        diag("PARAM_RANGE", Sev::Error, loc,
             strf("Transpose: cSize %u (<= 4095), hSize * wSize %llu (<= 4095, a multiple of 32 bytes) out of range",
                  p.cSize, (unsigned long long)hw),
             jd("cSize", p.cSize, "hw", (long long)hw));
        return;
    }
    if (total == 0) return;
    if constexpr (kIs910B) {
        const uint64_t h0 = sizeof(T) == 1 ? 32 : 16, w0 = 32 / sizeof(T);
        const uint64_t need = (to_nhwc ? ch + 2 : 2 * ch + 1) * h0 * w0 * sizeof(T);
        if ((uint64_t)sharedTmpBuffer.v_.size < need) {
            diag("PARAM_RANGE", Sev::Error, loc,
                 strf("Transpose needs a sharedTmpBuffer of >= %llu bytes, got %u", (unsigned long long)need,
                      sharedTmpBuffer.v_.size),
                 jd("required", (long long)need, "given", sharedTmpBuffer.v_.size));
            return;
        }
        ub_operand(c, sharedTmpBuffer.v_, need, UB_W, loc, "sharedTmpBuffer");
    }
    const uint8_t* s = ub_operand(c, src.v_, total * sizeof(T), UB_R, loc, "src");
    ub_overlap_check(c, dst.v_, total * sizeof(T), src.v_, total * sizeof(T), loc, "src");
    if (!s) return;
    std::vector<T> in((const T*)s, (const T*)s + total), out(total);
    for (uint64_t b = 0; b < n; ++b)
        for (uint64_t k = 0; k < ch; ++k)
            for (uint64_t i = 0; i < hw; ++i) {
                uint64_t chw = (b * ch + k) * hw + i, hwc = (b * hw + i) * ch + k;
                if (to_nhwc) out[hwc] = in[chw];
                else out[chw] = in[hwc];
            }
    uint8_t* d = ub_operand(c, dst.v_, total * sizeof(T), UB_W, loc, "dst");
    if (!d) return;
    std::memcpy(d, out.data(), total * sizeof(T));
    trace_vec(c, "Transpose", dtype_name_v<T>, dtype_name_v<T>, (int64_t)total, repeats_for((int64_t)total, sizeof(T)));
}

// ------------------------------------------------------------------------------------------------ Scatter
// dst byte (dstBaseAddr + dstOffset[i]) <- src[i] ([DOC] Scatter: 310P AI Core; 2- and 4-byte types).
// The dav_c220 ScatterImpl reports "not supported" at run time.  Mask forms: lane i of repeat r reads src at
// r * srcRepStride blocks + i and dstOffset[r * lanes + i].
namespace ascemu_detail {
template <typename T>
inline void scatter_impl(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
                         uint32_t dstBaseAddr, const ascemu::Mask& m, uint32_t repeatTime, uint32_t srcRepStride,
                         bool count_form, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (kIs910B) {
        unsupported_api(loc, "Scatter");
        return;
    }
    // CANN's ScatterCheck lists int16_t and int32_t too (an ASCENDC_ASSERT), and dav_m200's ScatterImpl issues
    // vscatter for every 2- and 4-byte type, nothing for the others
    // ([CODE] cann/asc-devkit impl/basic_api/kernel_operator_vec_scatter_intf_impl.h, dav_m200/..._scatter_impl.h).
    if (!dtype_check<T>(sizeof(T) == 2 || sizeof(T) == 4, c, loc, "Scatter")) return;
    const uint32_t L = 256 / sizeof(T);
    std::vector<std::pair<uint64_t, uint64_t>> lanes;  // (src element, offset index)
    if (count_form)
        for (uint64_t i = 0; i < m.total; ++i) lanes.push_back({i, i});
    else
        for (uint32_t r = 0; r < repeatTime; ++r)
            for (uint32_t i = 0; i < L; ++i)
                if ((m.bits[i >> 6] >> (i & 63)) & 1) lanes.push_back({(uint64_t)r * srcRepStride * 32 / sizeof(T) + i, (uint64_t)r * L + i});
    if (lanes.empty()) return;
    uint64_t smax = 0, omax = 0;
    for (auto& [si, oi] : lanes) smax = std::max(smax, si), omax = std::max(omax, oi);
    const uint8_t* s = ub_operand(c, src.v_, (smax + 1) * sizeof(T), count_form ? UB_R : UB_PR, loc, "src");
    const uint8_t* po = ub_operand(c, dstOffset.v_, (omax + 1) * 4, count_form ? UB_R : UB_PR, loc, "dstOffset");
    if (!s || !po || dst.v_.buf < 0) {
        if (dst.v_.buf < 0) ub_operand(c, dst.v_, 0, 0, loc, "dst");
        return;
    }
    ub_operand(c, dst.v_, sizeof(T), 0, loc, "dst");
    const UbBuf& db = c->bufs[dst.v_.buf];
    bool bad_range = false, bad_align = false;
    uint64_t first_bad = 0;
    for (auto& [si, oi] : lanes) {
        uint32_t o;
        std::memcpy(&o, po + oi * 4, 4);
        uint64_t a = (uint64_t)dst.v_.off + dstBaseAddr + o;
        if (a % sizeof(T)) bad_align = true;
        if (a + sizeof(T) > kProfile.ub_size || a < db.lo || a + sizeof(T) > db.hi) {
            if (!bad_range) first_bad = oi;
            bad_range = true;
            if (a + sizeof(T) > kProfile.ub_size) continue;
        }
        pipe_ub(c, (uint32_t)a, (uint32_t)(a + sizeof(T)), false, true, loc, "dst");
        std::memcpy(c->ub + a, s + si * sizeof(T), sizeof(T));
        c->ubw.set(a, a + sizeof(T));
    }
    if (bad_range)
        diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
             strf("Scatter dstOffset[%llu] addresses UB outside the dst buffer [%u, %u)", (unsigned long long)first_bad,
                  db.lo, db.hi),
             jd("index", (long long)first_bad));
    if (bad_align)
        diag("UB_MISALIGNED", Sev::Error, loc, strf("Scatter offsets must be multiples of sizeof(T)=%zu", sizeof(T)),
             "{}");
    trace_vec(c, "Scatter", dtype_name_v<T>, dtype_name_v<T>, count_form ? (int64_t)m.total : -1,
              count_form ? repeats_for((int64_t)m.total, sizeof(T)) : repeatTime);
}
}  // namespace ascemu_detail

template <typename T>
inline void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
                    const uint32_t dstBaseAddr, const uint32_t count, ASCEMU_SL) {
    ascemu::api_enter("Scatter", loc);
    ascemu::Mask m;
    m.counter = true;
    m.total = count;
    ascemu_detail::scatter_impl(dst, src, dstOffset, dstBaseAddr, m, 0, 0, true, loc);
}
template <typename T>
inline void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
                    const uint32_t dstBaseAddr, const uint64_t mask[], const uint8_t repeatTime,
                    const uint8_t srcRepStride, ASCEMU_SL) {
    ascemu::api_enter("Scatter", loc);
    ascemu::Mask m;
    m.bits[0] = mask[0];
    m.bits[1] = sizeof(T) == 2 ? mask[1] : 0;
    ascemu_detail::scatter_impl(dst, src, dstOffset, dstBaseAddr, m, repeatTime, srcRepStride, false, loc);
}
template <typename T>
inline void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
                    const uint32_t dstBaseAddr, const uint64_t mask, const uint8_t repeatTime,
                    const uint8_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("Scatter", loc);
    bool saved = c->mask_counter;
    c->mask_counter = false;
    ascemu::Mask m = ascemu::mask_from_scalar(c, mask, 256 / sizeof(T), true);
    c->mask_counter = saved;
    ascemu_detail::scatter_impl(dst, src, dstOffset, dstBaseAddr, m, repeatTime, srcRepStride, false, loc);
}

// ------------------------------------------------------------------------------------------------ Gatherb
// Block gather ([DOC] Gatherb(ISASI): Atlas A2, uint16_t / uint32_t): for repeat i and block j < 8, the 32-byte block
// at src + offset[i * 8 + j] bytes goes to dst block i * dstRepStride + j * dstBlkStride (a dstBlkStride of 0 counts
// as 1); repeatTime 0 does nothing.  Each address src + offset must be 32-byte aligned, and src and dst must not
// share memory.  The 310P has no vgatherb: CANN's dav_m200 GatherbImpl reports it unsupported at run time.
template <typename T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& repeatParams, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("Gatherb", loc);
    if (kIs310P) {
        unsupported_api(loc, "Gatherb");
        return;
    }
    if (!dtype_check<T>(one_of_v<T, uint16_t, uint32_t>, c, loc, "Gatherb") || repeatTime == 0) return;
    const uint32_t blocks = repeatTime * 8u, blk = repeatParams.dstBlkStride ? repeatParams.dstBlkStride : 1u;
    auto dst_block = [&](uint32_t k) { return ((uint64_t)(k / 8) * repeatParams.dstRepStride + (k % 8) * blk) * 32; };
    const uint64_t dext = dst_block(blocks - 1) + 32;  // the last repeat's block 7 lies furthest
    const uint8_t* po = ub_operand(c, offset.v_, blocks * 4u, UB_R, loc, "offset");
    uint8_t* d = ub_operand(c, dst.v_, dext, UB_PW, loc, "dst");
    if (!po || !d || !ub_operand(c, src.v_, 32, 0, loc, "src")) return;
    const UbBuf& sb = c->bufs[src.v_.buf];
    std::vector<uint8_t> gathered((size_t)blocks * 32, 0xFF);
    bool bad_range = false, bad_align = false, uninit = false, shared = false;
    uint32_t first_bad = 0;
    for (uint32_t k = 0; k < blocks; ++k) {
        uint32_t o;
        std::memcpy(&o, po + k * 4, 4);
        const uint64_t a = (uint64_t)src.v_.off + o;
        bad_align |= a % 32 != 0;
        shared |= a < dst.v_.off + dext && dst.v_.off < a + 32;
        if (a + 32 > kProfile.ub_size || a < sb.lo || a + 32 > sb.hi) {
            if (!bad_range) first_bad = k;
            bad_range = true;
            if (a + 32 > kProfile.ub_size) continue;
        }
        uninit |= !c->ubw.all(a, a + 32);
        pipe_ub(c, (uint32_t)a, (uint32_t)(a + 32), true, false, loc, "src");
        std::memcpy(&gathered[(size_t)k * 32], c->ub + a, 32);
    }
    if (bad_range) {
        uint32_t o;
        std::memcpy(&o, po + first_bad * 4, 4);
        diag("UB_TENSOR_OVERRUN", Sev::Error, loc,
             strf("Gatherb offset[%u] = %u addresses a block outside the src buffer [%u, %u)", first_bad, o, sb.lo,
                  sb.hi),
             jd("index", first_bad, "offset", o));
    }
    if (bad_align)
        diag("UB_MISALIGNED", Sev::Error, loc, "Gatherb: every src + offset address must be 32-byte aligned", "{}");
    if (shared)
        diag("UB_PARTIAL_OVERLAP", Sev::Warning, loc,
             "Gatherb gathers from UB that its dst covers (CANN: src and dst must not share memory)", "{}");
    if (uninit)
        diag("UB_UNINIT_READ", Sev::Warning, loc, "Gatherb reads never-written UB bytes (poison)", "{}", DF_STRICT_ERR);
    for (uint32_t k = 0; k < blocks; ++k) {
        std::memcpy(d + dst_block(k), &gathered[(size_t)k * 32], 32);
        c->ubw.set(dst.v_.off + dst_block(k), dst.v_.off + dst_block(k) + 32);
    }
    trace_vec(c, "Gatherb", dtype_name_v<T>, dtype_name_v<T>, -1, repeatTime);
}

// ------------------------------------------------------------------------------------------------ Fill
// `size` elements of GM set to `value` ([DOC] Fill, high-level API; InitGlobalMemory is its earlier name, same
// signature): uint16_t, int16_t, half, uint32_t, int32_t, float on both chips.  CANN duplicates the value into UB,
// copies it out on MTE3 and ends with PipeBarrier<PIPE_MTE3>.  Here the bytes go to GM directly, with the checks of a
// UB -> GM DataCopy (bounds, SetGlobalBuffer size, races, the written shadow, SetAtomicAdd accumulation), as one
// MTE3 transfer followed by that barrier; the UB staging buffer itself is not modelled.
namespace ascemu_detail {
template <typename T>
inline constexpr bool fill_t = ascemu::one_of_v<T, uint16_t, int16_t, half, uint32_t, int32_t, float>;

template <typename T>
inline void fill_gm(const char* api, GlobalTensor<T>& gm, uint64_t size, const T& value,
                    const std::source_location& loc) {
    using namespace ascemu;
    Core* c = api_enter(api, loc);
    if (!dtype_check<T>(fill_t<T>, c, loc, api) || size == 0) return;
    if (size * sizeof(T) > UINT32_MAX) {
        diag("PARAM_RANGE", Sev::Error, loc,
             strf("%s of %llu elements: more than 4 GiB; no effect", api, (unsigned long long)size),
             jd("size", (long long)size));
        return;
    }
    gm.logical_check(0, size, loc);
    c->psv.cur = PX_MTE3;
    const std::vector<T> staged(size, value);
    const Xfer x{1, (uint32_t)(size * sizeof(T)), 0, 0};
    if (gm_store(c, (uint8_t*)gm.GetPhyAddr(), (const uint8_t*)staged.data(), x, loc, api, sizeof(T), dtype_name_v<T>))
        mte_count(c->tr.mte3, x.len, 1);
    pipe_barrier_one(c, PX_MTE3);
}
}  // namespace ascemu_detail

template <typename T>
inline void Fill(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value, ASCEMU_SL) {
    ASCEMU_STRICT_DTYPE("Fill", ascemu_detail::fill_t<T>);
    ascemu_detail::fill_gm("Fill", gmWorkspaceAddr, size, value, loc);
}
template <typename T>
inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value, ASCEMU_SL) {
    ASCEMU_STRICT_DTYPE("InitGlobalMemory", ascemu_detail::fill_t<T>);
    ascemu_detail::fill_gm("InitGlobalMemory", gmWorkspaceAddr, size, value, loc);
}

// ------------------------------------------------------------------------------------------------ scalar Cast
// Cast<T, U, roundMode>(value): float -> half (CAST_ODD) or int32_t (CAST_ROUND / CEIL / FLOOR / RINT) on the
// scalar unit ([DOC] Cast (float to half/int32_t); impl/basic_api/kernel_scalar.h).  U other than half / int32_t
// does not compile; another round mode is refused at run time and gives 0, as CANN's ASCENDC_ASSERT path does.
// Overflow follows IEEE rules on the scalar unit [CHOICE]: CAST_ODD of a too large float gives ±65504.
template <typename T, typename U, RoundMode roundMode>
inline U Cast(T valueIn, ASCEMU_SL) {
    using namespace ascemu;
    static_assert(std::is_same_v<U, half> || std::is_same_v<U, int32_t>,
                  "scalar Cast<T, U, roundMode>: U must be half or int32_t (CANN: \"U only support half or int32_t\")");
    constexpr bool ok = std::is_same_v<U, half> ? roundMode == RoundMode::CAST_ODD
                                                : (roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_CEIL ||
                                                   roundMode == RoundMode::CAST_FLOOR || roundMode == RoundMode::CAST_RINT);
    if constexpr (!ok) {
        if (t_core)
            diag("UNSUPPORTED_CAST_MODE", Sev::Error, loc,
                 strf("scalar Cast float -> %s does not support round mode %d; result 0", dtype_name_v<U>,
                      (int)roundMode),
                 jd("dst", dtype_name_v<U>, "round_mode", (int)roundMode));
        return U(0);
    } else {
        num::CastFlags fl;
        return num::cast_value<U, float>((float)valueIn, roundMode, OverflowMode::InfNan, fl);
    }
}
template <typename T, typename U, RoundMode roundMode>
inline U ScalarCast(T valueIn, ASCEMU_SL) {
    return Cast<T, U, roundMode>(valueIn, loc);
}

// float <-> bfloat16_t on the scalar unit: 910B only (CANN declares them for __NPU_ARCH__ 2201 and newer).
// float -> bfloat16_t rounds to nearest even, and a NaN becomes 0x7FFF (impl/basic_api/kernel_scalar_convert.h).
#if ASCEMU_IS_910B
inline bfloat16_t Cast(const float& fVal) {
    if (std::isnan(fVal)) return bfloat16_t::from_bits(0x7FFF);
    return bfloat16_t::from_bits(ascemu::detail::f64_to_bf16_bits((double)fVal));
}
inline float Cast(const bfloat16_t& bVal) { return (float)bVal; }
inline bfloat16_t ToBfloat16(const float& fVal) { return Cast(fVal); }
inline float ToFloat(const bfloat16_t& bVal) { return Cast(bVal); }
#else
template <typename F>
    requires(std::is_same_v<F, float> || std::is_same_v<F, bfloat16_t>)
inline auto Cast(const F&) {
    ASCEMU_NOT_ON_PLATFORM("scalar Cast between float and bfloat16_t", F, " (the 310P has no bfloat16_t)");
    return F{};
}
template <typename F>
inline bfloat16_t ToBfloat16(const F&) {
    ASCEMU_NOT_ON_PLATFORM("ToBfloat16", F, " (the 310P has no bfloat16_t)");
    return bfloat16_t{};
}
template <typename F>
inline float ToFloat(const F&) {
    ASCEMU_NOT_ON_PLATFORM("ToFloat", F, " (the 310P has no bfloat16_t)");
    return 0.0f;
}
#endif

// ------------------------------------------------------------------------------------------------ newer chips only
// APIs whose CANN declarations exist only for newer architectures than 310P and 910B (Ascend 950:
// __NPU_ARCH__ 3510 / 5102): CANN's compiler rejects them here, and so does ascemu, naming the platform.
#define ASCEMU_NEWER_ONLY(NAME, WHAT)                                                                            \
    template <typename T = void, bool isSetMask = true, typename... Args>                                         \
    inline void NAME(const Args&...) {                                                                            \
        ASCEMU_NOT_ON_PLATFORM(#NAME, T, ": CANN provides " WHAT " for Ascend 950 (__NPU_ARCH__ 3510/5102) only"); \
    }
ASCEMU_NEWER_ONLY(Subs, "Subs (tensor - scalar, either operand a scalar)")
ASCEMU_NEWER_ONLY(Divs, "Divs (tensor / scalar, either operand a scalar)")
ASCEMU_NEWER_ONLY(Ands, "Ands")
ASCEMU_NEWER_ONLY(Ors, "Ors")
ASCEMU_NEWER_ONLY(Neg, "Neg")
ASCEMU_NEWER_ONLY(Prelu, "Prelu")
ASCEMU_NEWER_ONLY(Mull, "Mull")
ASCEMU_NEWER_ONLY(AbsSub, "AbsSub")
ASCEMU_NEWER_ONLY(ExpSub, "ExpSub")
ASCEMU_NEWER_ONLY(MulsCast, "MulsCast")
ASCEMU_NEWER_ONLY(Truncate, "Truncate")
ASCEMU_NEWER_ONLY(Interleave, "Interleave")
ASCEMU_NEWER_ONLY(DeInterleave, "DeInterleave")
ASCEMU_NEWER_ONLY(GetVecLen, "GetVecLen")
ASCEMU_NEWER_ONLY(GetRuntimeUBSize, "GetRuntimeUBSize")
ASCEMU_NEWER_ONLY(SetLoopModePara, "SetLoopModePara")
ASCEMU_NEWER_ONLY(ResetLoopModePara, "ResetLoopModePara")
ASCEMU_NEWER_ONLY(NdDmaDci, "NdDmaDci")
ASCEMU_NEWER_ONLY(AllocMutexID, "AllocMutexID")
ASCEMU_NEWER_ONLY(ReleaseMutexID, "ReleaseMutexID")
ASCEMU_NEWER_ONLY(AtomicAdd, "the scalar GM atomic AtomicAdd")
ASCEMU_NEWER_ONLY(AtomicCas, "the scalar GM atomic AtomicCas")
ASCEMU_NEWER_ONLY(AtomicExch, "the scalar GM atomic AtomicExch")
ASCEMU_NEWER_ONLY(AtomicMax, "the scalar GM atomic AtomicMax")
ASCEMU_NEWER_ONLY(AtomicMin, "the scalar GM atomic AtomicMin")
#undef ASCEMU_NEWER_ONLY
// ShiftLeft / ShiftRight with a tensor of shift counts.
template <typename T, typename U, bool isSetMask = true, typename... Args>
inline void ShiftLeft(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<U>&, const Args&...) {
    ASCEMU_NOT_ON_PLATFORM("ShiftLeft with a tensor of shift counts", T,
                           ": CANN provides it for Ascend 950 (__NPU_ARCH__ 3510/5102) only");
}
template <typename T, typename U, bool isSetMask = true, typename... Args>
inline void ShiftRight(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<U>&, const Args&...) {
    ASCEMU_NOT_ON_PLATFORM("ShiftRight with a tensor of shift counts", T,
                           ": CANN provides it for Ascend 950 (__NPU_ARCH__ 3510/5102) only");
}

}  // namespace AscendC
