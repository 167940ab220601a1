#ifndef MAPVEST_CCAIRO_SHIM_H
#define MAPVEST_CCAIRO_SHIM_H
#include <cairo.h>

/* cairo's C API has no variadic functions, so no wrappers are needed; only Charts (Services/Rating/Charts) imports this module. */

#endif
