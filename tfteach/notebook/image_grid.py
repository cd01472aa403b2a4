"""`tfteach.notebook.show_images`: images drawn inline in a grid with matplotlib, so an
image lesson shows every step (docs/image.md).

It takes what `sess.run` gives back: one image or several, as a list or a batch; each
[height, width], [height, width, 1] (grey), [height, width, 3] (RGB) or [.., 4] (RGBA),
uint8 (0..255) or float (0..1, as tf.image.convert_image_dtype makes them).
"""
import numpy as np

__all__ = ["show_images", "as_displayable"]


def as_displayable(image, rescale=False):
    """(array, cmap) that matplotlib's imshow shows as TF means the image: floats are
    clipped to [0, 1] (what imshow does, without its warning) or, with `rescale=True`,
    stretched from their min..max (for standardized images); grey is drawn grey."""
    image = np.asarray(image)
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)):
        raise ValueError("an image must be [height, width] or [height, width, 1, 3 or 4]; "
                         "got shape %s" % (image.shape,))
    if image.dtype == np.uint8:
        return image, ("gray" if image.ndim == 2 else None)
    if np.issubdtype(image.dtype, np.integer):       # uint16, int32...: 0..MAX
        image = image / np.iinfo(image.dtype).max
    image = image.astype(np.float64)
    if rescale:
        low, high = image.min(), image.max()
        image = (image - low) / (high - low) if high > low else np.zeros_like(image)
    return np.clip(image, 0.0, 1.0), ("gray" if image.ndim == 2 else None)


def _as_list(images):
    if isinstance(images, (list, tuple)):
        return [np.asarray(i) for i in images]
    images = np.asarray(images)
    if images.ndim == 4 or (images.ndim == 3 and images.shape[2] not in (1, 3, 4)):
        return list(images)          # a batch
    return [images]


def show_images(images, titles=None, cols=4, size=3.0, rescale=False, show=True):
    """Draws `images` in a grid of `cols` columns, each `size` inches wide, with
    `titles` above them. With `show=True` (the default) the figure is shown now (inline
    in Jupyter) and None is returned, so a cell ending with this call does not show it
    twice; `show=False` returns the matplotlib Figure instead."""
    import matplotlib.pyplot as plt
    images = _as_list(images)
    if titles is not None and len(titles) != len(images):
        raise ValueError("%d titles for %d images" % (len(titles), len(images)))
    cols = max(1, min(cols, len(images)))
    rows = -(-len(images) // cols)
    first = np.asarray(images[0])
    aspect = first.shape[0] / max(first.shape[1], 1)
    figure, axes = plt.subplots(rows, cols, figsize=(size * cols, size * aspect * rows + 0.4),
                                squeeze=False)
    for k, axis in enumerate(axes.ravel()):
        axis.axis("off")
        if k >= len(images):
            continue
        picture, cmap = as_displayable(images[k], rescale)
        axis.imshow(picture, cmap=cmap, vmin=0, vmax=255 if picture.dtype == np.uint8 else 1)
        if titles is not None:
            axis.set_title(str(titles[k]), fontsize=10)
    figure.tight_layout()
    if show:
        plt.show()
        return None
    return figure
