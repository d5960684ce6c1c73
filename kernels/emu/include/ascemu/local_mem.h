// ascemu/local_mem.h — LocalMemAllocator, the UB allocator of static-Tensor programming (no TPipe / TQue).
//
// CANN's page (LocalMemAllocator, Ascend C API reference:
// https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1/API/ascendcopapi/atlasascendc_api_07_00095.html;
// impl/basic_api/kernel_tensor_impl.h of cann/asc-devkit) describes a bump allocator: it starts at UB address 0 on
// 310P and 910B, every Alloc returns a LocalTensor at the current address and moves it on by the tensor's bytes, and
// nothing is ever freed.  It must not be mixed with TPipe, and only one may exist per hardware position at a time.
// Tensors it returns are static tensors (tensor.h static_ub_buf): checked like TPipe buffers.
#pragma once
#include "ascemu/pipe.h"

namespace AscendC {

enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

}  // namespace AscendC

namespace ascemu {
constexpr bool is_ub_position(AscendC::TPosition p) {
    return p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT || p == AscendC::TPosition::VECCALC;
}
}  // namespace ascemu

namespace AscendC {

template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
    static_assert(hard != Hardware::GM && hard != Hardware::MAX, "illegal hardware position GM or MAX");

  public:
    LocalMemAllocator(const std::source_location loc = std::source_location::current()) {
        using namespace ascemu;
        Core* c = t_core;
        if (!c) return;
        api_enter("LocalMemAllocator", loc);
        if constexpr (hard != Hardware::UB)
            diag("UNSUPPORTED_API", Sev::Error, loc,
                 "LocalMemAllocator of a non-UB hardware position: only Hardware::UB is emulated", "{}");
        if (live_ub_allocators()++ > 0 || c->live_pipes > 0)
            diag("UB_PIPE_ALIASING", Sev::Warning, loc,
                 c->live_pipes > 0 ? "a LocalMemAllocator while a TPipe is live on this core: both allocate UB from "
                                     "offset 0 and alias (CANN: LocalMemAllocator cannot be mixed with TPipe)"
                                   : "a second LocalMemAllocator is live on this core: both allocate UB from offset 0 "
                                     "and alias (CANN allows one per hardware position at a time)",
                 "{}");
        counted_ = true;
    }
    ~LocalMemAllocator() {
        if (counted_) ascemu::live_ub_allocators()--;
    }
    LocalMemAllocator(const LocalMemAllocator&) = delete;
    LocalMemAllocator& operator=(const LocalMemAllocator&) = delete;

    uint32_t GetCurAddr() const { return head_; }

    template <TPosition pos, class DataType, uint32_t tileSize>
    LocalTensor<DataType> Alloc(const std::source_location loc = std::source_location::current()) {
        static_assert(hard != Hardware::UB || ascemu::is_ub_position(pos), "logic pos and hardware pos not matched.");
        return place<DataType>(pos, tileSize, loc);
    }
    template <class DataType, uint32_t tileSize>
    LocalTensor<DataType> Alloc(const std::source_location loc = std::source_location::current()) {
        return place<DataType>(TPosition::VECCALC, tileSize, loc);
    }
    template <TPosition pos, class DataType>
    LocalTensor<DataType> Alloc(uint32_t tileSize, const std::source_location loc = std::source_location::current()) {
        static_assert(hard != Hardware::UB || ascemu::is_ub_position(pos), "logic pos and hardware pos not matched.");
        return place<DataType>(pos, tileSize, loc);
    }
    template <class DataType>
    LocalTensor<DataType> Alloc(uint32_t tileSize, const std::source_location loc = std::source_location::current()) {
        return place<DataType>(TPosition::VECCALC, tileSize, loc);
    }

  private:
    // Without a pos, CANN takes the hardware's default position (GetDefaultPosition: VECCALC for UB).
    template <class DataType>
    LocalTensor<DataType> place(TPosition pos, uint32_t tileSize, const std::source_location& loc) {
        using namespace ascemu;
        Core* c = api_enter("LocalMemAllocator::Alloc", loc);
        LocalTensor<DataType> t;
        const uint64_t bytes = (uint64_t)tileSize * sizeof(DataType);
        int32_t b = hard == Hardware::UB ? static_ub_buf(c, (uint8_t)pos, head_, bytes, loc, "LocalMemAllocator::Alloc")
                                         : -1;
        if (b >= 0) t.v_ = UbView{head_, tileSize, b, c->bufs[b].gen, (uint8_t)pos, (uint8_t)sizeof(DataType)};
        head_ = (uint32_t)std::min<uint64_t>((uint64_t)head_ + bytes, UINT32_MAX);
        return t;
    }
    uint32_t head_ = 0;  // CANN's GetDynamicMemStartPos: 0 outside the 950 generation
    bool counted_ = false;
};

}  // namespace AscendC
