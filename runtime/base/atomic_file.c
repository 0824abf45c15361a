/*
 * atomic_file.c — outputs that appear whole or not at all, and the
 * temporaries they leave on the way.
 *
 * Every writer of rlx (.npy, safetensors, `lift -o`, `run -o DIR`, the
 * tensor cache) writes under a temporary name next to its target and
 * renames it into place. The temporary is
 *
 *     TARGET.rlx-tmp.PID.XXXXXX
 *
 * (PID the writer's process id, XXXXXX random), created exclusively
 * (O_CREAT | O_EXCL | O_NOFOLLOW for a file, mkdir for a directory: never
 * through a link, never an existing name) and locked (flock) while it is
 * being written. Three things remove temporaries:
 *   - the writer itself, when it fails or is aborted;
 *   - the signal handler (rt_cleanup_install): on SIGINT, SIGTERM or SIGHUP
 *     every registered temporary is removed and the process exits with the
 *     conventional status 128 + signal (130, 143, 129);
 *   - a later writer of the same target (rt_file_begin, rt_dir_begin): a
 *     sibling named like a temporary of this target whose PID is dead
 *     (kill(PID, 0) fails with ESRCH), whose owner is the current user and
 *     whose lock nobody holds was left by an rlx killed with SIGKILL (or a
 *     crash) and is removed.
 *
 * fsync policy: a single file is fsynced before its rename; directories
 * are not, so the outputs survive the death of the process at any point
 * but not necessarily a power loss (docs/formats.md).
 *
 * The registry the signal handler reads is process-wide state (signals
 * are process-wide): a fixed table of slots, written with atomics, read by
 * the handler with async-signal-safe calls only. The runtime has three
 * such states in all, each for a reason the process owns: this registry,
 * the table of guarded mappings (input_file.c, for SIGBUS) and the JIT's
 * one-time native target set-up (jit.c, LLVM's own is process-wide).
 * dirent.h is avoided (its DT_UNKNOWN clashes with ir.h's DType): the
 * directory walks use getdents64 directly, which is also what makes the
 * tree removal safe in a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

static const char TMP_MARK[] = ".rlx-tmp.";

/* ------------------------------------------------------ cleanup registry */

enum { SLOTS = 64, FREE = 0, BUSY = 1, LIVE = 2 };

static struct {
	_Atomic int state;
	bool dir;
	char path[PATH_MAX];
} slots[SLOTS];

static _Atomic int dying; /* a handler is removing the temporaries */

/* Registers a temporary for removal on a signal; the slot, or -1 when
 * the table is full (the temporary is then only removed by its writer or
 * by a later run). */
static int
reg_add(const char *path, bool dir)
{
	size_t n = strlen(path);
	if (n >= PATH_MAX)
		return -1;
	for (int i = 0; i < SLOTS; i++) {
		int want = FREE;
		if (!atomic_compare_exchange_strong(&slots[i].state, &want,
						    BUSY))
			continue;
		memcpy(slots[i].path, path, n + 1);
		slots[i].dir = dir;
		atomic_store(&slots[i].state, LIVE);
		return i;
	}
	return -1;
}

static void
reg_drop(int slot)
{
	if (slot >= 0)
		atomic_store(&slots[slot].state, FREE);
}

/* The directory entries of the open directory fd, one call per entry
 * (not "." and ".."); is_dir is DT_DIR, or unknown resolved by fstatat.
 * Async-signal-safe. fn returning false stops the walk. false when the
 * directory cannot be read. */
typedef bool (*EntryFn)(void *ctx, int dfd, const char *name, bool is_dir);

struct dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

enum { D_DIR = 4, D_UNKNOWN = 0 };

static bool
each_entry(int dfd, EntryFn fn, void *ctx)
{
	_Alignas(8) char buf[4096];
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		for (long off = 0; off < n;) {
			struct dent64 *d = (struct dent64 *)(buf + off);
			off += d->reclen;
			if (!strcmp(d->name, ".") || !strcmp(d->name, ".."))
				continue;
			bool is_dir = d->type == D_DIR;
			if (d->type == D_UNKNOWN) {
				struct stat st;
				is_dir = fstatat(dfd, d->name, &st,
						 AT_SYMLINK_NOFOLLOW) == 0 &&
					 S_ISDIR(st.st_mode);
			}
			if (!fn(ctx, dfd, d->name, is_dir))
				return true;
		}
	}
}

