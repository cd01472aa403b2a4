"""Saving Keras models: HDF5 files in Keras 2's layout (hdf5_format.py)."""
