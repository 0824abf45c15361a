# A prim_func whose second buffer parameter is malformed (T.Buffer("")): the
# builder returned early without freeing its name table, a leak under ASan.
@I.ir_module
class oe:
    @T.prim_func()
    def f(A:T.Buffer(( )),B:T.Buffer("")):
     l