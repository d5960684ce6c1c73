// ascemu/sort.h — the sort / merge family of Ascend C (Sort32, MrgSort, MrgSort4, RpSort16, ProposalConcat,
// ProposalExtract, GetMrgSortResult) and the sort helpers built on it (Sort, Concat, Extract, the six-argument MrgSort,
// GetSortLen, GetSortOffset).
//
// Sources (CANN's public Ascend C headers and API pages):
//   cann/asc-devkit impl/basic_api/kernel_operator_proposal_intf_impl.h (the APIs, and which instruction each uses on
//   __NPU_ARCH__ 2002 = 310P and 2201 = 910B), impl/basic_api/dav_m200/ and dav_c220/kernel_operator_proposal_impl.h
//   (what each chip lacks: ASCENDC_REPORT_NOT_SUPPORT), include/basic_api/kernel_struct_proposal.h (MrgSort4Info,
//   MrgSortSrcList); the API pages Sort32, MrgSort, MrgSort4, RpSort16, ProposalConcat, ProposalExtract,
//   GetMrgSortResult, Sort, Concat, Extract (docs/zh/api/SIMD-API of the same repository; also
//   https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0231.html).
//
// Layouts.  910B (Sort32, MrgSort): 8-byte (score, index) structures, the score in the low bytes (a float, or a half
// followed by 2 reserved bytes) and the uint32 index in the high 4 bytes.  310P (ProposalConcat, RpSort16, MrgSort4,
// ProposalExtract): "region proposals" of 8 elements of T [x1, y1, x2, y2, score, label, reserved, reserved] (16 bytes
// for half, 32 for float).  Sorting is by score, largest first; equal scores keep their input order ([DOC] "score[i] ==
// score[j] and i > j: score[j] is selected first"), and in a merge the earlier list wins a tie.
//
// Published gaps, each a named choice ([CHOICE]):
//   - NaN scores: the order of a NaN score is not published; ascemu sorts NaN above +inf and reports SORT_NAN_SCORE.
//   - the 2 reserved bytes of a half (score, index) structure: not published; ascemu writes zeros.
//   - MrgSort / MrgSort4 with repeatTimes > 1 when CANN's four conditions do not hold (four equal-length contiguous
//     lists, validBit 15, no exhausted suspension): not published; ascemu advances every list and dst by the sum of
//     the valid lengths per repeat, and warns (PARAM_RANGE).
//   - a validBit other than 3 / 7 / 15 (CANN asserts, compiled out on the device): ascemu merges the lists whose bit
//     is set and warns (PARAM_RANGE).
//   - the VMS4 status register that GetMrgSortResult reads is per core; ascemu sets it on every MrgSort / MrgSort4.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ascemu/vector.h"