static bool remove_at(int dfd, const char *name, bool is_dir, int depth);

static bool
remove_child(void *ctx, int dfd, const char *name, bool is_dir)
{
	int *depth = ctx;
	remove_at(dfd, name, is_dir, *depth);
	return true;
}

/* Removes name under dfd, and everything in it when it is a directory
 * (links are removed, never followed). Async-signal-safe. */
static bool
remove_at(int dfd, const char *name, bool is_dir, int depth)
{
	if (!is_dir)
		return unlinkat(dfd, name, 0) == 0 || errno == ENOENT;
	if (depth > 64)
		return false;
	/* other threads may still be adding files: try a few times */
	for (int tries = 0; tries < 4; tries++) {
		int fd = openat(dfd, name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT;
		int d = depth + 1;
		each_entry(fd, remove_child, &d);
		close(fd);
		if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return true;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return false;
	}
	return false;
}

/* Removes path (a file, a link or a directory tree). */
bool
rt_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT;
	return remove_at(AT_FDCWD, path, S_ISDIR(st.st_mode), 0);
}

/* Removes every registered temporary. Async-signal-safe. */
void
rt_cleanup_run(void)
{
	for (int i = 0; i < SLOTS; i++)
		if (atomic_load(&slots[i].state) == LIVE)
			remove_at(AT_FDCWD, slots[i].path, slots[i].dir, 0);
}

static void
on_signal(int sig)
{
	int was = 0;
	if (!atomic_compare_exchange_strong(&dying, &was, 1))
		for (;;)
			pause(); /* another thread is cleaning up and exiting */
	rt_cleanup_run();
	_exit(128 + sig);
}

/* Installs the handler of SIGINT, SIGTERM and SIGHUP (those not ignored
 * when the process started, so nohup and background jobs keep theirs). */
void
rt_cleanup_install(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* ------------------------------------------------------ temporary names */

/* A copy of path without trailing slashes ("/" stays "/"). */
char *
rt_path_strip(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	return strndup(path, n);
}

/* Six random characters of [0-9A-Za-z]. */
static void
random_suffix(char out[7])
{
	static const char abc[] =
		"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	static _Atomic uint64_t counter;
	uint64_t r = 0;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
		    (uint64_t)getpid() << 32;
	}
	r ^= atomic_fetch_add(&counter, 1) * 0xbf58476d1ce4e5b9ull;
	for (int i = 0; i < 6; i++, r /= 62)
		out[i] = abc[r % 62];
	out[6] = 0;
}

/* malloc'd "PATH.rlx-tmp.PID.XXXXXX". */
static char *
tmp_name(const char *path)
{
	char sfx[7];
	random_suffix(sfx);
	size_t n = strlen(path) + sizeof TMP_MARK + 32;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s%ld.%s", path, TMP_MARK, (long)getpid(),
			 sfx);
	return s;
}

/* The directory part of path ("." when none) and its last component. */
static void
split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');
	if (!slash) {
		*dir = strdup(".");
		*base = path;
	} else {
		*dir = slash == path ? strdup("/")
				     : strndup(path, (size_t)(slash - path));
		*base = slash + 1;
	}
}

/* Does name look like a temporary of target base? Its PID in *pid. */
static bool
is_tmp_of(const char *name, const char *base, long *pid)
{
	size_t n = strlen(base), m = sizeof TMP_MARK - 1;
	if (strncmp(name, base, n) || strncmp(name + n, TMP_MARK, m))
		return false;
	const char *p = name + n + m;
	char *end;
	errno = 0;
	long v = strtol(p, &end, 10);
	if (end == p || *p < '0' || *p > '9' || errno || *end != '.' ||
	    v <= 0)
		return false;
	const char *s = end + 1;
	for (int i = 0; i < 6; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= 'a' && s[i] <= 'z')))
			return false;
	if (s[6])
		return false;
	*pid = v;
	return true;
}

typedef struct {
	const char *base;
} Sweep;

/* Removes a temporary of a dead rlx: the name says it is one, the PID is
 * gone, it is the user's and nobody holds its lock. */
