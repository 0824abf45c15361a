/*
 * jit.c — a thin wrapper over ORC LLJIT for rlx's kernels.
 *
 * One Jit owns an LLJIT, a ThreadSafeContext every module is built in, and
 * a TargetMachine for the host CPU (its name and features) used to optimize
 * each module with the new pass manager before it is added. Without the
 * target machine the optimizer knows no vector width and nothing
 * vectorizes. The main JITDylib gets the process symbol generator so
 * kernels can call libm (expf, tanhf, erff) and the compiler runtime.
 *
 * Each Jit also owns a thread pool (runtime/kernels/pool.h; its threads start on
 * the first large kernel). Kernels split their outer loop by calling
 * rlx_parallel_for with that pool; the symbol is defined in the main
 * JITDylib as an absolute address, so it resolves whether or not the
 * executable exports its symbols. So is rlx_jit_pool, a data symbol at
 * the Jit's pool pointer, which kernels load instead of holding the
 * address.
 *
 * The code cache. A module's object code is kept in a file named by a
 * 128-bit XXH3 of the module's IR text (before optimization: the kernel
 * signatures, names and bodies), the LLVM version, the target triple and
 * the host CPU's name and features, so any change of either compiles
 * anew. The directory is $XDG_CACHE_HOME/rlx (an absolute
 * XDG_CACHE_HOME; else $HOME/.cache/rlx); RLX_NO_CACHE=1 (or any value
 * but 0) turns it off. A hit skips the optimizer and the code generator
 * and hands the object to the JIT's linker. The cache runs code, so it is
 * believed only inside the trust boundary of docs/security.md: the folder
 * is created 0700 and its objects 0600, and a folder (or an object) that
 * is not owned by this user or that others can write is not used at all
 * (rt_cache_dir, rt_cache_file_open): every module is compiled in memory and
 * the run warns once (jit_cache_warning). Files are written whole under
 * an exclusive temporary and renamed into place, so concurrent runs at
 * worst write the same file twice; each holds a header (magic, size, the
 * module's full 128-bit key, the triple and CPU, an XXH3-64 of it all)
 * checked on every load. A file that fails it (another module's object
 * under this key's name, a truncated one), an object that is not this
 * host's kind of ELF or lacks a kernel of the module, or one the JIT's
 * linker refuses is a miss: compiled anew and replaced. Every kernel
 * reaches its helpers (rlx_parallel_for, rlx_gemm, rlx_jit_pool, libm)
 * through symbols, never through addresses, so one object serves every
 * process.
 *
 * RLX_ISA=avx2 (or generic) has the JIT use no more than that instruction
 * set on a host that has more: the host's features with AVX-512 (or AVX
 * and all that needs it) turned off, and rlx_gemm's kernels for it, so a
 * host with AVX-512 runs the code an AVX2-only CPU of its kind would (the
 * code cache keys on the features, so each has its own objects).
 * RLX_ISA=avx512 is the host's own, as is an unset or empty RLX_ISA.
 *
 * Its one process-wide state is the one-time native target set-up (LLVM's
 * targets are process-wide); atomic_file.c lists the runtime's others.
 */
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "codegen.h"
#include "gemm.h"
#include "index_error.h"
#include "pool.h"
#include "rt.h"
#include "sort.h"
#include "xxh.h"

struct Jit {
	LLVMOrcLLJITRef lljit;
	LLVMOrcThreadSafeContextRef tsctx;
	LLVMTargetMachineRef tm; /* for the optimizer; the JIT has its own */
	char *triple;
	char *cpu;
	char *features;
	ThreadPool *pool;
	int gemm_isa;     /* GEMM_ISA_* from the features */
	LLVMTargetMachineRef obj_tm; /* emits cached object code (PIC) */
	char *cache_dir;  /* NULL: no code cache */
	char *cache_warning; /* why the cache folder is not trusted */
	JitStats stats;
	unsigned next_id; /* for jit_unique */
};

static pthread_once_t native_once = PTHREAD_ONCE_INIT;
static bool native_ok;

/* Registers the host target with LLVM, once per process. */
static void
init_native(void)
{
	native_ok = !LLVMInitializeNativeTarget() &&
		    !LLVMInitializeNativeAsmPrinter();
}

