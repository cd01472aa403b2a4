"""One Numba kernel for a region of elementwise float32 ops on matrices (an RNN cell).

elementwise_regions.py finds the region and describes it as a `Program`; this module
writes the kernel's Python source, compiles it with Numba (cached on disk, as
fused_arithmetic.py's kernels are) and runs it. The kernel walks the batch's rows and,
for each row, does the region's ops in order, each op one loop over the row that
writes memory (an output's row, or a scratch row for a value no other step reads):

- exactly rounded arithmetic (`+ - * /`, negation, square, AddN's sums in order,
  BiasAdd's `x + bias`) is Numba's own: IEEE 754 gives the one correct result, and
  Numba compiles without fastmath (fused_arithmetic.py says what else keeps the bits);
- `Exp`, `Tanh`, and the `exp` inside `Sigmoid` (its kernel's four passes: negate,
  exp, + 1, reciprocal, elementwise.sigmoid), are NumPy's own float32 loops, and
  `SigmoidGrad`/`TanhGrad` the loops of their Numba ufuncs (grad_kernels.py), called
  through kernels/cpu/numpy_loops.py: the ops' own code, so the same bits;
- `Split` along the columns is an offset into its input's row (no copy, as the op's
  views); `ConcatV2` along the columns copies each input's row into its place;
- `BiasAddGrad` (a column sum) adds each row into its sum as the row is made, in row
  order from +0.0: the bits of BiasAddGrad's kernel, whose row loop
  (kernels/cpu/channel_loops.py) and NumPy's `np.sum(x, axis=0)` on a C-contiguous
  matrix of at least two columns both add the rows in order from +0.0 (NumPy sums a
  single column, or a matrix in F order, pairwise: the kernel leaves those to the ops
  one by one).

The widths are read from the arrays when the kernel runs: one kernel serves every
LSTM layer of a program whatever its units. Operands that do not fit (rows that differ,
widths that do not match, a split that does not divide, many rows too narrow for a row
loop: THIN_WIDTH) make the kernel return `ok = False` before it writes anything; the
caller then runs the region's ops one by one, which raise TensorFlow's errors where the
shapes are wrong.
"""
import threading

import numpy as np

from tfteach.runtime.optimizer import fused_arithmetic

__all__ = ["Program", "kernel_for", "compile_seconds", "LOOP_UFUNCS", "EXACT"]

# op type -> the element expression of its operands a (, b), exactly rounded
EXACT = {"Add": "{a} + {b}", "AddV2": "{a} + {b}", "Sub": "{a} - {b}", "Mul": "{a} * {b}",
         "RealDiv": "{a} / {b}", "BiasAdd": "{a} + {b}", "Neg": "-{a}", "Square": "{a} * {a}"}
# Whether this NumPy gives out its loops (NEP 43's experimental API, NumPy >= 1.24):
# without it a region of these ops would never get a kernel, and is not made.
LOOPS_AVAILABLE = fused_arithmetic.LOOPS_AVAILABLE
# op type -> the name of the ufunc whose NumPy loop computes it (loop_ufunc() finds it)
LOOP_UFUNCS = {"Exp": "exp", "Tanh": "tanh", "Sigmoid": "exp",
               "SigmoidGrad": "sigmoid_grad", "TanhGrad": "tanh_grad"}