static bool
sweep_one(void *ctx, int dfd, const char *name, bool is_dir)
{
	Sweep *s = ctx;
	long pid;
	if (!is_tmp_of(name, s->base, &pid) || pid == (long)getpid())
		return true;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return true; /* alive, or not ours to judge */
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    st.st_uid != geteuid() ||
	    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
		return true;
	int fd = openat(dfd, name,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
				(is_dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return true;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		remove_at(dfd, name, S_ISDIR(st.st_mode), 0);
	close(fd);
	return true;
}

/* Removes the stale temporaries of target path (see the top). */
void
rt_sweep_stale(const char *path)
{
	char *dir;
	const char *base;
	split_path(path, &dir, &base);
	if (!dir)
		return;
	int dfd = *base ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		Sweep s = {base};
		each_entry(dfd, sweep_one, &s);
		close(dfd);
	}
	free(dir);
}

/* Calls fn(ctx, name, is_dir) for every entry of dir; false + e when it
 * cannot be read. */
typedef struct {
	bool (*fn)(void *, const char *, bool);
	void *ctx;
} ListCtx;

static bool
list_one(void *ctx, int dfd, const char *name, bool is_dir)
{
	(void)dfd;
	ListCtx *l = ctx;
	return l->fn(l->ctx, name, is_dir);
}

bool
rt_dir_list(const char *dir, bool (*fn)(void *ctx, const char *name,
					 bool is_dir),
	    void *ctx, RtError *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rt_error(e, "%s: cannot read the directory: %s", dir,
			 strerror(errno));
		return false;
	}
	ListCtx l = {fn, ctx};
	bool ok = each_entry(fd, list_one, &l);
	if (!ok)
		rt_error(e, "%s: cannot read the directory: %s", dir,
			 strerror(errno));
	close(fd);
	return ok;
}

/* ------------------------------------------------------------ one file */

/*
 * Where a file output goes. The target is looked at as a shell's `>`
 * would open it: its symbolic links are followed (but, as the kernel's
 * fs.protected_symlinks does, not a link of another user in a sticky
 * world-writable directory such as /tmp). What is found there decides:
 *   - a regular file or a name not yet taken: the atomic rename, onto the
 *     name the links lead to (the links stay links);
 *   - a directory: the atomic rename too, which then fails on it;
 *   - a character or block device or a FIFO: written into directly
 *     (streamed, as cp and tee do): such a node is never replaced, and
 *     what was written before a failure stays written;
 *   - a socket: refused (open(2) cannot write to one).
 * A link the kernel resolves by itself (/dev/stdout is /proc/self/fd/1)
 * leading to a file that has no name any more (deleted, or in another
 * mount namespace) is written through, as the shell does.
 */
enum { OUT_ATOMIC, OUT_DIRECT, OUT_ERROR };

/* Is the link at path (st its lstat) one the kernel would refuse to
 * follow under fs.protected_symlinks? */
static bool
protected_link(const char *path, const struct stat *st)
{
	char *dir;
	const char *base;
	split_path(path, &dir, &base);
	struct stat ds;
	bool bad = dir && stat(dir, &ds) == 0 && (ds.st_mode & S_ISVTX) &&
		   (ds.st_mode & S_IWOTH) && st->st_uid != geteuid() &&
		   st->st_uid != ds.st_uid;
	free(dir);
	return bad;
}

/* The name path's links lead to (malloc'd; path itself when it is not a
 * link), the last name allowed not to exist; NULL + e on a loop, a
 * protected link or no memory. */
static char *
follow_links(const char *path, RtError *e)
{
	char *p = strdup(path);
	for (int hops = 0; p && hops < 40; hops++) {
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		if (protected_link(p, &st)) {
			rt_error(e, "%s: a link of another user in a sticky "
				 "directory: not followed", p);
			free(p);
			return NULL;
		}
		char to[PATH_MAX];
		ssize_t n = readlink(p, to, sizeof to - 1);
		if (n < 0) {
			rt_error(e, "%s: cannot read the link: %s", p,
				 strerror(errno));
			free(p);
			return NULL;
		}
		to[n] = 0;
		char *next;
		if (to[0] == '/') {
			next = strdup(to);
		} else {
			char *dir;
			const char *base;
			split_path(p, &dir, &base);
			size_t k = (dir ? strlen(dir) : 0) + (size_t)n + 2;
			next = dir ? malloc(k) : NULL;
			if (next)
				snprintf(next, k, "%s/%s", dir, to);
			free(dir);
		}
		free(p);
		p = next;
	}
	if (p) {
		rt_error(e, "%s: %s", path, strerror(ELOOP));
		free(p);
	} else {
		rt_error(e, "out of memory");
	}
	return NULL;
}

