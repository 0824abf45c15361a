/* infer.c — struct-info inference (stub; see ir.h). */
#include "ir.h"
int infer_module(Module *m, Diags *d) { (void)m; (void)d; return 0; }
SInfo *infer_expr(Module *m, Expr *e, Diags *d) { (void)d; (void)e; return si_object(&m->arena); }
SiRel si_check(Module *m, const SInfo *ann, const SInfo *val) { (void)m; (void)ann; (void)val; return SI_UNKNOWN; }
bool si_equal(Module *m, const SInfo *a, const SInfo *b) { (void)m; return a == b; }
SInfo *infer_arange(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_argreduce(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_astype(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_binary_arith(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_broadcast_to(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_clip(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_compare(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_concat(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_expand_dims(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_fill_like(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_fill_shape(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_flatten(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_full(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_full_like(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_identity(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_layer_norm(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_logical(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_logical_not(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_matmul(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_permute_dims(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_reduce(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_reshape(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_rms_norm(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_rule(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_softmax(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_split(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_squeeze(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_strided_slice(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_take(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_unary(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_unary_float(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_where(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
SInfo *infer_conv2d(Module *m, Expr *call, Diags *d) { (void)call; (void)d; return si_object(&m->arena); }
