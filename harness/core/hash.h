/* hash.h - 64-bit FNV-1a, for build-cache keys and content hashes.
 * Not cryptographic: it names content, it does not protect it. */
#ifndef FB_HASH_H
#define FB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FB_HASH_SEED UINT64_C(0xcbf29ce484222325)

uint64_t fb_hash_bytes(uint64_t h, const void *data, size_t n);
/* Hashes the string and its terminator, so ("ab","c") != ("a","bc"). */
uint64_t fb_hash_str(uint64_t h, const char *s);

#endif
