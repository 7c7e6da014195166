/* SPDX-License-Identifier: MIT */
/*
 * A scanout head's register block (contract 1.9, registers.md "Heads"):
 * head h's copy of the SCANOUT_* registers at SCANOUT_HEAD_BASE + h *
 * SCANOUT_HEAD_STRIDE.  core_mmio.c finds the head and passes the head-0
 * offset of the register; every head has the same semantics.
 */
#include "core_priv.h"

uint32_t core_head_read_locked(struct vagx_core *core, unsigned h, uint32_t reg)
{
   struct core_head *hd = &core->head[h];
   if (reg >= VAGX_SCANOUT_OVERLAY_BASE &&
       reg < VAGX_SCANOUT_OVERLAY_BASE + VAGX_SCANOUT_OVERLAY_STRIDE * VAGX_SCANOUT_OVERLAYS) {
      uint32_t rel = reg - VAGX_SCANOUT_OVERLAY_BASE;
      return hd->overlay[rel / VAGX_SCANOUT_OVERLAY_STRIDE][rel % VAGX_SCANOUT_OVERLAY_STRIDE / 4];
   }
   switch (reg) {
   case VAGX_REG_SCANOUT_CONTROL: return hd->control;
   case VAGX_REG_SCANOUT_FORMAT: return hd->format;
   case VAGX_REG_SCANOUT_SIZE: return hd->size;
   case VAGX_REG_SCANOUT_PITCH: return hd->pitch;
   case VAGX_REG_SCANOUT_FB_VA_LO: return hd->va_lo;
   case VAGX_REG_SCANOUT_FB_VA_HI: return hd->va_hi;
   case VAGX_REG_SCANOUT_ROOT_LO: return hd->root_lo;
   case VAGX_REG_SCANOUT_ROOT_HI: return hd->root_hi;
   case VAGX_REG_SCANOUT_COMMIT: return VAGX_SCANOUT_COMMIT_PENDING(hd->commit_pending);
   case VAGX_REG_SCANOUT_VBLANK_COUNT: return hd->vblank_count;
   case VAGX_REG_SCANOUT_REFRESH: return VAGX_REG_SCANOUT_REFRESH_RESET;
   case VAGX_REG_SCANOUT_STATUS:
      return hd->status | VAGX_SCANOUT_STATUS_CONNECTED(core->head_connected[h]);
   case VAGX_REG_SCANOUT_MAX_SIZE: return VAGX_REG_SCANOUT_MAX_SIZE_RESET;
   case VAGX_REG_SCANOUT_VBLANK_TS_LO:
      /* Latch, like TIMESTAMP_LO: LO then HI is one consistent value. */
      hd->vblank_ts_latched = hd->vblank_ts;
      return (uint32_t)hd->vblank_ts_latched;
   case VAGX_REG_SCANOUT_VBLANK_TS_HI: return (uint32_t)(hd->vblank_ts_latched >> 32);
   case VAGX_REG_SCANOUT_CURSOR_CONTROL: return hd->cursor_control;
   case VAGX_REG_SCANOUT_CURSOR_POS: return hd->cursor_pos;
   case VAGX_REG_SCANOUT_CURSOR_SIZE: return hd->cursor_size;
   case VAGX_REG_SCANOUT_CURSOR_PITCH: return hd->cursor_pitch;
   case VAGX_REG_SCANOUT_CURSOR_VA_LO: return hd->cursor_va_lo;
   case VAGX_REG_SCANOUT_CURSOR_VA_HI: return hd->cursor_va_hi;
   case VAGX_REG_SCANOUT_CRC_CONTROL: return hd->crc_control;
   case VAGX_REG_SCANOUT_CRC_VALUE: return hd->crc_value;
   case VAGX_REG_SCANOUT_CRC_COUNT: return hd->crc_count;
   case VAGX_REG_SCANOUT_WB_FORMAT: return hd->wb_format;
   case VAGX_REG_SCANOUT_WB_PITCH: return hd->wb_pitch;
   case VAGX_REG_SCANOUT_WB_VA_LO: return hd->wb_va_lo;
   case VAGX_REG_SCANOUT_WB_VA_HI: return hd->wb_va_hi;
   case VAGX_REG_SCANOUT_WB_ROOT_LO: return hd->wb_root_lo;
   case VAGX_REG_SCANOUT_WB_ROOT_HI: return hd->wb_root_hi;
   case VAGX_REG_SCANOUT_WB_ARM: return VAGX_SCANOUT_WB_ARM_ARM(hd->wb_state != CORE_WB_IDLE);
   case VAGX_REG_SCANOUT_WB_STATUS: return hd->wb_status;
   case VAGX_REG_SCANOUT_WB_COUNT: return hd->wb_count;
   default: return 0;
   }
}

/* A SCANOUT_OVERLAY shadow register; the block's unused offsets are
 * reserved (BAD_ACCESS), CONTROL's reserved bits are dropped. */