/* Copies the message of e (consumed) into err; returns false. */
static bool
take_error(LLVMErrorRef e, const char *what, char *err, size_t errlen)
{
	char *msg = LLVMGetErrorMessage(e);
	snprintf(err, errlen, "%s: %s", what, msg);
	LLVMDisposeErrorMessage(msg);
	return false;
}

/* Defines the runtime helpers kernels call (rlx_parallel_for, rlx_gemm, the
 * sort of runtime/kernels/sort.c, rlx_index_error) in the main JITDylib;
 * false with a message. */
static bool
define_runtime(Jit *jit, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} helpers[] = {
		{"rlx_parallel_for", (void (*)(void))rlx_parallel_for},
		{"rlx_gemm", (void (*)(void))rlx_gemm},
		{"rlx_sort_row", (void (*)(void))rlx_sort_row},
		{"rlx_index_error", (void (*)(void))rlx_index_error},
	};
	LLVMOrcCSymbolMapPair sym[ARRAY_LEN(helpers)];
	for (size_t i = 0; i < ARRAY_LEN(helpers); i++)
		sym[i] = (LLVMOrcCSymbolMapPair){
			.Name = LLVMOrcLLJITMangleAndIntern(jit->lljit,
							    helpers[i].name),
			.Sym = {
				.Address = (LLVMOrcExecutorAddress)(uintptr_t)
					helpers[i].fn,
				.Flags = {
					.GenericFlags = LLVMJITSymbolGenericFlagsExported |
							LLVMJITSymbolGenericFlagsCallable,
					.TargetFlags = 0,
				},
			},
		};
	LLVMOrcCSymbolMapPair all[ARRAY_LEN(helpers) + 1];
	memcpy(all, sym, sizeof sym);
	all[ARRAY_LEN(helpers)] = (LLVMOrcCSymbolMapPair){
		.Name = LLVMOrcLLJITMangleAndIntern(jit->lljit, "rlx_jit_pool"),
		.Sym = {
			.Address = (LLVMOrcExecutorAddress)(uintptr_t)&jit->pool,
			.Flags = {.GenericFlags = LLVMJITSymbolGenericFlagsExported,
				  .TargetFlags = 0},
		},
	};
	LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(all, ARRAY_LEN(all));
	LLVMErrorRef e = LLVMOrcJITDylibDefine(
		LLVMOrcLLJITGetMainJITDylib(jit->lljit), mu);
	if (e)
		return take_error(e, "cannot define the runtime helpers", err,
				  errlen);
	return true;
}

