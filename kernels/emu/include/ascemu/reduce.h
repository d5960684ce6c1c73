// ascemu/reduce.h — ReduceSum / ReduceMax / WholeReduceSum / WholeReduceMax (spec §4.7).
#pragma once
#include "ascemu/vector.h"

namespace ascemu {

template <class T>
using idx_bits_t = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;

// Lanes of repeat r of a mask-form reduction source (block stride blk, repeat stride rep in 32-B units).
// Only lanes [0, n) are read (n = highest enabled lane + 1, see mask_src_extent); the rest are zero and are
// masked off by the caller, so nothing past the checked extent is touched.
template <class T>
inline void gather_lanes(const uint8_t* base, int64_t r, uint32_t blk, uint32_t rep, T* lanes, int n = -1) {
    const int L = 256 / (int)sizeof(T), epb = 32 / (int)sizeof(T);
    if (n < 0 || n > L) n = L;
    for (int i = 0; i < n; ++i)
        std::memcpy(&lanes[i], base + (uint64_t)r * rep * 32 + (uint64_t)(i / epb) * blk * 32 + (uint64_t)(i % epb) * sizeof(T),
                    sizeof(T));
    for (int i = n; i < L; ++i) lanes[i] = T{};
}

// Highest enabled lane of a normal-mode mask over L lanes (-1 when none).
inline int mask_hi_lane(const Mask& m, int L) {
    for (int i = L - 1; i >= 0; --i)
        if ((m.bits[i >> 6] >> (i & 63)) & 1) return i;
    return -1;
}

// Source footprint of a mask-form reduction: R repeats, but the last repeat only reaches the highest enabled
// lane (§4.1 "lanes whose mask bit is 0 are untouched"), exactly as mask_walk sizes the other mask-form ops.
// Sizing it as 8 full blocks gave false UB_TENSOR_OVERRUNs for rows narrower than a repeat (emu_issues.md).
template <class T>
inline uint64_t mask_src_extent(int64_t R, uint32_t blk, uint32_t rep, int hi_lane) {
    const uint32_t epb = 32 / sizeof(T);
    if (R <= 0) return 0;
    if (hi_lane < 0) hi_lane = 0;
    return (uint64_t)(R - 1) * rep * 32 + (uint64_t)(hi_lane / epb) * blk * 32 + (uint64_t)(hi_lane % epb + 1) * sizeof(T);
}

template <class T>
inline bool reduce_dtype(Core* c, const SL& loc, const char* api) {
    return dtype_check<T>(one_of_v<T, half, float>, c, loc, api);
}

template <class T>
inline bool has_nan(const T* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        if (std::isnan((float)x[i])) return true;
    return false;
}

}  // namespace ascemu

namespace AscendC {

// ------------------------------------------------------------------------------------------------ ReduceSum
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("ReduceSum", loc);
    if (!reduce_dtype<T>(c, loc, "ReduceSum") || !count_ok(count, loc, "ReduceSum")) return;
    const int method = kIs310P ? 1 : 2;
    const int64_t epr = num::elems_per_repeat<T>();
    int64_t R = (count + epr - 1) / epr;
    const uint8_t* s = ub_operand(c, src.v_, (size_t)count * sizeof(T), UB_R, loc, "src");
    T* tmp = nullptr;
    if (method == 1) {
        int64_t need = num::reduce_sum_tmp_elems<T>(count);
        if ((int64_t)sharedTmpBuffer.v_.size < need)
            diag("REDUCE_TMP_TOO_SMALL", Sev::Error, loc,
                 strf("ReduceSum of %d %s needs a sharedTmpBuffer of >= %lld elements, got %u", count, dtype_name_v<T>,
                      (long long)need, sharedTmpBuffer.v_.size),
                 jd("required", (long long)need, "given", sharedTmpBuffer.v_.size));
        tmp = (T*)ub_operand(c, sharedTmpBuffer.v_, (size_t)R * sizeof(T), UB_W, loc, "sharedTmpBuffer");
    }
    uint8_t* d = ub_operand(c, dst.v_, sizeof(T), UB_W, loc, "dst", sizeof(T));
    if (!s || !d || (method == 1 && !tmp)) return;
    std::vector<T> copy((const T*)s, (const T*)s + count);
    T v = num::reduce_sum<T>(copy.data(), count, method, ovf(), tmp);
    std::memcpy(d, &v, sizeof(T));
    int64_t rounds = 0;
    for (int64_t n = R; n > 1; n = (n + epr - 1) / epr) rounds++;
    trace_vec(c, "ReduceSum", dtype_name_v<T>, dtype_name_v<T>, count, (uint64_t)R, (uint64_t)(R + rounds));
}

