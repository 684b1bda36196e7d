#ifndef MG_BASE_CLOCK_H
#define MG_BASE_CLOCK_H

#include <stdint.h>

/* Wall-clock milliseconds since the Unix epoch (CLOCK_REALTIME), never
 * smaller than a value this function returned before in this process (so a
 * commit's tx time never exceeds a later query's "now"). Thread-safe. */
int64_t clock_now_ms(void);

#endif
