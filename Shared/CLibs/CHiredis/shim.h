#ifndef MAPVEST_CHIREDIS_SHIM_H
#define MAPVEST_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#endif
