#ifndef MAPVEST_CCRYPTO_SHIM_H
#define MAPVEST_CCRYPTO_SHIM_H
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#endif
