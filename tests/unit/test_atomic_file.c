/*
 * test_atomic_file.c — the atomic-output module (runtime/base/atomic_file.c):
 * temporary names, exclusive creation, rename into place, the cleanup
 * registry the signal handler runs, directory exchange and the sweep of
 * stale temporaries. Everything happens in a mkdtemp directory.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt.h"

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

static bool
exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static bool
count_fn(void *ctx, const char *name, bool is_dir)
{
	(void)name;
	(void)is_dir;
	++*(int *)ctx;
	return true;
}

/* Entries of the test directory. */
static int
entries(void)
{
	int n = 0;
	RtError e;
	assert_true(rt_dir_list(dir, count_fn, &n, &e));
	return n;
}

static char *
slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static void
test_file_temporary_and_rename(void **state)
{
	(void)state;
	RtFile f;
	RtError e;
	assert_true(rt_file_begin(&f, at("out.bin"), &e));
	char want[64];
	snprintf(want, sizeof want, "out.bin.rlx-tmp.%ld.", (long)getpid());
	assert_non_null(strstr(f.tmp, want));
	assert_int_equal(strlen(strstr(f.tmp, want)), strlen(want) + 6);
	assert_true(exists(f.tmp));
	assert_false(exists(at("out.bin")));
	assert_true(rt_file_write(&f, "hello", 5, &e));
	assert_true(rt_file_end(&f, true, &e));
	assert_string_equal(slurp(at("out.bin")), "hello");
	assert_int_equal(entries(), 1);
	/* a failed write leaves the old file and no temporary */
	assert_true(rt_file_begin(&f, at("out.bin"), &e));
	assert_true(rt_file_write(&f, "bye", 3, &e));
	assert_true(rt_file_end(&f, false, &e) == false);
	assert_string_equal(slurp(at("out.bin")), "hello");
	assert_int_equal(entries(), 1);
	unlink(at("out.bin"));
}

static void
test_two_writers_unique_names(void **state)
{
	(void)state;
	RtFile a, b;
	RtError e;
	assert_true(rt_file_begin(&a, at("o"), &e));
	assert_true(rt_file_begin(&b, at("o"), &e));
	assert_string_not_equal(a.tmp, b.tmp);
	assert_true(rt_file_write(&a, "a", 1, &e));
	assert_true(rt_file_write(&b, "b", 1, &e));
	assert_true(rt_file_end(&b, true, &e));
	assert_true(rt_file_end(&a, true, &e));
	assert_string_equal(slurp(at("o")), "a");
	assert_int_equal(entries(), 1);
	unlink(at("o"));
}

/* A link at the target is followed, as a shell's `>` follows it: the
 * file it leads to is replaced atomically, the link stays a link; a
 * dangling link gets its file created. */
