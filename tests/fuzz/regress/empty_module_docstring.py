# rlx-fuzz: accept
# A module class holding only a docstring printed as `class Before:` with no
# body, which does not parse (issue 16). TVM prints an empty module with
# `pass`; so does rlx, and reads it back.
from tvm.script import ir as I


@I.ir_module
class Before:
    """The class docstring."""