namespace AscendC {

constexpr int32_t MRG_SORT_ELEMENT_LEN = 4;

// As CANN's include/basic_api/kernel_struct_proposal.h.
struct MrgSort4Info {
    MrgSort4Info() {}
    MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn,
                 const uint16_t validBitIn, const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes((uint8_t)repeatTimesIn) {
        for (int32_t i = 0; i < MRG_SORT_ELEMENT_LEN; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint8_t repeatTimes = 1;
};

template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                   const LocalTensor<T>& src4In) {
        src1 = src1In[0];
        src2 = src2In[0];
        src3 = src3In[0];
        src4 = src4In[0];
    }
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

}  // namespace AscendC

namespace ascemu::sort {

// The VMS4 status register (GetMrgSortResult): structures taken from each list by the last MrgSort / MrgSort4.
inline uint16_t (&vms4_sr())[4] {
    static thread_local uint16_t r[4] = {0, 0, 0, 0};
    return r;
}

template <class T>
inline constexpr bool score_type_v = std::is_same_v<T, half> || std::is_same_v<T, float>;

#define ASCEMU_SORT_DTYPE(API)                                                                                     \
    static_assert(ascemu::sort::score_type_v<T>,                                                                  \
                  API ": CANN's " API " supports half and float only (its instruction has no other overload)")

// One structure to order: its score, its position in the input (ties keep input order), its bytes.
struct Item {
    float score;
    uint32_t pos;
    const uint8_t* bytes;
};

// Larger score first; ties by input position.  [CHOICE] NaN sorts above +inf.
inline bool before(const Item& a, const Item& b) {
    const bool an = a.score != a.score, bn = b.score != b.score;
    if (an != bn) return an;
    if (!an && a.score != b.score) return a.score > b.score;
    return a.pos < b.pos;
}

template <class T>
inline float score_at(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return float(v);
}

inline void nan_note(const SL& loc, const char* api) {
    diag("SORT_NAN_SCORE", Sev::Warning, loc,
         strf("%s sorts a NaN score: the device's order of NaN is not published; ascemu puts NaN first (above +inf)",
              api),
         jd("api", api));
}

// repeatTime of the sort instructions is [0, 255] ([DOC]); CANN's range check is compiled out on the device, whose
// instruction field holds 8 bits.  [CHOICE] ascemu keeps the low 8 bits and warns.
inline uint32_t repeat_of(int32_t repeatTime, const SL& loc, const char* api) {
    if (repeatTime < 0 || repeatTime > 255) {
        diag("PARAM_RANGE", Sev::Warning, loc,
             strf("%s repeatTime %d is outside [0, 255]; the instruction keeps its low 8 bits (%u)", api, repeatTime,
                  (unsigned)(repeatTime & 0xFF)),
             jd("repeatTime", repeatTime));
        return (uint32_t)(repeatTime & 0xFF);
    }
    return (uint32_t)repeatTime;
}

// The merge of MrgSort (910B: 8-byte structures, score at byte 0) and MrgSort4 (310P: region proposals of
// 8 * sizeof(T) bytes, score at element 4).
template <class T>
inline void merge(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::MrgSortSrcList<T>& src,
                  const AscendC::MrgSort4Info& p, uint32_t item_bytes, uint32_t score_off, uint32_t dst_align,
                  uint32_t src_align, const SL& loc) {
    Core* c = t_core;
    uint16_t valid = p.validBit & 0xF;
    if (p.validBit != 3 && p.validBit != 7 && p.validBit != 15)
        diag("PARAM_RANGE", Sev::Warning, loc,
             strf("%s validBit %u is not 3, 7 or 15 (CANN asserts it off the device); ascemu merges the lists whose "
                  "bit is set",
                  api, (unsigned)p.validBit),
             jd("validBit", p.validBit));
    const AscendC::LocalTensor<T>* lists[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    uint32_t len[4] = {0, 0, 0, 0};
    uint64_t total = 0;
    for (int k = 0; k < 4; ++k) {
        if (!((valid >> k) & 1)) continue;
        len[k] = p.elementLengths[k];
        if (len[k] > 4095)
            diag("PARAM_RANGE", Sev::Warning, loc,
                 strf("%s elementLengths[%d] = %u is past 4095; the instruction keeps its low 12 bits", api, k,
                      len[k]),
                 jd("list", k, "length", len[k]));
        len[k] &= 0xFFF;
        total += len[k];
    }
    uint16_t(&sr)[4] = vms4_sr();
    std::fill(sr, sr + 4, 0);
    uint32_t R = p.repeatTimes;
    if (R == 0) return;  // [DOC] MrgSort: repeatTimes 0 is a NOP
    if (R > 1) {
        bool ok = valid == 15 && !p.ifExhaustedSuspension && len[0] == len[1] && len[1] == len[2] && len[2] == len[3];
        for (int k = 1; k < 4 && ok; ++k)
            ok = lists[k]->v_.buf == lists[0]->v_.buf &&
                 lists[k]->v_.off == lists[0]->v_.off + (uint64_t)k * len[0] * item_bytes;
        if (!ok)
            diag("PARAM_RANGE", Sev::Warning, loc,
                 strf("%s repeatTimes %u needs four contiguous lists of equal length, validBit 15 and no exhausted "
                      "suspension ([DOC]); the device's result otherwise is not published: ascemu advances every "
                      "list and dst by the sum of the lengths per repeat",
                      api, R),
                 jd("repeatTimes", R));
    }
    const uint64_t step = total * item_bytes;
    // dst: the pipe model sees the whole span; the written shadow only what the merge wrote (a suspended merge
    // stops early)
    uint8_t* d = ub_operand(c, dst.v_, (size_t)(step * R), UB_PW, loc, "dst", dst_align);
    const uint8_t* s[4] = {nullptr, nullptr, nullptr, nullptr};
    static const char* roles[4] = {"src1", "src2", "src3", "src4"};
    for (int k = 0; k < 4; ++k) {
        if (!((valid >> k) & 1)) continue;
        const uint64_t span = (uint64_t)(R - 1) * step + (uint64_t)len[k] * item_bytes;
        s[k] = ub_operand(c, lists[k]->v_, (size_t)span, UB_R, loc, roles[k], src_align);
        ub_overlap_check(c, dst.v_, (size_t)(step * R), lists[k]->v_, (size_t)span, loc, roles[k]);
        if (!s[k]) return;
    }
    if (!d) return;
    std::vector<uint8_t> out((size_t)step);
    bool nan_seen = false;
    for (uint32_t r = 0; r < R; ++r) {
        uint32_t at[4] = {0, 0, 0, 0};
        size_t w = 0;
        for (;;) {
            int best = -1;
            Item bi{};
            bool exhausted = false;
            for (int k = 0; k < 4; ++k) {
                if (!((valid >> k) & 1)) continue;
                if (at[k] >= len[k]) { exhausted = true; continue; }
                const uint8_t* b = s[k] + (uint64_t)r * step + (uint64_t)at[k] * item_bytes;
                Item it{score_at<T>(b + score_off), (uint32_t)k, b};
                nan_seen |= it.score != it.score;
                if (best < 0 || before(it, bi)) { best = k; bi = it; }
            }
            if (best < 0 || (p.ifExhaustedSuspension && exhausted)) break;
            std::memcpy(out.data() + w, bi.bytes, item_bytes);
            w += item_bytes;
            ++at[best];
        }
        std::memcpy(d + (uint64_t)r * step, out.data(), w);
        c->ubw.set(dst.v_.off + (uint64_t)r * step, dst.v_.off + (uint64_t)r * step + w);
        for (int k = 0; k < 4; ++k) sr[k] = (uint16_t)at[k];
    }
    if (nan_seen) nan_note(loc, api);
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, (int64_t)(total * R), R);
}

// Region proposals (310P): element m of proposal i is T at byte i * 8 * sizeof(T) + m * sizeof(T).
template <class T>
inline void proposal_move(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                          int32_t repeatTime, int32_t modeNumber, bool concat, const SL& loc) {
    Core* c = t_core;
    if (modeNumber < 0 || modeNumber > 5) {
        diag("PARAM_RANGE", Sev::Error, loc,
             strf("%s modeNumber %d is not in [0, 5] (x1, y1, x2, y2, score, label); no effect", api, modeNumber),
             jd("modeNumber", modeNumber));
        return;
    }
    const uint32_t R = repeat_of(repeatTime, loc, api), n = R * 16;
    if (n == 0) return;
    const size_t rp_bytes = (size_t)n * 8 * sizeof(T), el_bytes = (size_t)n * sizeof(T);
    // ProposalConcat writes one element of each proposal: the pipe model sees the proposals' span as written.
    const uint8_t* s = ub_operand(c, src.v_, concat ? el_bytes : rp_bytes, UB_R, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, concat ? rp_bytes : el_bytes, concat ? UB_PW : UB_W, loc, "dst");
    if (!s || !d) return;
    for (uint32_t i = 0; i < n; ++i) {
        const size_t rp = ((size_t)i * 8 + (size_t)modeNumber) * sizeof(T), el = (size_t)i * sizeof(T);
        if (concat) {
            std::memcpy(d + rp, s + el, sizeof(T));
            c->ubw.set(dst.v_.off + rp, dst.v_.off + rp + sizeof(T));
        } else {
            std::memcpy(d + el, s + rp, sizeof(T));
        }
    }
    trace_vec(c, api, dtype_name_v<T>, dtype_name_v<T>, n, R);
}

// Stable descending sort of groups of `group` structures of `item_bytes` (score at score_off) from src to dst.
template <class T>
inline bool sort_groups(const char* api, uint8_t* d, const uint8_t* s, uint32_t groups, uint32_t group,
                        uint32_t item_bytes, uint32_t score_off, const SL& loc) {
    std::vector<uint8_t> snap(s, s + (size_t)groups * group * item_bytes);  // dst may be src (in place)
    std::vector<Item> items(group);
    bool nan_seen = false;
    for (uint32_t g = 0; g < groups; ++g) {
        const uint8_t* base = snap.data() + (size_t)g * group * item_bytes;
        for (uint32_t i = 0; i < group; ++i) {
            items[i] = Item{score_at<T>(base + (size_t)i * item_bytes + score_off), i, base + (size_t)i * item_bytes};
            nan_seen |= items[i].score != items[i].score;
        }
        std::sort(items.begin(), items.end(), before);
        for (uint32_t i = 0; i < group; ++i)
            std::memcpy(d + ((size_t)g * group + i) * item_bytes, items[i].bytes, item_bytes);
    }
    if (nan_seen) nan_note(loc, api);
    return nan_seen;
}

}  // namespace ascemu::sort

namespace AscendC {

// ------------------------------------------------------------------------------------------------ 910B instructions
// Sort32 ([DOC] Sort32; 910B only, dav_m200 reports it unsupported): per repeat, 32 scores of src0 with the uint32
// indices of src1 become 32 (score, index) structures of 8 bytes in dst, largest score first.
template <typename T>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                   const int32_t repeatTime, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("Sort32");
    Core* c = api_enter("Sort32", loc);
    if (kIs310P) {
        unsupported_api(loc, "Sort32", " (its dav_m200 implementation reports it unsupported; use RpSort16)");
        return;
    }
    const uint32_t R = sort::repeat_of(repeatTime, loc, "Sort32"), n = R * 32;
    if (n == 0) return;  // [DOC] repeatTime 0 is a NOP on Atlas A2/A3
    const uint8_t* sc = ub_operand(c, src0.v_, (size_t)n * sizeof(T), UB_R, loc, "src0");
    const uint8_t* ix = ub_operand(c, src1.v_, (size_t)n * 4, UB_R, loc, "src1");
    ub_overlap_check(c, dst.v_, (size_t)n * 8, src0.v_, (size_t)n * sizeof(T), loc, "src0");
    ub_overlap_check(c, dst.v_, (size_t)n * 8, src1.v_, (size_t)n * 4, loc, "src1");
    uint8_t* d = ub_operand(c, dst.v_, (size_t)n * 8, UB_W, loc, "dst");
    if (!sc || !ix || !d) return;
    std::vector<uint8_t> packed((size_t)n * 8, 0);  // [CHOICE] a half score's 2 reserved bytes are 0
    for (uint32_t i = 0; i < n; ++i) {
        std::memcpy(packed.data() + (size_t)i * 8, sc + (size_t)i * sizeof(T), sizeof(T));
        std::memcpy(packed.data() + (size_t)i * 8 + 4, ix + (size_t)i * 4, 4);
    }
    sort::sort_groups<T>("Sort32", d, packed.data(), R, 32, 8, 0, loc);
    trace_vec(c, "Sort32", dtype_name_v<T>, dtype_name_v<T>, n, R);
}

// MrgSort ([DOC] MrgSort (ISASI); 910B only, dav_m200 reports "MrgSort with Param MrgSort4Info" unsupported): merges
// up to four sorted lists of (score, index) structures into dst.
template <typename T>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("MrgSort");
    api_enter("MrgSort", loc);
    if (kIs310P) {
        unsupported_api(loc, "MrgSort with MrgSort4Info", " (use MrgSort4 on region proposals)");
        return;
    }
    sort::merge<T>("MrgSort", dst, src, params, 8, 0, 32, 8, loc);
}

