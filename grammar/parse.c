/* parse.c — entry point of the frontend (stub). */
#include "ir.h"
Module *parse_module(const char *filename, const char *text, size_t len, Diags *d)
{
	Module *m = ir_module_new(filename, text, len);
	d->src = &m->src;
	return m;
}
