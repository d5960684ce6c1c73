// transpose16: y[b] = x[b]^T for a batch of 16 x 16 half matrices.
// Style: the free-function form of CANN's get_tpipe_ptr example: the entry only declares the TPipe, and a templated
// `__aicore__ inline` Process function reaches it through GetTPipePtr() to set up its double-buffered queues; the
// base-form Transpose (one 16 x 16 matrix of 2-byte elements per call), ascendc_assert on the launch shape,
// GetBlockNum() / GetBlockIdx() splitting the batch.
#include "kernel_operator.h"

constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t MATRIX = 16 * 16;  // halves of one matrix: 512 bytes

template <uint32_t BATCH>
__aicore__ inline void Process(GM_ADDR x, GM_ADDR y)
{
    const uint32_t blockNum = AscendC::GetBlockNum();
    ascendc_assert(blockNum != 0 && BATCH % blockNum == 0 && "the batch splits evenly over the cores");
    const uint32_t perCore = BATCH / blockNum;
    AscendC::GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x + AscendC::GetBlockIdx() * perCore * MATRIX, perCore * MATRIX);
    yGm.SetGlobalBuffer((__gm__ half*)y + AscendC::GetBlockIdx() * perCore * MATRIX, perCore * MATRIX);

    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueY;
    GetTPipePtr()->InitBuffer(inQueueX, BUFFER_NUM, MATRIX * sizeof(half));
    GetTPipePtr()->InitBuffer(outQueueY, BUFFER_NUM, MATRIX * sizeof(half));

    for (uint32_t i = 0; i < perCore; ++i) {
        AscendC::LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        AscendC::DataCopy(xLocal, xGm[i * MATRIX], MATRIX);
        inQueueX.EnQue(xLocal);

        xLocal = inQueueX.DeQue<half>();
        AscendC::LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        AscendC::Transpose(yLocal, xLocal);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);

        yLocal = outQueueY.DeQue<half>();
        AscendC::DataCopy(yGm[i * MATRIX], yLocal, MATRIX);
        outQueueY.FreeTensor(yLocal);
    }
}

extern "C" __global__ __aicore__ void transpose16(GM_ADDR x, GM_ADDR y)
{
    AscendC::TPipe pipe;
    Process<32>(x, y);
}
