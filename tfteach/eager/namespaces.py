"""The TF 2 namespaces: `tf.random`, `tf.math`, `tf.compat` and the `tfteach.v2` module.

Every function here is one tfteach already has under its TF 1 name; these modules only
give them the names TF 1.15 also offered (`tf.random.normal` = `tf.random_normal`,
`tf.math.log` = `tf.log`, ...) and TF 2 kept. `v2_names()` is the TF 2 top level: the
TF 1 names TF 2 kept (no `Session`, `placeholder`, `get_variable`, `random_normal`, ...).
"""
import sys
import types

from tfteach.eager import v2_functions

__all__ = ["random_module", "math_module", "nn_module", "compat_module", "v2_names",
           "REMOVED_IN_V2", "fill_v2"]

# tf.random in TF 1.15/2 -> the TF 1 function tfteach has.
_RANDOM = {"normal": "random_normal", "uniform": "random_uniform",
           "truncated_normal": "truncated_normal", "shuffle": "random_shuffle",
           "multinomial": "multinomial",
           "gamma": "random_gamma",
           "set_random_seed": "set_random_seed"}

# tf.math names that are the TF 1 top-level function of the same name.
_MATH_SAME = (
    "abs acos add add_n accumulate_n angle argmax argmin asin atan ceil confusion_matrix conj "
    "cos count_nonzero cumprod cumsum divide equal exp expm1 floor floordiv floormod greater "
    "greater_equal imag is_finite is_inf is_nan less less_equal log log1p logical_and "
    "logical_not logical_or logical_xor maximum minimum mod multiply negative not_equal pow "
    "real reciprocal reduce_all reduce_any reduce_logsumexp reduce_max reduce_mean "
    "reduce_min reduce_prod reduce_sum round rsqrt scalar_mul sigmoid sign sin sqrt square "
    "squared_difference subtract tan tanh truediv unsorted_segment_sum divide_no_nan").split()
_MATH_FROM_NN = ("softmax", "log_softmax", "softplus", "l2_normalize", "in_top_k", "top_k",
                 "sigmoid_cross_entropy_with_logits")

# TF 1 top-level names TF 2 does not have (they live on in tf.compat.v1).
REMOVED_IN_V2 = frozenset((
    "AUTO_REUSE Assert AttrValue ConfigProto Event GPUOptions GraphDef GraphKeys "
    "GraphOptions HistogramProto InteractiveSession MetaGraphDef NodeDef OptimizerOptions "
    "Print RunMetadata RunOptions Session SessionLog Summary SummaryMetadata TensorInfo "
    "VariableScope VariableV1 add_to_collection add_to_collections all_variables app "
    "assert_variables_initialized assign assign_add assign_sub colocate_with container "
    "contrib enable_eager_execution disable_eager_execution enable_v2_behavior "
    "disable_v2_behavior enable_tensor_equality disable_tensor_equality flags get_collection "
    "get_collection_ref get_default_graph get_default_session get_local_variable get_seed "
    "get_variable get_variable_scope gfile global_variables global_variables_initializer "
    "glorot_normal_initializer glorot_uniform_initializer initialize_all_variables "
    "initialize_local_variables initialize_variables is_variable_initialized layers "
    "lin_space local_variables local_variables_initializer logging model_variables "
    "moving_average_variables multinomial placeholder placeholder_with_default "
    "random_normal random_shuffle random_uniform report_uninitialized_variables "
    "reset_default_graph set_random_seed to_double to_float to_int32 to_int64 "
    "trainable_variables truncated_normal truncated_normal_initializer "
    "uniform_unit_scaling_initializer variable_op_scope variable_scope variables_initializer "
    "variance_scaling_initializer div log ceil floordiv floormod mod "
    "squared_difference conj real imag angle count_nonzero cumprod is_finite is_inf is_nan "
    "log1p expm1 rsqrt reciprocal logical_xor unsorted_segment_sum confusion_matrix "
    "accumulate_n diag diag_part matrix_diag matrix_set_diag sparse_to_dense "
    "parallel_dynamic_stitch reverse_v2 where_v2 no_regularizer he_normal he_uniform "
    "lecun_normal lecun_uniform Constant GlorotNormal GlorotUniform Ones RandomNormal "
    "RandomUniform TruncatedNormal UniformUnitScaling VarianceScaling Zeros "
    "clip_by_average_norm global_norm load_ipython_extension unload_ipython_extension "
    "PACKAGE_VERSION QUANTIZED_DTYPES array_grad control_flow_grad math_grad kernels ops "
    "framework runtime eager examples metrics losses py_func make_template "
    "random_gamma check_numerics verify_tensor_all_finite add_check_numerics_ops "
    "read_file").split())