# Narrow and tall: a region whose widest matrix has fewer than THIN_WIDTH columns, over
# more than THIN_ROWS rows, runs as its ops (the kernel returns "does not fit"): row by
# row, each op's loop and each NumPy call covers a few elements, where NumPy's ufuncs
# one by one make whole-array passes. Measured (2-core AMD EPYC, 2026-11-28; a 6-op
# region with its concat, us, region / ops one by one): 100000 x 1 8800 / 250,
# 2000 x 8 176 / 64, 1000 x 16 90 / 56, 200 x 16 23 / 25, 1000 x 32 101 / 87,
# 500 x 32 49 / 49, 3000 x 48 305 / 312, 2000 x 64 366 / 350, 32 x 4 9.6 / 16.
THIN_WIDTH, THIN_ROWS = 48, 256
# Compile-time estimate (Numba compiles at the first call; 2-core Xeon VM, 2026-11-27): a
# 3-op region 0.6 s, an LSTM cell's 12-13 ops 1.6-1.7 s, its 14-op gradient 2.1 s (once
# per layout of its operands: a Slice's view is another). The next process loads it
# from the disk cache in ~0.01 s.
SECONDS_PER_KERNEL, SECONDS_PER_OP = 0.45, 0.12
LOAD_SECONDS = 0.05             # a kernel in the disk cache (with Numba's import: ~0.3 s)


class Program:
    """A region as the kernel sees it.

    `args`: per operand read at run time, "m" (a matrix, [rows, width]) or "v" (a
    vector broadcast along the rows, [width]). `ops`: per op, in order,
    `(op type, operand refs, count)`: a ref is ("a", j) the j-th operand, ("c", k) the
    k-th constant, ("t", v) the v-th value made by the ops (numbered as they make them:
    a Split makes `count` values, the others one). `outputs`: the values returned, in
    order. The constants come at run time (one float32 array), so LLVM sees none."""

    def __init__(self, args, ops, outputs):
        self.args, self.ops, self.outputs = tuple(args), tuple(ops), tuple(outputs)
        self.key = (self.args, self.ops, self.outputs)
        self.ufuncs = tuple(sorted({LOOP_UFUNCS[t] for t, _, _ in self.ops
                                    if t in LOOP_UFUNCS}))

    def name(self):
        types = [t for t, _, _ in self.ops]
        return "region_" + "_".join(types[:4]) + "_%d_ops" % len(types)


def loop_ufunc(name):
    """The ufunc whose float32 loop `name` stands for (the Numba ufuncs of grad_kernels
    are made on first use)."""
    if name in ("exp", "tanh"):
        return getattr(np, name)
    from tfteach.kernels.cpu import grad_kernels
    lazy = getattr(grad_kernels, name)
    one = np.zeros(1, np.float32)
    lazy(one, one)                              # compiles its float32 ufunc if needed
    return lazy._by_dtype[np.dtype(np.float32)]


def loops_for(program):
    """int64 [[address, context, auxdata], ...] of the program's NumPy loops, in the
    order of `program.ufuncs`, or None where one cannot be used (numpy_loops.py)."""
    from tfteach.kernels.cpu import numpy_loops
    return numpy_loops.safe_loops([loop_ufunc(name) for name in program.ufuncs],
                                  np.float32)


