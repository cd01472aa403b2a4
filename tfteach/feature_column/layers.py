"""`tf.feature_column.input_layer` and `linear_model`: a batch of features through a list
of columns into one model input, with TF 1.15's variable names.

  input_layer   concat([column block for each column sorted by name], axis 1), each
                column built in the variable scope `input_layer/<column name>` (an
                embedding's matrix is `input_layer/<key>_embedding/embedding_weights`);
  linear_model  sum over columns of (column input @ `linear_model/<column>/weights`)
                + `linear_model/bias_weights`; a categorical column contributes the sum of
                the weight rows of its ids (TF's sparse_combiner="sum").
"""
from tfteach.feature_column.columns import CategoricalColumn, DenseColumn

__all__ = ["input_layer", "linear_model"]


def _clean_feature_columns(feature_columns):
    if isinstance(feature_columns, (DenseColumn, CategoricalColumn)):
        feature_columns = [feature_columns]
    feature_columns = list(feature_columns or [])
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    name_to_column = {}
    for column in feature_columns:
        if column.name in name_to_column:
            raise ValueError(
                "Duplicate feature column name found for columns: {} and {}. This usually "
                "means that these columns refer to same base feature. Either one must be "
                "discarded or a duplicated but renamed item must be inserted in features "
                "dict.".format(column, name_to_column[column.name]))
        name_to_column[column.name] = column
    return sorted(feature_columns, key=lambda column: column.name)


def _check_features(features):
    if not isinstance(features, dict):
        raise ValueError("We expected a dictionary here. Instead we got: {}".format(features))


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The float32 [batch, sum of the columns' widths] input of a model."""
    import tfteach as tf
    _check_features(features)
    columns = _clean_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, DenseColumn):
            raise ValueError("Items of feature_columns must be a _DenseColumn. You can wrap a "
                             "categorical column with an embedding_column or "
                             "indicator_column. Given: {}".format(column))
    blocks = []
    with tf.variable_scope(None, default_name="input_layer"):
        for column in columns:
            with tf.variable_scope(None, default_name=column.name):
                state = {}
                block = column.dense_tensor(features, state)
                block = tf.reshape(block, [-1, column.variable_shape[0]])
                if cols_to_vars is not None:
                    cols_to_vars[column] = state.get("variables", {}).get(column, [])
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = block
                blocks.append(block)
        return tf.concat(blocks, 1)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """Logits [batch, units] of a linear model over the columns (zeros-initialised)."""
    import tfteach as tf
    _check_features(features)
    if sparse_combiner != "sum":
        raise NotImplementedError("tfteach's linear_model combines a categorical column's "
                                  "weights by 'sum' only (TF's default).")
    columns = _clean_feature_columns(feature_columns)
    terms = []
    with tf.variable_scope(None, default_name="linear_model"):
        for column in columns:
            with tf.variable_scope(None, default_name=column.name):
                if isinstance(column, CategoricalColumn):
                    rows = column.num_buckets
                    counts = tf.reduce_sum(tf.one_hot(column.ids(features), rows), 1)
                else:
                    rows = column.variable_shape[0]
                    counts = column.dense_tensor(features, {})
                weights = tf.get_variable("weights", shape=[rows, units], dtype=tf.float32,
                                          initializer=tf.zeros_initializer(),
                                          trainable=trainable)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [weights]
                terms.append(tf.matmul(tf.reshape(counts, [-1, rows]), weights,
                                       name="weighted_sum"))
        bias = tf.get_variable("bias_weights", shape=[units], dtype=tf.float32,
                               initializer=tf.zeros_initializer(), trainable=trainable)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return tf.nn.bias_add(tf.add_n(terms), bias, name="weighted_sum")
