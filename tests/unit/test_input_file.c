/*
 * test_input_file.c — opening inputs (runtime/base/input_file.c): a FIFO is
 * refused at once instead of blocking (rt_open_input, rt_read_whole and
 * the readers built on them); a mapped file truncated under a
 * reader is an error (rt_map_check, rt_st_check, rt_cache_check through
 * rt_weights_check), never a SIGBUS.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_io.h"

static char dir[64];

static char *
at(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

/* A file of the n bytes at b in the test's directory. */
static void
put(const char *name, const void *b, size_t n)
{
	FILE *f = fopen(at(name), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void
test_fifo_refused_at_once(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(at("f"), 0666), 0);
	RtError e;
	alarm(10); /* a hang fails the test */
	assert_int_equal(rt_open_input(at("f"), NULL, &e), -1);
	assert_non_null(strstr(e.msg, "not a regular file (a FIFO)"));
	assert_null(rt_st_open(at("f"), &e));
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_null(rt_npy_read(at("f"), &e));
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_null(rt_weights_open(at("f"), &e));
	/* an index and a cache's JSON */
	assert_int_equal(mkfifo(at("m.safetensors.index.json"), 0666), 0);
	assert_null(rt_weights_open(at("m.safetensors.index.json"), &e));
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_int_equal(mkdir(at("c"), 0777), 0);
	assert_int_equal(mkfifo(at("c/tensor-cache.json"), 0666), 0);
	assert_null(rt_cache_open(at("c"), &e));
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_int_equal(rt_open_input(dir, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "a directory"));
	alarm(0);
}

static void
test_truncated_while_mapped(void **state)
{
	(void)state;
	rt_map_guard_install();
	int64_t shape[1] = {1 << 20};
	RtError e;
	RtTensor *t = rt_tensor_new(DT_F32, 1, shape, &e);
	assert_non_null(t);
	memset(t->data, 0x3f, t->nbytes);
	const char *name = "w";
	const RtTensor *ts[1] = {t};
	assert_true(rt_st_write(at("w.safetensors"), &name, ts, 1, &e));
	rt_tensor_free(t);
	RtWeights *w = rt_weights_open(at("w.safetensors"), &e);
	assert_non_null(w);
	RtTensor *b = rt_weights_load(w, "w", &e);
	assert_non_null(b);
	assert_int_equal(b->own, RT_BORROWED);
	assert_true(rt_weights_check(w, &e));
	/* every page touched first: mapped (2 MiB at a time where the page
	 * cache holds 2 MiB folios, rt_map_open's MADV_HUGEPAGE) before the
	 * truncation takes them away */
	volatile const unsigned char *p = b->data;
	unsigned sum = 0;
	for (size_t i = 0; i < b->nbytes; i += 4096)
		sum += p[i];
	assert_int_equal(truncate(at("w.safetensors"), 4096), 0);
	/* touching every page: zeros past the end, no SIGBUS */
	for (size_t i = 0; i < b->nbytes; i += 4096)
		sum += p[i];
	(void)sum;
	assert_false(rt_weights_check(w, &e));
	assert_non_null(strstr(e.msg, "w.safetensors: the file was truncated "
				      "while it was read"));
	rt_tensor_free(b);
	rt_weights_close(w);
}

/* rt_read_at: exactly n bytes at an offset, -1 when the file ends first,
 * the errno of a failed read. */
static void
test_read_at(void **state)
{
	(void)state;
	put("r.bin", "0123456789", 10);
	int fd = open(at("r.bin"), O_RDONLY);
	assert_true(fd >= 0);
	char b[16] = {0};
	assert_int_equal(rt_read_at(fd, b, 4, 3), 0);
	assert_memory_equal(b, "3456", 4);
	assert_int_equal(rt_read_at(fd, b, 0, 10), 0);
	assert_int_equal(rt_read_at(fd, b, 8, 5), -1); /* 5 bytes, then the end */
	assert_int_equal(close(fd), 0);
	assert_int_equal(rt_read_at(fd, b, 1, 0), EBADF);
}

/* rt_read_whole: the file's bytes and a NUL after them; a FIFO refused
 * at once, a file over max an error. */
static void
test_read_whole(void **state)
{
	(void)state;
	put("whole.txt", "ab\0cd", 5);
	RtError e;
	size_t n = 0;
	char *p = rt_read_whole(at("whole.txt"), 5, &n, &e);
	assert_non_null(p);
	assert_int_equal(n, 5);
	assert_memory_equal(p, "ab\0cd", 6); /* the NUL after */
	free(p);
	assert_null(rt_read_whole(at("whole.txt"), 4, &n, &e));
	assert_non_null(strstr(e.msg, "too large (5 bytes)"));
	put("empty", "", 0);
	p = rt_read_whole(at("empty"), 0, &n, &e);
	assert_non_null(p);
	assert_int_equal(n, 0);
	assert_int_equal(p[0], 0);
	free(p);
	assert_int_equal(mkfifo(at("wf"), 0666), 0);
	alarm(10); /* a hang fails the test */
	assert_null(rt_read_whole(at("wf"), UINT64_MAX, &n, &e));
	alarm(0);
	assert_non_null(strstr(e.msg, "not a regular file (a FIFO)"));
	assert_null(rt_read_whole(at("none"), UINT64_MAX, &n, &e));
	assert_non_null(strstr(e.msg, "cannot open"));
}

int
main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof dir, "%s/rlxin.XXXXXX", base);
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_refused_at_once),
		cmocka_unit_test(test_truncated_while_mapped),
		cmocka_unit_test(test_read_at),
		cmocka_unit_test(test_read_whole),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	rt_remove_tree(dir);
	return r;
}
