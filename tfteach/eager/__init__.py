"""Eager execution (TF 2's default; `tf.enable_eager_execution()` in TF 1.15).

- context.py: the eager switch and the state eager ops share (variables, random streams)
- tensor.py: EagerTensor, a tensor holding its value
- execute.py: one op run now, through the registered shape function and kernel
- variables.py: resource-style eager Variables
- tape.py: GradientTape, reusing the registered graph gradients
- function.py: tf.function: when to trace (input signatures), and the trace itself
- concrete_function.py: FuncGraph (captures) and ConcreteFunction (a graph run by a Session)
- autograph.py: `if`/`while`/`for` on tensors (with break/continue) rewritten into calls
  of autograph_runtime.py, which builds tf.cond / tf.while_loop
- module.py: tf.Module
See docs/eager.md.
"""
