"""Keras' progress bar, in TF 1.15's format:

    8000/8000 [==============================] - 2s 210us/sample - loss: 0.2310 - acc: 0.93

verbose=1 redraws one line (with '\\r' in a terminal or a notebook, so Jupyter shows a
live bar); verbose=2 prints one line per epoch: `8000/8000 - 2s - loss: ... - acc: ...`.
Values not in `stateful_metrics` are averaged over the samples seen (the loss);
stateful ones (running metrics) are shown as given.
"""
import sys
import time

import numpy as np

__all__ = ["Progbar"]


class Progbar:
    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = set(stateful_metrics or [])
        self._dynamic_display = ((hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
                                 or "ipykernel" in sys.modules or "posix" in sys.modules)
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0

    def update(self, current, values=None):
        for name, value in values or []:
            if name not in self._values_order:
                self._values_order.append(name)
            if name not in self.stateful_metrics:
                weight = current - self._seen_so_far
                total = self._values.get(name, [0., 0])
                self._values[name] = [total[0] + value * weight, total[1] + weight]
            else:
                # Shown as given, with the same number format as the averages.
                self._values[name] = [value, 1]
        self._seen_so_far = current
        now = time.time()
        info = " - %.0fs" % (now - self._start)
        done = self.target is not None and current >= self.target
        if self.verbose == 1:
            if now - self._last_update < self.interval and not done:
                return
            previous_width = self._total_width
            sys.stdout.write("\b" * previous_width + "\r" if self._dynamic_display
                             else "\n")
            if self.target is not None:
                digits = int(np.log10(self.target)) + 1
                bar = ("%" + str(digits) + "d/%d [") % (current, self.target)
                filled = int(self.width * float(current) / self.target)
                if filled > 0:
                    bar += "=" * (filled - 1) + (">" if current < self.target else "=")
                bar += "." * (self.width - filled) + "]"
            else:
                bar = "%7d/Unknown" % current
            self._total_width = len(bar)
            sys.stdout.write(bar)
            per_unit = (now - self._start) / current if current else 0
            if self.target is not None and not done:
                eta = per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60,
                                                   eta % 60)
                elif eta > 60:
                    eta_format = "%d:%02d" % (eta // 60, eta % 60)
                else:
                    eta_format = "%ds" % eta
                info = " - ETA: %s" % eta_format
            elif per_unit >= 1 or per_unit == 0:
                info += " %.0fs/%s" % (per_unit, self.unit_name)
            elif per_unit >= 1e-3:
                info += " %.0fms/%s" % (per_unit * 1e3, self.unit_name)
            else:
                info += " %.0fus/%s" % (per_unit * 1e6, self.unit_name)
            info += self._values_text(abs_threshold=True)
            self._total_width += len(info)
            if previous_width > self._total_width:
                info += " " * (previous_width - self._total_width)
            if done:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        elif self.verbose == 2 and done:
            digits = int(np.log10(self.target)) + 1
            count = ("%" + str(digits) + "d/%d") % (current, self.target)
            sys.stdout.write(count + info + self._values_text(abs_threshold=False) + "\n")
            sys.stdout.flush()
        self._last_update = now

    def _values_text(self, abs_threshold):
        text = ""
        for name in self._values_order:
            text += " - %s:" % name
            value = self._values[name]
            if isinstance(value, list):
                avg = np.mean(value[0] / max(1, value[1]))
                big = abs(avg) > 1e-3 if abs_threshold else avg > 1e-3
                text += " %.4f" % avg if big else " %.4e" % avg
            else:
                text += " %s" % value
        return text

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)
