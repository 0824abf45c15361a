/*
 * input_file.c — opening the files rlx reads, and mapping them so that a
 * file that shrinks under the mapping is an error, not a SIGBUS.
 *
 * rt_open_input opens with O_NONBLOCK, so that a FIFO (or a device) given
 * where a file is expected is refused at once by fstat instead of blocking
 * forever in open(); only regular files are read.
 *
 * rt_map_open maps a regular file read-only and registers the mapping.
 * When the file is truncated while mapped, touching a page past its new
 * end raises SIGBUS; the guard (rt_map_guard_install, the CLI installs it)
 * replaces the mapping from that page on with zero pages, marks it faulted
 * and lets the program go on. rt_map_check then reports the mapping as
 * broken, naming the file — as it does when the file's live size is below
 * the mapped size even before a page was touched. Readers call it after
 * the bytes are used, so that nothing computed from the zeros is kept.
 * A SIGBUS at an address outside every registered mapping is a bug: the
 * guard removes the temporaries (rt_cleanup_run) and lets it kill.
 *
 * Like the cleanup registry (atomic_file.c, which lists the runtime's
 * process-wide states), the table of mappings is process-wide state read
 * by a signal handler: fixed slots, atomics.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"

int
rt_read_at(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *b = buf;
	while (n) {
		ssize_t r = pread(fd, b, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno ? errno : EIO;
		if (r == 0)
			return -1;
		b += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* What a non-regular file is, for the message. */
static const char *
kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

int
rt_open_input(const char *path, uint64_t *size, RtError *e)
{
	return rt_open_input_at(AT_FDCWD, path, path, size, e);
}

int
rt_open_input_at(int dfd, const char *name, const char *path, uint64_t *size,
		 RtError *e)
{
	int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		rt_error(e, "%s: cannot open: %s", path, strerror(err));
		errno = err; /* callers look for ENOENT */
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int err = errno;
		rt_error(e, "%s: cannot open: %s", path, strerror(err));
		close(fd);
		errno = err;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		rt_error(e, "%s: not a regular file (%s)", path,
			 kind_of(st.st_mode));
		close(fd);
		errno = EINVAL; /* not ENOENT: the file is there */
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

char *
rt_read_whole(const char *path, uint64_t max, size_t *len, RtError *e)
{
	return rt_read_whole_at(AT_FDCWD, path, path, max, len, e);
}

char *
rt_read_whole_at(int dfd, const char *name, const char *path, uint64_t max,
		 size_t *len, RtError *e)
{
	uint64_t n;
	int fd = rt_open_input_at(dfd, name, path, &n, e);
	if (fd < 0)
		return NULL;
	char *p = rt_read_whole_fd(fd, n, path, max, len, e);
	close(fd);
	return p;
}

char *
rt_read_whole_fd(int fd, uint64_t n, const char *path, uint64_t max,
		 size_t *len, RtError *e)
{
	char *p = NULL;
	int err = 0;
	if (n > max || n >= SIZE_MAX)
		rt_error(e, "%s: too large (%llu bytes)", path, (unsigned long long)n);
	else if (!(p = malloc((size_t)n + 1)))
		rt_error(e, "%s: out of memory", path);
	else if ((err = rt_read_at(fd, p, (size_t)n, 0)))
		rt_error(e, "%s: cannot read: %s", path,
			 err > 0 ? strerror(err) : "the file shrank");
	if (!p || err) {
		free(p);
		return NULL;
	}
	p[n] = 0;
	*len = (size_t)n;
	return p;
}

/* ---------------------------------------------------------- mappings */

enum { MAPS = 256 };

static struct {
	_Atomic int state; /* 0 free, 1 being set, 2 live */
	_Atomic uintptr_t start;
	_Atomic size_t len;
	_Atomic int faulted;
} maps[MAPS];

static size_t page_size = 4096;
static struct sigaction old_bus;

bool
rt_map_open(RtMap *m, int fd, size_t len, const char *path, RtError *e)
{
	*m = (RtMap){.fd = -1, .slot = -1};
	if (len == 0)
		return true;
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		rt_error(e, "%s: cannot map: %s", path, strerror(errno));
		return false;
	}
	/* pages not yet in the page cache are read in 2 MiB folios, each
	 * then mapped whole (one page-table entry, not 512; measured on a
	 * cold 384 MiB checkpoint: the first touch in half the time, every
	 * later run's in a quarter); advice, so its failure is no error */
	madvise(p, len, MADV_HUGEPAGE);
	m->p = p;
	m->len = len;
	m->fd = dup(fd); /* for the live size; -1 only skips that check */
	for (int i = 0; i < MAPS; i++) {
		int want = 0;
		if (!atomic_compare_exchange_strong(&maps[i].state, &want, 1))
			continue;
		atomic_store(&maps[i].start, (uintptr_t)p);
		atomic_store(&maps[i].len, len);
		atomic_store(&maps[i].faulted, 0);
		atomic_store(&maps[i].state, 2);
		m->slot = i;
		break;
	}
	return true;
}

void
rt_map_close(RtMap *m)
{
	if (m->slot >= 0)
		atomic_store(&maps[m->slot].state, 0);
	if (m->p)
		munmap(m->p, m->len);
	if (m->fd >= 0)
		close(m->fd);
	*m = (RtMap){.fd = -1, .slot = -1};
}

bool
rt_map_check(const RtMap *m, const char *path, RtError *e)
{
	if (!m->p)
		return true;
	struct stat st;
	bool faulted = m->slot >= 0 && atomic_load(&maps[m->slot].faulted);
	if (m->fd >= 0 && fstat(m->fd, &st) == 0 &&
	    (uint64_t)st.st_size < (uint64_t)m->len) {
		rt_error(e, "%s: the file was truncated while it was read (%llu "
			 "bytes, %zu when opened)", path,
			 (unsigned long long)st.st_size, m->len);
		return false;
	}
	if (faulted) {
		rt_error(e, "%s: the file was truncated while it was read "
			 "(part of it could not be read)", path);
		return false;
	}
	return true;
}

/* SIGBUS: a page of a registered mapping past the end of its file. */
static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < MAPS; i++) {
		if (atomic_load(&maps[i].state) != 2)
			continue;
		uintptr_t s = atomic_load(&maps[i].start);
		size_t n = atomic_load(&maps[i].len);
		if (a < s || a >= s + n)
			continue;
		uintptr_t pg = a & ~(uintptr_t)(page_size - 1);
		void *r = mmap((void *)pg, s + n - pg, PROT_READ,
			       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r != MAP_FAILED) {
			atomic_store(&maps[i].faulted, 1);
			return; /* the access is retried, and reads zeros */
		}
	}
	/* not a file we map: a bug; leave no temporaries, then die of it */
	rt_cleanup_run();
	sigaction(sig, &old_bus, NULL);
}

void
rt_map_guard_install(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	if (ps > 0)
		page_size = (size_t)ps;
	struct sigaction sa = {0};
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_bus);
}
