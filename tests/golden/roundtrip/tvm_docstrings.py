"""A module with the docstrings TVM's tests write."""
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    """The class docstring.

    Over several lines, with "quotes".
    """

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        """Test case that a docstring is ignored"""
        y = R.exp(x)
        return y

    @R.function(private=True)
    def helper(x: R.Tensor((2, 3), "float32")):
        '''Single quotes work too.'''
        return x
