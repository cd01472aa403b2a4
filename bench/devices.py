"""What a virtual GPU costs: the MLP training step on the CPU vs. on a virtual GPU.

The graph is bench/train_steps.py's 784-500-10 MLP (batch 100, GradientDescent). On the
virtual GPU every op is placed on /device:GPU:0, the two feeds are copied host->device
each step, and every tensor is accounted on the GPU's allocator; the kernels are the same
CPU kernels. Both sessions are timed alternately, best of several rounds, so machine
noise hits both alike. Prints milliseconds per step and the ratio (target: < 1.10).

    python bench/devices.py [--quick]
"""
import argparse
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from train_steps import mlp_graph  # noqa: E402


def make_step(tf, on_gpu):
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/device:GPU:0" if on_gpu else "/cpu:0"):
            step, feed = mlp_graph(tf)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    run = lambda: sess.run(step, feed_dict=feed)  # noqa: E731
    run()
    return sess, run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import tfteach as tf
    tf.config.set_virtual_gpus(1)
    number, rounds = (10, 5) if args.quick else (50, 15)
    cpu_sess, cpu = make_step(tf, on_gpu=False)
    gpu_sess, gpu = make_step(tf, on_gpu=True)
    best = {"cpu": float("inf"), "gpu": float("inf")}
    for _ in range(rounds):
        best["cpu"] = min(best["cpu"], timeit.timeit(cpu, number=number) / number)
        best["gpu"] = min(best["gpu"], timeit.timeit(gpu, number=number) / number)
    stats = tf.config.memory_stats("/gpu:0")
    print("MLP training step (784-500-10, batch 100), milliseconds per step, best of %d"
          % rounds)
    print("%-28s %8.3f" % ("CPU:0", best["cpu"] * 1e3))
    print("%-28s %8.3f" % ("virtual GPU:0", best["gpu"] * 1e3))
    print("%-28s %8.3f   (target < 1.10)" % ("ratio virtual GPU / CPU",
                                             best["gpu"] / best["cpu"]))
    print("virtual GPU:0 memory: %d bytes in use (variables, constants), peak %d, "
          "%d allocations" % (stats["bytes_in_use"], stats["peak_bytes_in_use"],
                              stats["num_allocs"]))
    cpu_sess.close()
    gpu_sess.close()


if __name__ == "__main__":
    main()
