// ascemu/int4.h — Cast between half and packed int4b_t tensors.
//
// CANN has vconv_f162s4 (half -> int4b_t) on 310P (CAST_NONE only) and 910B (CAST_NONE, RINT, FLOOR, CEIL, ROUND,
// TRUNC), and vconv_s42f16 (int4b_t -> half, CAST_NONE) on 910B only: the CastIntrinsicsImpl overloads of
// cann/asc-devkit impl/basic_api/dav_m200/ and dav_c220/kernel_operator_vec_vconv_impl.h, and the per-chip tables of
// the Cast API page.  A mode the chip lacks asserts in CANN's implementation and runs no instruction: dst unchanged,
// UNSUPPORTED_CAST_MODE.  Values saturate to [-8, 7] ([DOC] precision conversion rules); NaN gives 0.
//
// Layout: value 2k in the low nibble of byte k, 2k+1 in the high nibble (tensor.h).  The count form converts `count`
// values; the mask forms take 128 lanes a repeat (the half operand's width), and an int4b_t operand's block is 32
// bytes = 64 values, so lane i of repeat r is value (i % 64) of block r * repStride + (i / 64) * blkStride (CANN's
// example: {1, 1, 2, 8} for 128 contiguous values a repeat).  [CHOICE] a conversion that writes one nibble of a byte
// leaves the other nibble as it was.
//
// These overloads carry a requires-clause, so for an int4b_t operand they are chosen over vector.h's generic Cast
// (same signature, unconstrained).
#pragma once
#include "ascemu/vector.h"

namespace ascemu::int4 {

inline uint8_t nib_get(const uint8_t* base, uint64_t i) { return uint8_t((base[i / 2] >> (4 * (i % 2))) & 0xF); }
inline void nib_set(uint8_t* base, uint64_t i, uint8_t v) {
    const unsigned sh = 4 * (i % 2);
    base[i / 2] = uint8_t((base[i / 2] & (0xF0u >> sh)) | ((v & 0xFu) << sh));
}
inline half int4_to_half(uint8_t nib) { return half(float(int8_t(nib & 8 ? nib | 0xF0 : nib))); }

// One lane: reads the source element k, writes the destination element k (both as values, not bytes).
template <class T, class U>
inline void convert(uint8_t* d, uint64_t dk, const uint8_t* s, uint64_t sk, AscendC::RoundMode m) {
    if constexpr (AscendC::is_int4_v<T>) {
        half h;
        std::memcpy(&h, s + sk * 2, 2);
        nib_set(d, dk, uint8_t(num::cast_half_to_int4(h, m)));
    } else {
        half h = int4_to_half(nib_get(s, sk));
        std::memcpy(d + dk * 2, &h, 2);
    }
}

}  // namespace AscendC

namespace AscendC {

#define ASCEMU_INT4_CAST_PAIR()                                                                                    \
    static_assert(ascemu::num::cast_has_impl<T, U>(ascemu::kProfile.platform),                                    \
                  "Cast with int4b_t: CANN has half -> int4b_t (310P, 910B) and int4b_t -> half (910B only) on "   \
                  ASCEMU_PLATFORM_STR)

template <typename T, typename U>
    requires(is_int4_v<T> || is_int4_v<U>)
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                 const uint32_t count, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_INT4_CAST_PAIR();
    Core* c = api_enter("Cast", loc);
    bool deq = false;
    if (!ascemu_detail::cast_prepare<T, U>(c, round_mode, loc, deq)) return;
    auto bytes = [&](bool nib) { return nib ? ((size_t)count + 1) / 2 : (size_t)count * 2; };
    const size_t sb = bytes(is_int4_v<U>), db = bytes(is_int4_v<T>);
    const uint8_t* s = ub_operand(c, src.v_, sb, UB_R, loc, "src");
    if (dst.v_.off != src.v_.off) ub_overlap_check(c, dst.v_, db, src.v_, sb, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, db, UB_W, loc, "dst");
    if (!s || !d) return;
    std::vector<uint8_t> snap(s, s + sb);  // in place: each lane reads the source as it was
    for (uint64_t k = 0; k < count; ++k) int4::convert<T, U>(d, k, snap.data(), k, round_mode);
    trace_vec(c, "Cast", dtype_name_v<U>, dtype_name_v<T>, count, repeats_for(count, 2));
}

