// SPDX-License-Identifier: MIT
// C++17 compile test of uapi/drm/vagx_drm.h: see layout.inc.
#include "include_uapi.h"

#include <type_traits>

#define VAGX_SA(cond, msg) static_assert(cond, msg)
#include "layout.inc"

// Everything must be usable from C++ as plain old data.
static_assert(std::is_standard_layout<drm_vagx_vm_bind>::value, "vm_bind is POD");
static_assert(std::is_trivial<drm_vagx_submit>::value, "submit is POD");

int main()
{
	drm_vagx_vm_bind_op ops[2] = {};
	drm_vagx_obj_array a = DRM_VAGX_OBJ_ARRAY(2, ops);

	return !(a.stride == sizeof(drm_vagx_vm_bind_op) && a.count == 2 &&
		 a.array == (__u64)(uintptr_t)ops);
}