namespace ascemu_detail {
template <typename T>
inline void reduce_sum_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& tmpb,
                            const ascemu::Mask& m, const int32_t repeatTime, const int32_t srcRepStride,
                            const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (!reduce_dtype<T>(c, loc, "ReduceSum")) return;
    if (repeatTime < 0) {
        diag("PARAM_RANGE", Sev::Error, loc, "ReduceSum repeatTime < 0", jd("repeatTime", repeatTime));
        return;
    }
    const int L = 256 / (int)sizeof(T);
    int64_t R = repeatTime;
    if (R == 0) return;
    const int hi = mask_hi_lane(m, L);
    const uint8_t* s = ub_operand(c, src.v_, mask_src_extent<T>(R, 1, srcRepStride, hi), UB_R, loc, "src");
    int64_t need = num::reduce_sum_tmp_elems<T>(R * L);
    if ((int64_t)tmpb.v_.size < std::min<int64_t>(need, R))
        diag("REDUCE_TMP_TOO_SMALL", Sev::Error, loc, "ReduceSum sharedTmpBuffer too small for the partials",
             jd("required", (long long)R, "given", tmpb.v_.size));
    T* tmp = (T*)ub_operand(c, tmpb.v_, (size_t)R * sizeof(T), UB_W, loc, "sharedTmpBuffer");
    uint8_t* d = ub_operand(c, dst.v_, sizeof(T), UB_W, loc, "dst", sizeof(T));
    if (!s || !tmp || !d) return;
    std::vector<T> lanes(L), parts(R);
    for (int64_t r = 0; r < R; ++r) {
        gather_lanes<T>(s, r, 1, srcRepStride, lanes.data(), hi + 1);
        parts[r] = num::repeat_tree_sum<T>(lanes.data(), L, ovf(), m.bits);
    }
    std::memcpy(tmp, parts.data(), R * sizeof(T));
    T v = num::combine_partials<T>(parts.data(), R, 1, ovf());
    std::memcpy(d, &v, sizeof(T));
    trace_vec(c, "ReduceSum", dtype_name_v<T>, dtype_name_v<T>, -1, (uint64_t)R);
}
}  // namespace ascemu_detail

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("ReduceSum", loc);
    ascemu::Mask m = ascemu::mask_from_array(c, mask, 256 / sizeof(T), true);
    m.counter = false;
    ascemu_detail::reduce_sum_mask(dst, src, sharedTmpBuffer, m, repeatTime, srcRepStride, loc);
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("ReduceSum", loc);
    bool saved = c->mask_counter;
    c->mask_counter = false;
    ascemu::Mask m = ascemu::mask_from_scalar(c, (uint64_t)mask, 256 / sizeof(T), true);
    c->mask_counter = saved;
    ascemu_detail::reduce_sum_mask(dst, src, sharedTmpBuffer, m, repeatTime, srcRepStride, loc);
}

// ------------------------------------------------------------------------------------------------ ReduceMax
namespace ascemu_detail {
template <typename T>
inline void reduce_max_out(ascemu::Core* c, const LocalTensor<T>& dst, T v, uint32_t idx, bool calIndex,
                           const std::source_location& loc) {
    using namespace ascemu;
    if (calIndex && sizeof(T) == 2 && idx > 65535)
        diag("REDUCE_INDEX_OVERFLOW", Sev::Error, loc,
             strf("ReduceMax index %u does not fit the 16-bit index field of a half result", idx), jd("index", idx));
    uint8_t* d = ub_operand(c, dst.v_, (calIndex ? 2 : 1) * sizeof(T), UB_W, loc, "dst", 2 * sizeof(T));
    if (!d) return;
    std::memcpy(d, &v, sizeof(T));
    if (calIndex) {
        idx_bits_t<T> b = (idx_bits_t<T>)idx;
        std::memcpy(d + sizeof(T), &b, sizeof(T));
    }
    if (std::isnan((float)v)) diag("REDUCE_NAN", Sev::Info, loc, "ReduceMax input contains NaN; result NaN", "{}");
}
}  // namespace ascemu_detail

