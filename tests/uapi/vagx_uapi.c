// SPDX-License-Identifier: MIT
/*
 * vagx UAPI kselftests, run inside the guest:
 *   tests/guest/vagx-guest -- build/uapi-tests/vagx_uapi
 * Every ioctl's success paths and documented errnos. Tests that need the
 * device to execute jobs SKIP while it cannot (debugfs vagx_rings says
 * hw_runs_jobs: 0). The gpu_* tests run real compute jobs, encoded with the
 * generated vagx_hw.h / vagx_isa.h (tests/uapi/build.sh generates them).
 *
 * One file a subject, all in one program (vagx_uapi.h says why they are
 * included rather than linked); the harness runs them in this order.
 */
#include "vagx_uapi.h"

#include "vagx_uapi_info.c"
#include "vagx_uapi_gem.c"
#include "vagx_uapi_vm_bind.c"
#include "vagx_uapi_pt.c"
#include "vagx_uapi_submit.c"
#include "vagx_uapi_gpu.c"
#include "vagx_uapi_recovery.c"
#include "vagx_uapi_tlb.c"

TEST_HARNESS_MAIN
