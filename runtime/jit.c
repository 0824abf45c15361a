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
 * Each Jit also owns a thread pool (runtime/pool.h; its threads start on
 * the first large kernel). Kernels split their outer loop by calling
 * rlx_parallel_for with that pool; the symbol is defined in the main
 * JITDylib as an absolute address, so it resolves whether or not the
 * executable exports its symbols.
 *
 * The only process-wide state is the one-time native target set-up.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "codegen.h"
#include "pool.h"

struct Jit {
	LLVMOrcLLJITRef lljit;
	LLVMOrcThreadSafeContextRef tsctx;
	LLVMTargetMachineRef tm; /* for the optimizer; the JIT has its own */
	char *triple;
	char *cpu;
	char *features;
	Pool *pool;
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

/* Defines the runtime helpers kernels call (rlx_parallel_for, the sort
 * of runtime/sort.c) in the main JITDylib; false with a message. */
static bool
define_runtime(Jit *jit, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		void *addr;
	} helpers[] = {
		{"rlx_parallel_for", (void *)rlx_parallel_for},
		{"rlx_sort_index", (void *)rlx_sort_index},
	};
	LLVMOrcCSymbolMapPair sym[ARRAY_LEN(helpers)];
	for (size_t i = 0; i < ARRAY_LEN(helpers); i++)
		sym[i] = (LLVMOrcCSymbolMapPair){
			.Name = LLVMOrcLLJITMangleAndIntern(jit->lljit, helpers[i].name),
			.Sym = {
				.Address = (LLVMOrcExecutorAddress)(uintptr_t)helpers[i].addr,
				.Flags = {
					.GenericFlags = LLVMJITSymbolGenericFlagsExported |
							LLVMJITSymbolGenericFlagsCallable,
					.TargetFlags = 0,
				},
			},
		};
	LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(sym, ARRAY_LEN(helpers));
	LLVMErrorRef e = LLVMOrcJITDylibDefine(
		LLVMOrcLLJITGetMainJITDylib(jit->lljit), mu);
	if (e)
		return take_error(e, "cannot define the runtime helpers", err,
				  errlen);
	return true;
}

/* A target machine for the host CPU at -O3; NULL with a message. */
static LLVMTargetMachineRef
host_machine(Jit *jit, char *err, size_t errlen)
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
				       LLVMCodeGenLevelAggressive,
				       LLVMRelocDefault,
				       LLVMCodeModelJITDefault);
}

Jit *
jit_new(char *err, size_t errlen)
{
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
	jit->pool = pool_new(0);
	if (!jit->pool || !define_runtime(jit, err, errlen)) {
		if (!jit->pool)
			snprintf(err, errlen, "out of memory");
		jit_free(jit);
		return NULL;
	}
	jit->tsctx = LLVMOrcCreateNewThreadSafeContext();
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
	pool_free(jit->pool);
	if (jit->tm)
		LLVMDisposeTargetMachine(jit->tm);
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

Pool *
jit_pool(Jit *jit)
{
	return jit->pool;
}

struct LLVMOpaqueContext *
jit_context(Jit *jit)
{
	return LLVMOrcThreadSafeContextGetContext(jit->tsctx);
}

bool
jit_add_module(Jit *jit, struct LLVMOpaqueModule *mod, char *err,
	       size_t errlen)
{
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

	LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
	LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
	LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
	LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
	LLVMErrorRef e = LLVMRunPasses(mod, "default<O3>", jit->tm, opts);
	LLVMDisposePassBuilderOptions(opts);
	if (e) {
		LLVMDisposeModule(mod);
		return take_error(e, "optimizing kernels", err, errlen);
	}
	LLVMOrcThreadSafeModuleRef tsm =
		LLVMOrcCreateNewThreadSafeModule(mod, jit->tsctx);
	e = LLVMOrcLLJITAddLLVMIRModule(
		jit->lljit, LLVMOrcLLJITGetMainJITDylib(jit->lljit), tsm);
	if (e) {
		LLVMOrcDisposeThreadSafeModule(tsm);
		return take_error(e, "adding kernels to the JIT", err, errlen);
	}
	return true;
}

void *
jit_lookup(Jit *jit, const char *name)
{
	LLVMOrcExecutorAddress addr = 0;
	LLVMErrorRef e = LLVMOrcLLJITLookup(jit->lljit, &addr, name);
	if (e) {
		LLVMConsumeError(e);
		return NULL;
	}
	return (void *)(uintptr_t)addr;
}
