/* One record of the append-only fact log (language.md §1). */
#ifndef MG_MODEL_FACT_H
#define MG_MODEL_FACT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/uuid.h"
#include "model/value.h"

typedef struct fact {
    uuid128 entity;
    value attribute; /* VT_KEYWORD */
    value v;
    uint64_t tx_count;
    int64_t tx_id;      /* commit wall-clock ms */
    int64_t valid_from; /* inclusive */
    int64_t valid_to;   /* exclusive; VALID_TO_FOREVER */
    bool asserted;      /* false: a retraction */
} fact;

#endif