namespace ascemu_detail {
template <typename T, typename U>
inline void cast_int4_mask(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,
                           const ascemu::Mask& m, uint8_t repeatTime, const UnaryRepeatParams& rp,
                           const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    bool deq = false;
    if (!cast_prepare<T, U>(c, round_mode, loc, deq)) return;
    constexpr int L = 128;
    int64_t R = repeatTime, last = L;
    if (m.counter) {
        R = (int64_t)((m.total + L - 1) / L);
        last = (int64_t)(m.total - (R ? (R - 1) * L : 0));
    }
    int hi = m.counter ? L - 1 : -1;
    for (int i = L - 1; i >= 0 && hi < 0; --i)
        if ((m.bits[i >> 6] >> (i & 63)) & 1) hi = i;
    if (R <= 0 || hi < 0) return;
    // value (not byte) offset of lane i of repeat r in an operand: 64 int4b_t or 16 half a 32-byte block
    auto at = [](bool nib, uint32_t blk, uint32_t rep, int64_t r, int i) -> uint64_t {
        const uint64_t per_block = nib ? 64 : 16;
        return ((uint64_t)r * rep * 32 + (uint64_t)(i / per_block) * blk * 32) * (nib ? 2 : 1) / (nib ? 1 : 2) +
               (uint64_t)(i % per_block);
    };
    auto extent = [&](bool nib, uint32_t blk, uint32_t rep) {
        const uint64_t v = at(nib, blk, rep, R - 1, hi) + 1;
        return (size_t)(nib ? (v + 1) / 2 : v * 2);
    };
    const size_t sb = extent(is_int4_v<U>, rp.srcBlkStride, rp.srcRepStride);
    const size_t db = extent(is_int4_v<T>, rp.dstBlkStride, rp.dstRepStride);
    const uint8_t* s = ub_operand(c, src.v_, sb, UB_R, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, db, UB_PW, loc, "dst");
    if (!s || !d) return;
    std::vector<uint8_t> snap(s, s + sb);
    for (int64_t r = 0; r < R; ++r) {
        const int n = (m.counter && r == R - 1) ? (int)last : L;
        for (int i = 0; i < n; ++i) {
            if (!m.counter && !((m.bits[i >> 6] >> (i & 63)) & 1)) continue;
            const uint64_t dk = at(is_int4_v<T>, rp.dstBlkStride, rp.dstRepStride, r, i);
            int4::convert<T, U>(d, dk, snap.data(), at(is_int4_v<U>, rp.srcBlkStride, rp.srcRepStride, r, i),
                                round_mode);
            const uint64_t lo = is_int4_v<T> ? dk / 2 : dk * 2, w = is_int4_v<T> ? 1 : 2;
            c->ubw.set(dst.v_.off + lo, dst.v_.off + lo + w);
        }
    }
    trace_vec(c, "Cast", dtype_name_v<U>, dtype_name_v<T>, -1, repeatTime);
}
}  // namespace ascemu_detail

#define ASCEMU_INT4_CAST_MASK(MASK_T)                                                                              \
    template <typename T, typename U, bool isSetMask = true>                                                       \
        requires(is_int4_v<T> || is_int4_v<U>)                                                                     \
    inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& round_mode,            \
                     MASK_T mask, const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, ASCEMU_SL) {    \
        ASCEMU_INT4_CAST_PAIR();                                                                                   \
        ascemu::Core* c = ascemu::api_enter("Cast", loc);                                                          \
        ascemu_detail::cast_int4_mask(dst, src, round_mode, ascemu::mask_of(c, mask, 128, isSetMask), repeatTime,  \
                                      repeatParams, loc);                                                          \
    }
ASCEMU_INT4_CAST_MASK(const uint64_t*)
ASCEMU_INT4_CAST_MASK(uint64_t)
#undef ASCEMU_INT4_CAST_MASK
#undef ASCEMU_INT4_CAST_PAIR

}  // namespace AscendC
