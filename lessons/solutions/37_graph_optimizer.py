# %% ex37_1
g1 = tf.Graph()
with g1.as_default():
    x1 = tf.placeholder(tf.float32, [None, 3], name="x")
    b1 = tf.Variable(tf.zeros([3]), name="b")
    loss1 = tf.reduce_sum(x1 + b1)
    (grad_b,) = tf.gradients(loss1, [b1])
    sess1 = tf.Session(config=CPU_ONLY)
    sess1.run(tf.global_variables_initializer())
print(sess1.run(grad_b, {x1: np.ones((4, 3), np.float32)}))
answer = sorted(n for r in optimizer.rewrites_of(sess1, [grad_b], [x1])
                if r.pass_name == "shape_specialisation" for n in r.nodes)


# %% ex37_2
(answer,) = [r.pass_name for r in optimizer.rewrites_of(sess_on, [train, loss], [x, y_])
             if "gradients/add_grad/tuple/group_deps" in r.nodes]


# %% ex37_3
p = tf.placeholder(tf.float32, [50])
m = p * 3.0
q = (m + 0.5) * 2.0 - p
sess = tf.Session(config=CPU_ONLY)
sess.run([q, m], {p: np.ones(50, np.float32)})
(chain,) = [r for r in optimizer.rewrites_of(sess, [q, m], [p])
            if r.pass_name == "elementwise_chains"]
answer = len(chain.nodes)
