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

inline bool lane_on(const uint64_t* bits, int i) { return (bits[i >> 6] >> (i & 63)) & 1; }
// Highest enabled lane of a normal-mode mask over L lanes (-1 when none).
inline int mask_hi_lane(const Mask& m, int L) {
    for (int i = L - 1; i >= 0; --i)
        if (lane_on(m.bits, i)) return i;
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

// The lanes each repeat of a reduction that takes isSetMask reads (WholeReduce*, ReduceRepeat, RepeatReduceSum,
// BlockReduce*, PairReduceSum, ReduceDataBlock, ReducePairElem).  Normal mode: the mask's bits in each of
// repeatTime repeats.  Counter mode (SetMaskCount): the mask is an element count spanning repeats, every repeat
// full but the last, and repeatTime is ignored ([DOC] SetVectorMask: in counter mode the mask is "the number of
// elements of the whole computation"), as for every other vector instruction (mask_walk).
struct RepeatLanes {
    int64_t repeats = 0;
    int hi = -1, hi_last = -1;  // highest enabled lane of a repeat before the last, and of the last
    uint64_t bits[2] = {0, 0}, last[2] = {0, 0};
    const uint64_t* of(int64_t r) const { return r + 1 == repeats ? last : bits; }
    int hi_of(int64_t r) const { return r + 1 == repeats ? hi_last : hi; }
    bool on(int64_t r, int i) const { return lane_on(of(r), i); }
    // Footprint f(R, hi) of R repeats whose last one reaches lane hi; a counter-mode tail can end before the full
    // repeat ahead of it does (a block stride wider than a repeat stride).
    template <class F>
    uint64_t extent(F f) const {
        return std::max<uint64_t>(f(repeats, hi_last), repeats > 1 ? f(repeats - 1, hi) : 0);
    }
};
ASCEMU_DECL RepeatLanes repeat_lanes(const Mask& m, int L, int64_t repeatTime);
// Whether the enabled lanes of repeat r were all written (UB_UNINIT_READ otherwise).
template <class T>
inline bool lanes_written(const Core* c, const UbView& src, const RepeatLanes& k, int64_t r, uint32_t blk,
                          uint32_t rep) {
    const int epb = 32 / (int)sizeof(T);
    for (int i = 0; i <= k.hi_of(r); ++i) {
        if (!k.on(r, i)) continue;
        uint64_t o = src.off + (uint64_t)r * rep * 32 + (uint64_t)(i / epb) * blk * 32 + (i % epb) * sizeof(T);
        if (!c->ubw.all(o, o + sizeof(T))) return false;
    }
    return true;
}
// The repeats a grouped reduction runs: the instruction's repeat field is 8 bits (cann/asc-devkit
// impl/c_api/instr_impl/npu_arch_2201/vector_compute_impl/asc_repeat_reduce_sum_impl.h: `uint8_t repeat`), and CANN
// checks [0, 255] only in debug builds (CheckReduceBaseParams: CheckValueRange under ASCENDC_DEBUG / CPU debug,
// impl/basic_api/kernel_operator_vec_reduce_intf_impl.h), so the device runs repeatTime modulo 256 (warning).
ASCEMU_DECL int32_t device_repeat_time(int32_t repeatTime, const SL& loc, const char* api);

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

// CANN include/utils/common_types.h
enum class ReduceType { NONE = -1, SUM = 0, MAX, MIN };

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
    if (kIs910B) {  // the count form's result also lands in ACC_VAL (dav_c220 ReduceSumImpl: get_acc_val)
        c->acc_val = 0;
        std::memcpy(&c->acc_val, &v, sizeof(T));
    }
    int64_t rounds = 0;
    for (int64_t n = R; n > 1; n = (n + epr - 1) / epr) rounds++;
    trace_vec(c, "ReduceSum", dtype_name_v<T>, dtype_name_v<T>, count, (uint64_t)R, (uint64_t)(R + rounds));
}

