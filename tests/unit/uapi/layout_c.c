/* SPDX-License-Identifier: MIT */
/* C11 compile test of uapi/drm/vagx_drm.h: see layout.inc. */
#include "include_uapi.h"

#define VAGX_SA(cond, msg) _Static_assert(cond, msg)
#include "layout.inc"

#if !defined(VAGX_SYNTAX_ONLY)
int main(void)
{
	/* The helper macro must initialise an obj_array from a C array. */
	struct drm_vagx_sync syncs[3] = { { 0 } };
	struct drm_vagx_obj_array a = DRM_VAGX_OBJ_ARRAY(3, syncs);

	return !(a.stride == sizeof(struct drm_vagx_sync) && a.count == 3 &&
		 a.array == (__u64)(uintptr_t)syncs);
}
#endif
