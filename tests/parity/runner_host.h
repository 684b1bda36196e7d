/* The host functions every parity runner registers on every database it
 * opens (tests/parity/README.md, "Host functions"): email? big? fails?
 * geomean sum-int. */
#ifndef MINIGRAF_PARITY_RUNNER_HOST_H
#define MINIGRAF_PARITY_RUNNER_HOST_H

#include "minigraf.h"

/* 0, or the code of the first registration that failed. */
int register_parity_host_functions(MiniGrafDb *db);

#endif
