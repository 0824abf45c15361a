/*
 * verify.c — Relax well-formedness (after TVM's relax/analysis/well_formed.cc).
 *
 * verify_module walks every function in order and reports each violation as
 * a located error; it never modifies the module and never trusts it: NULL
 * pointers, out-of-range ids and misplaced nodes are reported, not followed.
 *
 * Rules checked:
 *  - variables: defined exactly once in the module, before use; a variable
 *    defined inside an if-branch is visible only in that branch; a
 *    DataflowVar only inside the dataflow block that defines it, never as a
 *    parameter or outside a dataflow block; no variable shared between two
 *    functions (reported at the second one);
 *  - purity: no impure call (to a module function that is not pure) inside a
 *    dataflow block; a pure function calls no impure function;
 *  - shape of the tree: function bodies and if-branches are sequences and
 *    nothing else is; an if is only the value of a binding in a non-dataflow
 *    block; call arguments are leaves;
 *  - symbolic variables: each belongs to the one function that lists it, is
 *    defined at its first bare occurrence in a parameter annotation or a
 *    match_cast target, and is not used before; within one annotation the
 *    bare occurrences are defined before the others are checked, as TVM's
 *    DefinableTIRVarsInStructInfo does;
 *  - num_input is an integer within 0..nparams;
 *  - annotations agree with the inferred struct info (provably different
 *    is an error; a return annotation is taken as written, as TVM's
 *    Function does); an if condition is a bool scalar;
 *  - calls of module functions name an existing function with the right
 *    number of arguments; function names are unique.
 *
 * State is kept in arrays indexed by Var.id and SymVar.id, allocated per call.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Deeper nesting than this is taken for a cycle or garbage. */
#define MAX_DEPTH 2000

/* Var states, indexed by Var.id. */
enum { VS_UNDEF, VS_LIVE, VS_DEAD };

/* SymVar flags, indexed by SymVar.id; reset per function for its symvars. */
enum {
	SF_DEFINED = 1,     /* its defining occurrence was seen */
	SF_REPORTED = 2,    /* "used before defined" already said */
};

typedef struct {
	Module *m;
	Diags *d;
	int nerr;
	int nids;               /* size of the id-indexed arrays */
	unsigned char *vstate;  /* VS_* */
	int *vfunc;             /* 1 + index of the function defining it */
	int *sowner;            /* 1 + index of the function listing it */
	unsigned char *sflags;  /* SF_* */
	int *sreported;         /* 1 + function index of the last owner error */
	Vec scope;              /* vars defined, innermost last */
	Func *f;                /* the function being checked */
	int fi;                 /* 1 + its index */
} Verifier;

/* A printable name for possibly NULL strings. */
static const char *
nm(const char *s)
{
	return s ? s : "?";
}

/* The first of a, b that is a real location, else c. */
static Span
pick(Span a, Span b, Span c)
{
	if (a.line > 0)
		return a;
	if (b.line > 0)
		return b;
	return c;
}