/* Does LLVM's feature string fs ("+avx2,-avx512f,...") enable f? */
static bool
has_feature(const char *fs, const char *f)
{
	size_t n = strlen(f);
	for (const char *p = fs; (p = strstr(p, f)); p += n)
		if (p > fs && p[-1] == '+' && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* The rlx_gemm kernels for a host with LLVM features fs. */
static int
host_gemm_isa(const char *fs)
{
	if (!fs)
		return GEMM_ISA_GENERIC;
	if (has_feature(fs, "avx512f") && has_feature(fs, "f16c") &&
	    has_feature(fs, "fma"))
		return GEMM_ISA_AVX512;
	if (has_feature(fs, "avx2") && has_feature(fs, "fma") &&
	    has_feature(fs, "f16c"))
		return GEMM_ISA_AVX2;
	return GEMM_ISA_GENERIC;
}

/* Caps jit's instruction set at RLX_ISA's (see the top of the file): the
 * LLVM features that would exceed it turned off at the end of the
 * feature string (LLVM turns off what needs them too). false + a message
 * when RLX_ISA names no instruction set. */
static bool
cap_isa(Jit *jit, char *err, size_t errlen)
{
	static const struct {
		const char *name, *off;
		int isa;
	} caps[] = {{"avx512", "", GEMM_ISA_AVX512},
		    {"avx2", ",-avx512f", GEMM_ISA_AVX2},
		    {"generic", ",-avx", GEMM_ISA_GENERIC}};
	const char *want = getenv("RLX_ISA");
	if (!want || !*want)
		return true;
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		if (strcmp(want, caps[i].name))
			continue;
		if (caps[i].isa >= jit->gemm_isa)
			return true; /* the host has no more than that */
		StrBuf b = {0};
		sb_printf(&b, "%s%s", jit->features, caps[i].off);
		LLVMDisposeMessage(jit->features);
		jit->features = LLVMCreateMessage(b.p);
		sb_free(&b);
		jit->gemm_isa = caps[i].isa;
		return true;
	}
	snprintf(err, errlen, "RLX_ISA is '%s': avx512, avx2 or generic", want);
	return false;
}

/* A target machine for the host CPU at -O3; NULL with a message. */
static LLVMTargetMachineRef
host_machine_as(Jit *jit, LLVMRelocMode reloc, LLVMCodeModel model, char *err,
		size_t errlen)
{
	LLVMTargetRef target;
	char *msg = NULL;
	if (LLVMGetTargetFromTriple(jit->triple, &target, &msg)) {
		snprintf(err, errlen, "no target for %s: %s", jit->triple,
			 msg ? msg : "?");
		LLVMDisposeMessage(msg);
		return NULL;
	}
	return LLVMCreateTargetMachine(target, jit->triple, jit->cpu,
				       jit->features,
				       LLVMCodeGenLevelAggressive, reloc, model);
}

static LLVMTargetMachineRef
host_machine(Jit *jit, char *err, size_t errlen)
{
	return host_machine_as(jit, LLVMRelocDefault, LLVMCodeModelJITDefault,
			       err, errlen);
}


Jit *
jit_new(RtError *rerr)
{
	char *err = rerr->msg;
	size_t errlen = sizeof rerr->msg;
	pthread_once(&native_once, init_native);
	if (!native_ok) {
		snprintf(err, errlen, "LLVM has no native target here");
		return NULL;
	}
	Jit *jit = calloc(1, sizeof *jit);
	if (!jit) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	jit->triple = LLVMGetDefaultTargetTriple();
	jit->cpu = LLVMGetHostCPUName();
	jit->features = LLVMGetHostCPUFeatures();
	jit->gemm_isa = host_gemm_isa(jit->features);
	if (!cap_isa(jit, err, errlen)) {
		jit_free(jit);
		return NULL;
	}
	jit->tm = host_machine(jit, err, errlen);
	LLVMTargetMachineRef jit_tm = jit->tm ? host_machine(jit, err, errlen)
					      : NULL;
	if (!jit_tm) {
		jit_free(jit);
		return NULL;
	}
	/* The builder takes the JIT's own machine, so code is emitted for
	 * this CPU too. */
	LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
	LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
		builder,
		LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(jit_tm));
	LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit->lljit, builder);
	if (e) {
		take_error(e, "cannot create the JIT", err, errlen);
		jit_free(jit);
		return NULL;
	}
	LLVMOrcDefinitionGeneratorRef gen;
	e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
		&gen, LLVMOrcLLJITGetGlobalPrefix(jit->lljit), NULL, NULL);
	if (e) {
		take_error(e, "cannot search the process", err, errlen);
		jit_free(jit);
		return NULL;
	}
	LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit->lljit),
				    gen);
	jit->pool = tpool_new(0);
	if (!jit->pool || !define_runtime(jit, err, errlen)) {
		if (!jit->pool)
			snprintf(err, errlen, "out of memory");
		jit_free(jit);
		return NULL;
	}
	jit->tsctx = LLVMOrcCreateNewThreadSafeContext();
	RtError why;
	jit->cache_dir = rt_cache_dir(NULL, &why);
	if (!jit->cache_dir && why.msg[0]) {
		StrBuf w = {0};
		sb_printf(&w, "the code cache is not used: %s (others could "
			  "put code there that rlx would run); make it yours "
			  "and writable by you alone (chown, chmod go-w), or "
			  "set XDG_CACHE_HOME to a folder of your own",
			  why.msg);
		jit->cache_warning = sb_take(&w);
	}
	if (jit->cache_dir) {
		char e2[256];
		jit->obj_tm = host_machine_as(jit, LLVMRelocPIC, LLVMCodeModelSmall,
					      e2, sizeof e2);
		if (!jit->obj_tm) { /* no cache then */
			free(jit->cache_dir);
			jit->cache_dir = NULL;
		}
	}
	return jit;
}