static void
test_link_at_target_followed(void **state)
{
	(void)state;
	RtError e;
	int fd = open(at("victim"), O_WRONLY | O_CREAT, 0666);
	assert_int_equal(write(fd, "v", 1), 1);
	close(fd);
	assert_int_equal(symlink("victim", at("t")), 0);
	assert_int_equal(symlink("t", at("t2")), 0); /* a chain */
	assert_true(rt_file_put(at("t2"), "new", 3, &e));
	struct stat st;
	assert_int_equal(lstat(at("t"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(at("t2"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(slurp(at("victim")), "new");
	unlink(at("victim"));
	assert_true(rt_file_put(at("t"), "dangling", 8, &e));
	assert_int_equal(lstat(at("victim"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(slurp(at("victim")), "dangling");
	/* a loop is an error, nothing is written */
	assert_int_equal(symlink("loop", at("loop")), 0);
	assert_false(rt_file_put(at("loop"), "x", 1, &e));
	assert_non_null(strstr(e.msg, "symbolic links"));
	unlink(at("loop"));
	unlink(at("t2"));
	unlink(at("t"));
	unlink(at("victim"));
	assert_int_equal(entries(), 0);
}

/* Is path still a node of type fmt (S_IFCHR, ...)? */
static bool
is_node(const char *path, mode_t fmt)
{
	struct stat st;
	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == fmt;
}

/* A character device (a copy of /dev/null, made with mknod: the test
 * runs as root; skipped otherwise) is written into, never replaced. */
static void
test_char_device_written_into(void **state)
{
	(void)state;
	struct stat null;
	if (stat("/dev/null", &null) != 0 ||
	    mknod(at("null"), S_IFCHR | 0666, null.st_rdev) != 0) {
		skip();
		return;
	}
	RtError e;
	RtFile f;
	assert_true(rt_file_begin(&f, at("null"), &e));
	assert_true(f.direct);
	assert_true(rt_file_write(&f, "data", 4, &e));
	assert_true(rt_file_end(&f, true, &e));
	assert_true(is_node(at("null"), S_IFCHR));
	/* through a link too, and a failed write leaves the node */
	assert_int_equal(symlink("null", at("ln")), 0);
	assert_true(rt_file_begin(&f, at("ln"), &e));
	assert_false(rt_file_end(&f, false, &e));
	assert_true(is_node(at("null"), S_IFCHR));
	assert_true(is_node(at("ln"), S_IFLNK));
	assert_int_equal(entries(), 2); /* no temporary */
	unlink(at("ln"));
	unlink(at("null"));
}

/* A FIFO is streamed to its reader (a child process), and stays a FIFO. */
static void
test_fifo_streamed(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) { /* the reader: what it reads, back on the pipe */
		close(p[0]);
		int fd = open(at("fifo"), O_RDONLY);
		char buf[64];
		ssize_t n, k = 0;
		while ((n = read(fd, buf + k, sizeof buf - (size_t)k)) > 0)
			k += n;
		_exit(write(p[1], buf, (size_t)k) == k ? 0 : 1);
	}
	close(p[1]);
	RtError e;
	assert_true(rt_file_put(at("fifo"), "through the fifo", 16, &e));
	char buf[64] = {0};
	assert_int_equal(read(p[0], buf, sizeof buf - 1), 16);
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(buf, "through the fifo");
	assert_true(is_node(at("fifo"), S_IFIFO));
	assert_int_equal(entries(), 1);
	unlink(at("fifo"));
}

/* A socket is refused with a message, and stays a socket. */
static void
test_socket_refused(void **state)
{
	(void)state;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("sock"));
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
	RtError e;
	assert_false(rt_file_put(at("sock"), "x", 1, &e));
	assert_non_null(strstr(e.msg, "is a socket"));
	assert_true(is_node(at("sock"), S_IFSOCK));
	assert_int_equal(entries(), 1);
	close(s);
	unlink(at("sock"));
}

/* /dev/stdout is a link the kernel resolves to the open file of fd 1
 * (/proc/self/fd/1): a link to /proc/self/fd/N on a pipe is written into
 * the pipe; on a regular file, into that file. */
static void
test_proc_fd_link(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	char fdlink[64];
	snprintf(fdlink, sizeof fdlink, "/proc/self/fd/%d", p[1]);
	assert_int_equal(symlink(fdlink, at("out")), 0);
	RtError e;
	assert_true(rt_file_put(at("out"), "piped", 5, &e));
	close(p[1]);
	char buf[16] = {0};
	assert_int_equal(read(p[0], buf, sizeof buf - 1), 5);
	assert_string_equal(buf, "piped");
	close(p[0]);
	assert_true(is_node(at("out"), S_IFLNK));
	unlink(at("out"));
	assert_int_equal(entries(), 0);
}

static void
test_cleanup_run_removes_live_temporaries(void **state)
{
	(void)state;
	RtFile f;
	RtTmpDir d;
	RtError e;
	assert_true(rt_file_begin(&f, at("f"), &e));
	assert_true(rt_dir_begin(&d, at("d/"), &e)); /* trailing slash */
	assert_string_equal(d.path, at("d"));
	assert_int_equal(mkdir(at("x"), 0777), 0);
	char sub[600];
	snprintf(sub, sizeof sub, "%s/sub", d.tmp);
	assert_int_equal(mkdir(sub, 0777), 0);
	snprintf(sub, sizeof sub, "%s/sub/file", d.tmp);
	close(open(sub, O_WRONLY | O_CREAT, 0666));
	assert_int_equal(entries(), 3);
	rt_cleanup_run(); /* what the signal handler does before exiting */
	assert_int_equal(entries(), 1); /* only x, which is not registered */
	rmdir(at("x"));
	rt_file_end(&f, false, &e);
	rt_dir_abort(&d);
}

static void
test_dir_commit_replace(void **state)
{
	(void)state;
	RtTmpDir d;
	RtError e;
	assert_true(rt_dir_begin(&d, at("c"), &e));
	char p[600];
	snprintf(p, sizeof p, "%s/one", d.tmp);
	close(open(p, O_WRONLY | O_CREAT, 0666));
	assert_true(rt_dir_commit(&d, false, &e));
	assert_true(exists(at("c/one")));
	/* a second, not allowed to replace: refused, the first stays */
	assert_true(rt_dir_begin(&d, at("c"), &e));
	assert_false(rt_dir_commit(&d, false, &e));
	assert_true(exists(at("c/one")));
	assert_int_equal(entries(), 1);
	/* allowed: exchanged, the old tree removed */
	assert_true(rt_dir_begin(&d, at("c"), &e));
	snprintf(p, sizeof p, "%s/two", d.tmp);
	close(open(p, O_WRONLY | O_CREAT, 0666));
	assert_true(rt_dir_commit(&d, true, &e));
	assert_true(exists(at("c/two")));
	assert_false(exists(at("c/one")));
	assert_int_equal(entries(), 1);
	assert_true(rt_remove_tree(at("c")));
	assert_int_equal(entries(), 0);
}

/* The pid of a process that has exited. */
static long
dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (long)p;
}

static void
test_sweep_stale(void **state)
{
	(void)state;
	long dead = dead_pid();
	char n[128];
	snprintf(n, sizeof n, "s.rlx-tmp.%ld.abcDEF", dead);
	assert_int_equal(mkdir(at(n), 0777), 0);          /* removed */
	snprintf(n, sizeof n, "s.rlx-tmp.%ld.abcDEG", dead);
	close(open(at(n), O_WRONLY | O_CREAT, 0666));      /* removed */
	snprintf(n, sizeof n, "s.rlx-tmp.%ld.abcDEH", (long)getppid());
	assert_int_equal(mkdir(at(n), 0777), 0);          /* alive: kept */
	snprintf(n, sizeof n, "s.rlx-tmp.%ld.abcDE", dead);
	assert_int_equal(mkdir(at(n), 0777), 0);          /* not the form */
	snprintf(n, sizeof n, "s.rlx-tmp.%ld.abcDEI", dead);
	assert_int_equal(symlink("elsewhere", at(n)), 0); /* a link: kept */
	snprintf(n, sizeof n, "sx.rlx-tmp.%ld.abcDEF", dead);
	assert_int_equal(mkdir(at(n), 0777), 0);          /* other target */
	assert_int_equal(entries(), 6);
	rt_sweep_stale(at("s"));
	assert_int_equal(entries(), 4);
	snprintf(n, sizeof n, "s.rlx-tmp.%ld.abcDEF", dead);
	assert_false(exists(at(n)));
	assert_true(rt_remove_tree(dir));
	assert_int_equal(mkdir(dir, 0777), 0);
}

int
main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof dir, "%s/rlxaf.XXXXXX", base);
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_temporary_and_rename),
		cmocka_unit_test(test_two_writers_unique_names),
		cmocka_unit_test(test_link_at_target_followed),
		cmocka_unit_test(test_char_device_written_into),
		cmocka_unit_test(test_fifo_streamed),
		cmocka_unit_test(test_socket_refused),
		cmocka_unit_test(test_proc_fd_link),
		cmocka_unit_test(test_cleanup_run_removes_live_temporaries),
		cmocka_unit_test(test_dir_commit_replace),
		cmocka_unit_test(test_sweep_stale),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	rt_remove_tree(dir);
	return r;
}