/* Reports one violation. */
static void
err(Verifier *v, Span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
err(Verifier *v, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (v->d)
		diag_verror(v->d, sp, fmt, ap);
	va_end(ap);
	v->nerr++;
}

/* The current function's name. */
static const char *
fname(const Verifier *v)
{
	return v->f ? nm(v->f->name) : "?";
}

/* The name of function number fi (1-based). */
static const char *
fname_at(const Verifier *v, int fi)
{
	if (fi < 1 || fi > v->m->nfuncs || !v->m->funcs[fi - 1])
		return "?";
	return nm(v->m->funcs[fi - 1]->name);
}

/* ---------------------------------------------------------- symbolic vars */

/* Checks that s has a usable id; reports it otherwise. */
static bool
sym_ok(Verifier *v, const SymVar *s, Span sp)
{
	if (s->id < 0 || s->id >= v->nids) {
		err(v, pick(sp, s->span, v->f ? v->f->span : sp),
		    "malformed IR: symbolic variable %s has an invalid id %d",
		    nm(s->name), s->id);
		return false;
	}
	return true;
}

/* Checks that s belongs to the current function; reports once otherwise. */
static bool
sym_owned(Verifier *v, const SymVar *s, Span sp)
{
	int owner = v->sowner[s->id];
	if (owner == v->fi)
		return true;
	if (v->sreported[s->id] == v->fi)
		return false;
	v->sreported[s->id] = v->fi;
	if (owner == 0)
		err(v, sp, "symbolic variable %s is used in function %s, "
		    "which does not define it", nm(s->name), fname(v));
	else
		err(v, sp, "symbolic variable %s of function %s is used in "
		    "function %s", nm(s->name), fname_at(v, owner), fname(v));
	return false;
}

/* A use of the symbolic variables of x. */
static void
pe_uses(Verifier *v, const PExpr *x, Span sp, int depth)
{
	if (!x)
		return;
	if (depth > MAX_DEPTH) {
		err(v, sp, "malformed IR: dimension expression nested too deeply");
		return;
	}
	Span at = pick(x->span, sp, sp);
	switch (x->kind) {
	case PE_INT:
		return;
	case PE_VAR:
		if (!x->var) {
			err(v, at, "malformed IR: symbolic dimension without a "
			    "variable");
			return;
		}
		if (!sym_ok(v, x->var, at) || !sym_owned(v, x->var, at))
			return;
		if (v->sflags[x->var->id] & (SF_DEFINED | SF_REPORTED))
			return;
		v->sflags[x->var->id] |= SF_REPORTED;
		err(v, at, "symbolic variable %s is used before it is defined",
		    nm(x->var->name));
		return;
	case PE_ADD:
	case PE_SUB:
	case PE_MUL:
	case PE_FLOORDIV:
	case PE_FLOORMOD:
	case PE_MIN:
	case PE_MAX:
	case PE_EQ: case PE_NE: case PE_LT: case PE_LE: case PE_GT: case PE_GE:
		pe_uses(v, x->a, at, depth + 1);
		pe_uses(v, x->b, at, depth + 1);
		return;
	}
	err(v, at, "malformed IR: unknown dimension expression kind %d",
	    (int)x->kind);
}

/* A bare occurrence: defines the symbolic variable if x is one. */
static void
pe_define(Verifier *v, const PExpr *x, Span sp)
{
	if (!x || x->kind != PE_VAR || !x->var)
		return;
	Span at = pick(x->span, sp, sp);
	if (!sym_ok(v, x->var, at) || !sym_owned(v, x->var, at))
		return;
	v->sflags[x->var->id] |= SF_DEFINED;
}

/* Defines the symbolic variables at the bare dims of si (not in callables). */
static void
si_define(Verifier *v, const SInfo *si, Span sp, int depth)
{
	if (!si || depth > MAX_DEPTH)
		return;
	Span at = pick(si->span, sp, sp);
	switch (si->kind) {
	case SI_TENSOR:
	case SI_SHAPE:
		if (si->shape)
			for (int i = 0; i < si->ndim; i++)
				pe_define(v, si->shape[i], at);
		break;
	case SI_PRIM:
		pe_define(v, si->value, at);
		break;
	case SI_TUPLE:
		if (si->fields)
			for (int i = 0; i < si->nfields; i++)
				si_define(v, si->fields[i], at, depth + 1);
		break;
	case SI_OBJECT:
	case SI_FUNC:
		break;
	}
}

/*
 * Uses of the symbolic variables of si. A callable's signature binds its own
 * symbolic variables, so it is not looked into.
 */
static void
si_uses(Verifier *v, const SInfo *si, Span sp, int depth)
{
	if (!si)
		return;
	Span at = pick(si->span, sp, sp);
	if (depth > MAX_DEPTH) {
		err(v, at, "malformed IR: struct info nested too deeply");
		return;
	}
	switch (si->kind) {
	case SI_TENSOR:
	case SI_SHAPE:
		if (si->ndim > 0 && si->shape)
			for (int i = 0; i < si->ndim; i++)
				pe_uses(v, si->shape[i], at, 0);
		break;
	case SI_PRIM:
		pe_uses(v, si->value, at, 0);
		break;
	case SI_TUPLE:
		if (si->nfields > 0 && !si->fields) {
			err(v, at, "malformed IR: tuple struct info without "
			    "fields");
			break;
		}
		for (int i = 0; i < si->nfields; i++)
			si_uses(v, si->fields[i], at, depth + 1);
		break;
	case SI_OBJECT:
	case SI_FUNC:
		break;
	default:
		err(v, at, "malformed IR: unknown struct info kind %d",
		    (int)si->kind);
	}
}

/* An annotation that defines: its bare dims first, then every use. */
static void
si_defining(Verifier *v, const SInfo *si, Span sp)
{
	si_define(v, si, sp, 0);
	si_uses(v, si, sp, 0);
}

/* ------------------------------------------------------------- variables */

/* Checks that x has a usable id; reports it otherwise. */
static bool
var_ok(Verifier *v, const Var *x, Span sp)
{
	if (x->id < 0 || x->id >= v->nids) {
		err(v, sp, "malformed IR: variable %s has an invalid id %d",
		    nm(x->name), x->id);
		return false;
	}
	return true;
}

/* The definition of x at sp (a parameter or a binding). */
static void
var_define(Verifier *v, Var *x, Span sp)
{
	if (!var_ok(v, x, sp))
		return;
	int id = x->id;
	if (v->vstate[id] != VS_UNDEF) {
		if (v->vfunc[id] == v->fi)
			err(v, sp, "variable %s is defined more than once",
			    nm(x->name));
		else
			err(v, sp, "variable %s is already defined in "
			    "function %s", nm(x->name),
			    fname_at(v, v->vfunc[id]));
		if (v->vstate[id] == VS_LIVE && v->vfunc[id] == v->fi)
			return; /* already in scope */
	}
	v->vstate[id] = VS_LIVE;
	v->vfunc[id] = v->fi;
	vec_push(&v->scope, x);
}

/* A use of x at sp. */
static void
var_use(Verifier *v, const Var *x, Span sp)
{
	if (!var_ok(v, x, sp))
		return;
	int id = x->id;
	if (v->vfunc[id] && v->vfunc[id] != v->fi) {
		err(v, sp, "variable %s of function %s is used in function %s",
		    nm(x->name), fname_at(v, v->vfunc[id]), fname(v));
		/* Say it once: it counts as this function's from now on. */
		v->vfunc[id] = v->fi;
		v->vstate[id] = VS_LIVE;
		vec_push(&v->scope, (void *)x);
		return;
	}
	switch (v->vstate[id]) {
	case VS_LIVE:
		return;
	case VS_UNDEF:
		err(v, sp, "variable %s is used before it is defined",
		    nm(x->name));
		return;
	default:
		if (x->dataflow)
			err(v, sp, "dataflow variable %s is used outside its "
			    "dataflow block", nm(x->name));
		else
			err(v, sp, "variable %s is used outside the scope "
			    "that defines it", nm(x->name));
		return;
	}
}

/* Ends the scope opened when the scope stack had `mark` entries. */
static void
scope_pop(Verifier *v, int mark)
{
	while (v->scope.n > mark) {
		Var *x = v->scope.items[--v->scope.n];
		if (v->vfunc[x->id] == v->fi)
			v->vstate[x->id] = VS_DEAD;
	}
}

/* ------------------------------------------------------------ expressions */

/* Where an expression stands, for the rules on where E_IF and E_SEQ go. */
typedef enum {
	AT_VALUE,    /* the value of a binding */
	AT_ARG,      /* an argument of a call */
	AT_OTHER,
} Place;

static void walk_expr(Verifier *v, Expr *e, Place at, bool dataflow,
		      Span sp, int depth);
static void walk_seq(Verifier *v, Expr *e, int depth);


/* The arguments of a call: leaves, each walked. */
static void
walk_args(Verifier *v, Expr **args, int n, const char *what, bool dataflow,
	  Span sp, int depth)
{
	if (n > 0 && !args) {
		err(v, sp, "malformed IR: %s without its arguments", what);
		return;
	}
	for (int i = 0; i < n; i++) {
		Expr *a = args[i];
		if (!a) {
			err(v, sp, "malformed IR: argument %d of %s is missing",
			    i + 1, what);
			continue;
		}
		if (!ir_is_leaf(a))
			err(v, pick(a->span, sp, sp), "argument %d of %s must "
			    "be a variable, constant, shape, prim value, string "
			    "or tuple of those, not a %s", i + 1, what,
			    ir_expr_kind_name(a->kind));
		walk_expr(v, a, AT_ARG, dataflow, sp, depth + 1);
	}
}

/* Is si known not to be a bool scalar? */
static bool
not_bool_scalar(const SInfo *si)
{
	switch (si->kind) {
	case SI_OBJECT:
		return false;
	case SI_PRIM:
		return si->dtype != DT_UNKNOWN && si->dtype != DT_BOOL;
	case SI_TENSOR:
		return (si->dtype != DT_UNKNOWN && si->dtype != DT_BOOL) ||
		       si->ndim > 0;
	default:
		return true;
	}
}

/* A call of a module function: it exists, arity, purity. */
static void
check_call_fn(Verifier *v, Expr *e, bool dataflow, Span at)
{
	const char *callee = e->callfn.callee;
	Func *g = ir_find_func(v->m, callee);
	const PrimFunc *pf = g ? NULL : tir_find(v->m, callee);
	if (pf) {
		/* a prim_func called directly (lowered code): it writes its
		 * buffers, an impure call */
		if (pf->nparams != e->callfn.nargs)
			err(v, at, "prim_func %s takes %d argument%s but is called with %d",
			    nm(callee), pf->nparams, pf->nparams == 1 ? "" : "s",
			    e->callfn.nargs);
		if (tir_func_pure(pf))
			return; /* TVM: a PrimFunc's purity is its body's */
		const FuncAttr *fp = v->f ? ir_func_attr(v->f, "relax.force_pure") : NULL;
		bool forced = fp && fp->val.kind == AV_BOOL && fp->val.i;
		if (dataflow)
			err(v, at, "impure call to prim_func %s in a dataflow block", nm(callee));
		else if (v->f && v->f->pure && !forced)
			err(v, at, "pure function %s calls prim_func %s, which writes its "
			    "arguments (declare it @R.function(pure=False), or give it "
			    "the attribute \"relax.force_pure\": True)",
			    fname(v), nm(callee));
		return;
	}
	if (!g) {
		err(v, at, "call to unknown function %s", nm(callee));
		return;
	}
	if (g->nparams != e->callfn.nargs)
		err(v, at, "function %s takes %d argument%s but is called "
		    "with %d", nm(callee), g->nparams,
		    g->nparams == 1 ? "" : "s", e->callfn.nargs);
	if (g->pure)
		return;
	if (dataflow)
		err(v, at, "impure call to function %s in a dataflow block",
		    nm(callee));
	else if (v->f && v->f->pure)
		err(v, at, "pure function %s calls impure function %s",
		    fname(v), nm(callee));
}

/* An if: its condition, then each branch in a scope of its own. */
static void
walk_if(Verifier *v, Expr *e, Place at, bool dataflow, Span sp, int depth)
{
	if (dataflow)
		err(v, sp, "if is not allowed in a dataflow block");
	else if (at != AT_VALUE)
		err(v, sp, "if is only allowed as the value of a binding");
	Expr *c = e->if_.cond;
	if (!c) {
		err(v, sp, "malformed IR: if without a condition");
	} else {
		walk_expr(v, c, AT_OTHER, dataflow, sp, depth + 1);
		const SInfo *si = c->sinfo;
		if (!si && c->kind == E_VAR && c->var)
			si = c->var->sinfo;
		if (si && not_bool_scalar(si)) {
			StrBuf b = {0};
			print_sinfo(&b, si);
			char *s = sb_take(&b);
			if (c->kind == E_VAR && c->var)
				err(v, pick(c->span, sp, sp), "if condition %s "
				    "must be a bool scalar, not %s",
				    nm(c->var->name), s ? s : "?");
			else
				err(v, pick(c->span, sp, sp), "if condition "
				    "must be a bool scalar, not %s",
				    s ? s : "?");
			free(s);
		}
	}
	Expr *br[2] = {e->if_.then_, e->if_.else_};
	for (int i = 0; i < 2; i++) {
		if (!br[i]) {
			err(v, sp, "malformed IR: if without its %s branch",
			    i ? "else" : "then");
			continue;
		}
		if (br[i]->kind != E_SEQ) {
			err(v, pick(br[i]->span, sp, sp), "the %s branch of an "
			    "if must be a sequence, not a %s",
			    i ? "else" : "then", ir_expr_kind_name(br[i]->kind));
			int mark = v->scope.n;
			walk_expr(v, br[i], AT_OTHER, false, sp, depth + 1);
			scope_pop(v, mark);
			continue;
		}
		walk_seq(v, br[i], depth + 1);
	}
}

/* A local function: its parameters and body in a scope of their own; it
 * may use (capture) the variables in scope. */
static void
walk_local_func(Verifier *v, Expr *e, Span here, int depth)
{
	Func *g = e->fn, *outer = v->f;
	if (!g || !g->body || g->body->kind != E_SEQ) {
		err(v, here, "malformed IR: local function without a body");
		return;
	}
	int mark = v->scope.n;
	v->f = g;
	for (int i = 0; i < g->nparams; i++) {
		var_define(v, g->params[i], pick(g->params[i]->span, here, here));
		si_define(v, g->params[i]->sinfo, here, 0);
	}
	for (int i = 0; i < g->nparams; i++)
		si_uses(v, g->params[i]->sinfo, here, 0);
	walk_seq(v, g->body, depth + 1);
	scope_pop(v, mark);
	v->f = outer;
}

/* A tuple index: its tuple walked, the index within the tuple's fields. */
static void
walk_tuple_get(Verifier *v, Expr *e, bool dataflow, Span here, int depth)
{
	Expr *t = e->tget.tuple;
	walk_expr(v, t, AT_OTHER, dataflow, here, depth + 1);
	const SInfo *si = t ? t->sinfo : NULL;
	if (!si && t && t->kind == E_VAR && t->var)
		si = t->var->sinfo;
	if (e->tget.index < 0)
		err(v, here, "tuple index %d is negative",
		    e->tget.index);
	else if (si && si->kind == SI_TUPLE &&
		 e->tget.index >= si->nfields)
		err(v, here, "tuple index %d is out of range for a "
		    "tuple of %d field%s", e->tget.index, si->nfields,
		    si->nfields == 1 ? "" : "s");
}

/* An op call: its arity and attributes against the op's signature, no
 * effect in a dataflow block or a pure function, its arguments. */
static void
walk_op_call(Verifier *v, Expr *e, bool dataflow, Span here, int depth)
{
	OpKind op = e->call.op;
	if (op <= OP_NONE || op >= OP_COUNT) {
		err(v, here, "malformed IR: call of unknown op %d",
		    (int)op);
		return;
	}
	char what[64];
	snprintf(what, sizeof what, "R.%s", op_info(op)->name);
	OpSig sig;
	op_sig(op, &sig);
	if (sig.variadic ? e->call.nargs < sig.nargs - 1
		     : e->call.nargs < sig.nreq || e->call.nargs > sig.nargs)
		err(v, here, "%s takes %d argument%s but is given %d",
		    what, sig.nargs, sig.nargs == 1 ? "" : "s",
		    e->call.nargs);
	if (op_info(op)->cls == OC_IMPURE) {
		/* TVM's well-formedness: effects stay out of
		 * dataflow blocks and pure functions */
		const FuncAttr *fp = v->f ? ir_func_attr(v->f, "relax.force_pure")
					  : NULL;
		bool forced = fp && fp->val.kind == AV_BOOL && fp->val.i;
		if (dataflow)
			err(v, here, "impure call %s in a dataflow block",
			    what);
		else if (v->f && v->f->pure && !forced)
			err(v, here, "pure function %s calls impure %s "
			    "(declare it @R.function(pure=False), or give it "
			    "the attribute \"relax.force_pure\": True)",
			    fname(v), what);
	}
	if (e->call.nattrs != sig.nattrs ||
	    (e->call.nattrs > 0 && !e->call.attrs))
		err(v, here, "malformed IR: %s has %d attribute%s "
		    "instead of %d", what, e->call.nattrs,
		    e->call.nattrs == 1 ? "" : "s", sig.nattrs);
	walk_args(v, e->call.args, e->call.nargs, what, dataflow,
		  here, depth);
}

/* One expression standing at `at`; sp locates it when it has no span. */
static void
walk_expr(Verifier *v, Expr *e, Place at, bool dataflow, Span sp, int depth)
{
	if (!e) {
		err(v, sp, "malformed IR: missing expression");
		return;
	}
	Span here = pick(e->span, sp, sp);
	if (depth > MAX_DEPTH) {
		err(v, here, "malformed IR: expression nested too deeply");
		return;
	}
	switch (e->kind) {
	case E_VAR:
		if (!e->var)
			err(v, here, "malformed IR: variable use without a "
			    "variable");
		else
			var_use(v, e->var, here);
		return;
	case E_CONST:
	case E_STR:
	case E_EXTERN:
		return;
	case E_GLOBAL:
		if (!e->str || (!ir_find_func(v->m, e->str) && !tir_find(v->m, e->str)))
			err(v, here, "function reference to '%s', which is not "
			    "in the module", e->str ? e->str : "?");
		return;
	case E_FUNC:
		walk_local_func(v, e, here, depth);
		return;
	case E_CALL_VAR:
		walk_expr(v, e->callv.fn, AT_OTHER, dataflow, here, depth + 1);
		walk_args(v, e->callv.args, e->callv.nargs, "a local function",
			  dataflow, here, depth);
		return;
	case E_TUPLE:
		if (e->tuple.n > 0 && !e->tuple.items) {
			err(v, here, "malformed IR: tuple without items");
			return;
		}
		for (int i = 0; i < e->tuple.n; i++)
			walk_expr(v, e->tuple.items[i], AT_OTHER, dataflow,
				  here, depth + 1);
		return;
	case E_TUPLE_GET:
		walk_tuple_get(v, e, dataflow, here, depth);
		return;
	case E_SHAPE:
		if (e->shape.n > 0 && !e->shape.values) {
			err(v, here, "malformed IR: shape without values");
			return;
		}
		for (int i = 0; i < e->shape.n; i++)
			pe_uses(v, e->shape.values[i], here, 0);
		return;
	case E_PRIM:
		pe_uses(v, e->prim.value, here, 0);
		return;
	case E_CALL:
		walk_op_call(v, e, dataflow, here, depth);
		return;
	case E_CALL_FN: {
		char what[160];
		snprintf(what, sizeof what, "function %s",
			 nm(e->callfn.callee));
		walk_args(v, e->callfn.args, e->callfn.nargs, what, dataflow,
			  here, depth);
		check_call_fn(v, e, dataflow, here);
		return;
	}
	case E_IF:
		walk_if(v, e, at, dataflow, here, depth);
		return;
	case E_SEQ:
		err(v, here, "a sequence is only allowed as a function body "
		    "or an if branch");
		walk_seq(v, e, depth + 1);
		return;
	}
	err(v, here, "malformed IR: unknown expression kind %d", (int)e->kind);
}

/* One binding of a block. */
static void
walk_binding(Verifier *v, Binding *b, bool dataflow, Span sp, int depth)
{
	Span at = pick(b->span, sp, sp);
	walk_expr(v, b->value, AT_VALUE, dataflow, at, depth + 1);
	if (b->cast)
		si_defining(v, b->cast, at);
	Var *x = b->var;
	if (!x) {
		err(v, at, "malformed IR: binding without a variable");
		return;
	}
	if (x->dataflow && !dataflow)
		err(v, at, "dataflow variable %s is defined outside a "
		    "dataflow block", nm(x->name));
	var_define(v, x, at);
	si_uses(v, x->sinfo, at, 0);
	if (b->annotated && !b->cast && x->sinfo && b->value &&
	    b->value->sinfo &&
	    si_check(v->m, x->sinfo, b->value->sinfo) == SI_FAIL) {
		StrBuf s1 = {0}, s2 = {0};
		print_sinfo(&s1, x->sinfo);
		print_sinfo(&s2, b->value->sinfo);
		char *a = sb_take(&s1), *c = sb_take(&s2);
		err(v, at, "annotation %s of %s does not match the struct "
		    "info %s of its value", a ? a : "?", nm(x->name),
		    c ? c : "?");
		free(a);
		free(c);
	}
}

/* One block; a dataflow block's DataflowVars end with it. */
static void
walk_block(Verifier *v, Block *blk, Span sp, int depth)
{
	Span at = pick(blk->span, sp, sp);
	if (blk->n > 0 && !blk->bindings) {
		err(v, at, "malformed IR: block without its bindings");
		return;
	}
	int mark = v->scope.n;
	for (int i = 0; i < blk->n; i++) {
		Binding *b = blk->bindings[i];
		if (!b)
			err(v, at, "malformed IR: missing binding");
		else
			walk_binding(v, b, blk->dataflow, at, depth);
	}
	if (!blk->dataflow)
		return;
	for (int i = mark; i < v->scope.n; i++) {
		Var *x = v->scope.items[i];
		if (x->dataflow && v->vfunc[x->id] == v->fi)
			v->vstate[x->id] = VS_DEAD;
	}
}

/* A sequence (E_SEQ): its blocks and result, in a scope of its own. */
static void
walk_seq(Verifier *v, Expr *e, int depth)
{
	Span sp = e->span;
	if (depth > MAX_DEPTH) {
		err(v, sp, "malformed IR: expression nested too deeply");
		return;
	}
	int mark = v->scope.n;
	if (e->seq.nblocks > 0 && !e->seq.blocks) {
		err(v, sp, "malformed IR: sequence without its blocks");
	} else {
		for (int i = 0; i < e->seq.nblocks; i++) {
			if (!e->seq.blocks[i])
				err(v, sp, "malformed IR: missing block");
			else
				walk_block(v, e->seq.blocks[i], sp, depth + 1);
		}
	}
	walk_expr(v, e->seq.body, AT_OTHER, false, sp, depth + 1);
	scope_pop(v, mark);
}

/* ------------------------------------------------------------- functions */

/* num_input, when present, is an integer in 0..nparams. */
static void
check_num_input(Verifier *v, Func *f)
{
	if (f->nattrs > 0 && !f->attrs) {
		err(v, f->span, "malformed IR: function %s without its "
		    "attributes", nm(f->name));
		return;
	}
	for (int i = 0; i < f->nattrs; i++)
		if (!f->attrs[i].key) {
			err(v, f->span, "malformed IR: attribute without a "
			    "name in function %s", nm(f->name));
			return;
		}
	const FuncAttr *a = ir_func_attr(f, "num_input");
	if (!a)
		return;
	if (a->val.kind != AV_INT)
		err(v, f->span, "num_input of function %s must be an integer",
		    nm(f->name));
	else if (a->val.i < 0 || a->val.i > f->nparams)
		err(v, f->span, "num_input of function %s is %lld, but it has "
		    "%d parameter%s", nm(f->name), (long long)a->val.i,
		    f->nparams, f->nparams == 1 ? "" : "s");
}

/* Records which function lists each symbolic variable. */
static void
claim_symvars(Verifier *v, Func *f, int fi)
{
	if (f->nsymvars > 0 && !f->symvars) {
		err(v, f->span, "malformed IR: function %s without its "
		    "symbolic variables", nm(f->name));
		return;
	}
	for (int i = 0; i < f->nsymvars; i++) {
		SymVar *s = f->symvars[i];
		if (!s) {
			err(v, f->span, "malformed IR: missing symbolic "
			    "variable in function %s", nm(f->name));
			continue;
		}
		if (!sym_ok(v, s, f->span))
			continue;
		int owner = v->sowner[s->id];
		if (owner == 0) {
			v->sowner[s->id] = fi;
		} else if (owner == fi) {
			err(v, f->span, "symbolic variable %s is listed twice "
			    "in function %s", nm(s->name), nm(f->name));
		} else {
			err(v, f->span, "symbolic variable %s is shared "
			    "between functions %s and %s", nm(s->name),
			    fname_at(v, owner), nm(f->name));
			v->sreported[s->id] = fi; /* no more about it here */
		}
	}
}

/* One function. */
static void
walk_func(Verifier *v, Func *f, int fi)
{
	v->f = f;
	v->fi = fi;
	v->scope.n = 0;
	if (f->symvars)
		for (int i = 0; i < f->nsymvars; i++)
			if (f->symvars[i] && f->symvars[i]->id >= 0 &&
			    f->symvars[i]->id < v->nids)
				v->sflags[f->symvars[i]->id] = 0;
	if (!f->name)
		err(v, f->span, "malformed IR: function without a name");
	/* f is funcs[fi - 1]; the index finds the first of a name */
	if (f->name && ir_func_index(v->m, f->name) < fi - 1)
		err(v, f->span, "function %s is defined more than once",
		    f->name);
	check_num_input(v, f);
	if (f->nparams > 0 && !f->params) {
		err(v, f->span, "malformed IR: function %s without its "
		    "parameters", nm(f->name));
	} else {
		for (int i = 0; i < f->nparams; i++) {
			Var *p = f->params[i];
			if (!p) {
				err(v, f->span, "malformed IR: missing "
				    "parameter %d of function %s", i + 1,
				    nm(f->name));
				continue;
			}
			Span at = pick(p->span, f->span, f->span);
			if (p->dataflow)
				err(v, at, "parameter %s of function %s is a "
				    "dataflow variable", nm(p->name),
				    nm(f->name));
			var_define(v, p, at);
			si_define(v, p->sinfo, at, 0);
		}
		/* as TVM's parser: every parameter's bare dims are defined
		 * before any use ("m - 1" may precede the shape that says "m") */
		for (int i = 0; i < f->nparams; i++)
			if (f->params[i])
				si_uses(v, f->params[i]->sinfo,
					pick(f->params[i]->span, f->span, f->span), 0);
	}
	if (!f->body) {
		err(v, f->span, "function %s has no body", nm(f->name));
	} else if (f->body->kind != E_SEQ) {
		err(v, pick(f->body->span, f->span, f->span), "the body of "
		    "function %s must be a sequence, not a %s", nm(f->name),
		    ir_expr_kind_name(f->body->kind));
		walk_expr(v, f->body, AT_OTHER, false, f->span, 0);
	} else {
		walk_seq(v, f->body, 0);
	}
	si_uses(v, f->ret, f->span, 0);
	scope_pop(v, 0);
}

/* Relax well-formedness, each violation a located error; returns count. */
int
verify_module(Module *m, Diags *d)
{
	if (!m)
		return 0;
	Verifier v = {.m = m, .d = d};
	v.nids = m->next_id > 0 ? m->next_id : 0;
	size_t n = (size_t)v.nids;
	v.vstate = xcalloc(n, sizeof *v.vstate);
	v.vfunc = xcalloc(n, sizeof *v.vfunc);
	v.sowner = xcalloc(n, sizeof *v.sowner);
	v.sflags = xcalloc(n, sizeof *v.sflags);
	v.sreported = xcalloc(n, sizeof *v.sreported);
	if (m->nfuncs > 0 && !m->funcs) {
		err(&v, (Span){0, 0, 0}, "malformed IR: module without its "
		    "functions");
	} else {
		for (int i = 0; i < m->nfuncs; i++)
			if (m->funcs[i])
				claim_symvars(&v, m->funcs[i], i + 1);
		for (int i = 0; i < m->nfuncs; i++) {
			if (!m->funcs[i])
				err(&v, (Span){0, 0, 0}, "malformed IR: "
				    "missing function %d", i + 1);
			else
				walk_func(&v, m->funcs[i], i + 1);
		}
	}
	vec_free(&v.scope);
	free(v.vstate);
	free(v.vfunc);
	free(v.sowner);
	free(v.sflags);
	free(v.sreported);
	return v.nerr + verify_tir(m, d);
}