def _module(name, doc, names):
    module = types.ModuleType(name, doc)
    for key, value in names.items():
        setattr(module, key, value)
    module.__all__ = sorted(names)
    return module


def _set_seed(seed):
    """`tf.random.set_seed`: the graph-level seed, and eager random streams restart."""
    from tfteach.framework import eager_mode
    from tfteach.framework import graph as graph_lib
    graph_lib.get_default_graph().seed = seed
    eager_mode.set_global_seed(seed)


def random_module():
    import tfteach
    from tfteach.ops import random_ops
    names = {new: getattr(tfteach, old) for new, old in _RANDOM.items()}
    names["set_seed"] = _set_seed
    names["categorical"] = random_ops.categorical     # multinomial's, dtype third
    return _module("tensorflow.random", "tf.random: the random ops under their TF 2 names.",
                   names)


def math_module(v2=False):
    """tf.math. Built while `import tfteach` runs, so the names that live in namespaces
    imported on first use (tf.nn's softmax, tf.confusion_matrix, tf.div_no_nan) are
    resolved on first use too: reading them here would import tf.nn (docs/engine.md,
    "Lazy imports")."""
    import tfteach
    from tfteach import _lazy_names
    names = {n: getattr(tfteach, n) for n in _MATH_SAME
             if n in vars(tfteach) and n not in _lazy_names.LAZY}
    later = {n: (lambda n=n: getattr(tfteach, n)) for n in _MATH_SAME
             if n not in names and n in _lazy_names.LAZY}
    later["divide_no_nan"] = lambda: tfteach.div_no_nan      # TF 1.15's tf.math name
    later.update((n, lambda n=n: getattr(tfteach.nn, n)) for n in _MATH_FROM_NN)
    if v2:           # TF 2's argmax(input, axis, output_type), in_top_k(targets, ...)
        names.update(v2_functions.MATH)
        for name in v2_functions.MATH:
            later.pop(name, None)
    module = _module("tensorflow.math", "tf.math: the math ops under their TF 2 names.",
                     names)

    def __getattr__(name):
        if name not in later:
            raise AttributeError("module 'tensorflow.math' has no attribute '%s'" % name)
        value = later[name]()
        setattr(module, name, value)
        return value

    module.__getattr__ = __getattr__
    module.__dir__ = lambda: sorted(set(vars(module)) | set(later))
    module.__all__ = sorted(set(names) | set(later))
    return module


def nn_module():
    """TF 2's tf.nn: tfteach.nn with the functions whose signature TF 2 changed —
    `dropout(x, rate, ...)` (TF 1's second argument was keep_prob),
    `softmax_cross_entropy_with_logits(labels, logits, axis=-1)` (TF 1's `_v2`), and
    those of v2_functions.NN (`in_top_k(targets, predictions, k)`, the losses without
    `_sentinel`, ...)."""
    import tfteach

    def dropout(x, rate, noise_shape=None, seed=None, name=None):
        return tfteach.nn.dropout(x, noise_shape=noise_shape, seed=seed, name=name,
                                  rate=rate)

    def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
        return tfteach.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                               axis=axis, name=name)
    names = {n: getattr(tfteach.nn, n) for n in dir(tfteach.nn) if not n.startswith("_")}
    names.update(dropout=dropout,
                 softmax_cross_entropy_with_logits=softmax_cross_entropy_with_logits)
    names.update(v2_functions.NN)
    return _module("tensorflow.nn", nn_module.__doc__, names)


def summary_module():
    """`tf.summary` in TF 2: writers and `scalar(name, data, step)` (summary/summary_v2.py)."""
    from tfteach.summary import summary_v2
    names = {n: getattr(summary_v2, n) for n in summary_v2.__all__}
    return _module("tensorflow.summary", summary_module.__doc__, names)