namespace ascemu_detail {
// Lanes of the ReduceSum / ReduceMax / ReduceMin mask forms: CANN sets their mask per repeat itself and runs the
// later rounds in a counter mode of its own, so the mask is lanes whatever the mask mode.
inline ascemu::Mask reduce_lanes(ascemu::Core* c, uint64_t mask, int lanes) {
    bool saved = c->mask_counter;
    c->mask_counter = false;
    ascemu::Mask m = ascemu::mask_from_scalar(c, mask, lanes, true);
    c->mask_counter = saved;
    return m;
}
inline ascemu::Mask reduce_lanes(ascemu::Core*, const uint64_t* mask, int lanes) {
    ascemu::Mask m;
    m.bits[0] = mask[0];
    m.bits[1] = lanes > 64 ? mask[1] : 0;
    return m;
}
// The mask of a reduction that takes isSetMask: the vector mask register when isSetMask is false, and in counter
// mode an element count (repeat_lanes), as for every other mask-form op.
inline ascemu::Mask repeat_mask(ascemu::Core* c, uint64_t mask, int lanes, bool isSetMask) {
    return ascemu::mask_from_scalar(c, mask, lanes, isSetMask);
}
inline ascemu::Mask repeat_mask(ascemu::Core* c, const uint64_t* mask, int lanes, bool isSetMask) {
    return ascemu::mask_from_array(c, mask, lanes, isSetMask);
}

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
    ascemu_detail::reduce_sum_mask(dst, src, sharedTmpBuffer, ascemu_detail::reduce_lanes(c, mask, 256 / sizeof(T)),
                                   repeatTime, srcRepStride, loc);
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("ReduceSum", loc);
    ascemu_detail::reduce_sum_mask(dst, src, sharedTmpBuffer,
                                   ascemu_detail::reduce_lanes(c, (uint64_t)mask, 256 / sizeof(T)), repeatTime,
                                   srcRepStride, loc);
}

// ------------------------------------------------------------------------------------------------ ReduceMax / ReduceMin
namespace ascemu_detail {
template <bool isMin, typename T>
inline std::pair<T, uint32_t> repeat_extreme(const T* lanes, int n, const uint64_t* bits = nullptr) {
    if constexpr (isMin) return ascemu::num::repeat_min<T>(lanes, n, bits);
    else return ascemu::num::repeat_max<T>(lanes, n, bits);
}
// Does v beat best (a NaN stays, a NaN wins)?
template <bool isMin, typename T>
inline bool beats(T v, T best) {
    if (std::isnan((float)best)) return false;
    if (std::isnan((float)v)) return true;
    return isMin ? (float)v < (float)best : (float)v > (float)best;
}
// MAX_MIN_CNT after a max/min reduction: the value's bits in the low word, the index in the high word
// (what GetReduceRepeatMaxMinSpr reads back).
template <typename T>
inline void set_max_min_cnt(ascemu::Core* c, T v, uint32_t idx) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    c->max_min_cnt = bits | ((uint64_t)idx << 32);
}
template <typename T>
inline void reduce_extreme_out(ascemu::Core* c, const char* api, const LocalTensor<T>& dst, T v, uint32_t idx,
                               bool calIndex, const std::source_location& loc) {
    using namespace ascemu;
    set_max_min_cnt(c, v, idx);
    if (calIndex && sizeof(T) == 2 && idx > 65535)
        diag("REDUCE_INDEX_OVERFLOW", Sev::Error, loc,
             strf("%s index %u does not fit the 16-bit index field of a half result", api, idx), jd("index", idx));
    uint8_t* d = ub_operand(c, dst.v_, (calIndex ? 2 : 1) * sizeof(T), UB_W, loc, "dst", 2 * sizeof(T));
    if (!d) return;
    std::memcpy(d, &v, sizeof(T));
    if (calIndex) {
        idx_bits_t<T> b = (idx_bits_t<T>)idx;
        std::memcpy(d + sizeof(T), &b, sizeof(T));
    }
    if (std::isnan((float)v)) diag("REDUCE_NAN", Sev::Info, loc, strf("%s input contains NaN; result NaN", api), "{}");
}
template <bool isMin, typename T>
inline void reduce_extreme_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                 const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex,
                                 const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (!reduce_dtype<T>(c, loc, api) || !count_ok(count, loc, api)) return;
    const uint8_t* s = ub_operand(c, src.v_, (size_t)count * sizeof(T), UB_R, loc, "src");
    int64_t need = num::reduce_max_tmp_elems<T>(count, calIndex);
    if ((int64_t)sharedTmpBuffer.v_.size < need)
        diag("REDUCE_TMP_TOO_SMALL", Sev::Error, loc,
             strf("%s of %d %s (calIndex=%d) needs a sharedTmpBuffer of >= %lld elements, got %u", api, count,
                  dtype_name_v<T>, (int)calIndex, (long long)need, sharedTmpBuffer.v_.size),
             jd("required", (long long)need, "given", sharedTmpBuffer.v_.size));
    if (need > 0 && sharedTmpBuffer.v_.buf >= 0)
        ub_operand(c, sharedTmpBuffer.v_, (size_t)std::min<int64_t>(need, sharedTmpBuffer.v_.size) * sizeof(T), UB_W,
                   loc, "sharedTmpBuffer");
    if (!s || count == 0) return;
    auto [v, idx] = isMin ? num::reduce_min<T>((const T*)s, count) : num::reduce_max<T>((const T*)s, count);
    reduce_extreme_out(c, api, dst, v, idx, calIndex, loc);
    int64_t R = (count + num::elems_per_repeat<T>() - 1) / num::elems_per_repeat<T>();
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, count, (uint64_t)R, (uint64_t)R);
}
template <bool isMin, typename T>
inline void reduce_extreme_mask(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                const LocalTensor<T>& sharedTmpBuffer, const ascemu::Mask& m, const int32_t repeatTime,
                                const int32_t srcRepStride, bool calIndex, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    if (!reduce_dtype<T>(c, loc, api)) return;
    const int L = 256 / (int)sizeof(T);
    if (repeatTime <= 0) return;
    const int hi = mask_hi_lane(m, L);
    const uint8_t* s = ub_operand(c, src.v_, mask_src_extent<T>(repeatTime, 1, srcRepStride, hi), UB_R, loc, "src");
    int64_t need = num::reduce_max_tmp_elems_for_repeats<T>(repeatTime, calIndex);
    if ((int64_t)sharedTmpBuffer.v_.size < need)
        diag("REDUCE_TMP_TOO_SMALL", Sev::Error, loc, strf("%s sharedTmpBuffer too small", api),
             jd("required", (long long)need, "given", sharedTmpBuffer.v_.size));
    if (!s) return;
    std::vector<T> lanes(L);
    bool have = false;
    T best{};
    uint32_t bidx = 0;
    for (int32_t r = 0; r < repeatTime; ++r) {
        gather_lanes<T>(s, r, 1, srcRepStride, lanes.data(), hi + 1);
        auto [v, i] = repeat_extreme<isMin, T>(lanes.data(), L, m.bits);
        if (!have || beats<isMin>(v, best)) {
            have = true;
            best = v;
            bidx = (uint32_t)(r * L) + i;
        }
    }
    reduce_extreme_out(c, api, dst, best, bidx, calIndex, loc);
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, -1, (uint64_t)repeatTime);
}
}  // namespace ascemu_detail

