// AddN over a dynamic input list, ops-math style: the inputs arrive as one GM_ADDR holding CANN's list layout
// (ListTensorDesc), y = x0 + x1 + ... .  The host main (CPU-twin build, tikicpulib.h) lays the list out in GM as
// CANN's framework does: word 0 the byte offset of the pointer array, then (dim | index << 32) and the shape of
// each tensor, then the data pointers.  `main DIR LAYOUT` reads DIR/x{0,1,2}.bin, writes DIR/y.bin; LAYOUT is
// tests/realworld/test_rw_apis.py's case: shapes, pointers (dim 0), index-past-end, truncated.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"

struct AddNTilingData {
    uint32_t totalLength;  // elements of each input
    uint32_t tileLength;
    uint32_t extraIndex;  // 0, or an input index the kernel also reads (a list-index check)
    uint32_t checkShapes; // 1: the list has shapes (dim != 0), checked against totalLength
};

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
                AscendC::DataCopy(xLocal, xGm[i][t * tileLength], tileLength);
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

// ---------------------------------------------------------------------------------------------------- host side
#ifdef ASCENDC_CPU_DEBUG
#include "tikicpulib.h"

static bool ReadFile(const std::string &path, size_t size, void *buf)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    bool ok = f != nullptr && std::fread(buf, 1, size, f) == size;
    if (f != nullptr) std::fclose(f);
    return ok;
}

int32_t main(int32_t argc, char *argv[])
{
    if (argc != 3) return 64;
    const std::string dir = argv[1], layout = argv[2];
    constexpr uint32_t inputNum = 3, rows = 8, cols = 256, blockDim = 4;
    AddNTilingData tilingHost{rows * cols, 256, layout == "index-past-end" ? inputNum : 0, layout != "pointers"};
    size_t bytes = tilingHost.totalLength * sizeof(float);

    uint8_t *inputs[inputNum];
    for (uint32_t i = 0; i < inputNum; i++) {
        inputs[i] = (uint8_t *)AscendC::GmAlloc(bytes);
        if (!ReadFile(dir + "/x" + std::to_string(i) + ".bin", bytes, inputs[i])) return 66;
    }
    // CANN's list layout: dim 2 descriptors (or dim 0: pointers only, the count in word 1's high half)
    uint64_t words[64] = {0};
    uint32_t n = 0;
    if (layout == "pointers") {
        words[n++] = 24;
        words[n++] = static_cast<uint64_t>(inputNum) << 32;
        words[n++] = 0xffffffff;
    } else {
        words[n++] = 8 + inputNum * 3 * sizeof(uint64_t);
        for (uint32_t i = 0; i < inputNum; i++) {
            words[n++] = 2 | (static_cast<uint64_t>(i) << 32);
            words[n++] = rows;
            words[n++] = cols;
        }
    }
    for (uint32_t i = 0; i < inputNum; i++) words[n++] = reinterpret_cast<uint64_t>(inputs[i]);
    size_t listBytes = n * sizeof(uint64_t);
    if (layout == "truncated") listBytes -= 2 * sizeof(uint64_t);  // the last two pointers fall outside the buffer
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(listBytes);
    std::memcpy(x, words, listBytes);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(bytes);
    uint8_t *workspace = (uint8_t *)AscendC::GmAlloc(32);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(sizeof(AddNTilingData));
    std::memcpy(tiling, &tilingHost, sizeof(AddNTilingData));

    ICPU_RUN_KF(add_n, blockDim, x, y, workspace, tiling);

    FILE *f = std::fopen((dir + "/y.bin").c_str(), "wb");
    bool written = f != nullptr && std::fwrite(y, 1, bytes, f) == bytes;
    if (f != nullptr) std::fclose(f);
    return written ? 0 : 1;
}
#endif
