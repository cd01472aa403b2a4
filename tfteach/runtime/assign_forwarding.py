"""An Assign that is the last reader of its value keeps that tensor as the variable's.

TensorFlow's Assign forwards the buffer of its value when nothing else holds it: the
initializer of `tf.Variable(tf.ones([16, 1024, 1024]))` (a Fill, computed on the GPU
when the initializer runs: too big to fold, executor.MAX_FOLDED_BYTES) hands the Fill's
64 MiB to the variable, and the device holds 64 MiB, never 128. tfteach's Assign copies
by default (the value may be a fed array, a constant, another variable's value); when
the plan shows the Assign is the last step to read its value, and the value is not fed
or fetched, its step runs `state_kernels.assign_taking_value` instead, which keeps a
tensor the run made (a constant's or a variable's value is still copied).
"""
from tfteach.kernels.cpu import state_kernels

__all__ = ["forward_assigned_values"]


def forward_assigned_values(steps):
    """Points each plain CPU-kernel Assign step (virtual GPUs run it too) whose value
    slot it frees at the kernel that takes the value over. Changes `steps` in place."""
    for step in steps:
        if step.kernel is state_kernels.assign_kernel and step.in_slots[1] in step.frees:
            step.kernel = state_kernels.assign_taking_value