class _Writer:
    """Writes a program's source. The kernel is one loop over the batch's rows; for each
    row it does the region's ops in order, each op one loop over the row (`for i`,
    which LLVM vectorizes) or one call of a NumPy loop on the row. Values:

    - an operand `x{j}` (a matrix, read as `x{j}[r]`, or a vector, read whole);
    - an output `o{v}`, a [rows, width] matrix written row by row;
    - a scratch value `s{v}`, which only the region reads: one row's buffer, written
      again for each row, so a row's values stay in the L1 cache from the op that makes
      them to the ops that read them;
    - a Split's piece `p{v}`, a view of its input's columns (of a matrix, or of a
      scratch row).

    Row by row, not op by op over whole matrices: measured on an LSTM cell's 14-op
    gradient (32 x 128, 2-core AMD EPYC), 9.5 us a call instead of 16.6, because op by
    op each pass read and wrote 16 KB matrices that no longer fit the L1 cache together.
    The bits are the same: every element goes through the same ops in the same order."""

    def __init__(self, program):
        self.p = program
        self.matrix = {}        # value -> its variable
        self.row_buffer = set()  # the values kept as one row (scratch, their pieces)
        self.width = {}         # value -> the name of its width
        self.head, self.body = [], []
        self.pieces = set()     # the values a Split makes: views of their input
        self.sums = set()       # the values a BiasAddGrad makes: [width] vectors
        # Values that must be whole matrices: the outputs, and the input of a Split
        # with a piece among the outputs (a piece returned is a [rows, width] view).
        self.whole = set(program.outputs)
        v = 0
        for op, refs, count in program.ops:
            if op == "Split":
                self.pieces.update(range(v, v + count))
                if any(u in program.outputs for u in range(v, v + count)) and \
                        refs[0][0] == "t":
                    self.whole.add(refs[0][1])
            elif op == "BiasAddGrad":
                self.sums.add(v)
            v += count

    # -- what a ref is -------------------------------------------------------------------
    def name(self, ref):
        kind, j = ref
        if kind == "t":
            return self.matrix[j]
        return ("x%d" if kind == "a" else "c%d") % j

    def ref_width(self, ref):
        kind, j = ref
        if kind == "c":
            return None
        return "wa%d" % j if kind == "a" else self.width[j]

    def row(self, ref):
        """A ref's row r as a 1-D expression (a vector or a scratch row is its own row;
        None: a constant)."""
        kind, j = ref
        if kind == "c":
            return None
        if (kind == "t" and j in self.row_buffer) or (kind == "a" and self.p.args[j] == "v"):
            return self.name(ref)
        return "%s[r]" % self.name(ref)

    # -- what the source says --------------------------------------------------------------
    def check_equal(self, widths):
        widths = [w for w in widths if w is not None]
        for w in widths[1:]:
            self.head += ["    if %s != %s:" % (w, widths[0]), "        return bad"]
        return widths[0]

    def new_value(self, v, width):
        self.width[v] = "w%d" % v
        self.head.append("    w%d = %s" % (v, width))
        if v in self.whole:
            self.matrix[v] = "o%d" % v if v in self.p.outputs else "m%d" % v
        else:
            self.matrix[v] = "s%d" % v
            self.row_buffer.add(v)

    def target_row(self, v):
        """Value v's row r, to be written."""
        return self.matrix[v] if v in self.row_buffer else "%s[r]" % self.matrix[v]

    def rows_loop(self, dst, width, refs, expression):
        """`dst[i] = expression` over row r (`dst`: a 1-D expression): refs' rows as
        1-D views first."""
        lines = ["        d = %s" % dst]
        names = []
        for k, ref in enumerate(refs):
            row = self.row(ref)
            if row is None:
                names.append(self.name(ref))
            else:
                lines.append("        e%d = %s" % (k, row))
                names.append("e%d[i]" % k)
        lines += ["        for i in range(%s):" % width,
                  "            d[i] = " + expression.format(*names)]
        self.body += lines

    def call(self, q, refs, out):
        """The q-th NumPy loop on `refs`' rows r into value `out`'s row r."""
        n = len(refs)
        rows = [self.row(r) for r in refs] + [self.target_row(out)]
        call = ("call_loop(loops[%d, 0], loops[%d, 1], meta.ctypes.data, "
                "meta[%d:].ctypes.data, meta[%d:].ctypes.data, loops[%d, 2])"
                % (q, q, n + 1, n + 2, q))
        for k, row in enumerate(rows):
            self.body.append("        e%d = %s" % (k, row))
        for k in range(len(rows)):
            self.body.append("        meta[%d] = e%d.ctypes.data" % (k, k))
        self.body.append("        meta[%d] = %s" % (n + 1, self.width[out]))
        for k in range(len(rows)):
            self.body.append("        meta[%d] = e%d.strides[0]" % (n + 2 + k, k))
        self.body.append("        " + call)

    def is_piece(self, v):
        """Whether value v is a piece of a Split (known before write() runs)."""
        return v in self.pieces

    def write(self):
        p = self.p
        args = "".join(", x%d" % j for j in range(len(p.args)))
        lines = ["def %s(loops, consts%s):" % (p.name(), args),
                 "    empty = np.empty((0, 0), np.float32)",
                 "    piece = empty[:, :0]",          # a view's type, for pieces returned
                 "    empty1 = np.empty(0, np.float32)",      # for a BiasAddGrad's sum
                 "    bad = (False,%s)" % "".join(
                     " piece," if self.is_piece(v) else
                     " empty1," if v in self.sums else " empty,"
                     for v in p.outputs),
                 "    rows = x%d.shape[0]" % p.args.index("m")]
        for j, kind in enumerate(p.args):
            if kind == "m":
                lines += ["    if x%d.shape[0] != rows:" % j, "        return bad",
                          "    wa%d = x%d.shape[1]" % (j, j)]
            else:
                lines.append("    wa%d = x%d.shape[0]" % (j, j))
        matrices = [j for j, kind in enumerate(p.args) if kind == "m"]
        widths = ["wa%d" % j for j in matrices]
        lines += ["    widest = max(%s)" % ", ".join(widths + widths[:1]),
                  "    if widest < %d and rows > %d:" % (THIN_WIDTH, THIN_ROWS),
                  "        return bad"]
        if self.sums:
            # Its bits are the row-order sum only where the matrix summed is C-ordered
            # when the ops run one by one (NumPy sums an F-ordered one pairwise): so is
            # every value they make from operands whose rows are contiguous.
            for j in matrices:
                lines += ["    if x%d.strides[1] != 4 and x%d.shape[0] > 1 and "
                          "x%d.shape[1] > 1:" % (j, j, j), "        return bad"]
        consts = sorted({j for _, refs, _ in p.ops for kind, j in refs if kind == "c"})
        lines += ["    c%d = consts[%d]" % (k, k) for k in consts]
        pieces = []
        v = 0
        for op, refs, count in p.ops:
            if op == "Split":
                (src,) = refs
                w = self.ref_width(src)
                self.head += ["    if %s %% %d != 0:" % (w, count), "        return bad"]
                of_row = src[0] == "t" and src[1] in self.row_buffer
                for k in range(count):
                    self.width[v] = "w%d" % v
                    self.matrix[v] = "p%d" % v
                    self.head.append("    w%d = %s // %d" % (v, w, count))
                    if of_row:              # a piece of a scratch row: a row itself
                        self.row_buffer.add(v)
                        pieces.append("    p%d = %s[%d * w%d:%d * w%d]"
                                      % (v, self.name(src), k, v, k + 1, v))
                    else:
                        pieces.append("    p%d = %s[:, %d * w%d:%d * w%d]"
                                      % (v, self.name(src), k, v, k + 1, v))
                    v += 1
                continue
            if op == "BiasAddGrad":
                (src,) = refs
                self.width[v] = "w%d" % v
                self.head += ["    w%d = %s" % (v, self.ref_width(src)),
                              "    if w%d < 2:" % v, "        return bad"]
                self.matrix[v] = "o%d" % v
                # row r added into the sum (no other op of the region reads the sum,
                # which is complete only after the last row: elementwise_regions.py)
                self.rows_loop("o%d" % v, "w%d" % v, [src], "d[i] + {0}")
                v += 1
                continue
            if op == "ConcatV2":
                self.new_value(v, " + ".join(self.ref_width(r) for r in refs))
                start = "0"
                for ref in refs:
                    end = self.ref_width(ref) if start == "0" else \
                        "%s + %s" % (start, self.ref_width(ref))
                    self.rows_loop("%s[%s:%s]" % (self.target_row(v), start, end),
                                   self.ref_width(ref), [ref], "{0}")
                    start = end
                v += 1
                continue
            self.new_value(v, self.check_equal([self.ref_width(r) for r in refs]))
            dst, w = self.target_row(v), self.width[v]
            if op in EXACT:
                self.rows_loop(dst, w, refs, EXACT[op].format(a="{0}", b="{1}"))
            elif op == "AddN":
                self.rows_loop(dst, w, refs[:2], "{0} + {1}")
                for ref in refs[2:]:
                    self.rows_loop(dst, w, [("t", v), ref], "{0} + {1}")
            elif op == "Sigmoid":
                # elementwise.sigmoid's passes: -x, exp in place, + 1, 1 / that
                self.rows_loop(dst, w, refs, "-{0}")
                self.call(p.ufuncs.index("exp"), [("t", v)], v)
                self.rows_loop(dst, w, [("t", v)], "{0} + one")
                self.rows_loop(dst, w, [("t", v)], "one / {0}")
            else:                                   # one NumPy loop
                self.call(p.ufuncs.index(LOOP_UFUNCS[op]), list(refs), v)
            v += 1
        lines += self.head
        for value, name in self.matrix.items():
            if value in self.sums:
                lines.append("    %s = np.zeros(w%d, np.float32)" % (name, value))
            elif name[0] in "om":
                lines.append("    %s = np.empty((rows, w%d), np.float32)" % (name, value))
            elif name[0] == "s":
                lines.append("    s%d = np.empty(w%d, np.float32)" % (value, value))
        lines += pieces
        lines.append("    meta = np.empty(8, np.int64)")
        lines.append("    for r in range(rows):")
        lines += self.body or ["        pass"]
        lines.append("    return (True,%s)" % "".join(" %s," % self.matrix[o] for o in p.outputs))
        return "\n".join(lines) + "\n"