#define ASCEMU_REDUCE_EXTREME(NAME, IS_MIN)                                                                        \
    template <typename T>                                                                                         \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, \
                     const int32_t count, bool calIndex = 0, ASCEMU_SL) {                                         \
        ascemu::api_enter(#NAME, loc);                                                                            \
        ascemu_detail::reduce_extreme_count<IS_MIN>(#NAME, dst, src, sharedTmpBuffer, count, calIndex, loc);      \
    }                                                                                                             \
    template <typename T>                                                                                         \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, \
                     const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride,                 \
                     bool calIndex = 0, ASCEMU_SL) {                                                              \
        ascemu::Core* c = ascemu::api_enter(#NAME, loc);                                                          \
        ascemu_detail::reduce_extreme_mask<IS_MIN>(#NAME, dst, src, sharedTmpBuffer,                              \
                                                   ascemu_detail::reduce_lanes(c, mask, 256 / sizeof(T)),         \
                                                   repeatTime, srcRepStride, calIndex, loc);                      \
    }                                                                                                             \
    template <typename T>                                                                                         \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer, \
                     const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0, \
                     ASCEMU_SL) {                                                                                 \
        ascemu::Core* c = ascemu::api_enter(#NAME, loc);                                                          \
        ascemu_detail::reduce_extreme_mask<IS_MIN>(#NAME, dst, src, sharedTmpBuffer,                              \
                                                   ascemu_detail::reduce_lanes(c, (uint64_t)mask, 256 / sizeof(T)), \
                                                   repeatTime, srcRepStride, calIndex, loc);                      \
    }
ASCEMU_REDUCE_EXTREME(ReduceMax, false)
ASCEMU_REDUCE_EXTREME(ReduceMin, true)
#undef ASCEMU_REDUCE_EXTREME

// ------------------------------------------------------------------------------------------------ WholeReduce
// ReduceRepeat<SUM / MAX / MIN> under its old names WholeReduceSum / WholeReduceMax / WholeReduceMin.  dst:
// one result per repeat, repeat r at r * dstRepStride units ([DOC] ReduceRepeat table 3: the unit is the result
// size: value+index pair, value, or index).  On 910B ORDER_ONLY_INDEX writes the index as a uint32_t for half
// too ("read it through uint32_t*"); 310P supports ORDER_VALUE_INDEX and ORDER_INDEX_VALUE only.
namespace ascemu_detail {
// The walk every reduction that takes isSetMask shares: the checks, both footprints (dst_ext(R, hi): the dst bytes
// of R repeats whose last reaches lane hi), each repeat's lanes and their uninitialised-read check.  results(r,
// lanes, bits, hi, out) appends the repeat's results as (dst byte offset, T-sized bits); they are written after
// every read.
template <typename T, class DstExt, class Results>
inline void grouped_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const ascemu::Mask& m,
                           const int32_t repeatTime, const int32_t srcBlkStride, const int32_t srcRepStride,
                           uint32_t dst_align, const std::source_location& loc, DstExt dst_ext, Results results) {
    using namespace ascemu;
    Core* c = t_core;
    if (!reduce_dtype<T>(c, loc, api)) return;
    const int L = 256 / (int)sizeof(T);
    const RepeatLanes k = repeat_lanes(m, L, device_repeat_time(repeatTime, loc, api));
    if (k.repeats == 0) return;
    const uint8_t* s = ub_operand(
        c, src.v_, k.extent([&](int64_t R, int hi) { return mask_src_extent<T>(R, srcBlkStride, srcRepStride, hi); }),
        UB_PR, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, k.extent(dst_ext), UB_PW, loc, "dst", dst_align);
    if (!s || !d) return;
    std::vector<T> lanes(L);
    std::vector<std::pair<uint64_t, T>> out;
    bool uninit = false;
    for (int64_t r = 0; r < k.repeats; ++r) {
        gather_lanes<T>(s, r, srcBlkStride, srcRepStride, lanes.data(), k.hi_of(r) + 1);
        uninit = uninit || !lanes_written<T>(c, src.v_, k, r, srcBlkStride, srcRepStride);
        results(r, lanes.data(), k.of(r), k.hi_of(r), out);
    }
    for (auto& [o, v] : out) {
        std::memcpy(d + o, &v, sizeof(T));
        c->ubw.set(dst.v_.off + o, dst.v_.off + o + sizeof(T));
    }
    if (uninit)
        diag("UB_UNINIT_READ", Sev::Warning, loc, strf("%s reads never-written UB bytes (poison)", api), "{}",
             DF_STRICT_ERR);
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, -1, (uint64_t)k.repeats);
}
template <typename T, ReduceType kind>
inline void whole_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, ascemu::Mask m,
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                         const int32_t srcRepStride, ReduceOrder order, const std::source_location& loc) {
    using namespace ascemu;
    constexpr bool isSum = kind == ReduceType::SUM;
    // 310P: CANN checks the order (0..1) only in debug builds; WholeReduceMaxImpl / WholeReduceMinImpl issue the
    // (index, value) vcmax / vcmin for every order but ORDER_VALUE_INDEX
    // ([CODE] cann/asc-devkit impl/basic_api/kernel_operator_vec_reduce_intf_impl.h, dav_m200/..._reduce_impl.h).
    if (!isSum && kIs310P && (order == ReduceOrder::ORDER_ONLY_VALUE || order == ReduceOrder::ORDER_ONLY_INDEX)) {
        device_runs_anyway("PARAM_RANGE", loc,
                           strf("%s order %d: the 310P has ORDER_VALUE_INDEX and ORDER_INDEX_VALUE only", api,
                                (int)order),
                           "it writes (index, value) pairs, as ORDER_INDEX_VALUE", jd("order", (int)order));
        order = ReduceOrder::ORDER_INDEX_VALUE;
    }
    const int L = 256 / (int)sizeof(T);
    const bool pair = !isSum && (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    const bool wide_index = !isSum && order == ReduceOrder::ORDER_ONLY_INDEX && kIs910B;
    const uint32_t unit = pair ? 2 * sizeof(T) : wide_index ? 4 : sizeof(T);  // bytes of one result
    const uint64_t rep_bytes = (uint64_t)dstRepStride * unit;
    auto as_t = [](const void* bits) {
        T t;
        std::memcpy((void*)&t, bits, sizeof(T));
        return t;
    };
    bool have = false;
    T best{};
    uint32_t best_idx = 0;
    grouped_reduce<T>(  // dst aligned to one result ([DOC] table 3)
        api, dst, src, m, repeatTime, srcBlkStride, srcRepStride, unit, loc,
        [&](int64_t R, int) { return (uint64_t)(R - 1) * rep_bytes + unit; },
        [&](int64_t r, const T* lanes, const uint64_t* bits, int, std::vector<std::pair<uint64_t, T>>& out) {
            const uint64_t o = (uint64_t)r * rep_bytes;
            if constexpr (isSum) {
                out.push_back({o, num::repeat_tree_sum<T>(lanes, L, ovf(), bits)});
            } else {
                auto [v, idx] = repeat_extreme<kind == ReduceType::MIN, T>(lanes, L, bits);
                if (!have || beats<kind == ReduceType::MIN>(v, best)) {
                    have = true;
                    best = v;
                    best_idx = (uint32_t)(r * L) + idx;
                }
                idx_bits_t<T> ib = (idx_bits_t<T>)idx;
                switch (order) {
                    case ReduceOrder::ORDER_VALUE_INDEX:
                        out.insert(out.end(), {{o, v}, {o + sizeof(T), as_t(&ib)}});
                        break;
                    case ReduceOrder::ORDER_INDEX_VALUE:
                        out.insert(out.end(), {{o, as_t(&ib)}, {o + sizeof(T), v}});
                        break;
                    case ReduceOrder::ORDER_ONLY_VALUE: out.push_back({o, v}); break;
                    default:  // the index alone: a uint32_t on 910B, for half too
                        for (uint32_t b = 0; b < unit; b += sizeof(T))
                            out.push_back({o + b, wide_index ? as_t((const uint8_t*)&idx + b) : as_t(&ib)});
                        break;
                }
            }
        });
    if constexpr (!isSum)
        if (have) set_max_min_cnt(t_core, best, best_idx);
}
}  // namespace ascemu_detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("WholeReduceSum", loc);
    ascemu::Mask m = ascemu_detail::repeat_mask(c, (uint64_t)mask, 256 / sizeof(T), isSetMask);
    ascemu_detail::whole_reduce<T, ReduceType::SUM>("WholeReduceSum", dst, src, m, repeatTime, dstRepStride,
                                                    srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("WholeReduceSum", loc);
    ascemu::Mask m = ascemu_detail::repeat_mask(c, mask, 256 / sizeof(T), isSetMask);
    ascemu_detail::whole_reduce<T, ReduceType::SUM>("WholeReduceSum", dst, src, m, repeatTime, dstRepStride,
                                                    srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}
#define ASCEMU_WHOLE_REDUCE_EXTREME(NAME, KIND)                                                                    \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                     \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,             \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ASCEMU_SL) {  \
        ascemu::Core* c = ascemu::api_enter(#NAME, loc);                                                           \
        ascemu_detail::whole_reduce<T, ReduceType::KIND>(                                                          \
            #NAME, dst, src, ascemu_detail::repeat_mask(c, (uint64_t)mask, 256 / sizeof(T), isSetMask),            \
            repeatTime, dstRepStride, srcBlkStride, srcRepStride, order, loc);                                     \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                  \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,             \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, ASCEMU_SL) {  \
        ascemu::Core* c = ascemu::api_enter(#NAME, loc);                                                           \
        ascemu_detail::whole_reduce<T, ReduceType::KIND>(                                                          \
            #NAME, dst, src, ascemu_detail::repeat_mask(c, mask, 256 / sizeof(T), isSetMask), repeatTime,          \
            dstRepStride, srcBlkStride, srcRepStride, order, loc);                                                 \
    }
ASCEMU_WHOLE_REDUCE_EXTREME(WholeReduceMax, MAX)
ASCEMU_WHOLE_REDUCE_EXTREME(WholeReduceMin, MIN)
#undef ASCEMU_WHOLE_REDUCE_EXTREME

// RepeatReduceSum (the oldest name of ReduceRepeat<SUM>): CANN sets `mask` lanes and ignores dstBlkStride
// (dav_c220 / dav_m200 RepeatReduceSumImpl).
template <typename T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                            const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                            const int32_t dstRepStride, const int32_t srcRepStride, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("RepeatReduceSum", loc);
    (void)dstBlkStride;
    ascemu::Mask m = ascemu_detail::repeat_mask(c, (uint64_t)mask, 256 / sizeof(T), isSetMask);
    ascemu_detail::whole_reduce<T, ReduceType::SUM>("RepeatReduceSum", dst, src, m, repeatTime, dstRepStride,
                                                    srcBlkStride, srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, loc);
}

// ------------------------------------------------------------------------------------------------ ReduceDataBlock
// BlockReduceSum / Max / Min (ReduceDataBlock<SUM / MAX / MIN>): each DataBlock of a repeat reduces to one value,
// the 8 results of repeat r at r * dstRepStride * 8 elements.  Sums are a binary tree inside the block ([DOC]
// ReduceDataBlock, "key features"); a block with no enabled lane is not written (the page, for 910B; ascemu does
// the same on 310P [CHOICE]).  PairReduceSum (ReducePairElem<SUM>): lane pairs (2j, 2j+1) sum into element j,
// repeat r at r * dstRepStride * 128 bytes; a pair with both lanes off is not written (the page: 910B and 310P).
namespace ascemu_detail {
template <typename T, ReduceType kind>
inline void block_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const ascemu::Mask& m,
                         const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                         const int32_t srcRepStride, const std::source_location& loc) {
    constexpr int epb = 32 / (int)sizeof(T);
    const uint64_t rep_bytes = (uint64_t)dstRepStride * 8 * sizeof(T);
    grouped_reduce<T>(
        api, dst, src, m, repeatTime, srcBlkStride, srcRepStride, 8 * sizeof(T), loc,
        [&](int64_t R, int hi) { return (uint64_t)(R - 1) * rep_bytes + (uint64_t)(hi / epb + 1) * sizeof(T); },
        [&](int64_t r, const T* lanes, const uint64_t* bits, int hi, std::vector<std::pair<uint64_t, T>>& out) {
            for (int b = 0; b * epb <= hi; ++b) {
                uint32_t active = 0;
                for (int j = 0; j < epb; ++j)
                    if (ascemu::lane_on(bits, b * epb + j)) active |= 1u << j;
                if (!active) continue;
                T v;
                if constexpr (kind == ReduceType::SUM)
                    v = ascemu::num::block_tree_sum<T>(&lanes[b * epb], epb, active, ascemu::ovf());
                else {
                    uint64_t block_bits[1] = {active};
                    v = repeat_extreme<kind == ReduceType::MIN, T>(&lanes[b * epb], epb, block_bits).first;
                }
                out.push_back({(uint64_t)r * rep_bytes + (uint64_t)b * sizeof(T), v});
            }
        });
}
template <typename T>
inline void pair_reduce(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const ascemu::Mask& m,
                        const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                        const int32_t srcRepStride, const std::source_location& loc) {
    const uint64_t rep_bytes = (uint64_t)dstRepStride * 128;
    grouped_reduce<T>(
        api, dst, src, m, repeatTime, srcBlkStride, srcRepStride, 32, loc,
        [&](int64_t R, int hi) { return (uint64_t)(R - 1) * rep_bytes + (uint64_t)(hi / 2 + 1) * sizeof(T); },
        [&](int64_t r, const T* lanes, const uint64_t* bits, int hi, std::vector<std::pair<uint64_t, T>>& out) {
            for (int j = 0; 2 * j <= hi; ++j) {
                bool on0 = ascemu::lane_on(bits, 2 * j), on1 = ascemu::lane_on(bits, 2 * j + 1);
                if (!on0 && !on1) continue;
                T v = ascemu::num::sum_step<T>(on0 ? lanes[2 * j] : T(0), on1 ? lanes[2 * j + 1] : T(0), ascemu::ovf());
                out.push_back({(uint64_t)r * rep_bytes + (uint64_t)j * sizeof(T), v});
            }
        });
}
template <typename T, class... A>
inline void block_reduce_sum(A&&... a) { block_reduce<T, ReduceType::SUM>(std::forward<A>(a)...); }
template <typename T, class... A>
inline void block_reduce_max(A&&... a) { block_reduce<T, ReduceType::MAX>(std::forward<A>(a)...); }
template <typename T, class... A>
inline void block_reduce_min(A&&... a) { block_reduce<T, ReduceType::MIN>(std::forward<A>(a)...); }
}  // namespace ascemu_detail

