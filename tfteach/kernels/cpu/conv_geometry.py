"""Where a convolution's windows fall: output sizes and padding, TensorFlow's arithmetic.

One spatial dimension at a time (TF's `GetWindowedOutputSizeVerboseV2`):

- the *effective* filter size of a filter of size k dilated by d is (k - 1) * d + 1;
- VALID: no padding, out = (in - effective + stride) / stride, i.e. the number of
  window positions that fit entirely inside the input;
- SAME: out = ceil(in / stride); the padding needed to make the last window fit,
  max(0, (out - 1) * stride + effective - in), is split with the smaller half *before*
  (top / left) and the extra element *after* (bottom / right);
- EXPLICIT: the caller's (before, after) padding, then as VALID.

The division is C++'s (it truncates towards zero), so a window 1 larger than the input
gives out = 0 (an empty result) and only a larger one is an error, exactly as in TF.
Also used for the depthwise and backprop kernels; pure Python, no NumPy needed.
"""

__all__ = ["effective_size", "c_div", "windowed_output_size", "ConvParams", "layout_axes"]


def effective_size(filter_size, dilation):
    """Size of the input window a dilated filter covers."""
    return (filter_size - 1) * dilation + 1


def c_div(a, b):
    """Integer division truncating towards zero (C++), not flooring (Python)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def windowed_output_size(input_size, filter_size, dilation, stride, padding,
                         explicit=(0, 0)):
    """(output_size, pad_before, pad_after) of one spatial dimension.

    Raises ValueError with TF's runtime text when the output size would be negative.
    """
    effective = effective_size(filter_size, dilation)
    if padding == "SAME":
        out = c_div(input_size + stride - 1, stride)
        needed = max(0, (out - 1) * stride + effective - input_size)
        before = needed // 2              # TF puts the odd element at the bottom/right
        after = needed - before
    else:
        before, after = (0, 0) if padding == "VALID" else explicit
        out = c_div(input_size + before + after - effective + stride, stride)
    if out < 0:
        raise ValueError("Computed output size would be negative: %d [input_size: %d, "
                         "effective_filter_size: %d, stride: %d]"
                         % (out, input_size, effective, stride))
    return out, before, after


def layout_axes(data_format):
    """(batch, height, width, channel) axes of a 4-D tensor in `data_format`."""
    return (0, 2, 3, 1) if data_format == "NCHW" else (0, 1, 2, 3)


class ConvParams:
    """A convolution's attributes read in H/W terms: strides, dilations, padding.

    `from_attrs` checks what TF's kernel constructors check (its texts); the H and W
    entries of the 4-element lists are picked by `data_format`.
    """

    def __init__(self, strides, dilations, padding, explicit, data_format):
        self.strides = strides          # (stride_h, stride_w)
        self.dilations = dilations      # (dilation_h, dilation_w)
        self.padding = padding          # "SAME", "VALID" or "EXPLICIT"
        self.explicit = explicit        # ((top, bottom), (left, right))
        self.data_format = data_format

    @classmethod
    def from_attrs(cls, attrs):
        """Raises ValueError(TF's message) for malformed strides / dilations."""
        fmt = attrs.get("data_format", "NHWC")
        n, h, w, c = layout_axes(fmt)
        strides = list(attrs["strides"])
        dilations = list(attrs.get("dilations", [1, 1, 1, 1]))
        # The backprop ops have no static check of these (their shape functions read only
        # input_sizes / filter_sizes); without these a zero stride divided by zero and a
        # short list indexed out of range. Texts: TF's kernel constructors.
        if len(strides) != 4:
            raise ValueError("Sliding window strides field must specify 4 dimensions")
        if strides[n] != 1 or strides[c] != 1:
            raise ValueError("Current implementation does not yet support strides in the "
                             "batch and depth dimensions.")
        if strides[h] <= 0 or strides[w] <= 0:
            raise ValueError("Row and column strides should be larger than 0.")
        if len(dilations) != 4:
            raise ValueError("Sliding window dilations field must specify 4 dimensions")
        if dilations[n] != 1 or dilations[c] != 1:
            raise ValueError("Current implementation does not yet support dilations in the "
                             "batch and depth dimensions.")
        if dilations[h] <= 0 or dilations[w] <= 0:
            raise ValueError("Dilated rates should be larger than 0.")
        pads = list(attrs.get("explicit_paddings", [])) or [0] * 8
        explicit = ((pads[2 * h], pads[2 * h + 1]), (pads[2 * w], pads[2 * w + 1]))
        return cls((strides[h], strides[w]), (dilations[h], dilations[w]), attrs["padding"],
                   explicit, fmt)

    def output_geometry(self, in_h, in_w, k_h, k_w):
        """((out_h, pad_top, pad_bottom), (out_w, pad_left, pad_right))."""
        rows = windowed_output_size(in_h, k_h, self.dilations[0], self.strides[0],
                                    self.padding, self.explicit[0])
        cols = windowed_output_size(in_w, k_w, self.dilations[1], self.strides[1],
                                    self.padding, self.explicit[1])
        return rows, cols