// ------------------------------------------------------------------------------------------------ 310P instructions
// MrgSort4 ([DOC] MrgSort4; 310P only, dav_c220 reports it unsupported): merges up to four sorted lists of region
// proposals.  Operands 16-byte (half) / 32-byte (float) aligned.
template <typename T>
inline void MrgSort4(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("MrgSort4");
    api_enter("MrgSort4", loc);
    if (kIs910B) {
        unsupported_api(loc, "MrgSort4", " (its dav_c220 implementation reports it unsupported; use MrgSort)");
        return;
    }
    const uint32_t rp = 8 * sizeof(T);
    sort::merge<T>("MrgSort4", dst, src, params, rp, 4 * sizeof(T), rp, rp, loc);
}

// RpSort16 ([DOC] RpSort16; 310P only): sorts each group of 16 region proposals by score, largest first.  dst may
// be src (CANN's own example sorts in place).
template <typename T>
inline void RpSort16(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("RpSort16");
    Core* c = api_enter("RpSort16", loc);
    if (kIs910B) {
        unsupported_api(loc, "RpSort16", " (its dav_c220 implementation reports it unsupported; use Sort32)");
        return;
    }
    const uint32_t R = sort::repeat_of(repeatTime, loc, "RpSort16"), bytes = R * 16 * 8 * sizeof(T);
    if (R == 0) return;
    const uint8_t* s = ub_operand(c, src.v_, bytes, UB_R, loc, "src");
    if (dst.v_.off != src.v_.off) ub_overlap_check(c, dst.v_, bytes, src.v_, bytes, loc, "src");
    uint8_t* d = ub_operand(c, dst.v_, bytes, UB_W, loc, "dst");
    if (!s || !d) return;
    sort::sort_groups<T>("RpSort16", d, s, R, 16, 8 * sizeof(T), 4 * sizeof(T), loc);
    trace_vec(c, "RpSort16", dtype_name_v<T>, dtype_name_v<T>, R * 16, R);
}

