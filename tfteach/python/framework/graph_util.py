"""`tensorflow.python.framework.graph_util`, as the notes import it."""
from tfteach.framework.graph_util import *  # noqa: F401,F403
from tfteach.framework.graph_util import (convert_variables_to_constants,  # noqa: F401
                                          extract_sub_graph, remove_training_nodes)
