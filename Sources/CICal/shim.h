/* libical (Debian: libical-dev): chime uses its RFC 5545 recurrence engine and its iCalendar parser. */
#include <libical/ical.h>
