/* SPDX-License-Identifier: MIT */
/*
 * The optional built-in front-end thread: runs vagx_core_process() whenever
 * MMIO or a worker signalled work (hosts with an event loop of their own,
 * like QEMU, call vagx_core_process() from it instead).
 */
#include "core_priv.h"

static void *frontend_main(void *arg)
{
   struct vagx_core *core = arg;
   pthread_mutex_lock(&core->lock);
   while (!core->fe_stop) {
      if (!core->work) {
         pthread_cond_wait(&core->cond, &core->lock);
         continue;
      }
      pthread_mutex_unlock(&core->lock);
      vagx_core_process(core);
      pthread_mutex_lock(&core->lock);
   }
   pthread_mutex_unlock(&core->lock);
   return NULL;
}

int vagx_core_frontend_start(struct vagx_core *core)
{
   if (core->fe_running)
      return 0;
   core->fe_stop = false;
   if (pthread_create(&core->fe_thread, NULL, frontend_main, core))
      return -1;
   core->fe_running = true;
   return 0;
}

void vagx_core_frontend_stop(struct vagx_core *core)
{
   if (!core->fe_running)
      return;
   pthread_mutex_lock(&core->lock);
   core->fe_stop = true;
   pthread_cond_broadcast(&core->cond);
   pthread_mutex_unlock(&core->lock);
   pthread_join(core->fe_thread, NULL);
   core->fe_running = false;
}

bool vagx_core_has_work(struct vagx_core *core)
{
   pthread_mutex_lock(&core->lock);
   bool w = core->work;
   pthread_mutex_unlock(&core->lock);
   return w;
}