template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0, ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("ReduceMax", loc);
    if (!reduce_dtype<T>(c, loc, "ReduceMax") || !count_ok(count, loc, "ReduceMax")) return;
    const uint8_t* s = ub_operand(c, src.v_, (size_t)count * sizeof(T), UB_R, loc, "src");
    int64_t need = num::reduce_max_tmp_elems<T>(count, calIndex);
    if ((int64_t)sharedTmpBuffer.v_.size < need)
        diag("REDUCE_TMP_TOO_SMALL", Sev::Error, loc,
             strf("ReduceMax of %d %s (calIndex=%d) needs a sharedTmpBuffer of >= %lld elements, got %u", count,
                  dtype_name_v<T>, (int)calIndex, (long long)need, sharedTmpBuffer.v_.size),
             jd("required", (long long)need, "given", sharedTmpBuffer.v_.size));
    if (need > 0 && sharedTmpBuffer.v_.buf >= 0)
        ub_operand(c, sharedTmpBuffer.v_, (size_t)std::min<int64_t>(need, sharedTmpBuffer.v_.size) * sizeof(T), UB_W,
                   loc, "sharedTmpBuffer");
    if (!s || count == 0) return;
    auto [v, idx] = num::reduce_max<T>((const T*)s, count);
    ascemu_detail::reduce_max_out(c, dst, v, idx, calIndex, loc);
    int64_t R = (count + num::elems_per_repeat<T>() - 1) / num::elems_per_repeat<T>();
    trace_vec(c, "ReduceMax", dtype_name_v<T>, dtype_name_v<T>, count, (uint64_t)R, (uint64_t)R);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0,
                      ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("ReduceMax", loc);
    if (!reduce_dtype<T>(c, loc, "ReduceMax")) return;
    const int L = 256 / (int)sizeof(T);
    if (repeatTime <= 0) return;
    Mask m = mask_from_array(c, mask, L, true);
    const int hi = mask_hi_lane(m, L);
    const uint8_t* s = ub_operand(c, src.v_, mask_src_extent<T>(repeatTime, 1, srcRepStride, hi), UB_R, loc, "src");
    int64_t need = num::reduce_max_tmp_elems_for_repeats<T>(repeatTime, calIndex);
    if ((int64_t)sharedTmpBuffer.v_.size < need)
        diag("REDUCE_TMP_TOO_SMALL", Sev::Error, loc, "ReduceMax sharedTmpBuffer too small",
             jd("required", (long long)need, "given", sharedTmpBuffer.v_.size));
    if (!s) return;
    std::vector<T> lanes(L);
    bool have = false;
    T best{};
    uint32_t bidx = 0;
    for (int32_t r = 0; r < repeatTime; ++r) {
        gather_lanes<T>(s, r, 1, srcRepStride, lanes.data(), hi + 1);
        auto [v, i] = num::repeat_max<T>(lanes.data(), L, m.bits);
        bool isn = std::isnan((float)v);
        if (!have || (!std::isnan((float)best) && (isn || (float)v > (float)best))) {
            have = true;
            best = v;
            bidx = (uint32_t)(r * L) + i;
        }
    }
    ascemu_detail::reduce_max_out(c, dst, best, bidx, calIndex, loc);
    trace_vec(c, "ReduceMax", dtype_name_v<T>, dtype_name_v<T>, -1, (uint64_t)repeatTime);
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0,
                      ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("ReduceMax", loc);
    bool saved = c->mask_counter;
    c->mask_counter = false;
    ascemu::Mask m = ascemu::mask_from_scalar(c, (uint64_t)mask, 256 / sizeof(T), true);
    c->mask_counter = saved;
    ReduceMax(dst, src, sharedTmpBuffer, m.bits, repeatTime, srcRepStride, calIndex, loc);
}

