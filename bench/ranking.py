"""Benchmark: what the rankings claim on leaderboards of known truth, and what they cost.

1. **No best among equals.** 20 agents with identical propensities (60 tasks, 3 trials): on each seed, does any
   card, ``rank`` or ``compare`` output name a best or a lowest agent, and how many agents are in each metric's top
   group? (The family-wise error rate bounds the chance of any separated pair at 5% per family.)
2. **The best found.** 8 agents, 100 tasks, 3 trials, one built better on everything it can win (it asks more on
   ambiguous tasks and less on clear ones, finds more blockers, asks fewer irrelevant questions, passes more): on
   each seed, is it named best, alone in the top group, with rank interval [1, 1], on each metric?
3. **Time**: the fourth card's rankings (four metrics) at 8 and 20 agents.

Every draw is seeded. Run ``python bench/ranking.py [--seeds 10]``; the figures go to docs/performance.md and
docs/metrics.md ("Rankings").
"""

from __future__ import annotations

import argparse
import re
import time

from ambiglib import RunSet
from ambiglib.answers import _headline as headline
from ambiglib.simulate._leaderboard import SimAgent, leaderboard_records

#: the words a sentence uses to name one agent above or below all others
NAMING = re.compile(r"\S+ (best|highest) \(|\blowest (?!group)[^\s(]+|higher than")


def identical(seed: int) -> dict:
    """20 equal agents: the sentences of the four cards and the top-group sizes of the fourth card's metrics."""
    rs = RunSet.from_records(leaderboard_records([SimAgent(f"m{i:02d}") for i in range(20)], n_tasks=60, trials=3,
                                                 seed=seed))
    t0 = time.perf_counter()
    sentences = [s for fn in (headline.asking, headline.question_quality, headline.payoff, headline.agent_ranking)
                 for s in fn(rs).attrs["answer"]]
    seconds = time.perf_counter() - t0
    long = headline.agent_ranking(rs, long=True)
    tops = {m: int(rows["top"].astype(bool).sum()) for m, rows in long.groupby("metric")}
    pairs = headline.agent_comparison(rs)
    told = int(pairs["verdict"].str.endswith(" higher").sum())
    return {"named": [s for s in sentences if NAMING.search(s)], "tops": tops, "told": told, "pairs": len(pairs),
            "seconds": seconds}


BETTER = SimAgent("star", ask_ambiguous=0.9, ask_full=0.05, recall=0.85, irrelevant=0.1, pass_full=0.85,
                  pass_no_tool=0.3)


def one_better(seed: int) -> dict:
    """8 agents, one better: per metric of the fourth card, whether it is named best and its rank interval."""
    agents = [SimAgent(f"m{i}") for i in range(7)] + [BETTER]
    rs = RunSet.from_records(leaderboard_records(agents, n_tasks=100, trials=3, seed=seed))
    t0 = time.perf_counter()
    card = headline.agent_ranking(rs)
    seconds = time.perf_counter() - t0
    long = headline.agent_ranking(rs, long=True)
    out = {}
    for metric, rows in long.groupby("metric"):
        star = rows[rows["agent"] == "star"].iloc[0]
        alone = bool(star["top"]) and int(rows["top"].astype(bool).sum()) == 1
        out[metric] = (alone, (int(star["rank_low"]), int(star["rank_high"])))
    named = " ".join(card.attrs["answer"]).count("star best") == len(out)
    return {"metrics": out, "named": named, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    seeds = range(1, args.seeds + 1)
    print("1. 20 identical agents, 60 tasks x 3 trials")
    spent = []
    for seed in seeds:
        got = identical(seed)
        spent.append(got["seconds"])
        print(f"   seed {seed}: sentences naming an agent {len(got['named'])}; pairs told apart {got['told']} of"
              f" {got['pairs']}; top group sizes {got['tops']}")
        for s in got["named"]:
            print(f"      {s}")
    print(f"   four cards: {min(spent):.1f}-{max(spent):.1f} s a log")
    print("2. 8 agents, one better, 100 tasks x 3 trials")
    wins: dict[str, int] = {}
    spent = []
    for seed in seeds:
        got = one_better(seed)
        spent.append(got["seconds"])
        for metric, (alone, _) in got["metrics"].items():
            wins[metric] = wins.get(metric, 0) + alone
        print(f"   seed {seed}: " + "; ".join(f"{m}: {'best' if a else 'not alone'} {s}" for m, (a, s) in
                                             got["metrics"].items()) + f"; named best in every clause: {got['named']}")
    print("   alone in the top group (rank [1, 1]): " + ", ".join(f"{m} {n}/{len(seeds)}" for m, n in wins.items()))
    print(f"   fourth card: {min(spent):.1f}-{max(spent):.1f} s a log")


if __name__ == "__main__":
    main()