void
jit_free(Jit *jit)
{
	if (!jit)
		return;
	if (jit->lljit) {
		LLVMErrorRef e = LLVMOrcDisposeLLJIT(jit->lljit);
		if (e)
			LLVMConsumeError(e);
	}
	if (jit->tsctx)
		LLVMOrcDisposeThreadSafeContext(jit->tsctx);
	tpool_free(jit->pool);
	if (jit->tm)
		LLVMDisposeTargetMachine(jit->tm);
	if (jit->obj_tm)
		LLVMDisposeTargetMachine(jit->obj_tm);
	free(jit->cache_dir);
	free(jit->cache_warning);
	LLVMDisposeMessage(jit->triple);
	LLVMDisposeMessage(jit->cpu);
	LLVMDisposeMessage(jit->features);
	free(jit);
}

unsigned
jit_unique(Jit *jit)
{
	return jit->next_id++;
}

ThreadPool *
jit_pool(Jit *jit)
{
	return jit->pool;
}

int
jit_gemm_isa(const Jit *jit)
{
	return jit->gemm_isa;
}

struct LLVMOpaqueContext *
jit_context(Jit *jit)
{
	return LLVMOrcThreadSafeContextGetContext(jit->tsctx);
}

/* ------------------------------------------------------------ code cache */

/*
 * A cache file: the 8-byte magic, then three little-endian u64s (the
 * object's size, XXH3-64 of the meta text and the object, the meta text's
 * size), the meta text "KEY\nTRIPLE\nCPU\n" (the 128-bit key in hex, the
 * host's triple and CPU) and the object. A file whose meta text is not
 * this module's on this host is a miss, as is one that fails its hash.
 */
enum { CACHE_HDR = 32 };
static const char CACHE_MAGIC[8] = "RLXJITO2";

/* The 128-bit key of mod (its IR text and this host), in hex; its cache
 * file DIR/KEY.o into *path and the file's meta text into *meta. */
static void
cache_key(Jit *jit, LLVMModuleRef mod, char **path, char **meta)
{
	char *ir = LLVMPrintModuleToString(mod);
	unsigned maj, min, patch;
	LLVMGetVersion(&maj, &min, &patch);
	StrBuf h = {0};
	sb_printf(&h, "rlx code cache 1\nllvm %u.%u.%u\n%s\n%s\n%s\n", maj, min,
		  patch, jit->triple, jit->cpu, jit->features);
	XXH3_state_t *st = XXH3_createState();
	XXH3_128bits_reset(st);
	XXH3_128bits_update(st, h.p, h.len);
	XXH3_128bits_update(st, ir, strlen(ir));
	XXH128_hash_t x = XXH3_128bits_digest(st);
	XXH3_freeState(st);
	LLVMDisposeMessage(ir);
	sb_free(&h);
	StrBuf b = {0};
	sb_printf(&b, "%s/%016llx%016llx.o", jit->cache_dir,
		  (unsigned long long)x.high64, (unsigned long long)x.low64);
	*path = sb_take(&b);
	sb_printf(&b, "%016llx%016llx\n%s\n%s\n", (unsigned long long)x.high64,
		  (unsigned long long)x.low64, jit->triple, jit->cpu);
	*meta = sb_take(&b);
}

static void
put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t
get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* XXH3-64 of the meta text and the object that follows it. */
static uint64_t
cache_hash(const unsigned char *meta, size_t nmeta, const unsigned char *obj,
	   size_t nobj)
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset(st);
	XXH3_64bits_update(st, meta, nmeta);
	XXH3_64bits_update(st, obj, nobj);
	XXH64_hash_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return h;
}

/* Is obj an ELF object of this host's kind that defines every function
 * mod defines? Another model's object or another machine's is not. */
