#include "CChimeShims.h"

#include <errno.h>
#include <sys/prctl.h>

int chime_clear_ambient_capabilities(void) {
    return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ? -errno : 0;
}
