#include "exec/match.h"

bool match_term(const term *t, const value *v) {
    switch (t->kind) {
    case TERM_CONST: return value_match_constant(&t->constant, v);
    case TERM_NEVER:
    case TERM_SLOT: return false;
    case TERM_VAR:
    case TERM_WILDCARD: return true;
    }
    return false;
}