static bool
object_fits(const unsigned char *obj, size_t n, LLVMModuleRef mod)
{
#if defined(__x86_64__)
	enum { MACHINE = 62 };
#elif defined(__aarch64__)
	enum { MACHINE = 183 };
#else
	enum { MACHINE = -1 };
#endif
	/* ELF, 64-bit, little-endian, relocatable, e_machine */
	if (n < 64 || memcmp(obj, "\177ELF\2\1", 6) || obj[16] != 1 ||
	    obj[17] != 0 ||
	    (MACHINE >= 0 && obj[18] + 256 * obj[19] != MACHINE))
		return false;
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(
		(const char *)obj, n, "cached object", 0);
	char *msg = NULL;
	LLVMBinaryRef bin = LLVMCreateBinary(mb, NULL, &msg);
	LLVMDisposeMessage(msg);
	bool ok = bin != NULL;
	if (ok) {
		/* defined functions: names with a size in the object */
		StrBuf names = {0};
		sb_printf(&names, "%s", "\n");
		LLVMSymbolIteratorRef it = LLVMObjectFileCopySymbolIterator(bin);
		for (; it && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, it);
		     LLVMMoveToNextSymbol(it))
			if (LLVMGetSymbolSize(it))
				sb_printf(&names, "%s\n", LLVMGetSymbolName(it));
		if (it)
			LLVMDisposeSymbolIterator(it);
		for (LLVMValueRef f = LLVMGetFirstFunction(mod); ok && f;
		     f = LLVMGetNextFunction(f)) {
			if (LLVMIsDeclaration(f) ||
			    LLVMGetLinkage(f) != LLVMExternalLinkage)
				continue;
			StrBuf want = {0};
			sb_printf(&want, "\n%s\n", LLVMGetValueName(f));
			ok = strstr(names.p, want.p) != NULL;
			sb_free(&want);
		}
		sb_free(&names);
		LLVMDisposeBinary(bin);
	}
	LLVMDisposeMemoryBuffer(mb);
	return ok;
}

/* The object code in cache file path for mod, checked (see above); NULL
 * when it is missing, not only this user's, or fails a check. */
static LLVMMemoryBufferRef
cache_load(const char *path, const char *meta, LLVMModuleRef mod)
{
	int fd = rt_cache_file_open(path);
	if (fd < 0)
		return NULL;
	struct stat st;
	size_t nmeta = strlen(meta);
	unsigned char *p = NULL;
	LLVMMemoryBufferRef mb = NULL;
	if (fstat(fd, &st) || st.st_size < (off_t)(CACHE_HDR + nmeta) ||
	    st.st_size > (off_t)1 << 31 ||
	    !(p = malloc((size_t)st.st_size)) ||
	    rt_read_at(fd, p, (size_t)st.st_size, 0))
		goto out;
	size_t n = (size_t)st.st_size;
	uint64_t size = get_u64(p + 8), hash = get_u64(p + 16),
		 msize = get_u64(p + 24);
	const unsigned char *obj = p + CACHE_HDR + nmeta;
	if (memcmp(p, CACHE_MAGIC, 8) || msize != nmeta ||
	    memcmp(p + CACHE_HDR, meta, nmeta) ||
	    size != n - CACHE_HDR - nmeta ||
	    cache_hash(p + CACHE_HDR, nmeta, obj, size) != hash ||
	    !object_fits(obj, size, mod))
		goto out;
	mb = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)obj, size,
						       path);
out:
	close(fd);
	free(p);
	return mb;
}

/* Writes obj to cache file path (whole or not at all, readable by this
 * user only); failures only cost the next run a compile. */
static void
cache_store(const char *path, const char *meta, LLVMMemoryBufferRef obj)
{
	size_t n = LLVMGetBufferSize(obj), nmeta = strlen(meta);
	const unsigned char *o = (const unsigned char *)LLVMGetBufferStart(obj);
	unsigned char hdr[CACHE_HDR];
	memcpy(hdr, CACHE_MAGIC, 8);
	put_u64(hdr + 8, n);
	put_u64(hdr + 16, cache_hash((const unsigned char *)meta, nmeta, o, n));
	put_u64(hdr + 24, nmeta);
	RtError e;
	RtFile f;
	if (!rt_cache_file_begin(&f, path, &e))
		return;
	bool ok = rt_file_write(&f, hdr, sizeof hdr, &e) &&
		  rt_file_write(&f, meta, nmeta, &e) &&
		  rt_file_write(&f, o, n, &e);
	rt_file_end(&f, ok, &e);
}

/* Hands object code to the JIT's linker (which takes obj) under its own
 * resource tracker, and links it now: every function mod defines is
 * looked up. false (and nothing of obj left in the JIT) when the linker
 * refuses it. */
static bool
add_cached_object(Jit *jit, LLVMMemoryBufferRef obj, LLVMModuleRef mod)
{
	LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit->lljit);
	LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(jd);
	LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(jit->lljit, rt, obj);
	bool ok = !e;
	if (e)
		LLVMConsumeError(e);
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); ok && f;
	     f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f) ||
		    LLVMGetLinkage(f) != LLVMExternalLinkage)
			continue;
		LLVMOrcExecutorAddress addr = 0;
		e = LLVMOrcLLJITLookup(jit->lljit, &addr, LLVMGetValueName(f));
		if (e) {
			LLVMConsumeError(e);
			ok = false;
		}
	}
	if (!ok) {
		e = LLVMOrcResourceTrackerRemove(rt);
		if (e)
			LLVMConsumeError(e);
	}
	LLVMOrcReleaseResourceTracker(rt);
	return ok;
}