class _Compat(types.ModuleType):
    """`tf.compat`: `v1` is the TF 1 namespace (tfteach), `v2` the TF 2 one. Asking for
    `v2` does not switch eager execution on (importing `tfteach.v2` does)."""

    @property
    def v1(self):
        return sys.modules["tfteach"]

    @property
    def v2(self):
        if "tfteach.v2" in sys.modules:
            return sys.modules["tfteach.v2"]
        if not _V2:
            _V2.append(fill_v2(types.ModuleType("tensorflow.compat.v2", V2_DOC)))
        return _V2[0]

    def forward_compatible(self, year, month, day):
        return False

    def as_bytes(self, bytes_or_text, encoding="utf-8"):
        if isinstance(bytes_or_text, str):
            return bytes_or_text.encode(encoding)
        return bytes(bytes_or_text)

    def as_text(self, bytes_or_text, encoding="utf-8"):
        if isinstance(bytes_or_text, bytes):
            return bytes_or_text.decode(encoding)
        return str(bytes_or_text)

    as_str = as_text


def compat_module():
    return _Compat("tensorflow.compat", _Compat.__doc__)


_V2 = []
V2_DOC = """The TensorFlow 2 namespace of tfteach (`import tfteach.v2 as tf`): eager by
default, TF 2's names (docs/eager.md)."""

# Submodules other parts of tfteach may provide (Keras, tf.data, tf.image): looked up
# when first asked for, so this module does not depend on them.
_LAZY = {"keras": "tfteach.keras", "data": "tfteach.data", "image": "tfteach.image",
         "optimizers": "tfteach.keras.optimizers", "losses": "tfteach.keras.losses",
         "metrics": "tfteach.keras.metrics", "estimator": "tfteach.estimator",
         "feature_column": "tfteach.feature_column"}


def _v1():
    import tfteach
    return tfteach


def _overlay(name, base, overrides):
    """A module with `base`'s public names and `overrides` in their place: a TF 1
    namespace as TF 2 has it (the TF 1 module itself stays unchanged)."""
    names = {n: getattr(base, n) for n in dir(base) if not n.startswith("_")}
    names.update(overrides)
    return _module(name, base.__doc__ or "", names)


def _io_v2():
    return _overlay("tensorflow.io", _v1().io, v2_functions.IO)


def _debugging_v2():
    debugging = _v1().debugging
    return _overlay("tensorflow.debugging", debugging, {
        key: v2_functions.assert_function(key) for key in v2_functions.ASSERTS
        if hasattr(debugging, key)})



def fill_v2(module):
    """Puts the TF 2 names into `module` (tfteach/v2.py, or tf.compat.v2)."""
    import importlib
    for key, value in v2_names().items():
        setattr(module, key, value)
    for key, value in v2_functions.TOP_LEVEL.items():   # TF 2's own arguments
        setattr(module, key, value)
    module.random = random_module()
    module.math = math_module(v2=True)
    module.nn = nn_module()
    module.summary = summary_module()
    module.compat = compat_module()
    v1 = _v1()
    for key in v2_functions.ASSERTS:            # tf.assert_less ...: TF 2's arguments
        if key in vars(v1):
            setattr(module, key, v2_functions.assert_function(key))
    # (v2_names has imported tfteach.io and tfteach.debugging already.)
    module.io = _io_v2()                        # TF 2's parse_example, decode_csv
    module.debugging = _debugging_v2()          # TF 2's assert_* (no `data`)

    def __getattr__(name):
        target = _LAZY.get(name)
        if target is not None:
            try:
                value = importlib.import_module(target)
            except ImportError:
                value = None
            if value is not None:
                setattr(module, name, value)
                return value
        raise AttributeError("module 'tensorflow' has no attribute '%s'" % name)
    module.__getattr__ = __getattr__
    return module


def v2_names():
    """The TF 1 top-level names TF 2 kept, as a dict name -> object (fill_v2 then puts
    TF 2's own versions of some in their place: v2_functions.TOP_LEVEL)."""
    import tfteach
    return {n: getattr(tfteach, n) for n in dir(tfteach)
            if not n.startswith("_") and n not in REMOVED_IN_V2}