// ------------------------------------------------------------------------------------------------ WholeReduce
namespace ascemu_detail {
template <typename T, bool isMax>
inline void whole_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, ascemu::Mask m,
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                         const int32_t srcRepStride, ReduceOrder order, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (!reduce_dtype<T>(c, loc, api)) return;
    if (repeatTime < 0 || repeatTime > 255) {
        diag("PARAM_RANGE", Sev::Error, loc, strf("%s repeatTime %d not in [0,255]", api, repeatTime),
             jd("repeatTime", repeatTime));
        return;
    }
    if (isMax && kIs310P && (order == ReduceOrder::ORDER_ONLY_VALUE || order == ReduceOrder::ORDER_ONLY_INDEX)) {
        unsupported_api(loc, "WholeReduceMax", " with ORDER_ONLY_VALUE/ORDER_ONLY_INDEX");
        return;
    }
    if (repeatTime == 0) return;
    const int L = 256 / (int)sizeof(T);
    const int hi = mask_hi_lane(m, L);
    const uint8_t* s =
        ub_operand(c, src.v_, mask_src_extent<T>(repeatTime, srcBlkStride, srcRepStride, hi), UB_PR, loc, "src");
    if (!s) return;
    bool pair = isMax && (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    int per = pair ? 2 : 1;
    int64_t stride = isMax ? (int64_t)dstRepStride * per : dstRepStride;
    if (isMax && dstRepStride == 0) stride = 0;
    uint64_t dext = (uint64_t)(repeatTime - 1) * stride * sizeof(T) + per * sizeof(T);
    uint8_t* d = ub_operand(c, dst.v_, dext, UB_PW, loc, "dst", sizeof(T));
    if (!d) return;
    std::vector<T> lanes(L);
    bool uninit = false;
    for (int32_t r = 0; r < repeatTime; ++r) {
        gather_lanes<T>(s, r, srcBlkStride, srcRepStride, lanes.data(), hi + 1);
        for (int i = 0; i <= hi && !uninit; ++i) {
            if (!((m.bits[i >> 6] >> (i & 63)) & 1)) continue;
            uint64_t o = src.v_.off + (uint64_t)r * srcRepStride * 32 + (uint64_t)(i / (32 / sizeof(T))) * srcBlkStride * 32 +
                         (uint64_t)(i % (32 / sizeof(T))) * sizeof(T);
            if (!c->ubw.all(o, o + sizeof(T))) uninit = true;
        }
        uint8_t* out = d + (uint64_t)r * stride * sizeof(T);
        uint64_t oo = dst.v_.off + (uint64_t)r * stride * sizeof(T);
        if constexpr (!isMax) {
            T v = num::repeat_tree_sum<T>(lanes.data(), L, ovf(), m.bits);
            std::memcpy(out, &v, sizeof(T));
            c->ubw.set(oo, oo + sizeof(T));
        } else {
            auto [v, idx] = num::repeat_max<T>(lanes.data(), L, m.bits);
            idx_bits_t<T> ib = (idx_bits_t<T>)idx;
            switch (order) {
                case ReduceOrder::ORDER_VALUE_INDEX:
                    std::memcpy(out, &v, sizeof(T));
                    std::memcpy(out + sizeof(T), &ib, sizeof(T));
                    break;
                case ReduceOrder::ORDER_INDEX_VALUE:
                    std::memcpy(out, &ib, sizeof(T));
                    std::memcpy(out + sizeof(T), &v, sizeof(T));
                    break;
                case ReduceOrder::ORDER_ONLY_VALUE: std::memcpy(out, &v, sizeof(T)); break;
                default: std::memcpy(out, &ib, sizeof(T)); break;
            }
            c->ubw.set(oo, oo + per * sizeof(T));
        }
    }
    if (uninit)
        diag("UB_UNINIT_READ", Sev::Warning, loc, strf("%s reads never-written UB bytes (poison)", api), "{}",
             DF_STRICT_ERR);
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, -1, (uint64_t)repeatTime);
}
}  // namespace ascemu_detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("WholeReduceSum", loc);
    bool saved = c->mask_counter;
    c->mask_counter = false;
    ascemu::Mask m = ascemu::mask_from_scalar(c, (uint64_t)mask, 256 / sizeof(T), true);
    c->mask_counter = saved;
    ascemu_detail::whole_reduce<T, false>("WholeReduceSum", dst, src, m, repeatTime, dstRepStride, srcBlkStride,
                                          srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("WholeReduceSum", loc);
    ascemu::Mask m = ascemu::mask_from_array(c, mask, 256 / sizeof(T), true);
    m.counter = false;
    if (c->mask_counter) { m.bits[0] = mask[0]; m.bits[1] = mask[1]; }
    ascemu_detail::whole_reduce<T, false>("WholeReduceSum", dst, src, m, repeatTime, dstRepStride, srcBlkStride,
                                          srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                           ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("WholeReduceMax", loc);
    bool saved = c->mask_counter;
    c->mask_counter = false;
    ascemu::Mask m = ascemu::mask_from_scalar(c, (uint64_t)mask, 256 / sizeof(T), true);
    c->mask_counter = saved;
    ascemu_detail::whole_reduce<T, true>("WholeReduceMax", dst, src, m, repeatTime, dstRepStride, srcBlkStride,
                                         srcRepStride, order, loc);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,
                           ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("WholeReduceMax", loc);
    ascemu::Mask m;
    m.bits[0] = mask[0];
    m.bits[1] = 256 / sizeof(T) > 64 ? mask[1] : 0;
    (void)c;
    ascemu_detail::whole_reduce<T, true>("WholeReduceMax", dst, src, m, repeatTime, dstRepStride, srcBlkStride,
                                         srcRepStride, order, loc);
}

}  // namespace AscendC