// ProposalConcat / ProposalExtract ([DOC]; 310P only): per repeat, 16 consecutive elements go into (come out of)
// element modeNumber (0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label) of 16 region proposals; the other elements of the
// proposals are left as they are.
template <typename T>
inline void ProposalConcat(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                           const int32_t modeNumber, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("ProposalConcat");
    api_enter("ProposalConcat", loc);
    if (kIs910B) {
        unsupported_api(loc, "ProposalConcat", " (its dav_c220 implementation reports it unsupported)");
        return;
    }
    sort::proposal_move<T>("ProposalConcat", dst, src, repeatTime, modeNumber, true, loc);
}
template <typename T>
inline void ProposalExtract(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                            const int32_t modeNumber, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("ProposalExtract");
    api_enter("ProposalExtract", loc);
    if (kIs910B) {
        unsupported_api(loc, "ProposalExtract", " (its dav_c220 implementation reports it unsupported)");
        return;
    }
    sort::proposal_move<T>("ProposalExtract", dst, src, repeatTime, modeNumber, false, loc);
}

// GetMrgSortResult ([DOC]): the structures the last MrgSort (910B) / MrgSort4 (310P) took from each list; meant for
// ifExhaustedSuspension = true, when the merge stops as soon as one list is used up.
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4, ASCEMU_SL) {
    ascemu::Core* c = ascemu::api_enter("GetMrgSortResult", loc);
    c->psv.cur = ascemu::PX_S;
    const uint16_t(&r)[4] = ascemu::sort::vms4_sr();
    mrgSortList1 = r[0];
    mrgSortList2 = r[1];
    mrgSortList3 = r[2];
    mrgSortList4 = r[3];
}