def source(program):
    """The kernel's Python source: `def region_...(loops, consts, x0, x1, ...)`
    returning `(ok, output, ...)`."""
    text = _Writer(program).write()
    return ("from tfteach.kernels.cpu.numpy_loops import call_loop\n"
            "one = np.float32(1.0)\n\n\n" + text)


_KERNELS = {}                   # program key -> (compiled kernel, loops) or None
_LOCK = threading.Lock()


def compile_seconds(program):
    """About how long compiling `program`'s kernel would take now (0: compiled in this
    process; LOAD_SECONDS: an earlier process left it in the disk cache)."""
    if program.key in _KERNELS:
        return 0.0
    if fused_arithmetic.compiled_on_disk(program.name(), source(program)):
        return LOAD_SECONDS
    first = fused_arithmetic.FIRST_KERNEL_SECONDS if not _KERNELS else 0.0
    return first + SECONDS_PER_KERNEL + SECONDS_PER_OP * len(program.ops)


def kernel_for(program):
    """(the compiled kernel, its loops array) for `program`, or None where it cannot be
    compiled or a NumPy loop cannot be used (the region's ops then run one by one)."""
    found = _KERNELS.get(program.key, _MISSING)
    if found is _MISSING:
        with _LOCK:
            found = _KERNELS.get(program.key, _MISSING)
            if found is _MISSING:
                try:
                    found = _compile(program)
                except Exception:  # noqa: BLE001 - no kernel: the ops run one by one
                    found = None
                _KERNELS[program.key] = found
                while len(_KERNELS) > fused_arithmetic.MAX_KERNELS:
                    del _KERNELS[next(iter(_KERNELS))]
    return found


_MISSING = object()


def _compile(program):
    import numba
    loops = loops_for(program)
    if loops is None:
        return None
    fn, on_disk = fused_arithmetic.function_from_source(program.name(), source(program))
    options = dict(nogil=True, error_model="numpy")
    kernel = None
    if on_disk:
        try:
            kernel = numba.njit(cache=True, **options)(fn)
        except Exception:  # noqa: BLE001 - Numba found nowhere to cache: compile anyway
            kernel = None
    if kernel is None:
        kernel = numba.njit(**options)(fn)
    return kernel, loops
