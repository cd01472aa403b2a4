"""The feature columns of `tf.feature_column` (TF 1.15's constructors, names and checks).

A column says how one raw feature (`features[key]`, a batch of values) becomes model input.
  dense columns        -> a float32 [batch, n] block of the input layer:
    numeric_column        the values themselves (reshaped to [batch, prod(shape)]);
    indicator_column      a categorical column as a multi-hot [batch, num_buckets];
    embedding_column      a categorical column through a trainable [num_buckets, dimension]
                          matrix `embedding_weights`, rows combined by mean/sum/sqrtn;
    bucketized_column     (also categorical) one-hot of the bucket of each value;
  categorical columns  -> ids in [0, num_buckets), -1 for a missing value:
    categorical_column_with_vocabulary_list   a value's index in the list;
    categorical_column_with_identity          the integer value itself.
tfteach computes the ids as a dense int64 [batch, k] tensor with -1 for "no id" (TF builds
a SparseTensor of the present ids; the sums, means and one-hots are the same numbers).
A SparseTensor feature (VarLenFeature) is made dense first, with '' / -1 as missing.
"""
import collections
import math

__all__ = ["numeric_column", "bucketized_column", "categorical_column_with_vocabulary_list",
           "categorical_column_with_identity", "indicator_column", "embedding_column"]


def _assert_key_is_string(key):
    if not isinstance(key, str):
        raise ValueError("key must be a string. Got: type {}. Given key: {}."
                         .format(type(key), key))


def raw_feature(features, key, missing=None):
    """features[key] as a dense tensor of rank >= 2 (a rank-1 batch gets a last axis)."""
    import tfteach as tf
    if key not in features:
        raise ValueError("Feature {} is not in features dictionary.".format(key))
    value = features[key]
    if isinstance(value, tf.SparseTensor):
        value = tf.sparse.to_dense(value, default_value=missing)
    value = tf.convert_to_tensor(value)
    if value.shape.ndims == 1:
        value = tf.expand_dims(value, -1)
    return value


class DenseColumn:
    """A column giving a float32 block of the input layer."""

    def dense_tensor(self, features, state):
        raise NotImplementedError


class CategoricalColumn:
    """A column giving ids in [0, num_buckets) ([batch, k], -1 for a missing value)."""

    def ids(self, features):
        raise NotImplementedError


class NumericColumn(DenseColumn, collections.namedtuple(
        "NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):

    @property
    def name(self):
        return self.key

    @property
    def variable_shape(self):
        return (int(math.prod(self.shape)),)

    def dense_tensor(self, features, state=None):
        import tfteach as tf
        value = raw_feature(features, self.key)
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        value = tf.cast(value, tf.float32)
        return tf.reshape(value, [-1, self.variable_shape[0]])


class BucketizedColumn(DenseColumn, CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ["source_column", "boundaries"])):

    @property
    def name(self):
        return "{}_bucketized".format(self.source_column.name)

    @property
    def num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.variable_shape[0]

    @property
    def variable_shape(self):
        return (self.num_buckets,)

    def _bucket_of_each_value(self, features):
        import tfteach as tf
        values = self.source_column.dense_tensor(features)
        boundaries = tf.constant(list(self.boundaries), dtype=tf.float32)
        # Bucket i holds boundaries[i-1] <= x < boundaries[i] (TF's Bucketize op).
        return tf.reduce_sum(tf.cast(tf.expand_dims(values, -1) >= boundaries, tf.int64), -1)

    def ids(self, features):
        import tfteach as tf
        buckets = self._bucket_of_each_value(features)
        # Element j of a multi-dimensional source has its own buckets (TF's offsets).
        n = self.source_column.variable_shape[0]
        offsets = tf.constant([j * (len(self.boundaries) + 1) for j in range(n)], tf.int64)
        return buckets + offsets

    def dense_tensor(self, features, state=None):
        import tfteach as tf
        one_hot = tf.one_hot(self._bucket_of_each_value(features), len(self.boundaries) + 1)
        return tf.reshape(one_hot, [-1, self.num_buckets])


class VocabularyListCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"])):

    @property
    def name(self):
        return self.key

    @property
    def num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    def ids(self, features):
        import tfteach as tf
        is_string = self.dtype == tf.string
        values = raw_feature(features, self.key, missing="" if is_string else -1)
        if values.dtype.is_integer != self.dtype.is_integer or \
                (values.dtype == tf.string) != is_string:
            raise ValueError("Column dtype and SparseTensors dtype must be compatible. key: "
                             "{}, column dtype: {}, tensor dtype: {}".format(
                                 self.key, self.dtype, values.dtype))
        if not is_string:
            values = tf.cast(values, tf.int64)
        vocabulary = tf.constant(list(self.vocabulary_list), dtype=values.dtype)
        matches = tf.equal(tf.expand_dims(values, -1), vocabulary)
        index = tf.argmax(tf.cast(matches, tf.int32), -1)
        missing = tf.equal(values, "" if is_string else -1)
        unknown = tf.fill(tf.shape(index), tf.constant(self.default_value, tf.int64))
        ids = tf.where(tf.reduce_any(matches, -1), index, unknown)
        return tf.where(missing, -tf.ones_like(ids), ids)


class IdentityCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ["key", "number_buckets", "default_value"])):

    @property
    def name(self):
        return self.key

    @property
    def num_buckets(self):
        return self.number_buckets

    def ids(self, features):
        import tfteach as tf
        values = raw_feature(features, self.key, missing=-1)
        if not values.dtype.is_integer:
            raise ValueError("Invalid input, not integer. key: {} dtype: {}".format(
                self.key, values.dtype))
        values = tf.cast(values, tf.int64)
        present = values >= 0
        if self.default_value is not None:
            in_range = tf.logical_and(present, values < self.num_buckets)
            default = tf.fill(tf.shape(values), tf.constant(self.default_value, tf.int64))
            return tf.where(in_range, values, tf.where(present, default, -tf.ones_like(values)))
        # No default: an id out of range is an error when running, as TF's assert ops.
        check = tf.assert_less(values, tf.constant(self.num_buckets, tf.int64),
                               name="assert_less_than_num_buckets")
        with tf.control_dependencies([check]):
            return tf.identity(values)


