// y[i] = x[i] * scalar for every tensor of a list, in the style of the foreach op_kernel files of CANN's ops
// repositories: x is a dynamic input and y a dynamic output, each one GM_ADDR holding CANN's list layout.  The kernel
// reads x's element counts by walking the list's descriptors (dim, then dim shape words, per tensor), and the data
// addresses of x and y from their pointer arrays (word 0 is the byte offset of the pointer array) instead of through
// ListTensorDesc.  Each core takes the tensors blockIdx, blockIdx + blockNum, ...  Launched by
// tests/realworld/test_rw_list_tensor.py through emu.load with emu.TensorList for x and y.
#include "kernel_operator.h"

struct ForeachMulScalarTilingData {
    uint32_t tileLength;  // elements per tile, a multiple of 8 (32 bytes of float)
};

namespace ForeachSample {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t MAX_TENSORS = 16;

template <typename T>
__aicore__ inline __gm__ T *ListDataAddr(GM_ADDR list, uint32_t index)
{
    __gm__ uint64_t *words = reinterpret_cast<__gm__ uint64_t *>(list);
    __gm__ uint64_t *pointers = words + (*words >> 3);  // word 0: the pointer array's byte offset
    return reinterpret_cast<__gm__ T *>(*(pointers + index));
}

template <typename T>
class KernelForeachMulScalar {
public:
    __aicore__ inline KernelForeachMulScalar() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR scalar, GM_ADDR y, const ForeachMulScalarTilingData &tiling)
    {
        xList = x;
        yList = y;
        tileLength = tiling.tileLength;
        ParseNumels(x);
        scalarGm.SetGlobalBuffer(reinterpret_cast<__gm__ T *>(scalar), 1);
        factor = scalarGm.GetValue(0);
        pipe.InitBuffer(inQueue, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t t = GetBlockIdx(); t < tensorCount; t += GetBlockNum()) {
            xGm.SetGlobalBuffer(ListDataAddr<T>(xList, t), numels[t]);
            yGm.SetGlobalBuffer(ListDataAddr<T>(yList, t), numels[t]);  // LINE:y-pointer
            for (uint64_t done = 0; done < numels[t]; done += tileLength) {
                uint32_t count = numels[t] - done < tileLength ? static_cast<uint32_t>(numels[t] - done) : tileLength;
                LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
                DataCopy(xLocal, xGm[done], count);
                inQueue.EnQue(xLocal);
                xLocal = inQueue.DeQue<T>();
                LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
                Muls(yLocal, xLocal, factor, count);
                outQueue.EnQue<T>(yLocal);
                inQueue.FreeTensor(xLocal);
                yLocal = outQueue.DeQue<T>();
                DataCopy(yGm[done], yLocal, count);
                outQueue.FreeTensor(yLocal);
            }
        }
    }

private:
    // The descriptors run from word 1 to the pointer array: (dim | index << 32), then dim shape words.
    __aicore__ inline void ParseNumels(GM_ADDR x)
    {
        __gm__ uint64_t *words = reinterpret_cast<__gm__ uint64_t *>(x);
        __gm__ uint64_t *end = words + (*words >> 3);
        for (__gm__ uint64_t *desc = words + 1; desc < end && tensorCount < MAX_TENSORS;) {
            uint32_t dim = static_cast<uint32_t>(*desc & 0xffffffff);
            uint64_t numel = 1;
            for (uint32_t d = 1; d <= dim; d++) {
                numel *= *(desc + d);
            }
            numels[tensorCount++] = numel;
            desc += 1 + dim;
        }
    }

    TPipe pipe;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueue;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQueue;
    GlobalTensor<T> xGm, yGm, scalarGm;
    GM_ADDR xList = nullptr;
    GM_ADDR yList = nullptr;
    uint64_t numels[MAX_TENSORS] = {0};
    uint32_t tensorCount = 0;
    uint32_t tileLength = 0;
    T factor = 0;
};
}  // namespace ForeachSample

extern "C" __global__ __aicore__ void foreach_mul_scalar_list(GM_ADDR x, GM_ADDR scalar, GM_ADDR y,
                                                              GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ForeachMulScalarTilingData);
    GET_TILING_DATA(tilingData, tiling);
    ForeachSample::KernelForeachMulScalar<float> op;
    op.Init(x, scalar, y, tilingData);
    op.Process();
}
