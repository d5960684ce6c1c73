// kernel_operator_list_tensor_intf.h — the include CANN documents for ListTensorDesc / TensorDesc; ascemu's
// kernel_operator.h already has them (ascemu/list_tensor.h).
#pragma once

#include "kernel_operator.h"
