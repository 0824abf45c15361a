/*
 * diag.c — diagnostics: collected, counted, printed GCC-style with the
 * source line and a caret under the column.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Finds line `line` (1-based) of d->src; returns its start and length.
 * The search resumes from the line found last when it is not past this
 * one, so the errors of a file cost one pass over it, not one each. */
static const char *
source_line(Diags *d, int line, size_t *len)
{
	const Source *src = d->src;
	const char *p = src->text, *end = src->text + src->len;
	int l = 1;
	if (d->memo_text == src->text && d->memo_line > 0 && d->memo_line <= line &&
	    d->memo_off <= src->len) {
		l = d->memo_line;
		p += d->memo_off;
	}
	for (; l < line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	if (p > end || l < line)
		return NULL;
	d->memo_text = src->text;
	d->memo_line = line;
	d->memo_off = (size_t)(p - src->text);
	const char *q = p;
	while (q < end && *q != '\n' && *q != '\r')
		q++;
	*len = (size_t)(q - p);
	return p;
}

/*
 * What of a line a diagnostic quotes: the whole line up to DIAG_LINE_MAX
 * bytes; past that a window of DIAG_WINDOW bytes either side of the
 * column (as clang and rustc do), its ends moved onto UTF-8 character
 * boundaries, so that a 20 MB line gives a message of a few hundred bytes.
 */
enum { DIAG_LINE_MAX = 512, DIAG_WINDOW = 80 };

static void
quote_line(DiagEntry *e, const char *line, size_t len)
{
	size_t from = 0, to = len;
	if (len > DIAG_LINE_MAX) {
		size_t col = e->span.col > 0 ? (size_t)e->span.col - 1 : 0;
		if (col > len)
			col = len;
		from = col > DIAG_WINDOW ? col - DIAG_WINDOW : 0;
		to = len - col > DIAG_WINDOW ? col + DIAG_WINDOW : len;
		while (from > 0 && ((unsigned char)line[from] & 0xC0) == 0x80)
			from--;
		while (to < len && ((unsigned char)line[to] & 0xC0) == 0x80)
			to++;
	}
	e->line_text = xstrndup(line + from, to - from);
	e->text_col = (int)from + 1;
	e->cut_left = from > 0;
	e->cut_right = to < len;
}

static void
diag_add(Diags *d, DiagLevel level, Span sp, const char *fmt, va_list ap)
{
	if (d->n == d->cap) {
		int cap = d->cap ? d->cap * 2 : 8;
		d->items = xrealloc(d->items, sizeof *d->items * (size_t)cap);
		d->cap = cap;
	}
	StrBuf raw = {0}, b = {0};
	sb_vprintf(&raw, fmt, ap);
	/* a name quoted from a file may hold control bytes: escaped */
	sb_put_escaped(&b, raw.p ? raw.p : "", raw.len);
	sb_free(&raw);
	DiagEntry e = {level, NULL, sp, sb_take(&b), NULL, 1, false, false};
	/* Copy what printing needs: the module may be gone by then. */
	if (d->src) {
		e.file = xstrdup(d->src->name);
		size_t len;
		const char *line = sp.line > 0 ? source_line(d, sp.line, &len) : NULL;
		if (line)
			quote_line(&e, line, len);
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

static void
diag_vfile(Diags *d, DiagLevel level, const char *file, const char *fmt,
	   va_list ap)
{
	const Source *src = d->src;
	d->src = NULL;
	diag_add(d, level, (Span){0, 0, 0}, fmt, ap);
	d->src = src;
	if (file)
		d->items[d->n - 1].file = xstrdup(file);
}

void
diag_file(Diags *d, DiagLevel level, const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vfile(d, level, file, fmt, ap);
	va_end(ap);
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
print_one(const DiagEntry *e, const char *program, FILE *out)
{
	const char *kind = e->level == DIAG_ERROR     ? "error"
			   : e->level == DIAG_WARNING ? "warning"
						      : "note";
	if (!e->file) {
		fprintf(out, "%s: %s: %s\n", program, kind, e->msg);
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
	/* Control bytes of the line are shown escaped (\x1b), never raw; a
	 * window of a long line is marked "..." at the ends it cuts. */
	StrBuf shown = {0};
	sb_put_escaped(&shown, line, len);
	fprintf(out, "%5d | %s%s%s\n", e->span.line, e->cut_left ? "..." : "",
		shown.p ? shown.p : "", e->cut_right ? "..." : "");
	sb_free(&shown);
	fputs(e->cut_left ? "      |    " : "      | ", out);
	/* Tabs stay tabs so that the caret lines up under the column; an
	 * escaped byte takes as many columns as its escape. */
	int col = e->span.col - e->text_col + 1; /* in line_text */
	for (int i = 1; i < col && (size_t)(i - 1) < len; i++) {
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
	for (int i = 1; i < e->span.len && (size_t)(col - 1 + i) < len; i++)
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
		print_one(&d->items[i], d->program ? d->program : "rlx", out);
	}
	if (d->nerrors > DIAG_PRINT_LIMIT)
		fprintf(out, "rlx: %d more errors not shown (%d in all)\n",
			d->nerrors - DIAG_PRINT_LIMIT, d->nerrors);
}

void
diag_print(const Diags *d, FILE *out)
{
	diag_print_some(d, out, !d->hide_warnings, d->n);
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
	d->memo_text = NULL;
}

/* ------------------------------------------------------- public interface */

rlx_diags *
rlx_diags_new(void)
{
	rlx_diags *d = xcalloc(1, sizeof *d);
	return d;
}

void
rlx_diags_free(rlx_diags *d)
{
	if (!d)
		return;
	diag_clear(d);
	free(d->items);
	free(d->program);
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

void
rlx_diags_set_program(rlx_diags *d, const char *program)
{
	free(d->program);
	d->program = program ? xstrdup(program) : NULL;
}

void
rlx_diags_show_warnings(rlx_diags *d, bool show)
{
	d->hide_warnings = !show;
}

void
rlx_diags_error(rlx_diags *d, const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vfile(d, DIAG_ERROR, file, fmt, ap);
	va_end(ap);
}

char *
rlx_diags_take_last_error(rlx_diags *d)
{
	if (!d->n || d->items[d->n - 1].level != DIAG_ERROR)
		return NULL;
	DiagEntry *e = &d->items[--d->n];
	d->nerrors--;
	free(e->file);
	free(e->line_text);
	return e->msg;
}
