/*
 * rt.h — the runtime's ground floor (runtime/base/): tensors in host
 * memory, the buffer pool, outputs written whole (atomic files and
 * directories), input files and guarded mappings, half-float conversion.
 * Every other layer of the runtime stands on it; it sees only compiler/
 * (for DType). The layers above have headers of their own: rt_io.h
 * (runtime/io/: safetensors, weights, .npy, tensor cache), rt_exec.h
 * (runtime/exec/: values, programs, runs, workers).
 *
 * The runtime knows tensors, kernels and files, not the grammar. Like the
 * compiler, it never exits: errors are returned as a message in RtError.
 * A section per file, prefix rt_.
 */
#ifndef RLX_RT_H
#define RLX_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"

enum { RT_MAX_DIMS = 8, RT_ALIGN = 64 };

/* An error from the runtime: a message naming the file, tensor or binding;
 * the executor (exec.c) also says where in the module it arose (span.line
 * 0: nowhere in particular; rt_run and rt_run_stream clear it). */
typedef struct {
	char msg[1024];
	Span span;
} RtError;

void rt_error(RtError *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Reports e, an error of running module m, into d: at e->span (the line
 * and a caret) when the executor located it, else as an error of m's file. */
void rt_error_report(Diags *d, const Module *m, const RtError *e);

/* --------------------------------------------------------------- tensor.c */

typedef enum {
	RT_OWNED,    /* data is ours, RT_ALIGN-aligned, freed with the tensor */
	RT_BORROWED, /* data belongs to someone else (a mapped file) */
	RT_POOLED,   /* data is ours, from an RtBufPool: rt_tensor_free gives it
		      * back (never free() it) */
	RT_MAPPED,   /* data is ours, rt_buf_alloc's huge mapping of cap
		      * bytes: rt_tensor_free gives it back with
		      * rt_buf_free (never free() it) */
} RtOwnership;

typedef struct RtBufPool RtBufPool;

/* A dense C-order tensor in host memory. bool is one byte per element. */
typedef struct {
	DType dtype;
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	void *data;
	size_t nbytes;
	RtOwnership own;
	RtBufPool *pool;    /* RT_POOLED: where data goes back to */
	size_t cap;      /* RT_POOLED, RT_MAPPED: bytes mapped at data */
} RtTensor;

/* A new owned tensor with uninitialized (64-byte aligned) data; NULL with
 * a message when the size overflows or memory runs out. Data of
 * RT_HUGE_MIN bytes or more is mapped in huge pages (RT_MAPPED), else
 * allocated (RT_OWNED). */
RtTensor *rt_tensor_new(DType dt, int ndim, const int64_t *shape, RtError *e);
/* A tensor viewing someone else's bytes. */
RtTensor *rt_tensor_borrow(DType dt, int ndim, const int64_t *shape,
			   void *data, RtError *e);
void rt_tensor_free(RtTensor *t);
/*
 * A pool of large tensor buffers (RT_POOL_MIN bytes or more): mapped in
 * 2 MiB huge pages where the system allows, and kept when freed so that
 * the next tensor of about the same size reuses the memory instead of
 * faulting fresh pages in 4 KiB at a time. The pool keeps at most as many
 * bytes as were ever in use at once (and at least RT_POOL_KEEP_MIN), so
 * memory still follows the live set. Thread safe. rt_bufpool_release drops
 * the creator's reference; the pool goes when its last buffer is freed.
 */
enum { RT_POOL_MIN = 1 << 20, RT_POOL_KEEP_MIN = 64 << 20 };
RtBufPool *rt_bufpool_new(void);
void rt_bufpool_release(RtBufPool *p); /* NULL is fine */
/* As rt_tensor_new; from p (RT_POOLED) when p and the size allow. */
RtTensor *rt_tensor_new_in(RtBufPool *p, DType dt, int ndim,
			   const int64_t *shape, RtError *e);
/* What p holds now: bytes handed out (used), kept for reuse (kept), and
 * the most ever handed out at once (peak). Any pointer may be NULL. */
void rt_bufpool_stats(RtBufPool *p, size_t *used, size_t *kept, size_t *peak);
/* The pool's buffers for rt_tensor_new_in and rt_tensor_free: at least
 * need bytes (*cap: how many), NULL when out of memory; and giving one
 * back (bufpool.c). */
void *rt_bufpool_get(RtBufPool *p, size_t need, size_t *cap);
void rt_bufpool_put(RtBufPool *p, void *data, size_t cap);
/*
 * len bytes of fresh zeroed memory at a 2 MiB boundary, advised to use
 * huge pages (the 2 MiB stretches of it; a tail shorter than that gets
 * small pages), or NULL; munmap(p, len) frees it. On a VM a first touch
 * of a 4 KiB page costs microseconds, so a large buffer filled once (a
 * .npy read, a GEMM's packing scratch) spends more time faulting its
 * pages in than copying: 16 MiB read into small pages took 65 ms on a
 * 2-vCPU Zen 5 VM, into huge pages 2 ms.
 */
enum { RT_HUGE_MIN = 2 << 20 };
void *rt_map_huge(size_t len);
/* bytes of 64-byte aligned memory for a buffer filled once: rt_map_huge's
 * from RT_HUGE_MIN bytes on, else aligned_alloc's; NULL when out of
 * memory. rt_buf_free takes it back with the same bytes (p may be
 * NULL). Every buffer outside an RtBufPool that wants huge pages comes from
 * here (rt_tensor_new records the same size test as RT_MAPPED). */
void *rt_buf_alloc(size_t bytes);
void rt_buf_free(void *p, size_t bytes);
int64_t rt_numel(const RtTensor *t);
/* Element i of integer (or bool) tensor t as an int64; false when the
 * value does not fit one (a uint64 from 2^63) or t is not an integer. */
bool rt_int_at(const RtTensor *t, int64_t i, int64_t *out);
/* The process's anonymous resident memory now (RssAnon of
 * /proc/self/status: heap, pools, stacks; not mapped file pages), in
 * bytes; 0 when unknown. */
uint64_t rt_mem_anon(void);
/* Monotonic time in seconds, for durations. */
double rt_now_s(void);
/* nbytes of ndim/shape/dtype; false on overflow. */
bool rt_size(DType dt, int ndim, const int64_t *shape, size_t *nbytes);

/* ---------------------------------------------------------- atomic_file.c */

/*
 * Outputs that appear whole or not at all (the rules are at the top of
 * atomic_file.c and in docs/formats.md). A temporary next to the target,
 * TARGET.rlx-tmp.PID.XXXXXX, created exclusively without following links,
 * locked while written, registered for removal on SIGINT/SIGTERM/SIGHUP,
 * renamed into place at the end; a later writer of the same target
 * removes the temporaries of dead processes. Every failure is reported in
 * e, naming the file.
 */
typedef struct {
	int fd;
	char *path; /* the target (trailing slashes removed) */
	char *tmp;  /* its temporary */
	int slot;   /* in the cleanup registry; -1 none */
	bool direct; /* fd is the target itself (a device, a FIFO): no tmp */
} RtFile;

/* A file: rt_file_begin creates the temporary; rt_file_write appends;
 * rt_file_end(ok) fsyncs and renames it into place, or removes it (ok
 * false, or a step failing). The target's links are followed as a
 * shell's `>` follows them (the file they lead to is replaced, the links
 * stay); a character or block device or a FIFO is written into directly,
 * never replaced; a socket is refused (the rules: atomic_file.c). */
bool rt_file_begin(RtFile *a, const char *path, RtError *e);
bool rt_file_write(RtFile *a, const void *p, size_t n, RtError *e);
bool rt_file_end(RtFile *a, bool ok, RtError *e);
/* The three at once: the whole of p as the file path. */
bool rt_file_put(const char *path, const void *p, size_t n, RtError *e);

/* A directory: rt_dir_begin creates the temporary directory (its files
 * are the caller's to write); rt_dir_commit renames it into place: onto
 * a missing target, or (replace) exchanged atomically with an existing
 * one, whose old tree is then removed (where the file system cannot
 * exchange, the old one is moved aside first, so the target is missing
 * for a moment); rt_dir_abort removes it. Both free d. What may be
 * replaced is the caller's decision (rt_cache_begin refuses a directory
 * holding files of its own). */
typedef struct {
	int fd;     /* open on tmp, holding its lock */
	char *path; /* the target (trailing slashes removed) */
	char *tmp;
	int slot;
} RtTmpDir;
bool rt_dir_begin(RtTmpDir *d, const char *path, RtError *e);
bool rt_dir_commit(RtTmpDir *d, bool replace, RtError *e);
void rt_dir_abort(RtTmpDir *d);

/* Removes the temporaries of target path left by dead processes (done by
 * rt_file_begin and rt_dir_begin). */
void rt_sweep_stale(const char *path);
/* Removes path: a file, a link (not followed) or a whole tree. */
bool rt_remove_tree(const char *path);
/* Calls fn for each entry of dir (not . and ..) until it returns false. */
bool rt_dir_list(const char *dir,
		 bool (*fn)(void *ctx, const char *name, bool is_dir),
		 void *ctx, RtError *e);
/* Writes all n bytes at p to fd (path names it in messages). */
bool rt_write_all(int fd, const char *path, const void *p, size_t n,
		  RtError *e);
/* A malloc'd copy of path without trailing slashes ("/" stays). */
char *rt_path_strip(const char *path);
/* rlx's cache directory (malloc'd): $XDG_CACHE_HOME/rlx for an absolute
 * XDG_CACHE_HOME, else $HOME/.cache/rlx; NULL when RLX_NO_CACHE is set
 * (to anything but 0) or neither is usable. The JIT keeps object code
 * there, the tensor cache reader its verified-shard stamps. */
char *rt_cache_home(void);
/* mkdir -p (mode 0700) of the directories leading to path (not path
 * itself). */
void rt_make_parents(const char *path);
/*
 * The trust boundary of rlx's own cache (docs/security.md, as OpenSSH's
 * StrictModes): what rlx wrote there is believed only when only this user
 * could have written it. rt_only_mine: st (of path) is owned by the
 * effective user and writable by no group and no other; false + why.
 * rt_cache_dir: rlx's cache folder (sub NULL) or its subfolder sub,
 * created 0700 when missing, when it and the cache folder are only this
 * user's; NULL otherwise, with why saying which and why (why empty when the
 * cache is off). rt_cache_file_open: a file in it opened for reading (never
 * through a link, never waiting on a FIFO) when it is a regular file only
 * this user can write; -1 otherwise.
 */
struct stat;
bool rt_only_mine(const struct stat *st, const char *path, RtError *why);
char *rt_cache_dir(const char *sub, RtError *why);
int rt_cache_file_open(const char *path);
/* rt_file_begin of a file in rlx's cache folder, mode 0600; what is at
 * path and is not a regular file (a FIFO, a device) is removed first. */
bool rt_cache_file_begin(RtFile *f, const char *path, RtError *e);

/* The signal side, for programs (the CLI installs it; the library never
 * does): on SIGINT, SIGTERM and SIGHUP remove every temporary still being
 * written and exit 128 + signal. Signals ignored at start stay ignored.
 * rt_cleanup_run is the removal alone (async-signal-safe). */
void rt_cleanup_install(void);
void rt_cleanup_run(void);

/* ----------------------------------------------------------- input_file.c */

/*
 * Every file rlx reads is opened by rt_open_input: without blocking (a FIFO
 * or a device is refused at once, "PATH: not a regular file (a FIFO)"),
 * then read as a regular file of *size bytes (size may be NULL). The fd,
 * or -1 + e (errno kept from open).
 */
int rt_open_input(const char *path, uint64_t *size, RtError *e);
/* The same for name under the open directory dfd (path names it in
 * messages): what a reader of a directory that may be replaced under it
 * uses, so that every file comes from the one directory it opened. */
int rt_open_input_at(int dfd, const char *name, const char *path,
		     uint64_t *size, RtError *e);
/* The whole of the file at path, opened by rt_open_input, malloc'ed with
 * a NUL after its *len bytes; NULL + e when it cannot be read or has more
 * than max bytes. */
char *rt_read_whole(const char *path, uint64_t max, size_t *len, RtError *e);
/* The same for name under the open directory dfd (path names it). */
char *rt_read_whole_at(int dfd, const char *name, const char *path,
		       uint64_t max, size_t *len, RtError *e);
/* The same for the n bytes of an open file (rt_open_input), from its
 * start; fd stays open. */
char *rt_read_whole_fd(int fd, uint64_t n, const char *path, uint64_t max,
		       size_t *len, RtError *e);
/* Reads exactly n bytes at off of fd into buf, retrying an interrupted
 * read: 0, the errno of a read that failed, or -1 when the file ends
 * first. */
int rt_read_at(int fd, void *buf, size_t n, uint64_t off);

/*
 * A read-only mapping of len bytes of a regular file, guarded against the
 * file shrinking under it: with the guard installed (rt_map_guard_install,
 * by the program, like rt_cleanup_install), a page past the file's new end
 * reads as zeros instead of raising SIGBUS, and rt_map_check reports the
 * mapping broken ("PATH: the file was truncated while it was read"), as it
 * does when the live size is below len. Check after the bytes are used.
 * rt_map_open keeps its own copy of fd; len 0 maps nothing.
 */
typedef struct {
	void *p;
	size_t len;
	int fd;   /* for the live size */
	int slot; /* in the guard's table; -1 none */
} RtMap;
bool rt_map_open(RtMap *m, int fd, size_t len, const char *path, RtError *e);
void rt_map_close(RtMap *m);
bool rt_map_check(const RtMap *m, const char *path, RtError *e);
void rt_map_guard_install(void);

/* IEEE half and bfloat16 conversion (round to nearest even). */
float rt_f16_to_f32(uint16_t h);
uint16_t rt_f32_to_f16(float f);
float rt_bf16_to_f32(uint16_t h);
uint16_t rt_f32_to_bf16(float f);
/* Element i of data, a float16, bfloat16 or float8 array (dt), widened to
 * f32 (exact); and f stored there, rounded as astype rounds. */
float rt_narrow_to_f32(DType dt, const void *data, int64_t i);
void rt_narrow_from_f32(DType dt, void *data, int64_t i, float f);

#endif /* RLX_RT_H */
