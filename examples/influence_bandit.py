"""An influence-maximization bandit in Python: epsilon-greedy over nodes.

Each step it picks k distinct present nodes: for each seed slot, with probability epsilon a
uniformly random present node, otherwise the present node with the best mean marginal reward so
far (nodes never tried first, in id order). It learns from the semi-bandit feedback: each seed's
marginal reward (users it activated that earlier seeds of the step did not). The C++
`epsilon-greedy` is the same idea; this one is written in Python to show the seam
(dmlkit.influence.Algorithm) and uses only the run's random stream, so a seed gives one run.

    dmlkit influence run --graph er:nodes=300,degree=4 --k 5 --steps 30 \
        --algorithms random,cucb --algorithm-file examples/influence_bandit.py:EpsilonGreedy
"""
import numpy as np

import dmlkit


class EpsilonGreedy(dmlkit.influence.Algorithm):
    name = "py-epsilon-greedy"
    summary = "epsilon-greedy over nodes on mean marginal reward (Python)"
    epsilon = 0.1

    def reset(self, num_nodes, k):
        self.total = np.zeros(num_nodes)
        self.count = np.zeros(num_nodes)

    def select(self, step, rng):
        present = step.present_nodes
        count = self.count[present]
        mean = np.where(count > 0, self.total[present] / np.maximum(count, 1), np.inf)
        ranked = present[np.argsort(-mean, kind="stable")]  # best first; untried first
        chosen, seeds, next_best = set(), [], 0
        for _ in range(step.k):
            if rng.uniform() < self.epsilon:
                while True:
                    node = int(present[rng.uniform_int(0, len(present) - 1)])
                    if node not in chosen:
                        break
            else:
                while int(ranked[next_best]) in chosen:
                    next_best += 1
                node = int(ranked[next_best])
            chosen.add(node)
            seeds.append(node)
        return seeds

    def observe(self, step, seeds, marginal):
        np.add.at(self.total, seeds, marginal)
        np.add.at(self.count, seeds, 1)