/* Decides how a->path is written (see above): OUT_ATOMIC with a->path
 * replaced by the name to write, OUT_DIRECT, or OUT_ERROR with e set. */
static int
output_kind(RtFile *a, RtError *e)
{
	struct stat ls, st;
	if (lstat(a->path, &ls) != 0)
		return OUT_ATOMIC; /* missing (or unreachable: said later) */
	if (S_ISLNK(ls.st_mode)) {
		char *to = follow_links(a->path, e);
		if (!to)
			return OUT_ERROR;
		struct stat ts;
		bool named = lstat(to, &ts) == 0;
		if (stat(a->path, &st) != 0) { /* leads nowhere yet */
			free(a->path);
			a->path = to;
			return OUT_ATOMIC;
		}
		if ((S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) && named &&
		    ts.st_dev == st.st_dev && ts.st_ino == st.st_ino) {
			free(a->path);
			a->path = to;
			return OUT_ATOMIC;
		}
		free(to);
		if (S_ISREG(st.st_mode))
			return OUT_DIRECT; /* a file without that name */
	} else {
		st = ls;
	}
	if (S_ISSOCK(st.st_mode)) {
		rt_error(e, "%s: is a socket: rlx writes files, devices and "
			 "FIFOs, not sockets", a->path);
		return OUT_ERROR;
	}
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
	    S_ISFIFO(st.st_mode))
		return OUT_DIRECT;
	return OUT_ATOMIC;
}

bool
rt_file_begin(RtFile *a, const char *path, RtError *e)
{
	*a = (RtFile){.fd = -1, .slot = -1};
	a->path = rt_path_strip(path);
	if (!a->path) {
		rt_error(e, "out of memory");
		return false;
	}
	switch (output_kind(a, e)) {
	case OUT_ERROR:
		goto fail;
	case OUT_DIRECT:
		/* through the links, as `>` (a FIFO waits for its reader) */
		do
			a->fd = open(a->path, O_WRONLY | O_TRUNC | O_NOCTTY |
						      O_CLOEXEC);
		while (a->fd < 0 && errno == EINTR);
		if (a->fd < 0) {
			rt_error(e, "%s: cannot open for writing: %s", a->path,
				 strerror(errno));
			goto fail;
		}
		a->direct = true;
		return true;
	}
	rt_sweep_stale(a->path);
	for (int tries = 0; tries < 100; tries++) {
		free(a->tmp);
		if (!(a->tmp = tmp_name(a->path))) {
			rt_error(e, "out of memory");
			goto fail;
		}
		/* the slot first, so that a signal right after the open
		 * still finds the file */
		a->slot = reg_add(a->tmp, false);
		a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					     O_CLOEXEC, 0666);
		if (a->fd >= 0)
			break;
		reg_drop(a->slot);
		a->slot = -1;
		if (errno != EEXIST) {
			rt_error(e, "%s: cannot create: %s", a->tmp,
				 strerror(errno));
			goto fail;
		}
	}
	if (a->fd < 0) {
		rt_error(e, "%s: cannot create a temporary name", a->path);
		goto fail;
	}
	flock(a->fd, LOCK_EX | LOCK_NB);
	return true;
fail:
	free(a->path);
	free(a->tmp);
	*a = (RtFile){.fd = -1, .slot = -1};
	return false;
}

/* Writes all n bytes at p to fd (file path, for messages). */
bool
rt_write_all(int fd, const char *path, const void *p, size_t n, RtError *e)
{
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n > (1u << 30) ? (1u << 30) : n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rt_error(e, "%s: write failed: %s", path,
				 k < 0 ? strerror(errno) : "nothing written");
			return false;
		}
		c += k;
		n -= (size_t)k;
	}
	return true;
}

bool
rt_file_write(RtFile *a, const void *p, size_t n, RtError *e)
{
	return rt_write_all(a->fd, a->direct ? a->path : a->tmp, p, n, e);
}