// The older names take repeatTime before mask.
#define ASCEMU_BLOCK_REDUCE(NAME, CALL)                                                                             \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                    \
                     const int32_t srcRepStride, ASCEMU_SL) {                                                       \
        ASCEMU_STRICT_DTYPE(#NAME, (ascemu::one_of_v<T, half, float>));                                             \
        ascemu::Core* c = ascemu::api_enter(#NAME, loc);                                                            \
        ascemu_detail::CALL<T>(#NAME, dst, src,                                                                        \
                            ascemu_detail::repeat_mask(c, (uint64_t)mask, 256 / sizeof(T), isSetMask), repeatTime, \
                            dstRepStride, srcBlkStride, srcRepStride, loc);                                         \
    }                                                                                                               \
    template <typename T, bool isSetMask = true>                                                                    \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,                \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                 \
                     const int32_t srcRepStride, ASCEMU_SL) {                                                       \
        ASCEMU_STRICT_DTYPE(#NAME, (ascemu::one_of_v<T, half, float>));                                             \
        ascemu::Core* c = ascemu::api_enter(#NAME, loc);                                                            \
        ascemu_detail::CALL<T>(#NAME, dst, src, ascemu_detail::repeat_mask(c, mask, 256 / sizeof(T), isSetMask),    \
                            repeatTime, dstRepStride, srcBlkStride, srcRepStride, loc);                             \
    }
ASCEMU_BLOCK_REDUCE(BlockReduceSum, block_reduce_sum)
ASCEMU_BLOCK_REDUCE(BlockReduceMax, block_reduce_max)
ASCEMU_BLOCK_REDUCE(BlockReduceMin, block_reduce_min)
ASCEMU_BLOCK_REDUCE(PairReduceSum, pair_reduce)
#undef ASCEMU_BLOCK_REDUCE

// The current names ([DOC] ReduceDataBlock / ReducePairElem / ReduceRepeat): reduceType first, mask before
// repeatTime; dst and src of one type on 310P and 910B (CANN's static_assert).
#define ASCEMU_REDUCE_NEW(NAME, MASKT, LANES)                                                                         \
    template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<U>& src, MASKT mask, const int32_t repeatTime,      \
                     const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride, ASCEMU_SL) { \
        static_assert(std::is_same_v<T, U>, #NAME " only supports identical src and dst types on " ASCEMU_PLATFORM_STR); \
        ASCEMU_STRICT_DTYPE(#NAME, (ascemu::one_of_v<T, half, float>));                                               \
        ascemu::Core* c = ascemu::api_enter(#NAME, loc);                                                              \
        ascemu::Mask m = ascemu_detail::repeat_mask(c, LANES, 256 / sizeof(T), isSetMask);                           \
        ASCEMU_REDUCE_NEW_BODY_##NAME                                                                                 \
    }
#define ASCEMU_REDUCE_NEW_BODY_ReduceDataBlock                                                                        \
    static_assert(reduceType != ReduceType::NONE, "ReduceDataBlock needs ReduceType SUM, MAX or MIN");               \
    if constexpr (reduceType == ReduceType::SUM)                                                                      \
        ascemu_detail::block_reduce<T, ReduceType::SUM>("ReduceDataBlock", dst, src, m, repeatTime, dstRepStride,     \
                                                        srcBlkStride, srcRepStride, loc);                             \
    else if constexpr (reduceType == ReduceType::MAX)                                                                 \
        ascemu_detail::block_reduce<T, ReduceType::MAX>("ReduceDataBlock", dst, src, m, repeatTime, dstRepStride,     \
                                                        srcBlkStride, srcRepStride, loc);                             \
    else                                                                                                              \
        ascemu_detail::block_reduce<T, ReduceType::MIN>("ReduceDataBlock", dst, src, m, repeatTime, dstRepStride,     \
                                                        srcBlkStride, srcRepStride, loc);
#define ASCEMU_REDUCE_NEW_BODY_ReducePairElem                                                                         \
    static_assert(reduceType == ReduceType::SUM, "ReducePairElem supports ReduceType::SUM only");                    \
    ascemu_detail::pair_reduce<T>("ReducePairElem", dst, src, m, repeatTime, dstRepStride, srcBlkStride,              \
                                  srcRepStride, loc);
ASCEMU_REDUCE_NEW(ReduceDataBlock, const int32_t, (uint64_t)mask)
ASCEMU_REDUCE_NEW(ReduceDataBlock, const uint64_t*, mask)
ASCEMU_REDUCE_NEW(ReducePairElem, const int32_t, (uint64_t)mask)
ASCEMU_REDUCE_NEW(ReducePairElem, const uint64_t*, mask)
#undef ASCEMU_REDUCE_NEW
#undef ASCEMU_REDUCE_NEW_BODY_ReduceDataBlock
#undef ASCEMU_REDUCE_NEW_BODY_ReducePairElem

#define ASCEMU_REDUCE_REPEAT(MASKT, LANES)                                                                            \
    template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>                                   \
    inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, MASKT mask,                        \
                             const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,        \
                             const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX,          \
                             ASCEMU_SL) {                                                                             \
        static_assert(std::is_same_v<T, U>, "ReduceRepeat only supports identical src and dst types on "              \
                                            ASCEMU_PLATFORM_STR);                                                     \
        static_assert(reduceType != ReduceType::NONE, "ReduceRepeat needs ReduceType SUM, MAX or MIN");              \
        ascemu::Core* c = ascemu::api_enter("ReduceRepeat", loc);                                                     \
        ascemu::Mask m = ascemu_detail::repeat_mask(c, LANES, 256 / sizeof(T), isSetMask);                           \
        if constexpr (reduceType == ReduceType::SUM)                                                                  \
            ascemu_detail::whole_reduce<T, ReduceType::SUM>("ReduceRepeat", dst, src, m, repeatTime, dstRepStride,    \
                                                            srcBlkStride, srcRepStride,                               \
                                                            ReduceOrder::ORDER_ONLY_VALUE, loc);                      \
        else if constexpr (reduceType == ReduceType::MAX)                                                             \
            ascemu_detail::whole_reduce<T, ReduceType::MAX>("ReduceRepeat", dst, src, m, repeatTime, dstRepStride,    \
                                                            srcBlkStride, srcRepStride, order, loc);                  \
        else                                                                                                          \
            ascemu_detail::whole_reduce<T, ReduceType::MIN>("ReduceRepeat", dst, src, m, repeatTime, dstRepStride,    \
                                                            srcBlkStride, srcRepStride, order, loc);                  \
    }
ASCEMU_REDUCE_REPEAT(const int32_t, (uint64_t)mask)
ASCEMU_REDUCE_REPEAT(const uint64_t*, mask)
#undef ASCEMU_REDUCE_REPEAT

// ------------------------------------------------------------------------------------------------ SPR reads
// ACC_VAL: the ReduceSum count form's result (910B; the 310P has no such read: CANN refuses at run time).
// MAX_MIN_CNT: value and index of the last max/min reduction (its index is exact here; the page warns that after
// ReduceMax/ReduceMin the device's is not).  910B reads value and index, 310P the value alone; the other form is
// refused at run time, as CANN does (ASCENDC_REPORT_NOT_SUPPORT in dav_c220 / dav_m200).
namespace ascemu_detail {
template <typename T>
inline bool spr_dtype(ascemu::Core* c, const std::source_location& loc, const char* api) {
    return ascemu::dtype_check<T>(ascemu::one_of_v<T, half, float>, c, loc, api);
}
template <typename V>
inline void max_min_cnt_out(ascemu::Core* c, size_t value_bytes, V* value, V* index) {
    uint64_t mask = value_bytes == 2 ? 0xffffull : 0xffffffffull;
    uint32_t v = (uint32_t)(c->max_min_cnt & mask), i = (uint32_t)(c->max_min_cnt >> 32);
    if (value) std::memcpy((void*)value, &v, sizeof(V));
    if (index) std::memcpy((void*)index, &i, sizeof(V));
}
}  // namespace ascemu_detail

template <typename T>
inline T GetReduceRepeatSumSpr(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("GetReduceRepeatSumSpr", loc);
    c->psv.cur = PX_S;
    T v{};
    if (!ascemu_detail::spr_dtype<T>(c, loc, "GetReduceRepeatSumSpr")) return v;
    if (kIs310P) {
        unsupported_api(loc, "GetReduceRepeatSumSpr");
        return v;
    }
    std::memcpy((void*)&v, &c->acc_val, sizeof(T));
    return v;
}
inline int64_t GetReduceRepeatSumSpr(ASCEMU_SL) {
    using namespace ascemu;
    Core* c = api_enter("GetReduceRepeatSumSpr", loc);
    if (kIs310P) {
        unsupported_api(loc, "GetReduceRepeatSumSpr");
        return 0;
    }
    return (int64_t)c->acc_val;
}
template <typename T>
inline T GetAccVal(ASCEMU_SL) {
    return GetReduceRepeatSumSpr<T>(loc);
}
inline int64_t GetAccVal(ASCEMU_SL) { return GetReduceRepeatSumSpr(loc); }

#define ASCEMU_MAX_MIN_SPR(NAME)                                                                                  \
    template <typename T>                                                                                         \
    inline void NAME(T& maxMinValue, T& maxMinIndex, ASCEMU_SL) {                                                 \
        using namespace ascemu;                                                                                   \
        Core* c = api_enter(#NAME, loc);                                                                          \
        if (!ascemu_detail::spr_dtype<T>(c, loc, #NAME)) return;                                                  \
        if (kIs310P) {                                                                                            \
            unsupported_api(loc, #NAME "(value, index)", " (the 310P reads the value only)");                     \
            return;                                                                                               \
        }                                                                                                         \
        ascemu_detail::max_min_cnt_out<T>(c, sizeof(T), &maxMinValue, &maxMinIndex);                             \
    }                                                                                                             \
    template <typename T>                                                                                         \
    inline void NAME(T& maxMinValue, ASCEMU_SL) {                                                                 \
        using namespace ascemu;                                                                                   \
        Core* c = api_enter(#NAME, loc);                                                                          \
        if (!ascemu_detail::spr_dtype<T>(c, loc, #NAME)) return;                                                  \
        if (kIs910B) {                                                                                            \
            unsupported_api(loc, #NAME "(value)", " (the 910B reads value and index)");                           \
            return;                                                                                               \
        }                                                                                                         \
        ascemu_detail::max_min_cnt_out<T>(c, sizeof(T), &maxMinValue, (T*)nullptr);                              \
    }                                                                                                             \
    template <typename T>                                                                                         \
        requires(!std::is_same_v<T, uint32_t>)                                                                    \
    inline void NAME(uint32_t& maxMinValue, uint32_t& maxMinIndex, ASCEMU_SL) {                                   \
        using namespace ascemu;                                                                                   \
        Core* c = api_enter(#NAME, loc);                                                                          \
        if (kIs310P) {                                                                                            \
            unsupported_api(loc, #NAME "(value, index)", " (the 310P reads the value only)");                     \
            return;                                                                                               \
        }                                                                                                         \
        ascemu_detail::max_min_cnt_out<uint32_t>(c, sizeof(T), &maxMinValue, &maxMinIndex);                      \
    }                                                                                                             \
    template <typename T>                                                                                         \
        requires(!std::is_same_v<T, uint32_t>)                                                                    \
    inline void NAME(uint32_t& maxMinValue, ASCEMU_SL) {                                                          \
        using namespace ascemu;                                                                                   \
        Core* c = api_enter(#NAME, loc);                                                                          \
        if (kIs910B) {                                                                                            \
            unsupported_api(loc, #NAME "(value)", " (the 910B reads value and index)");                           \
            return;                                                                                               \
        }                                                                                                         \
        ascemu_detail::max_min_cnt_out<uint32_t>(c, sizeof(T), &maxMinValue, (uint32_t*)nullptr);                \
    }
ASCEMU_MAX_MIN_SPR(GetReduceRepeatMaxMinSpr)
ASCEMU_MAX_MIN_SPR(GetReduceMaxMinCount)
#undef ASCEMU_MAX_MIN_SPR

}  // namespace AscendC

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/reduce_impl.h"
#endif
