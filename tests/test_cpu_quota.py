"""The CPU count tfteach's kernels split for: affinity capped by the cgroup CPU quota.

Real cgroup files have a fixed format; these tests write them into a temporary tree
(v2 `cpu.max`, v1 `cpu.cfs_quota_us` + `cpu.cfs_period_us`) with a matching
/proc/self/cgroup, including malformed and missing files.
"""
import os

import pytest

from tfteach.kernels.cpu import cpu_quota, two_workers


def _tree(tmp_path, files, proc_lines):
    root = tmp_path / "cgroup"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    proc = tmp_path / "proc_cgroup"
    proc.write_text("".join(line + "\n" for line in proc_lines))
    return str(root), str(proc)


@pytest.mark.parametrize("text,expected", [
    ("150000 100000\n", 1.5), ("200000 100000", 2.0), ("50000 100000", 0.5),
    ("max 100000", None), ("", None), ("garbage", None), ("100000 0", None),
    ("-5 100000", None), ("1 2 3", None), ("\xff\xfe", None)])
def test_cgroup_v2_cpu_max(tmp_path, text, expected):
    root, proc = _tree(tmp_path, {"cpu.max": text}, ["0::/"])
    assert cpu_quota.cgroup_cpu_limit(root, proc) == expected


def test_cgroup_v2_reads_the_process_own_group_first(tmp_path):
    root, proc = _tree(tmp_path, {"cpu.max": "max 100000",
                                  "kubepods/pod1/cpu.max": "100000 100000"},
                       ["0::/kubepods/pod1"])
    assert cpu_quota.cgroup_cpu_limit(root, proc) == 1.0


@pytest.mark.parametrize("sub", ["cpu", "cpu,cpuacct"])
@pytest.mark.parametrize("quota,expected", [("-1", None), ("150000", 1.5), ("x", None)])
def test_cgroup_v1_cfs_quota(tmp_path, sub, quota, expected):
    root, proc = _tree(tmp_path, {sub + "/cpu.cfs_quota_us": quota + "\n",
                                  sub + "/cpu.cfs_period_us": "100000\n"},
                       ["4:cpu,cpuacct:/", "1:name=systemd:/"])
    assert cpu_quota.cgroup_cpu_limit(root, proc) == expected


def test_no_cgroup_files_or_no_proc_file_means_no_limit(tmp_path):
    assert cpu_quota.cgroup_cpu_limit(str(tmp_path / "none"), str(tmp_path / "none")) is None
    root, proc = _tree(tmp_path, {"cpu/cpu.cfs_quota_us": "100000"}, ["garbage line"])
    assert cpu_quota.cgroup_cpu_limit(root, proc) is None      # a period is needed too


def test_usable_cpus_is_affinity_capped_by_the_quota(tmp_path):
    affinity = len(os.sched_getaffinity(0))
    root, proc = _tree(tmp_path, {"cpu.max": "50000 100000"}, ["0::/"])
    assert cpu_quota.usable_cpus(root, proc) == min(affinity, 0.5)
    root, proc = _tree(tmp_path / "b", {"cpu.max": "max 100000"}, ["0::/"])
    assert cpu_quota.usable_cpus(root, proc) == affinity


@pytest.mark.parametrize("usable,workers", [(0.5, 1), (1.0, 1), (1.5, 2), (2.0, 2), (64, 2)])
def test_worker_count_follows_the_quota(monkeypatch, usable, workers):
    monkeypatch.setattr(two_workers, "usable_cpus", lambda: usable)
    monkeypatch.setattr(two_workers, "_WORKERS", None)
    assert two_workers.worker_count() == workers
    seen = []
    two_workers.over_batch(lambda lo, hi: seen.append((lo, hi)), 8, 10 ** 9)
    assert sorted(seen) == ([(0, 8)] if workers == 1 else [(0, 4), (4, 8)])
