// Issue 11, the kernel surface (tests/realworld/test_rw_surface.py): static-Tensor programming as the newest
// official examples write it, with no TPipe / TQue.  The UB tensors come from LocalMemAllocator<Hardware::UB> and
// from the LocalTensor(TPosition, addr, tileSize) constructor, the pipes are ordered with SetFlag / WaitFlag by hand,
// and the entry is a template with two arguments whose parameters end with its output (no tiling, no workspace).
//
//   z = (x + y) * 0.5, each core a block of TILE_NUM tiles of TILE elements, the inputs double-buffered
#include "kernel_operator.h"

constexpr uint32_t TILE_NUM = 4;

template <typename T, uint32_t TILE>
__vector__ __global__ void half_sum(__gm__ T* x, __gm__ T* y, __gm__ T* z)
{
    AscendC::InitSocState();
    constexpr uint32_t blockLength = TILE * TILE_NUM;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    xGm.SetGlobalBuffer(x + block_idx * blockLength, blockLength);
    yGm.SetGlobalBuffer(y + block_idx * blockLength, blockLength);
    zGm.SetGlobalBuffer(z + block_idx * blockLength, blockLength);

    AscendC::LocalMemAllocator<AscendC::Hardware::UB> ubAllocator;
    AscendC::LocalTensor<T> xLocal[2] = {ubAllocator.Alloc<AscendC::TPosition::VECIN, T, TILE>(),
                                         ubAllocator.Alloc<AscendC::TPosition::VECIN, T, TILE>()};
    AscendC::LocalTensor<T> yLocal[2] = {ubAllocator.Alloc<T, TILE>(), ubAllocator.Alloc<T>(TILE)};
    // the output tile placed by address, right after what the allocator handed out
    AscendC::LocalTensor<T> zLocal(AscendC::TPosition::VECOUT, ubAllocator.GetCurAddr(), TILE);

    for (uint32_t i = 0; i < TILE_NUM; ++i) {
        const int32_t slot = static_cast<int32_t>(i % 2);
        if (i >= 2) {
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(slot);  // tile i-2 no longer reads this slot
        }
        AscendC::DataCopy(xLocal[slot], xGm[i * TILE], TILE);
        AscendC::DataCopy(yLocal[slot], yGm[i * TILE], TILE);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(slot);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(slot);
        if (i >= 1) {
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0);  // the previous tile left zLocal
        }
        AscendC::Add(zLocal, xLocal[slot], yLocal[slot], TILE);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(zLocal, zLocal, static_cast<T>(0.5), TILE);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(slot);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::DataCopy(zGm[i * TILE], zLocal, TILE);
        AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(0);
    }
    AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0);
    for (uint32_t i = TILE_NUM >= 2 ? TILE_NUM - 2 : 0; i < TILE_NUM; ++i) {
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(static_cast<int32_t>(i % 2));
    }
}
