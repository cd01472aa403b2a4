"""`ImageDataGenerator`: random rotations, shifts, zooms and flips of image batches.

Only the augmentations the course notes use are built: rotation_range (degrees),
width_shift_range / height_shift_range (fraction of the size, or pixels if >= 1),
zoom_range, horizontal_flip, vertical_flip, rescale, fill_mode/cval. Each image gets
its own random transform, applied as one affine map with SciPy (bilinear, 'nearest'
edges by default), as Keras does. `flow(x, y, batch_size)` yields batches forever;
`model.fit_generator(gen.flow(...), steps_per_epoch=..., epochs=...)` trains on them.
Images are channels_last [N, rows, cols, channels].
"""
import numpy as np

__all__ = ["ImageDataGenerator", "NumpyArrayIterator"]

_UNSUPPORTED = ("featurewise_center", "samplewise_center",
                "featurewise_std_normalization", "samplewise_std_normalization",
                "zca_whitening", "shear_range", "channel_shift_range",
                "brightness_range", "preprocessing_function")


class ImageDataGenerator:
    def __init__(self, rotation_range=0, width_shift_range=0., height_shift_range=0.,
                 zoom_range=0., horizontal_flip=False, vertical_flip=False, rescale=None,
                 fill_mode="nearest", cval=0., data_format="channels_last",
                 validation_split=0.0, dtype="float32", **kwargs):
        for key, value in kwargs.items():
            if key in _UNSUPPORTED and value:
                raise NotImplementedError("ImageDataGenerator(%s=...) is not built in "
                                          "tfteach" % key)
        self.rotation_range = rotation_range
        self.width_shift_range, self.height_shift_range = width_shift_range, \
            height_shift_range
        if np.isscalar(zoom_range):
            zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) != 2:
            raise ValueError("`zoom_range` should be a float or a tuple or list of two "
                             "floats. Received: %s" % (zoom_range,))
        self.zoom_range = [float(z) for z in zoom_range]
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale, self.fill_mode, self.cval = rescale, fill_mode, cval
        self.dtype = dtype

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Only featurewise statistics need fitting; none are built, so nothing to do."""

    def _shift(self, spec, size, rng):
        if not spec:
            return 0.
        spread = spec * size if spec < 1 else spec
        return rng.uniform(-spread, spread)

    def random_transform(self, x, seed=None, rng=None):
        """One randomly transformed copy of the image `x` [rows, cols, channels]."""
        rng = rng or np.random.RandomState(seed)
        rows, cols = x.shape[0], x.shape[1]
        theta = np.deg2rad(rng.uniform(-self.rotation_range, self.rotation_range)) \
            if self.rotation_range else 0.
        tx = self._shift(self.height_shift_range, rows, rng)
        ty = self._shift(self.width_shift_range, cols, rng)
        zx, zy = (1., 1.) if self.zoom_range == [1., 1.] else \
            rng.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        rotation = np.array([[np.cos(theta), -np.sin(theta), 0],
                             [np.sin(theta), np.cos(theta), 0], [0, 0, 1]])
        shift = np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])
        zoom = np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]])
        matrix = rotation @ shift @ zoom
        # About the image centre, as Keras' transform_matrix_offset_center.
        ox, oy = rows / 2. - 0.5, cols / 2. - 0.5
        centre = np.array([[1, 0, ox], [0, 1, oy], [0, 0, 1]])
        back = np.array([[1, 0, -ox], [0, 1, -oy], [0, 0, 1]])
        matrix = centre @ matrix @ back
        from scipy import ndimage     # here: importing SciPy's ndimage takes ~0.15 s
        out = np.stack([ndimage.affine_transform(x[..., c], matrix[:2, :2],
                                                 matrix[:2, 2], order=1,
                                                 mode=self.fill_mode, cval=self.cval)
                        for c in range(x.shape[-1])], axis=-1)
        if self.horizontal_flip and rng.rand() < 0.5:
            out = out[:, ::-1]
        if self.vertical_flip and rng.rand() < 0.5:
            out = out[::-1]
        return out

    def flow(self, x, y=None, batch_size=32, shuffle=True, seed=None):
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle,
                                  seed=seed)

    def standardize(self, x):
        return x * self.rescale if self.rescale else x


class NumpyArrayIterator:
    """Endless batches (x_batch, y_batch) of transformed images."""

    def __init__(self, x, y, generator, batch_size=32, shuffle=True, seed=None):
        self.x = np.asarray(x, dtype=generator.dtype)
        if self.x.ndim != 4:
            raise ValueError("Input data in `NumpyArrayIterator` should have rank 4. You "
                             "passed an array with shape %s" % (self.x.shape,))
        self.y = None if y is None else np.asarray(y)
        if self.y is not None and len(self.y) != len(self.x):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same "
                             "length. Found: x.shape = %s, y.shape = %s"
                             % (self.x.shape, self.y.shape))
        self.generator, self.batch_size, self.shuffle = generator, batch_size, shuffle
        self.rng = np.random.RandomState(seed)
        self.n = len(self.x)
        self._order, self._position = None, 0

    def __len__(self):
        return int(np.ceil(self.n / float(self.batch_size)))

    def __iter__(self):
        return self

    def __next__(self):
        if self._order is None or self._position >= self.n:
            self._order = self.rng.permutation(self.n) if self.shuffle else \
                np.arange(self.n)
            self._position = 0
        index = self._order[self._position:self._position + self.batch_size]
        self._position += self.batch_size
        batch = np.stack([self.generator.standardize(
            self.generator.random_transform(self.x[i], rng=self.rng)) for i in index])
        return batch if self.y is None else (batch, self.y[index])

    next = __next__
