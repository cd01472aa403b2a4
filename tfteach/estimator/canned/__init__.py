"""The canned Estimators: linear and DNN classifiers and regressors, and their heads."""
from tfteach.estimator.canned.dnn import DNNClassifier, DNNRegressor
from tfteach.estimator.canned.linear import LinearClassifier, LinearRegressor

__all__ = ["DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor"]
