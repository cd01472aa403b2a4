"""How many CPUs this process may really use: its affinity and its cgroup's CPU quota.

`os.cpu_count()` counts the machine's cores. In a container (a Binder pod, a JupyterHub
on Kubernetes) the pod often sees a 16- or 64-core node but may use only 1 or 2 of
them: the limit is a CFS quota in its cgroup, `cpu.max` ("150000 100000" = 1.5 CPUs)
under cgroup v2, `cpu.cfs_quota_us` / `cpu.cfs_period_us` under v1. Splitting work over
two threads under a 1-CPU quota only makes the two halves wait for each other's time
slices. Anything unreadable or malformed counts as "no quota" (never an error).
"""
import os

__all__ = ["cgroup_cpu_limit", "usable_cpus"]


def _own_cgroups(proc_cgroup):
    """{controller: path} from /proc/self/cgroup ("" is the cgroup v2 entry)."""
    groups = {}
    try:
        with open(proc_cgroup) as f:
            for line in f:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3:
                    for controller in parts[1].split(","):
                        groups[controller] = parts[2]
    except OSError:
        pass
    return groups


def _read_words(path):
    try:
        with open(path) as f:
            return f.read().split()
    except (OSError, UnicodeDecodeError):
        return None


def _ratio(quota, period):
    """quota / period in CPUs, or None for "max", -1 or anything malformed."""
    try:
        quota, period = int(quota), int(period)
    except (TypeError, ValueError):
        return None
    if quota <= 0 or period <= 0:
        return None
    return quota / period


def _candidates(root, sub, path):
    """The cgroup directory of this process first, then the hierarchy's root."""
    inner = os.path.join(root, sub, path.lstrip("/")) if path not in (None, "", "/") else None
    return [d for d in (inner, os.path.join(root, sub)) if d]


def cgroup_cpu_limit(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup"):
    """This process's cgroup CPU limit in CPUs (1.5 for "150000 100000"), None if none."""
    groups = _own_cgroups(proc_cgroup)
    for directory in _candidates(root, "", groups.get("")):            # cgroup v2
        words = _read_words(os.path.join(directory, "cpu.max"))
        if words and len(words) == 2:
            return _ratio(*words)
    for sub in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):                   # cgroup v1
        for directory in _candidates(root, sub, groups.get("cpu")):
            quota = _read_words(os.path.join(directory, "cpu.cfs_quota_us"))
            period = _read_words(os.path.join(directory, "cpu.cfs_period_us"))
            if quota and period:
                return _ratio(quota[0], period[0])
    return None


def usable_cpus(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup"):
    """CPUs this process may run on at once: affinity, capped by the cgroup quota."""
    try:
        cpus = float(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):       # not on Linux
        cpus = float(os.cpu_count() or 1)
    limit = cgroup_cpu_limit(root, proc_cgroup)
    return cpus if limit is None else min(cpus, limit)
