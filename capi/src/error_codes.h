/* The documented error codes (minigraf.h's MINIGRAF_E_* constants). */
#ifndef MG_CAPI_ERROR_CODES_H
#define MG_CAPI_ERROR_CODES_H

#include <stdbool.h>

bool error_code_known(int code);

#endif
