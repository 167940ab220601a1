#ifndef MAPVEST_CTESSERACT_SHIM_H
#define MAPVEST_CTESSERACT_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <tesseract/capi.h>

/* The few Leptonica calls we need, declared here instead of importing its very large allheaders.h. */
struct Pix;
extern struct Pix *pixReadMem(const uint8_t *data, size_t size);
extern void pixDestroy(struct Pix **ppix);
extern int32_t pixGetWidth(const struct Pix *pix);
extern int32_t pixGetHeight(const struct Pix *pix);
extern struct Pix *pixScale(struct Pix *pixs, float scalex, float scaley);
extern int32_t setMsgSeverity(int32_t newsev);
/* Photo re-encoding (company photos): write the decoded pixels as a fresh JPEG; free what Leptonica allocated. */
extern int32_t pixWriteMemJpeg(uint8_t **pdata, size_t *psize, struct Pix *pix, int32_t quality, int32_t progressive);
extern int32_t pixSetText(struct Pix *pix, const char *textstring);
extern void lept_free(void *ptr);
#endif
