#ifndef MAPVEST_CCURL_SHIM_H
#define MAPVEST_CCURL_SHIM_H
#include <curl/curl.h>
#endif
