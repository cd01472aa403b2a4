"""How fast would the LSTM step be with a leaner loop, or compiled loops? (issue 20)

    python bench/compiled_lstm.py [--rounds 12] [--pairs 300]

Issue 20 asks for bench/nn_steps.py's 2-layer LSTM training step in at most 0.8x
TensorFlow's time. tfteach runs each loop iteration as sub-plans of graph ops (a fused
cell kernel, a GEMM, a few small ops; docs/rnn.md). This script measures what two other
designs of the same step reach, instead of estimating it:

- "compiled loops": each layer's forward and backward loop as one Numba function, with
  nothing between the ops but compiled code. Every product is NumPy's own BLAS (its
  OpenBLAS's `cblas_sgemm`, called through ctypes from the compiled code) on the shapes
  tfteach multiplies: [x_t, h] @ W each time step, dgates @ W^T with W transposed once,
  each layer's weight gradient as one product over all 20 time steps
  (loop_sums.Products). `exp` and `tanh` are NumPy's own float32 loops
  (kernels/cpu/numpy_loops.py, as the fused cell kernels call them), the other
  arithmetic exactly rounded. What the backward loop reads is written to
  [time, batch, ...] buffers as the forward loop makes it.
- "python loop": Python runs the loops with five calls a layer and time step (the
  concatenation, NumPy's matmul and the same compiled cell forward; the cell's
  gradient, the matmul and two slices backward), every value a new array as tfteach's
  kernels make them: what an executor whose iteration is a handful of calls would cost.

Both compute the hand-written NumPy step's numbers (nn_steps.numpy_lstm), and the script
says whether they are the same bits. Then it times them, the NumPy step, tfteach and
TensorFlow in turns (nn_steps.interleaved_times) and prints each one's best and median,
and their ratios to TensorFlow and to tfteach. They are bounds, not designs: they know
their graph in advance, check no shape, raise no TensorFlow error and handle one cell
type. A design that does those things costs at least this much.

`--pairs N` also runs the steps one each in turn, N rounds, and prints each one's ratio
to tfteach's step of the same round: a steadier figure for how far tfteach is from these
bounds than the ratio of two medians (nn_steps.paired_times).

Needs NumPy's bundled OpenBLAS with 64-bit integers (NumPy's wheels) and NumPy's own
exp/tanh loops (numpy_loops.py, as the fused cells); elsewhere it says so and stops.
"""
import argparse
import ctypes
import glob
import os
import statistics
import sys

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import nn_steps  # noqa: E402  (bench/ is not a package)
from _common import cpu_model  # noqa: E402

# cblas's enums: row-major storage; an operand as it is or transposed.
ROW_MAJOR, AS_IS, TRANSPOSED = 101, 111, 112
# NumPy's OpenBLAS exports its CBLAS with a prefix and a suffix for 64-bit integers
# (NumPy >= 2: scipy_openblas64; NumPy 1.2x: openblas64_).
CBLAS_NAMES = ("scipy_cblas_sgemm64_", "cblas_sgemm64_")


def numpy_sgemm():
    """NumPy's own `cblas_sgemm` (64-bit integers) as a ctypes function, or None."""
    numpy_dir = os.path.dirname(np.__file__)
    libraries = (glob.glob(os.path.join(numpy_dir, "..", "numpy.libs", "*openblas*")) +
                 glob.glob(os.path.join(numpy_dir, ".libs", "*openblas*")))
    for path in libraries:
        library = ctypes.CDLL(path)
        for name in CBLAS_NAMES:
            function = getattr(library, name, None)
            if function is not None:
                i64, pointer = ctypes.c_int64, ctypes.c_void_p
                function.argtypes = [i64, i64, i64, i64, i64, i64, ctypes.c_float, pointer,
                                     i64, pointer, i64, ctypes.c_float, pointer, i64]
                function.restype = None
                return function
    return None


