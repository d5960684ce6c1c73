// Issue 11, an ops-nn-style op_host tiling header (tests/realworld/test_rw_surface.py): the tiling struct is defined
// host-side with BEGIN_TILING_DATA_DEF and registered for the op; the kernel never includes this file.
#ifndef SCALE_ADD_TILING_H
#define SCALE_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaleAdd, ScaleAddTilingData)
}  // namespace optiling
#endif  // SCALE_ADD_TILING_H