/* Hands object code to the JIT's linker (which takes obj). */
static bool
add_object(Jit *jit, LLVMMemoryBufferRef obj, char *err, size_t errlen)
{
	LLVMErrorRef e = LLVMOrcLLJITAddObjectFile(
		jit->lljit, LLVMOrcLLJITGetMainJITDylib(jit->lljit), obj);
	if (e)
		return take_error(e, "adding cached kernels to the JIT", err, errlen);
	return true;
}

bool
jit_add_module(Jit *jit, struct LLVMOpaqueModule *mod, RtError *rerr)
{
	char *err = rerr->msg;
	size_t errlen = sizeof rerr->msg;
	double t0 = rt_now_s();
	char *msg = NULL;
	if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
		snprintf(err, errlen, "invalid kernel module: %s",
			 msg ? msg : "?");
		LLVMDisposeMessage(msg);
		LLVMDisposeModule(mod);
		return false;
	}
	LLVMDisposeMessage(msg);
	char *triple = LLVMGetTargetMachineTriple(jit->tm);
	LLVMSetTarget(mod, triple);
	LLVMDisposeMessage(triple);
	LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(jit->tm);
	LLVMSetModuleDataLayout(mod, layout);
	LLVMDisposeTargetData(layout);

	char *path = NULL, *meta = NULL;
	if (jit->cache_dir)
		cache_key(jit, mod, &path, &meta);
	LLVMMemoryBufferRef obj = path ? cache_load(path, meta, mod) : NULL;
	/* an object the linker refuses is a miss too: compiled, replaced */
	if (obj && add_cached_object(jit, obj, mod)) {
		free(path);
		free(meta);
		LLVMDisposeModule(mod);
		jit->stats.hits++;
		jit->stats.seconds += rt_now_s() - t0;
		return true;
	}
	LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
	LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
	LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
	LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
	LLVMErrorRef e = LLVMRunPasses(mod, "default<O3>", jit->tm, opts);
	LLVMDisposePassBuilderOptions(opts);
	if (e) {
		free(path);
		free(meta);
		LLVMDisposeModule(mod);
		return take_error(e, "optimizing kernels", err, errlen);
	}
	jit->stats.misses++;
	if (path) {
		/* object code now, so that it can be kept */
		char *m2 = NULL;
		if (!LLVMTargetMachineEmitToMemoryBuffer(jit->obj_tm, mod,
							 LLVMObjectFile, &m2, &obj)) {
			cache_store(path, meta, obj);
			free(path);
			free(meta);
			LLVMDisposeModule(mod);
			bool ok = add_object(jit, obj, err, errlen);
			jit->stats.seconds += rt_now_s() - t0;
			return ok;
		}
		LLVMDisposeMessage(m2); /* fall back to the JIT's own compile */
		free(path);
		free(meta);
	}
	LLVMOrcThreadSafeModuleRef tsm =
		LLVMOrcCreateNewThreadSafeModule(mod, jit->tsctx);
	e = LLVMOrcLLJITAddLLVMIRModule(
		jit->lljit, LLVMOrcLLJITGetMainJITDylib(jit->lljit), tsm);
	if (e) {
		LLVMOrcDisposeThreadSafeModule(tsm);
		return take_error(e, "adding kernels to the JIT", err, errlen);
	}
	jit->stats.seconds += rt_now_s() - t0;
	return true;
}

const char *
jit_cache_warning(const Jit *jit)
{
	return jit->cache_warning;
}

const JitStats *
jit_stats(const Jit *jit)
{
	return &jit->stats;
}

void *
jit_lookup(Jit *jit, const char *name)
{
	LLVMOrcExecutorAddress addr = 0;
	double t0 = rt_now_s();
	LLVMErrorRef e = LLVMOrcLLJITLookup(jit->lljit, &addr, name);
	jit->stats.seconds += rt_now_s() - t0;
	if (e) {
		LLVMConsumeError(e);
		return NULL;
	}
	return (void *)(uintptr_t)addr;
}