def compile_step_functions(sgemm):
    """(forward, backward, cell_forward, cell_backward): one layer's loops compiled
    around `sgemm`, and the cell of one time step each way that they call."""
    from tfteach.kernels.cpu.numpy_loops import call_loop
    one, zero = np.float32(1), np.float32(0)

    @njit(inline="always")
    def gemm(transpose_a, transpose_b, m, n, k, a, lda, b, ldb, c, ldc):
        """c = op(a) @ op(b), row-major."""
        sgemm(ROW_MAJOR, transpose_a, transpose_b, m, n, k, one, a.ctypes.data, lda,
              b.ctypes.data, ldb, zero, c.ctypes.data, ldc)

    @njit(inline="always")
    def numpy_loop(loop, row, meta):
        """row = ufunc(row) in place, by NumPy's own loop (`loop`: address, context,
        auxdata), as its ufunc computes a contiguous float32 array."""
        meta[0] = meta[1] = row.ctypes.data
        meta[2], meta[3], meta[4] = row.shape[0], 4, 4
        call_loop(loop[0], loop[1], meta.ctypes.data, meta[2:].ctypes.data,
                  meta[3:].ctypes.data, loop[2])

    @njit(inline="always")
    def sigmoid(exp, z, bias, plus, out, meta):
        """out = 1 / (1 + exp(-(z + bias + plus))), plus the forget bias 1 or nothing:
        the NumPy step's `one / (one + np.exp(-v))`, pass by pass."""
        for q in range(out.shape[0]):
            v = z[q] + bias[q]
            if plus:
                v = v + one
            out[q] = -v
        numpy_loop(exp, out, meta)
        for q in range(out.shape[0]):
            out[q] = one / (one + out[q])

    @njit(nogil=True)
    def cell_forward(loops, gates, b, c_prev, c, i, j, f, o, tc, h):
        """One time step's cell from its gates' product [batch, 4 units] (TF's
        LSTMCell: i, j, f, o; forget bias 1): the gates' activations, the cell c and
        the output h, each [batch, units]."""
        units = c.shape[1]
        exp, tanh = loops[0], loops[1]
        meta = np.empty(8, np.int64)
        for r in range(c.shape[0]):
            g = gates[r]
            sigmoid(exp, g[:units], b[:units], False, i[r], meta)
            for q in range(units):
                j[r, q] = g[units + q] + b[units + q]
            numpy_loop(tanh, j[r], meta)
            sigmoid(exp, g[2 * units:3 * units], b[2 * units:3 * units], True, f[r], meta)
            sigmoid(exp, g[3 * units:], b[3 * units:], False, o[r], meta)
            for q in range(units):
                c[r, q] = c_prev[r, q] * f[r, q] + i[r, q] * j[r, q]
                tc[r, q] = c[r, q]
            numpy_loop(tanh, tc[r], meta)
            for q in range(units):
                h[r, q] = tc[r, q] * o[r, q]

    @njit(nogil=True)
    def cell_backward(dh, d_out, dc, i, j, f, o, tc, c_prev, g):
        """One time step's gradient of the gates g [batch, 4 units] from the output's
        (dh + d_out) and the cell's (dc); dc becomes the previous step's (the NumPy
        step's formulas in its order)."""
        units = dh.shape[1]
        for r in range(dh.shape[0]):
            for q in range(units):
                dhv = dh[r, q] + d_out[r, q]
                iv, jv, fv, ov, tcv = i[r, q], j[r, q], f[r, q], o[r, q], tc[r, q]
                dcv = dc[r, q] + dhv * ov * (one - tcv * tcv)
                g[r, q] = dcv * jv * iv * (one - iv)
                g[r, units + q] = dcv * iv * (one - jv * jv)
                g[r, 2 * units + q] = dcv * c_prev[r, q] * fv * (one - fv)
                g[r, 3 * units + q] = dhv * tcv * ov * (one - ov)
                dc[r, q] = dcv * fv

    @njit(nogil=True)
    def forward(loops, w, b, inputs, xh, gates, c, i, j, f, o, tc, h, zeros):
        """One layer over every time step: xh[t] = [inputs[t], h[t-1]], the gates'
        product xh[t] @ w, the cell. Keeps what the backward loop reads."""
        steps, batch, width = inputs.shape
        units = h.shape[2]
        for t in range(steps):
            for r in range(batch):
                for q in range(width):
                    xh[t, r, q] = inputs[t, r, q]
                for q in range(units):
                    xh[t, r, width + q] = h[t - 1, r, q] if t > 0 else zero
            gemm(AS_IS, AS_IS, batch, 4 * units, width + units, xh[t], width + units, w,
                 4 * units, gates, 4 * units)
            cell_forward(loops, gates, b, c[t - 1] if t > 0 else zeros, c[t], i[t], j[t],
                         f[t], o[t], tc[t], h[t])

    @njit(nogil=True)
    def backward(w, w_t, b, lr, xh, c, i, j, f, o, tc, d_h_out, d_gates, d_xh, d_inputs,
                 d_w, zeros):
        """One layer's backpropagation through time, last step first, then its SGD
        update: the weight gradient one product over all steps, the bias gradient the
        column sums in row order."""
        steps, batch, units = i.shape
        k = xh.shape[2]
        width = k - units
        dh = np.zeros((batch, units), np.float32)
        dc = np.zeros((batch, units), np.float32)
        for t in range(steps - 1, -1, -1):
            cell_backward(dh, d_h_out[t], dc, i[t], j[t], f[t], o[t], tc[t],
                          c[t - 1] if t > 0 else zeros, d_gates[t])
            gemm(AS_IS, AS_IS, batch, k, 4 * units, d_gates[t], 4 * units, w_t, k, d_xh, k)
            for r in range(batch):
                for q in range(width):
                    d_inputs[t, r, q] = d_xh[r, q]
                for q in range(units):
                    dh[r, q] = d_xh[r, width + q]
        gemm(TRANSPOSED, AS_IS, k, 4 * units, steps * batch, xh, k, d_gates, 4 * units,
             d_w, 4 * units)
        for p in range(k):
            for q in range(4 * units):
                w[p, q] -= lr * d_w[p, q]
        rows = d_gates.reshape(steps * batch, 4 * units)
        for q in range(4 * units):
            total = zero
            for r in range(steps * batch):
                total += rows[r, q]
            b[q] -= lr * total

    return forward, backward, cell_forward, cell_backward


