"""GetCoreNum() and the SyncAll core check follow the launched SoC, not one number per architecture."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import workbench as wb

SOURCE = """
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void core_num(GM_ADDR out, GM_ADDR workspace, uint32_t tiling) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 32);
    LocalTensor<int32_t> t = buf.Get<int32_t>();
    for (int i = 0; i < 8; ++i) {
        t.SetValue(i, static_cast<int32_t>(GetCoreNum()));
    }
    event_t e = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_MTE3));
    SetFlag<HardEvent::S_MTE3>(e);
    WaitFlag<HardEvent::S_MTE3>(e);
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer((__gm__ int32_t*)out, 8);
    DataCopy(g, t, 8);
}
"""


@pytest.mark.parametrize("soc", ["Ascend310P3", "Ascend910B1", "Ascend910B3", "Ascend910B4"])
def test_get_core_num_is_the_socs(soc: str, tmp_path: Path, user_kernel: object) -> None:
    with user_kernel(tmp_path, SOURCE, "core_num", soc) as kernel:  # type: ignore[operator]
        out = np.zeros(8, np.int32)
        run = kernel[1](out, workspace=0, tiling=np.uint32(0).tobytes())
    assert not run.faulted, run.diagnostics
    assert out[0] == wb.PLATFORMS[soc].core_num == {"Ascend310P3": 8, "Ascend910B1": 48}.get(soc, 40)
