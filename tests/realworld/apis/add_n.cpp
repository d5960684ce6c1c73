// AddN over a dynamic input list, ops-math style: the inputs arrive as one GM_ADDR holding CANN's list layout
// (ListTensorDesc), y = x0 + x1 + ... .  Launched two ways by tests/realworld/test_rw_list_tensor.py: through
// emu.load with emu.TensorList([...]) for x, and by its CPU-twin host main (add_n_main.cpp), which lays the list
// out in GM itself.
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"

#include "add_n_tiling.h"

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t MAX_DIM = 8;

class KernelAddN {
public:
    __aicore__ inline KernelAddN() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const AddNTilingData &tiling)
    {
        inputList.Init(reinterpret_cast<__gm__ void *>(x));  // LINE:list-init
        inputNum = inputList.GetSize();
        blockLength = tiling.totalLength / AscendC::GetBlockNum();
        tileLength = tiling.tileLength;
        uint32_t offset = blockLength * AscendC::GetBlockIdx();
        for (uint32_t i = 0; i < inputNum; i++) {
            xGm[i].SetGlobalBuffer(inputList.GetDataPtr<float>(i) + offset, blockLength);
        }
        if (tiling.extraIndex != 0) {
            (void)inputList.GetDataPtr<float>(tiling.extraIndex);  // LINE:extra-index
        }
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(float));
    }
    __aicore__ inline uint32_t ShapeElements(uint32_t index)
    {
        uint64_t shape[MAX_DIM] = {0};
        AscendC::TensorDesc<float> desc;
        desc.SetShapeAddr(shape);
        inputList.GetDesc(desc, index);
        uint64_t n = 1;
        for (uint32_t d = 0; d < desc.GetDim(); d++) {
            n *= desc.GetShape(d);
        }
        return static_cast<uint32_t>(n);
    }
    __aicore__ inline void Process()
    {
        uint32_t loopCount = blockLength / tileLength;
        for (uint32_t t = 0; t < loopCount; t++) {
            AscendC::LocalTensor<float> yLocal = outQueueY.AllocTensor<float>();
            for (uint32_t i = 0; i < inputNum; i++) {
                AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
                AscendC::DataCopy(xLocal, xGm[i][t * tileLength], tileLength);  // LINE:copy-in
                inQueueX.EnQue(xLocal);
                xLocal = inQueueX.DeQue<float>();
                if (i == 0) {
                    AscendC::Adds(yLocal, xLocal, 0.0f, tileLength);
                } else {
                    AscendC::PipeBarrier<PIPE_V>();
                    AscendC::Add(yLocal, yLocal, xLocal, tileLength);
                }
                inQueueX.FreeTensor(xLocal);
            }
            outQueueY.EnQue<float>(yLocal);
            yLocal = outQueueY.DeQue<float>();
            AscendC::DataCopy(yGm[t * tileLength], yLocal, tileLength);
            outQueueY.FreeTensor(yLocal);
        }
    }

private:
    static constexpr uint32_t MAX_INPUTS = 8;
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::ListTensorDesc inputList;
    AscendC::GlobalTensor<float> xGm[MAX_INPUTS];
    AscendC::GlobalTensor<float> yGm;
    uint32_t inputNum = 0;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void add_n(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(AddNTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KernelAddN op;
    op.Init(x, y, tilingData);
    if (tilingData.checkShapes != 0) {  // a list of pointers only (dim 0) has no shapes
        AscendC::ListTensorDesc shapes(reinterpret_cast<__gm__ void *>(x));
        for (uint32_t i = 0; i < shapes.GetSize(); i++) {
            ASSERT(op.ShapeElements(i) == tilingData.totalLength);
        }
    }
    op.Process();
}