def exp_tanh_loops():
    """NumPy's float32 exp and tanh loops as the fused cells take them, or None where
    calling them on pieces of an array would change its bits (numpy_loops.safe_loops)."""
    from tfteach.kernels.cpu import numpy_loops
    return numpy_loops.safe_loops((np.exp, np.tanh), np.float32)


def compiled_lstm(functions):
    """The lstm row's training step (nn_steps.numpy_lstm's numbers) on the compiled
    loops; `.variables` as numpy_lstm's."""
    forward, backward = functions[:2]
    loops = exp_tanh_loops()
    x_val, y_val, layers, w_out = nn_steps.lstm_data()
    batch, steps, units = x_val.shape[0], x_val.shape[1], w_out.shape[0]
    lr = np.float32(0.1)
    zeros = np.zeros((batch, units), np.float32)

    def buffers(width):
        def empty(*shape):
            return np.empty(shape, np.float32)
        kept = {name: empty(steps, batch, units) for name in "c i j f o tc h".split()}
        return dict(kept, xh=empty(steps, batch, width + units),
                    gates=empty(batch, 4 * units), d_gates=empty(steps, batch, 4 * units),
                    d_xh=empty(batch, width + units), d_inputs=empty(steps, batch, width),
                    d_w=empty(width + units, 4 * units))
    work = [buffers(w.shape[0] - units) for w, _ in layers]

    def step():
        inputs = np.ascontiguousarray(x_val.transpose(1, 0, 2))    # time-major
        for (w, b), k in zip(layers, work):
            forward(loops, w, b, inputs, k["xh"], k["gates"], k["c"], k["i"], k["j"],
                    k["f"], k["o"], k["tc"], k["h"], zeros)
            inputs = k["h"]
        last = inputs[-1]
        d_logits = nn_steps._softmax_xent_grad(last @ w_out, y_val)
        d_w_out = last.T @ d_logits
        d_h_out = np.zeros((steps, batch, units), np.float32)
        d_h_out[-1] = d_logits @ w_out.T
        for (w, b), k in reversed(list(zip(layers, work))):
            w_t = np.ascontiguousarray(w.T)          # once a loop, as loop_hoisting does
            backward(w, w_t, b, lr, k["xh"], k["c"], k["i"], k["j"], k["f"], k["o"],
                     k["tc"], d_h_out, k["d_gates"], k["d_xh"], k["d_inputs"], k["d_w"],
                     zeros)
            d_h_out = k["d_inputs"]
        w_out[...] -= lr * d_w_out
    step.variables = [v for layer in layers for v in layer] + [w_out]
    return step


