/*
 * parse.h — the frontend's entry point, for the stages above it (the public
 * rlx_parse, the tests). The grammar's own header, syntax.h, is private to
 * grammar/.
 */
#ifndef RLX_PARSE_H
#define RLX_PARSE_H

#include "ir.h"

/* Parses TVMScript text into a normalized module (names resolved, nested
 * calls bound, op arguments matched). NULL with errors in d on failure;
 * struct info is inferred by infer_module, not here. */
Module *parse_module(const char *filename, const char *text, size_t len,
		     Diags *d);

#endif