// ------------------------------------------------------------------------------------------------ helpers (both)
// MrgSort with element counts ([DOC] MrgSort, sort helpers): MrgSort on 910B, MrgSort4 on 310P (as CANN's
// kernel_operator_proposal_intf_impl.h); with isExhaustedSuspension, sortedNum receives what each list gave.
template <typename T, bool isExhaustedSuspension = false>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList, const uint16_t elementCountList[4],
                    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime, ASCEMU_SL) {
    ASCEMU_SORT_DTYPE("MrgSort");
    MrgSort4Info info(elementCountList, isExhaustedSuspension, validBit, (uint16_t)repeatTime);
    if constexpr (ascemu::kIs310P) MrgSort4(dst, sortList, info, loc);
    else MrgSort(dst, sortList, info, loc);
    if (isExhaustedSuspension) {
        const uint16_t(&r)[4] = ascemu::sort::vms4_sr();
        for (int k = 0; k < 4; ++k) sortedNum[k] = r[k];
    }
}

// GetSortLen / GetSortOffset: elements of T that elemCount sorted items (an offset of elemOffset items) occupy.
template <typename T>
inline uint32_t GetSortLen(const uint32_t elemCount) {
    ASCEMU_SORT_DTYPE("GetSortLen");
    if constexpr (ascemu::kIs310P) return elemCount * 8;
    else return elemCount * (std::is_same_v<T, half> ? 4 : 2);
}
template <typename T>
inline uint32_t GetSortOffset(const uint32_t elemOffset) {
    return GetSortLen<T>(elemOffset);
}

