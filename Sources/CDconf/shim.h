#ifndef CHIME_CDCONF_SHIM_H
#define CHIME_CDCONF_SHIM_H

#include <dconf.h>

#endif