def python_loop_lstm(functions):
    """The same step with Python running the loops, as tfteach's executor does, but
    with five calls a layer and time step: the concatenation, the product (NumPy's
    matmul) and the compiled cell forward; the cell's gradient, the product and two
    slices backward. Every value a new array, as the executor's kernels make them."""
    cell_forward, cell_backward = functions[2:]
    loops = exp_tanh_loops()
    x_val, y_val, layers, w_out = nn_steps.lstm_data()
    batch, steps, units = x_val.shape[0], x_val.shape[1], w_out.shape[0]
    lr = np.float32(0.1)

    def empty(*shape):
        return np.empty(shape, np.float32)

    def step():
        inputs = [np.ascontiguousarray(x_val[:, t]) for t in range(steps)]
        kept_by_layer = []
        for w, b in layers:
            h = c = np.zeros((batch, units), np.float32)
            outputs, kept = [], []
            for x in inputs:
                xh = np.concatenate([x, h], axis=1)
                new = [empty(batch, units) for _ in range(7)]      # c, i, j, f, o, tc, h
                cell_forward(loops, xh @ w, b, c, *new)
                kept.append([xh, c] + new[1:6])
                c, h = new[0], new[6]
                outputs.append(h)
            kept_by_layer.append(kept)
            inputs = outputs
        d_logits = nn_steps._softmax_xent_grad(inputs[-1] @ w_out, y_val)
        d_w_out = inputs[-1].T @ d_logits
        d_outputs = [np.zeros((batch, units), np.float32)] * (steps - 1) + [
            d_logits @ w_out.T]
        for (w, b), kept in reversed(list(zip(layers, kept_by_layer))):
            w_t = np.ascontiguousarray(w.T)
            width = w.shape[0] - units
            dh, dc = np.zeros((batch, units), np.float32), np.zeros((batch, units), np.float32)
            d_gates, d_inputs = [None] * steps, [None] * steps
            for t in reversed(range(steps)):
                xh, c_prev, i, j, f, o, tc = kept[t]
                g = empty(batch, 4 * units)
                cell_backward(dh, d_outputs[t], dc, i, j, f, o, tc, c_prev, g)
                d_xh = g @ w_t
                d_inputs[t], dh = d_xh[:, :width], np.ascontiguousarray(d_xh[:, width:])
                d_gates[t] = g
            d_gates = np.concatenate(d_gates)
            w -= lr * (np.concatenate([k[0] for k in kept]).T @ d_gates)
            b -= lr * d_gates.sum(axis=0)
            d_outputs = d_inputs
        w_out[...] -= lr * d_w_out
    step.variables = [v for layer in layers for v in layer] + [w_out]
    return step


