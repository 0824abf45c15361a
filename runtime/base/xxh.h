/*
 * xxh.h — xxHash as every rlx file includes it. Where libxxhash has its
 * x86 dispatch (meson's check defines RLX_XXH_DISPATCH), the XXH3 calls
 * go to the AVX2/AVX-512 code the CPU allows instead of the library's
 * SSE2 default: the same hashes, about 1.4x the speed here (the
 * transform hashes every input tensor and output shard).
 */
#ifndef RLX_XXH_H
#define RLX_XXH_H

#include <xxhash.h>
#ifdef RLX_XXH_DISPATCH
#include <xxh_x86dispatch.h>
#endif

#endif