/* A direct output: closed, nothing renamed nor removed. */
static bool
direct_end(RtFile *a, bool ok, RtError *e)
{
	if (close(a->fd) != 0 && ok) {
		rt_error(e, "%s: write failed: %s", a->path, strerror(errno));
		ok = false;
	}
	free(a->path);
	*a = (RtFile){.fd = -1, .slot = -1};
	return ok;
}

bool
rt_file_end(RtFile *a, bool ok, RtError *e)
{
	if (a->direct)
		return direct_end(a, ok, e);
	if (ok && fsync(a->fd) != 0) {
		rt_error(e, "%s: write failed: %s", a->tmp, strerror(errno));
		ok = false;
	}
	if (close(a->fd) != 0 && ok) {
		rt_error(e, "%s: write failed: %s", a->tmp, strerror(errno));
		ok = false;
	}
	/* path is past the links (rt_file_begin): the rename replaces
	 * the file they lead to, never a link */
	if (ok && rename(a->tmp, a->path) != 0) {
		rt_error(e, "%s: cannot rename into place: %s", a->path,
			 strerror(errno));
		ok = false;
	}
	if (!ok)
		unlink(a->tmp);
	reg_drop(a->slot);
	free(a->path);
	free(a->tmp);
	*a = (RtFile){.fd = -1, .slot = -1};
	return ok;
}

bool
rt_file_put(const char *path, const void *p, size_t n, RtError *e)
{
	RtFile f;
	if (!rt_file_begin(&f, path, e))
		return false;
	return rt_file_end(&f, rt_file_write(&f, p, n, e), e);
}

/* ------------------------------------------------------- one directory */

bool
rt_dir_begin(RtTmpDir *d, const char *path, RtError *e)
{
	*d = (RtTmpDir){.fd = -1, .slot = -1};
	if (!*path) {
		rt_error(e, "empty output name");
		return false;
	}
	d->path = rt_path_strip(path);
	if (!d->path) {
		rt_error(e, "out of memory");
		return false;
	}
	rt_sweep_stale(d->path);
	for (int tries = 0; tries < 100; tries++) {
		free(d->tmp);
		if (!(d->tmp = tmp_name(d->path))) {
			rt_error(e, "out of memory");
			goto fail;
		}
		d->slot = reg_add(d->tmp, true);
		if (mkdir(d->tmp, 0777) == 0)
			break;
		int err = errno;
		reg_drop(d->slot);
		d->slot = -1;
		if (err != EEXIST) {
			rt_error(e, "%s: cannot create the temporary directory: "
				 "%s", d->tmp, strerror(err));
			goto fail;
		}
		free(d->tmp);
		d->tmp = NULL;
	}
	if (!d->tmp) {
		rt_error(e, "%s: cannot create a temporary name", d->path);
		goto fail;
	}
	d->fd = open(d->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd >= 0)
		flock(d->fd, LOCK_EX | LOCK_NB);
	return true;
fail:
	free(d->path);
	free(d->tmp);
	*d = (RtTmpDir){.fd = -1, .slot = -1};
	return false;
}

/* Frees d's names and drops its slot (the temporary is gone or renamed). */
static void
dir_release(RtTmpDir *d)
{
	if (!d->path)
		return;
	reg_drop(d->slot);
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d->tmp);
	*d = (RtTmpDir){.fd = -1, .slot = -1};
}

bool
rt_dir_commit(RtTmpDir *d, bool replace, RtError *e)
{
	if (renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->path,
		      RENAME_NOREPLACE) == 0) {
		dir_release(d);
		return true;
	}
	if (errno == EINVAL && !replace) { /* no RENAME_NOREPLACE here */
		struct stat st;
		if (lstat(d->path, &st) == 0)
			errno = EEXIST;
		else if (rename(d->tmp, d->path) == 0) {
			dir_release(d);
			return true;
		}
	}
	if (errno != EEXIST || !replace) {
		rt_error(e, "%s: cannot rename %s into place: %s", d->path,
			 d->tmp, strerror(errno));
		rt_dir_abort(d);
		return false;
	}
	/* swap: the temporary name then holds the old tree, removed below */
	if (renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->path,
		      RENAME_EXCHANGE) == 0) {
		bool ok = rt_remove_tree(d->tmp);
		if (!ok)
			rt_error(e, "%s: written, but the old one left in %s "
				 "could not be removed", d->path, d->tmp);
		dir_release(d);
		return ok;
	}
	/* no exchange on this file system: move the old one aside under a
	 * temporary name of its own (removed by a signal or a later run
	 * too), then rename; DIR is absent for a moment */
	char *old = tmp_name(d->path);
	int slot = old ? reg_add(old, true) : -1;
	bool ok = old && rename(d->path, old) == 0;
	if (!ok) {
		rt_error(e, "%s: cannot move the old one aside: %s", d->path,
			 strerror(errno));
	} else if (rename(d->tmp, d->path) != 0) {
		rt_error(e, "%s: cannot rename %s into place: %s", d->path,
			 d->tmp, strerror(errno));
		rename(old, d->path);
		ok = false;
	} else if (!rt_remove_tree(old)) {
		rt_error(e, "%s: written, but the old one left in %s could "
			 "not be removed", d->path, old);
		ok = false;
		reg_drop(slot);
		free(old);
		dir_release(d);
		return false;
	}
	reg_drop(slot);
	free(old);
	if (ok)
		dir_release(d);
	else
		rt_dir_abort(d);
	return ok;
}