// Concat ([DOC] Concat): 910B sorts the scores where they are (concat = src); 310P puts them into the score element
// of region proposals in tmp (ProposalConcat mode 4) and concat = tmp.
template <typename T>
inline void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp,
                   const int32_t repeatTime, ASCEMU_SL) {
    ASCEMU_SORT_DTYPE("Concat");
    ascemu::api_enter("Concat", loc);
    if constexpr (ascemu::kIs310P) {
        ProposalConcat(tmp, src, repeatTime, 4, loc);
        concat = tmp;
    } else {
        concat = src;
    }
}

namespace ascemu_detail {
// Full sort (isFullSort): CANN merges the sorted groups four at a time (DoFullSort) until one list remains, with tmp
// as the staging copy; four-way merges that prefer the earlier list on ties give the stable descending order of all
// the items, which is what ascemu writes.  tmp ends holding the same bytes (CANN's last step copies dst to tmp).
template <typename T>
inline void full_sort(const LocalTensor<T>& dst, const LocalTensor<T>& tmp, uint32_t items, uint32_t item_bytes,
                      uint32_t score_off, const std::source_location& loc) {
    using namespace ascemu;
    Core* c = t_core;
    const size_t bytes = (size_t)items * item_bytes;
    uint8_t* d = ub_operand(c, dst.v_, bytes, UB_R | UB_W, loc, "dst");
    uint8_t* t = ub_operand(c, tmp.v_, bytes, UB_W, loc, "tmp");
    if (!d || !t) return;
    sort::sort_groups<T>("Sort", d, d, 1, items, item_bytes, score_off, loc);
    std::memcpy(t, d, bytes);
}
}  // namespace ascemu_detail

// Sort ([DOC] Sort, the repeatTime form): 910B = Sort32 (+ the full merge); 310P = the indices into y1 / label (a
// uint32 index is split over two half elements for half: low 16 bits in y1, high in label), then RpSort16 (+ the
// full merge).  On 310P with half, dst is scratch before the sort writes it (CANN gathers the index halves there).
template <typename T, bool isFullSort>
inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index,
                 LocalTensor<T>& tmp, const int32_t repeatTime, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("Sort");
    Core* c = api_enter("Sort", loc);
    const uint32_t R = sort::repeat_of(repeatTime, loc, "Sort");
    if constexpr (kIs310P) {
        if (index.GetSize() != 0 && R) {
            const uint32_t n = R * 16;
            const uint8_t* ix = ub_operand(c, index.v_, (size_t)n * 4, UB_R, loc, "index");
            uint8_t* cc = ub_operand(c, concat.v_, (size_t)n * 8 * sizeof(T), UB_PW, loc, "concat");
            if (!ix || !cc) return;
            for (uint32_t i = 0; i < n; ++i) {
                uint8_t* rp = cc + (size_t)i * 8 * sizeof(T);
                if constexpr (std::is_same_v<T, half>) {
                    std::memcpy(rp + 1 * sizeof(T), ix + (size_t)i * 4, 2);
                    std::memcpy(rp + 5 * sizeof(T), ix + (size_t)i * 4 + 2, 2);
                    c->ubw.set(concat.v_.off + (uint32_t)(rp - cc) + 2, concat.v_.off + (uint32_t)(rp - cc) + 4);
                } else {
                    std::memcpy(rp + 5 * sizeof(T), ix + (size_t)i * 4, 4);
                }
                c->ubw.set(concat.v_.off + (uint32_t)(rp - cc) + 5 * sizeof(T),
                           concat.v_.off + (uint32_t)(rp - cc) + 6 * sizeof(T));
            }
        }
        pipe_barrier_one(c, PX_V);  // CANN: PipeBarrier<PIPE_V> before RpSort16
        // RpSort16 of the proposals: only score, y1 and label were written (Concat, the index); the other elements
        // move along as they are, so reading them is not a read of the kernel's data (UB_PR: no poison check).
        const size_t bytes = (size_t)R * 16 * 8 * sizeof(T);
        const uint8_t* s = R ? ub_operand(c, concat.v_, bytes, UB_PR, loc, "concat") : nullptr;
        uint8_t* d = R ? ub_operand(c, dst.v_, bytes, UB_W, loc, "dst") : nullptr;
        if (!s || !d) return;
        sort::sort_groups<T>("Sort", d, s, R, 16, 8 * sizeof(T), 4 * sizeof(T), loc);
        if constexpr (isFullSort) {
            pipe_barrier_one(c, PX_V);
            ascemu_detail::full_sort(dst, tmp, R * 16, 8 * sizeof(T), 4 * sizeof(T), loc);
        }
    } else {
        Sort32(dst, concat, index, (int32_t)R, loc);
        if constexpr (isFullSort) {
            pipe_barrier_one(c, PX_V);
            ascemu_detail::full_sort(dst, tmp, R * 32, 8, 0, loc);
        }
    }
}

