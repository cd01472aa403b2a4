"""`tf.app.flags`: command-line flags, the DEFINE_* functions and FLAGS (TF 1.15 wraps
absl.flags; this is a small self-contained subset with absl's rules and errors).

- `--name=value`, `--name value`, `-name=value`; booleans also `--name` / `--noname`;
  `--` ends the flags. Other arguments stay in the argv given to `main`.
- `FLAGS.name` parses `sys.argv` the first time a flag is read, as TF 1.15 does.
- In a notebook, flags Jupyter passes to the kernel (`-f kernel.json`) are not errors,
  and running a cell that defines a flag again redefines it (a script gets absl's
  DuplicateFlagError).
"""
import sys

__all__ = ["FLAGS", "DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean",
           "DEFINE_bool", "DEFINE_list", "DEFINE_enum", "Error", "UnrecognizedFlagError",
           "IllegalFlagValueError", "DuplicateFlagError", "FlagValues"]


class Error(Exception):
    """absl.flags.Error."""


class UnrecognizedFlagError(Error):
    pass


class IllegalFlagValueError(Error):
    pass


class DuplicateFlagError(Error):
    pass


def in_notebook():
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def _parse_bool(text):
    lowered = text.lower()
    if lowered in ("true", "t", "1"):
        return True
    if lowered in ("false", "f", "0"):
        return False
    raise ValueError("Non-boolean argument to boolean flag")


class _Flag:
    def __init__(self, name, default, help_text, parse, kind):
        self.name = name
        self.help = help_text
        self.parse = parse
        self.kind = kind
        self.default = default if default is None or not isinstance(default, str) or \
            kind == "string" else parse(default)
        self.value = self.default


class FlagValues:
    """The set of defined flags; `FLAGS.name` reads one, `FLAGS(argv)` parses argv."""

    def __init__(self):
        self.__dict__["_flags"] = {}
        self.__dict__["_parsed"] = False

    # -- defining ------------------------------------------------------------------------
    def _define(self, flag):
        if flag.name in self._flags and not in_notebook():
            raise DuplicateFlagError("The flag '%s' is defined twice." % flag.name)
        self._flags[flag.name] = flag

    # -- reading -------------------------------------------------------------------------
    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            self(sys.argv, known_only=in_notebook())
        return flags[name].value

    def __setattr__(self, name, value):
        if name not in self._flags:
            raise AttributeError(name)
        self._flags[name].value = value

    def __contains__(self, name):
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def is_parsed(self):
        return self._parsed

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self._flags.items()}

    # -- parsing -------------------------------------------------------------------------
    def __call__(self, argv, known_only=False):
        """Parses the flags in argv[1:]; returns argv[0] plus the arguments left."""
        argv = list(argv)
        remaining = argv[:1]
        args = argv[1:]
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                remaining.extend(args[i:])
                break
            if not arg.startswith("-") or arg == "-":
                remaining.append(arg)
                continue
            name, has_value, value = arg.lstrip("-").partition("=")
            flag = self._flags.get(name)
            if flag is None and not has_value and name.startswith("no") and \
                    name[2:] in self._flags and self._flags[name[2:]].kind == "bool":
                self._flags[name[2:]].value = False
                continue
            if flag is None:
                if known_only:
                    remaining.append(arg)
                    continue
                raise UnrecognizedFlagError("Unknown command line flag '%s'" % name)
            if not has_value:
                if flag.kind == "bool":
                    flag.value = True
                    continue
                if i >= len(args):
                    raise Error("Flag --%s must have a value other than None." % name)
                value = args[i]
                i += 1
            try:
                flag.value = flag.parse(value)
            except ValueError as e:
                raise IllegalFlagValueError("flag --%s=%s: %s" % (name, value, e)) from None
        self.__dict__["_parsed"] = True
        return remaining


FLAGS = FlagValues()


def _define(kind, parse, name, default, help_text, flag_values=None):
    (flag_values or FLAGS)._define(_Flag(name, default, help_text, parse, kind))


def DEFINE_string(name, default, help, flag_values=None, **kwargs):  # noqa: N802,A002
    _define("string", str, name, default, help, flag_values)


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None,  # noqa: N802,A002
                   flag_values=None, **kwargs):
    def parse(text):
        value = int(text)
        if (lower_bound is not None and value < lower_bound) or (
                upper_bound is not None and value > upper_bound):
            raise ValueError("%d is outside the bounds [%s, %s]" % (value, lower_bound,
                                                                    upper_bound))
        return value
    _define("int", parse, name, default, help, flag_values)


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None,  # noqa: N802,A002
                 flag_values=None, **kwargs):
    _define("float", float, name, default, help, flag_values)


def DEFINE_boolean(name, default, help, flag_values=None, **kwargs):  # noqa: N802,A002
    _define("bool", _parse_bool, name, default, help, flag_values)


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name, default, help, flag_values=None, **kwargs):  # noqa: N802,A002
    def parse(text):
        return [s for s in text.split(",") if s] if isinstance(text, str) else list(text)
    flag = _Flag(name, None, help, parse, "list")
    flag.default = flag.value = None if default is None else parse(default)
    (flag_values or FLAGS)._define(flag)


def DEFINE_enum(name, default, enum_values, help, flag_values=None, **kwargs):  # noqa: N802,A002
    def parse(text):
        if text not in enum_values:
            raise ValueError("value should be one of <%s>" % "|".join(enum_values))
        return text
    _define("enum", parse, name, default, help, flag_values)
