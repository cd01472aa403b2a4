"""Keras' engine: the Layer, the functional graph of layers (Network), Sequential, and
the training loop (compile/fit/evaluate/predict)."""