// Extract ([DOC] Extract): the scores to dstValue and, when dstIndex is not empty on 310P (always on 910B), the
// indices to dstIndex.  910B, as CANN's GatherMask calls: per repeat 32 structures' scores; the index gather runs
// repeatTime repeats of 64 uint32 for float but repeatTime * 2 for half, so with half it reads and writes the indices
// of 64 * repeatTime structures (the second half past what the value gather covers).  310P: ProposalExtract of the
// scores, then of the label (float) or of y1 / label recombined (half), per 16 proposals a repeat.
template <typename T>
inline void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex, const LocalTensor<T>& sorted,
                    const int32_t repeatTime, ASCEMU_SL) {
    using namespace ascemu;
    ASCEMU_SORT_DTYPE("Extract");
    Core* c = api_enter("Extract", loc);
    const uint32_t R = sort::repeat_of(repeatTime, loc, "Extract");
    if (R == 0) return;
    if constexpr (kIs310P) {
        const uint32_t n = R * 16, rpb = 8 * sizeof(T);
        const uint8_t* s = ub_operand(c, sorted.v_, (size_t)n * rpb, UB_R, loc, "sorted");
        uint8_t* v = ub_operand(c, dstValue.v_, (size_t)n * sizeof(T), UB_W, loc, "dstValue");
        const bool want_index = dstIndex.GetSize() != 0;
        uint8_t* x = want_index ? ub_operand(c, dstIndex.v_, (size_t)n * 4, UB_W, loc, "dstIndex") : nullptr;
        if (!s || !v || (want_index && !x)) return;
        for (uint32_t i = 0; i < n; ++i) {
            const uint8_t* rp = s + (size_t)i * rpb;
            std::memcpy(v + (size_t)i * sizeof(T), rp + 4 * sizeof(T), sizeof(T));
            if (!want_index) continue;
            if constexpr (std::is_same_v<T, half>) {
                std::memcpy(x + (size_t)i * 4, rp + 1 * sizeof(T), 2);
                std::memcpy(x + (size_t)i * 4 + 2, rp + 5 * sizeof(T), 2);
            } else {
                std::memcpy(x + (size_t)i * 4, rp + 5 * sizeof(T), 4);
            }
        }
        trace_vec(c, "Extract", dtype_name_v<T>, dtype_name_v<T>, n, R);
    } else {
        const uint32_t nv = R * 32, ni = std::is_same_v<T, half> ? R * 64 : R * 32;
        const uint8_t* s = ub_operand(c, sorted.v_, (size_t)std::max(nv, ni) * 8, UB_R, loc, "sorted");
        uint8_t* v = ub_operand(c, dstValue.v_, (size_t)nv * sizeof(T), UB_W, loc, "dstValue");
        uint8_t* x = ub_operand(c, dstIndex.v_, (size_t)ni * 4, UB_W, loc, "dstIndex");
        if (!s || !v || !x) return;
        for (uint32_t i = 0; i < nv; ++i) std::memcpy(v + (size_t)i * sizeof(T), s + (size_t)i * 8, sizeof(T));
        for (uint32_t i = 0; i < ni; ++i) std::memcpy(x + (size_t)i * 4, s + (size_t)i * 8 + 4, 4);
        trace_vec(c, "Extract", dtype_name_v<T>, dtype_name_v<T>, nv, R);
    }
}

}  // namespace AscendC

#undef ASCEMU_SORT_DTYPE
