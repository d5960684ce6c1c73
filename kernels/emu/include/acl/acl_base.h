// acl/acl_base.h — ascemu's ACL shim: the base types, error codes and fp16 helpers of CANN's acl_base.h, for
// single-source programs run on the emulator (docs/programs.md).  Names and values follow CANN's public headers
// (gitcode/GitHub hicann/runtime, include/external/acl/acl_base_rt.h and error_codes/rt_error_codes.h).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ascemu/types.h"

typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;
typedef uint16_t aclFloat16;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;

#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_STREAM_CONTEXT 107003
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID 107006
#define ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL 107007
#define ACL_ERROR_RT_INVALID_HANDLE 107017
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015

// The bits of an IEEE binary16, converted with the emulator's own half type (round to nearest even).
inline float aclFloat16ToFloat(aclFloat16 value) { return (float)half::from_bits(value); }
inline aclFloat16 aclFloatToFloat16(float value) { return half(value).to_bits(); }
