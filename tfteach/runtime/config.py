"""`tf.ConfigProto`, `tf.GPUOptions`, `tf.RunOptions`: the options objects of TF 1.x.

They are plain records with TensorFlow's field names and defaults, so the notes'
`config.gpu_options.allow_growth = True` works as written. What they mean for devices
and memory is the devices issue's; the Session keeps them.
"""

__all__ = ["ConfigProto", "GPUOptions", "RunOptions", "GraphOptions", "OptimizerOptions",
           "RewriterConfig"]


class _Record:
    _fields = {}

    def __init__(self, **kwargs):
        for key, default in self._fields.items():
            value = kwargs.pop(key, None)
            if value is None:
                value = default() if callable(default) else default
            object.__setattr__(self, key, value)
        if kwargs:
            raise ValueError("Protocol message %s has no \"%s\" field."
                             % (type(self).__name__, next(iter(kwargs))))

    def __setattr__(self, key, value):
        if key not in self._fields:
            raise AttributeError("Assignment not allowed (no field \"%s\" in protocol message "
                                 "object)." % key)
        object.__setattr__(self, key, value)

    def __repr__(self):
        changed = ["%s: %r" % (k, getattr(self, k)) for k, d in self._fields.items()
                   if not callable(d) and getattr(self, k) != d]
        return "%s(%s)" % (type(self).__name__, ", ".join(changed))

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, k) == getattr(other, k) for k in self._fields)


class GPUOptions(_Record):
    _fields = {
        "per_process_gpu_memory_fraction": 0.0,
        "allow_growth": False,
        "allocator_type": "",
        "deferred_deletion_bytes": 0,
        "visible_device_list": "",
        "polling_active_delay_usecs": 0,
        "polling_inactive_delay_msecs": 0,
        "force_gpu_compatible": False,
    }


class OptimizerOptions(_Record):
    # Level (TF's enum): L1 (0, the default) optimizes, L0 (-1) does not.
    L1 = 0
    L0 = -1
    # GlobalJitLevel (no effect: tfteach has no XLA).
    DEFAULT = 0
    OFF = -1
    ON_1 = 1
    ON_2 = 2
    _fields = {"do_common_subexpression_elimination": False, "do_constant_folding": False,
               "max_folded_constant_in_bytes": 0, "do_function_inlining": False,
               "opt_level": 0, "global_jit_level": 0}


class RewriterConfig(_Record):
    """Grappler's switches (TF's rewriter_config.proto); runtime/optimizer/toggles.py
    says which of tfteach's passes each one turns off."""
    # Toggle
    DEFAULT = 0
    ON = 1
    OFF = 2
    AGGRESSIVE = 3
    _fields = {"layout_optimizer": 0, "constant_folding": 0, "shape_optimization": 0,
               "remapping": 0, "arithmetic_optimization": 0, "dependency_optimization": 0,
               "loop_optimization": 0, "function_optimization": 0, "debug_stripper": 0,
               "disable_model_pruning": False, "scoped_allocator_optimization": 0,
               "pin_to_host_optimization": 0, "implementation_selector": 0,
               "auto_mixed_precision": 0, "disable_meta_optimizer": False,
               "meta_optimizer_iterations": 0, "min_graph_nodes": 0,
               "memory_optimization": 0, "optimizers": list}


class GraphOptions(_Record):
    _fields = {"optimizer_options": OptimizerOptions, "rewrite_options": RewriterConfig,
               "build_cost_model": 0,
               "infer_shapes": False, "place_pruned_graph": False,
               "enable_bfloat16_sendrecv": False}


class ConfigProto(_Record):
    _fields = {
        "device_count": dict,
        "intra_op_parallelism_threads": 0,
        "inter_op_parallelism_threads": 0,
        "use_per_session_threads": False,
        "placement_period": 0,
        "device_filters": list,
        "gpu_options": GPUOptions,
        "allow_soft_placement": False,
        "log_device_placement": False,
        "graph_options": GraphOptions,
        "operation_timeout_in_ms": 0,
        "isolate_session_state": False,
    }


class RunOptions(_Record):
    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3
    _fields = {
        "trace_level": 0,
        "timeout_in_ms": 0,
        "inter_op_thread_pool": 0,
        "output_partition_graphs": False,
        "report_tensor_allocations_upon_oom": False,
    }
