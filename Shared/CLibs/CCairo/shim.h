#ifndef MAPVEST_CCAIRO_SHIM_H
#define MAPVEST_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-pdf.h>

/* cairo's C API has no variadic functions, so no wrappers are needed; Charts (Services/Rating/Charts) draws PNGs with it, Research (Services/Research) memo PDFs. */

#endif
