/* minigraf.h: versions and error-code names. */
#include "api.h"
#include "error_codes.h"

_Static_assert(FAM_PRS == MINIGRAF_FAMILY_PRS && FAM_QRY == MINIGRAF_FAMILY_QRY &&
                   FAM_STG == MINIGRAF_FAMILY_STG && FAM_WAL == MINIGRAF_FAMILY_WAL &&
                   FAM_API == MINIGRAF_FAMILY_API && FAM_INT == MINIGRAF_FAMILY_INT,
               "engine and API error families must agree");

const char *minigraf_version(void) {
    return MINIGRAF_VERSION;
}

int minigraf_version_number(void) {
    return MINIGRAF_VERSION_NUMBER;
}

int minigraf_abi_version(void) {
    return MINIGRAF_ABI_VERSION;
}

const char *minigraf_error_code_name(int code) {
    return error_code_known(code) ? err_code_name(code) : NULL;
}
