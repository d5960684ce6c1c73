// scale_floor's op_host tiling header (tests/conformance/kernels/scale_floor.cpp): the class is declared in
// `namespace optiling` and registered for the op, as msOpGen projects do; the kernel does not include this file.
#ifndef SCALE_FLOOR_TILING_H
#define SCALE_FLOOR_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleFloorTilingData)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(float, floor);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaleFloor, ScaleFloorTilingData)
}  // namespace optiling
#endif  // SCALE_FLOOR_TILING_H
