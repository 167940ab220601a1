#ifndef MAPVEST_CLIBPQ_SHIM_H
#define MAPVEST_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
