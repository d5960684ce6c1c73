// Issue 21, items 6 and 7: an element-wise add in the style of CANN's KernelLaunch samples (a kernel class with
// Init/Process and CopyIn/Compute/CopyOut stages over a double-buffered queue), written for these tests.
//
// The last core takes the remainder of totalLength; its last tile is copied as whole 32-byte blocks, so when
// totalLength * 4 is not a multiple of 32 the copies end at ALIGN_UP(size, 32) of x, y and z: inside every tensor's
// own allocation, and past the last core's GlobalTensor sizes only by that rounding (they end where the tensors
// end): no diagnostic.  `fault` makes the last copies go further, or makes some cores spin:
//   0  the tail copy ends at ALIGN_UP(size, 32)                         -> quiet, z == x + y
//   1  one 32-byte block more: into the 32 bytes aclrtMalloc adds     -> GM_SLACK_ACCESS, GM_WRITE_PAST_END
//   2  two blocks more: past the allocation                            -> GM_OOB
//   3  a scalar store of the element after z's last (inside ALIGN_UP)  -> GM_WRITE_PAST_END (scalar)
// (1 to 3 also pass the GlobalTensors' sizes: GM_LOGICAL_OOB)
//   4  the odd cores spin in Compute in a loop that makes no API call  -> TIMEOUT naming the loop's line
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE_LENGTH = 256;      // floats per tile
constexpr uint32_t TILES_PER_CORE = 2;     // every core but the last: 2 tiles
constexpr uint32_t FLOATS_PER_BLOCK = 8;   // 32 bytes

class KernelTailAdd {
public:
    __aicore__ inline KernelTailAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t fault)
    {
        this->fault = fault;
        const uint32_t perCore = TILE_LENGTH * TILES_PER_CORE;
        const uint32_t first = perCore * GetBlockIdx();
        const bool last = GetBlockIdx() == GetBlockNum() - 1;
        this->blockLength = last ? totalLength - first : perCore;
        xGm.SetGlobalBuffer((__gm__ float *)x + first, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + first, this->blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + first, this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, TILE_LENGTH * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, TILE_LENGTH * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        const uint32_t tiles = (blockLength + TILE_LENGTH - 1) / TILE_LENGTH;
        const bool last = GetBlockIdx() == GetBlockNum() - 1;
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t len = blockLength - i * TILE_LENGTH;
            if (len > TILE_LENGTH) len = TILE_LENGTH;
            // whole 32-byte blocks: a tail of 49 floats moves as 56
            len = (len + FLOATS_PER_BLOCK - 1) / FLOATS_PER_BLOCK * FLOATS_PER_BLOCK;
            if (i == tiles - 1 && last && (fault == 1 || fault == 2)) len += fault * FLOATS_PER_BLOCK;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
        if (fault == 3 && last) zGm.SetValue(blockLength, 0.0f);  // LINE:scalar
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        DataCopy(xLocal, xGm[progress * TILE_LENGTH], len);  // LINE:copy-x
        DataCopy(yLocal, yGm[progress * TILE_LENGTH], len);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        if (fault == 4 && GetBlockIdx() % 2 == 1) {
            // a stride read from the wrong field is 0: the loop never ends, and makes no API call
            volatile uint32_t spins = 0;
            const uint32_t stride = fault - 4;
            for (uint32_t i = 0; i < len; i += stride) spins = spins + 1;  // LINE:spin
        }
        Add(zLocal, xLocal, yLocal, len);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        DataCopy(zGm[progress * TILE_LENGTH], zLocal, len);  // LINE:copy-z
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLength = 0;
    uint32_t fault = 0;
};

extern "C" __global__ __aicore__ void tail_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t fault)
{
    KernelTailAdd op;
    op.Init(x, y, z, totalLength, fault);
    op.Process();
}