void
rt_dir_abort(RtTmpDir *d)
{
	if (d->tmp)
		rt_remove_tree(d->tmp);
	dir_release(d);
}

/* ------------------------------------------------------- rlx's cache home */

char *
rt_cache_home(void)
{
	const char *off = getenv("RLX_NO_CACHE");
	if (off && *off && strcmp(off, "0"))
		return NULL;
	const char *x = getenv("XDG_CACHE_HOME");
	const char *base = x && x[0] == '/' ? x : getenv("HOME");
	if (!base || base[0] != '/')
		return NULL;
	const char *tail = base == x ? "/rlx" : "/.cache/rlx";
	size_t n = strlen(base) + strlen(tail) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s%s", base, tail);
	return p;
}

void
rt_make_parents(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return;
	for (char *q = d + 1; *q; q++)
		if (*q == '/') {
			*q = 0;
			if (mkdir(d, 0700) && errno != EEXIST)
				break;
			*q = '/';
		}
	free(d);
}

/* Is st (of path) only this user's to change: owned by the effective user
 * and writable by no group and no other (docs/security.md)? false + why. */
bool
rt_only_mine(const struct stat *st, const char *path, RtError *why)
{
	if (st->st_uid != geteuid()) {
		rt_error(why, "%s is owned by uid %ld, not by you (uid %ld)",
			 path, (long)st->st_uid, (long)geteuid());
		return false;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		rt_error(why, "%s is writable by %s (mode %04o)", path,
			 st->st_mode & S_IWOTH ? "everyone" : "its group",
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

char *
rt_cache_dir(const char *sub, RtError *why)
{
	why->msg[0] = 0;
	char *home = rt_cache_home();
	if (!home)
		return NULL;
	size_t n = strlen(home) + (sub ? strlen(sub) + 1 : 0) + 1;
	char *dir = malloc(n);
	if (!dir) {
		free(home);
		return NULL;
	}
	snprintf(dir, n, "%s%s%s", home, sub ? "/" : "", sub ? sub : "");
	rt_make_parents(dir);
	mkdir(dir, 0700);
	bool ok = true;
	for (const char *d = home; ok && d; d = d == home && sub ? dir : NULL) {
		struct stat st;
		if (stat(d, &st) || !S_ISDIR(st.st_mode)) {
			rt_error(why, "%s: not a folder", d);
			ok = false;
		} else if (!rt_only_mine(&st, d, why)) {
			ok = false;
		}
	}
	free(home);
	if (!ok) {
		free(dir);
		return NULL;
	}
	return dir;
}

bool
rt_cache_file_begin(RtFile *f, const char *path, RtError *e)
{
	/* a FIFO or a device at the name is no output to write into here:
	 * the folder is rlx's own, so whatever is not a file goes */
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		rt_remove_tree(path);
	if (!rt_file_begin(f, path, e))
		return false;
	if (fchmod(f->fd, 0600) == 0)
		return true;
	rt_error(e, "%s: %s", path, strerror(errno));
	rt_file_end(f, false, e);
	return false;
}

int
rt_cache_file_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
				    O_NOCTTY);
	if (fd < 0)
		return -1;
	struct stat st;
	RtError why;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    !rt_only_mine(&st, path, &why)) {
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}
