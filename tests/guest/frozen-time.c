/* frozen-time.so: an LD_PRELOAD library whose gettimeofday() always answers
 * 2024-01-01 12:00:00 UTC.  The gears demos (glxgears, es2gears_x11,
 * es2gears_wayland) turn their gears by gettimeofday(), so under it every
 * frame they draw is the first one (tests/guest/desktop-test).  Nothing
 * else is touched: clock_gettime(), which Mesa, the X server, weston and
 * the Wayland/X libraries use for timeouts, keeps running.
 */
#include <stddef.h>
#include <sys/time.h>

int
gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
   (void)tz;
   tv->tv_sec = 1704110400;
   tv->tv_usec = 0;
   return 0;
}
