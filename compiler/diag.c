/*
 * diag.c — diagnostics: collected, counted, printed GCC-style with the
 * source line and a caret under the column.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Finds line `line` (1-based) of src; returns its start and length. */
static const char *
source_line(const Source *src, int line, size_t *len)
{
	const char *p = src->text, *end = src->text + src->len;
	for (int l = 1; l < line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	if (p > end)
		return NULL;
	const char *q = p;
	while (q < end && *q != '\n' && *q != '\r')
		q++;
	*len = (size_t)(q - p);
	return p;
}

static void
diag_add(Diags *d, DiagLevel level, Span sp, const char *fmt, va_list ap)
{
	if (d->n == d->cap) {
		int cap = d->cap ? d->cap * 2 : 8;
		DiagEntry *items = realloc(d->items, sizeof *items * (size_t)cap);
		if (!items)
			ir_bug("out of memory");
		d->items = items;
		d->cap = cap;
	}
	StrBuf raw = {0}, b = {0};
	sb_vprintf(&raw, fmt, ap);
	/* a name quoted from a file may hold control bytes: escaped */
	sb_put_escaped(&b, raw.p ? raw.p : "", raw.len);
	sb_free(&raw);
	DiagEntry e = {level, NULL, sp, sb_take(&b), NULL};
	/* Copy what printing needs: the module may be gone by then. */
	if (d->src) {
		e.file = strdup(d->src->name);
		size_t len;
		const char *line = sp.line > 0 ? source_line(d->src, sp.line, &len) : NULL;
		if (line)
			e.line_text = strndup(line, len);
	}
	d->items[d->n++] = e;
	if (level == DIAG_ERROR)
		d->nerrors++;
	else if (level == DIAG_WARNING)
		d->nwarnings++;
}

void
diag_verror(Diags *d, Span sp, const char *fmt, va_list ap)
{
	diag_add(d, DIAG_ERROR, sp, fmt, ap);
}

void
diag_file(Diags *d, DiagLevel level, const char *file, const char *fmt, ...)
{
	const Source *src = d->src;
	d->src = NULL;
	va_list ap;
	va_start(ap, fmt);
	diag_add(d, level, (Span){0, 0, 0}, fmt, ap);
	va_end(ap);
	d->src = src;
	if (file)
		d->items[d->n - 1].file = strdup(file);
}

void
diag_error(Diags *d, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_add(d, DIAG_ERROR, sp, fmt, ap);
	va_end(ap);
}

void
diag_note(Diags *d, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_add(d, DIAG_NOTE, sp, fmt, ap);
	va_end(ap);
}

static void
print_one(const DiagEntry *e, FILE *out)
{
	const char *kind = e->level == DIAG_ERROR     ? "error"
			   : e->level == DIAG_WARNING ? "warning"
						      : "note";
	if (!e->file) {
		fprintf(out, "rlx: %s: %s\n", kind, e->msg);
		return;
	}
	if (e->span.line <= 0) {
		fprintf(out, "%s: %s: %s\n", e->file, kind, e->msg);
		return;
	}
	fprintf(out, "%s:%d:%d: %s: %s\n", e->file, e->span.line,
		e->span.col, kind, e->msg);
	const char *line = e->line_text;
	if (!line)
		return;
	size_t len = strlen(line);
	/* Control bytes of the line are shown escaped (\x1b), never raw. */
	StrBuf shown = {0};
	sb_put_escaped(&shown, line, len);
	fprintf(out, "%5d | %s\n", e->span.line, shown.p ? shown.p : "");
	sb_free(&shown);
	fputs("      | ", out);
	/* Tabs stay tabs so that the caret lines up under the column; an
	 * escaped byte takes as many columns as its escape. */
	for (int i = 1; i < e->span.col && (size_t)(i - 1) < len; i++) {
		StrBuf one = {0};
		sb_put_escaped(&one, line + i - 1, 1);
		if (line[i - 1] == '\t')
			fputc('\t', out);
		else
			for (size_t k = 0; k < one.len; k++)
				fputc(' ', out);
		sb_free(&one);
	}
	fputc('^', out);
	for (int i = 1; i < e->span.len && (size_t)(e->span.col - 1 + i) < len;
	     i++)
		fputc('~', out);
	fputc('\n', out);
}

/* A file with thousands of the same mistake shows the first ones and a
 * count. */
void
diag_print_some(const Diags *d, FILE *out, bool warnings, int n)
{
	int shown = 0;
	for (int i = 0; i < d->n && i < n; i++) {
		if (d->items[i].level == DIAG_ERROR && shown++ == DIAG_PRINT_LIMIT)
			break;
		if (d->items[i].level == DIAG_WARNING && !warnings)
			continue;
		print_one(&d->items[i], out);
	}
	if (d->nerrors > DIAG_PRINT_LIMIT)
		fprintf(out, "rlx: %d more errors not shown (%d in all)\n",
			d->nerrors - DIAG_PRINT_LIMIT, d->nerrors);
}

void
diag_print(const Diags *d, FILE *out)
{
	diag_print_some(d, out, true, d->n);
}

void
diag_clear(Diags *d)
{
	for (int i = 0; i < d->n; i++) {
		free(d->items[i].msg);
		free(d->items[i].file);
		free(d->items[i].line_text);
	}
	d->n = d->nerrors = d->nwarnings = 0;
}

/* ------------------------------------------------------- public interface */

rlx_diags *
rlx_diags_new(void)
{
	rlx_diags *d = calloc(1, sizeof *d);
	if (!d)
		ir_bug("out of memory");
	return d;
}

void
rlx_diags_free(rlx_diags *d)
{
	if (!d)
		return;
	diag_clear(d);
	free(d->items);
	free(d);
}

int
rlx_diags_errors(const rlx_diags *d)
{
	return d->nerrors;
}

int
rlx_diags_warnings(const rlx_diags *d)
{
	return d->nwarnings;
}

void
rlx_diags_print(const rlx_diags *d, FILE *out)
{
	diag_print(d, out);
}