class IndicatorColumn(DenseColumn, collections.namedtuple("IndicatorColumn",
                                                          ["categorical_column"])):

    @property
    def name(self):
        return "{}_indicator".format(self.categorical_column.name)

    @property
    def variable_shape(self):
        return (self.categorical_column.num_buckets,)

    def dense_tensor(self, features, state=None):
        import tfteach as tf
        ids = self.categorical_column.ids(features)
        # The count of each id in the example (TF's indicator sums duplicate ids).
        return tf.reduce_sum(tf.one_hot(ids, self.categorical_column.num_buckets), 1)


class EmbeddingColumn(DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                            "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                            "trainable"])):

    @property
    def name(self):
        return "{}_embedding".format(self.categorical_column.name)

    @property
    def variable_shape(self):
        return (self.dimension,)

    def dense_tensor(self, features, state=None):
        import tfteach as tf
        weights = tf.get_variable(
            "embedding_weights", shape=[self.categorical_column.num_buckets, self.dimension],
            dtype=tf.float32, initializer=self.initializer, trainable=self.trainable)
        if self.ckpt_to_load_from is not None:
            tf.train.init_from_checkpoint(self.ckpt_to_load_from,
                                          {self.tensor_name_in_ckpt: weights})
        if state is not None:
            state.setdefault("variables", {})[self] = [weights]
        ids = self.categorical_column.ids(features)
        present = tf.cast(ids >= 0, tf.float32)
        rows = tf.gather(weights, tf.maximum(ids, 0))
        if self.max_norm is not None:
            rows = tf.clip_by_norm(rows, self.max_norm, axes=[2])
        total = tf.reduce_sum(rows * tf.expand_dims(present, -1), 1)
        if self.combiner == "sum":
            return total
        count = tf.reduce_sum(present, 1, keepdims=True)
        if self.combiner == "sqrtn":
            count = tf.sqrt(count)
        # An example with no id gives zeros (TF's safe_embedding_lookup_sparse).
        return tf.div_no_nan(total, count)


def numeric_column(key, shape=(1,), default_value=None, dtype=None, normalizer_fn=None):
    import tfteach as tf
    dtype = tf.float32 if dtype is None else tf.as_dtype(dtype)
    _assert_key_is_string(key)
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    for dimension in shape:
        if dimension < 1:
            raise ValueError("shape dimensions must be greater than 0. shape: {}, key: {}"
                             .format(shape, key))
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError("dtype must be convertible to float. dtype: {}, key: {}"
                         .format(dtype, key))
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError("normalizer_fn must be a callable. Given: {}".format(normalizer_fn))
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


def bucketized_column(source_column, boundaries):
    if not isinstance(source_column, NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). "
                         "Given: {}".format(source_column))
    if len(source_column.shape) > 1:
        raise ValueError("source_column must be one-dimensional column. Given: {}"
                         .format(source_column))
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                            default_value=-1, num_oov_buckets=0):
    import tfteach as tf
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError("vocabulary_list {} must be non-empty, column_name: {}"
                         .format(vocabulary_list, key))
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError("Duplicate keys in vocabulary_list {}, column_name: {}"
                         .format(vocabulary_list, key))
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError("Can't specify both default_value and num_oov_buckets.")
        if num_oov_buckets < 0:
            raise ValueError("Invalid num_oov_buckets {} in {}.".format(num_oov_buckets, key))
        # TF hashes out-of-vocabulary values with FarmHash Fingerprint64, which tfteach
        # does not reproduce: say so rather than give other buckets than TF.
        raise NotImplementedError("tfteach does not build num_oov_buckets (TF's FarmHash "
                                  "string hashing); use default_value instead.")
    vocabulary_dtype = tf.string if isinstance(vocabulary_list[0], (str, bytes)) \
        else tf.int64
    dtype = vocabulary_dtype if dtype is None else tf.as_dtype(dtype)
    if (dtype == tf.string) != (vocabulary_dtype == tf.string):
        raise ValueError("dtype {} and vocabulary dtype {} do not match, column_name: {}"
                         .format(dtype, vocabulary_dtype, key))
    _assert_key_is_string(key)
    return VocabularyListCategoricalColumn(key, tuple(vocabulary_list), dtype,
                                           default_value, 0)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    if num_buckets < 1:
        raise ValueError("num_buckets {} < 1, column_name {}".format(num_buckets, key))
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError("default_value {} not in range [0, {}), column_name {}"
                         .format(default_value, num_buckets, key))
    _assert_key_is_string(key)
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


def indicator_column(categorical_column):
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError("Unsupported input type. Input must be a CategoricalColumn. "
                         "Given: {}".format(categorical_column))
    return IndicatorColumn(categorical_column)


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    import tfteach as tf
    if dimension is None or dimension < 1:
        raise ValueError("Invalid dimension {}.".format(dimension))
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified. Embedding of column_name: "
                         "{}".format(categorical_column.name))
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'; got {}"
                         .format(combiner))
    if initializer is None:
        initializer = tf.truncated_normal_initializer(mean=0.0,
                                                      stddev=1 / math.sqrt(dimension))
    return EmbeddingColumn(categorical_column, dimension, combiner, initializer,
                           ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)