VARIANTS = {"compiled loops": compiled_lstm, "python loop": python_loop_lstm}


def same_bits(make_step, functions, steps=2):
    """Whether `make_step(functions)` and nn_steps.numpy_lstm leave the same bits in
    every variable after `steps` steps, and the largest difference."""
    ours, theirs = make_step(functions), nn_steps.numpy_lstm()
    for _ in range(steps):
        ours()
        theirs()
    largest = max(float(np.abs(a - b).max()) for a, b in zip(ours.variables, theirs.variables))
    same = all(np.array_equal(a.view(np.uint32), b.view(np.uint32))
               for a, b in zip(ours.variables, theirs.variables))
    return same, largest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--pairs", type=int, default=0, metavar="N",
                        help="also run the steps one each in turn, N rounds, and print "
                             "each one's ratio to tfteach round by round")
    args = parser.parse_args()
    sgemm = numpy_sgemm()
    if sgemm is None:
        print("NumPy's BLAS has no 64-bit cblas_sgemm here (%s): nothing to measure."
              % ", ".join(CBLAS_NAMES))
        return
    if exp_tanh_loops() is None:
        print("NumPy's exp/tanh loops cannot be called on rows here with the same bits "
              "(numpy_loops.chunk_safe): nothing to measure.")
        return
    functions = compile_step_functions(sgemm)
    print("LSTM step, %s" % cpu_model())
    for label, make_step in VARIANTS.items():
        same, largest = same_bits(make_step, functions)
        print("  %s: the NumPy step's %s (largest difference %.3g after 2 steps)"
              % (label, "bits" if same else "numbers, not its bits", largest))
    import tfteach
    steps = {label: make_step(functions) for label, make_step in VARIANTS.items()}
    steps["numpy"] = nn_steps.numpy_lstm()
    steps["tfteach"] = nn_steps.graph_step(tfteach, nn_steps.lstm_graph)
    tf1 = nn_steps.import_tf1()
    if tf1 is not None:
        steps["tf"] = nn_steps.graph_step(tf1, nn_steps.lstm_graph)
    for _ in range(40):          # tfteach's fused cells compile once they have run a while
        steps["tfteach"]()
    times = nn_steps.interleaved_times(steps, 5, args.rounds)
    summary = {label: (min(v), statistics.median(v)) for label, v in times.items()}
    print("Interleaved: %d rounds, each in turn; ms per step, best / median"
          % args.rounds)
    print("%-15s %16s %16s %16s" % ("", "ms", "/ tf", "/ tfteach"))
    for label, (best, median) in summary.items():
        ratios = []
        for other in ("tf", "tfteach"):
            if other in summary:
                ratios.append("%5.2f, %5.2f" % (best / summary[other][0],
                                                median / summary[other][1]))
            else:
                ratios.append("-")
        print("%-15s %7.2f / %6.2f %16s %16s" % (label, best, median, *ratios))
    if args.pairs:
        print_pairs(steps, args.pairs)


def print_pairs(steps, rounds):
    """The steps one each in turn (nn_steps.paired_times): each one's median ms and its
    ratio to tfteach's step of the same round (median, p25-p75)."""
    times = nn_steps.paired_times(steps, rounds)
    print("One step each in turn: %d rounds; ms median, and the ratio to tfteach's step "
          "of the same round, median (p25-p75)" % rounds)
    for label, values in times.items():
        median, low, high = nn_steps.paired_ratios(times, label, "tfteach")
        print("%-15s %7.2f ms   %5.2f (%4.2f-%4.2f)"
              % (label, statistics.median(values), median, low, high))
    if "tf" in times:
        print("(TensorFlow starts each of its steps cold here, after the others': its "
              "ratios in turns above are the fair ones)")


if __name__ == "__main__":
    main()