static void overlay_write_locked(struct vagx_core *core, struct core_head *hd, uint32_t reg,
                                 uint32_t v, uint32_t offset)
{
   uint32_t rel = reg - VAGX_SCANOUT_OVERLAY_BASE;
   uint32_t *regs = hd->overlay[rel / VAGX_SCANOUT_OVERLAY_STRIDE];
   switch (rel % VAGX_SCANOUT_OVERLAY_STRIDE) {
   case VAGX_SCANOUT_OVERLAY_CONTROL:
      v &= VAGX_SCANOUT_OVERLAY_CONTROL_ENABLE__MASK | VAGX_SCANOUT_OVERLAY_CONTROL_FORMAT__MASK |
           VAGX_SCANOUT_OVERLAY_CONTROL_ZPOS__MASK | VAGX_SCANOUT_OVERLAY_CONTROL_ALPHA__MASK;
      break;
   case VAGX_SCANOUT_OVERLAY_POS:
   case VAGX_SCANOUT_OVERLAY_SIZE:
   case VAGX_SCANOUT_OVERLAY_PITCH:
   case VAGX_SCANOUT_OVERLAY_VA_LO:
   case VAGX_SCANOUT_OVERLAY_VA_HI:
      break;
   default:
      core_error_latch(core, VAGX_REG_ERROR_BAD_ACCESS, offset);
      return;
   }
   regs[rel % VAGX_SCANOUT_OVERLAY_STRIDE / 4] = v;
}

void core_head_write_locked(struct vagx_core *core, unsigned h, uint32_t reg, uint32_t v,
                            uint32_t offset)
{
   struct core_head *hd = &core->head[h];
   if (reg >= VAGX_SCANOUT_OVERLAY_BASE &&
       reg < VAGX_SCANOUT_OVERLAY_BASE + VAGX_SCANOUT_OVERLAY_STRIDE * VAGX_SCANOUT_OVERLAYS) {
      overlay_write_locked(core, hd, reg, v, offset);
      return;
   }
   switch (reg) {
   case VAGX_REG_SCANOUT_CONTROL:
      hd->control = v & (VAGX_SCANOUT_CONTROL_ENABLE__MASK | VAGX_SCANOUT_CONTROL_BLANK__MASK);
      hd->active.enable = VAGX_SCANOUT_CONTROL_ENABLE_GET(v);
      hd->active.blank = VAGX_SCANOUT_CONTROL_BLANK_GET(v);
      if (!hd->active.enable && hd->commit_pending)
         core_scanout_apply_locked(hd);
      if (!hd->active.enable)
         core_wb_abort_locked(core, h);
      break;
   case VAGX_REG_SCANOUT_FORMAT: hd->format = v; break;
   case VAGX_REG_SCANOUT_SIZE: hd->size = v; break;
   case VAGX_REG_SCANOUT_PITCH: hd->pitch = v; break;
   case VAGX_REG_SCANOUT_FB_VA_LO: hd->va_lo = v; break;
   case VAGX_REG_SCANOUT_FB_VA_HI: hd->va_hi = v; break;
   case VAGX_REG_SCANOUT_ROOT_LO: hd->root_lo = v; break;
   case VAGX_REG_SCANOUT_ROOT_HI: hd->root_hi = v; break;
   case VAGX_REG_SCANOUT_CURSOR_CONTROL:
      hd->cursor_control = v & VAGX_SCANOUT_CURSOR_CONTROL_ENABLE__MASK;
      break;
   case VAGX_REG_SCANOUT_CURSOR_POS: hd->cursor_pos = v; break;
   case VAGX_REG_SCANOUT_CURSOR_SIZE: hd->cursor_size = v; break;
   case VAGX_REG_SCANOUT_CURSOR_PITCH: hd->cursor_pitch = v; break;
   case VAGX_REG_SCANOUT_CURSOR_VA_LO: hd->cursor_va_lo = v; break;
   case VAGX_REG_SCANOUT_CURSOR_VA_HI: hd->cursor_va_hi = v; break;
   case VAGX_REG_SCANOUT_CRC_CONTROL:
      hd->crc_control = v & VAGX_SCANOUT_CRC_CONTROL_ENABLE__MASK;
      break;
   case VAGX_REG_SCANOUT_WB_FORMAT: hd->wb_format = v & VAGX_SCANOUT_WB_FORMAT_FORMAT__MASK; break;
   case VAGX_REG_SCANOUT_WB_PITCH: hd->wb_pitch = v; break;
   case VAGX_REG_SCANOUT_WB_VA_LO: hd->wb_va_lo = v; break;
   case VAGX_REG_SCANOUT_WB_VA_HI: hd->wb_va_hi = v; break;
   case VAGX_REG_SCANOUT_WB_ROOT_LO: hd->wb_root_lo = v; break;
   case VAGX_REG_SCANOUT_WB_ROOT_HI: hd->wb_root_hi = v; break;
   case VAGX_REG_SCANOUT_WB_ARM:
      if (VAGX_SCANOUT_WB_ARM_ARM_GET(v))
         core_wb_arm_locked(core, h, offset);
      break;
   case VAGX_REG_SCANOUT_COMMIT:
      if (VAGX_SCANOUT_COMMIT_PENDING_GET(v)) {
         if (!core_scanout_config_ok(hd)) {
            hd->status |= VAGX_SCANOUT_STATUS_INVALID(1);
            core_error_latch(core, VAGX_REG_ERROR_BAD_SCANOUT, offset);
            break;
         }
         hd->status &= ~VAGX_SCANOUT_STATUS_INVALID__MASK;
         core_wb_commit_locked(core, h);
         hd->commit_pending = true;
         if (!VAGX_SCANOUT_CONTROL_ENABLE_GET(hd->control))
            core_scanout_apply_locked(hd);
      }
      break;
   default:
      core_error_latch(core, VAGX_REG_ERROR_BAD_ACCESS, offset);
      break;
   }
}
