#ifndef CHIME_CGIO_SHIM_H
#define CHIME_CGIO_SHIM_H

#include <gio/gdesktopappinfo.h>

#endif
