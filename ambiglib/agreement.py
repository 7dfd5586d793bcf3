"""What the judges agreed on: each item's majority label over its votes, and the agreement of repeated calls
(Fleiss' kappa) and of two judges (Cohen's kappa).

References
----------
Ambig-DS §4 and Appendix C.4, Table 9 (five judge calls, majority vote; judge noise and cross-family judges).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

__all__ = ["majority_vote", "fleiss_kappa", "cohen_kappa"]


def majority_vote(frame: pd.DataFrame, *, by: Sequence[str] = ("run_id", "facet"), label: str = "label",
                  ties: Literal["null", "alphabetical", "confidence"] = "null",
                  confidence: str = "confidence", order: str = "call") -> pd.DataFrame:
    """Return each item's majority label over its votes (judge calls).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per vote, e.g. the ``labels`` frame.
    by : sequence of str, default ("run_id", "facet")
        What identifies an item.
    label : str, default "label"
    ties : {"null", "alphabetical", "confidence"}, default "null"
        ``null`` leaves a tied item's label null (reported, never silently broken);
        ``alphabetical`` picks the first tied label in sort order; ``confidence`` is the
        Ambig-DS judge audit's rule (``step_4_judge_audit.py``): the tied label whose votes
        have the highest mean ``confidence`` (missing counts as 0) wins, and of equal means the
        one voted first (by ``order``).
    confidence, order : str
        Columns read by ``ties="confidence"``.

    Returns
    -------
    pandas.DataFrame
        ``by…, label, n_votes, n_top, is_tie``: ``n_top`` votes went to the winning
        (or, on a tie, to each tied) label.

    References
    ----------
    Ambig-DS §4 and Appendix C.4: five judge calls, majority vote.
    """
    if ties not in ("null", "alphabetical", "confidence"):
        raise ValueError(f"ties must be 'null', 'alphabetical' or 'confidence' (got {ties!r})")
    by = list(by)
    if len(frame) == 0:
        return pd.DataFrame(columns=[*by, label, "n_votes", "n_top", "is_tie"])
    counts = frame.groupby([*by, label], observed=True, sort=True).size().rename("n").reset_index()
    n_votes = counts.groupby(by, observed=True, sort=False)["n"].transform("sum")
    n_top = counts.groupby(by, observed=True, sort=False)["n"].transform("max")
    top = counts[counts["n"] == n_top].assign(n_votes=n_votes[counts["n"] == n_top])
    n_tied = top.groupby(by, observed=True, sort=False)[label].transform("size")
    top = top.assign(is_tie=n_tied > 1)
    if ties == "confidence":
        if confidence not in frame.columns or order not in frame.columns:
            raise ValueError(f"ties='confidence' needs columns {confidence!r} and {order!r}")
        conf = frame.assign(_c=pd.to_numeric(frame[confidence], errors="coerce").fillna(0.0).astype(float),
                            _o=pd.to_numeric(frame[order], errors="coerce").astype(float))
        rank = conf.groupby([*by, label], observed=True, sort=False).agg(_mean=("_c", "mean"), _first=("_o", "min"))
        top = top.merge(rank.reset_index(), on=[*by, label], how="left")
        out = top.sort_values([*by, "_mean", "_first"], ascending=[True] * len(by) + [False, True]) \
            .drop_duplicates(by, keep="first").drop(columns=["_mean", "_first"])
    else:
        out = top.sort_values([*by, label]).drop_duplicates(by, keep="first")
    if ties == "null":
        out[label] = out[label].astype(object).where(~out["is_tie"], None)
    out = out.rename(columns={"n": "n_top"})[[*by, label, "n_votes", "n_top", "is_tie"]]
    return out.reset_index(drop=True)


def fleiss_kappa(frame: pd.DataFrame, *, item: str = "run_id", rater: str = "call", label: str = "label") -> float:
    """Return Fleiss' kappa of repeated ratings (e.g. five calls of one judge on each run).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per rating: the item, the rater (call) and the label. Every item
        must have the same number of ratings.

    Returns
    -------
    float
        Fleiss' kappa (NaN when agreement by chance is perfect: one label only).

    References
    ----------
    Ambig-DS Appendix C.4, Table 9 (judge noise). Computed by
    ``statsmodels.stats.inter_rater.fleiss_kappa(method="fleiss")`` on the items × labels table of counts.
    """
    if len(frame) == 0:
        raise ValueError("fleiss_kappa needs at least one rating")
    table = pd.crosstab(frame[item], frame[label])
    per_item = table.sum(axis=1)
    if per_item.nunique() != 1:
        counts = per_item.value_counts().sort_index()
        raise ValueError(
            f"fleiss_kappa needs the same number of ratings per {item}; found "
            + ", ".join(f"{c} items with {k}" for k, c in counts.items())
            + f" (e.g. {item}={per_item.idxmin()!r} has {per_item.min()})"
        )
    m = table.to_numpy(dtype=float)
    n_raters = m.sum(axis=1)[0]
    if n_raters < 2:
        raise ValueError(f"fleiss_kappa needs at least 2 ratings per {item} (got {int(n_raters)})")
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

    with np.errstate(invalid="ignore", divide="ignore"):  # one label only: 0 / 0, NaN below
        kappa = float(sm_fleiss_kappa(m, method="fleiss"))
    return kappa if np.isfinite(kappa) else float("nan")


def cohen_kappa(frame: pd.DataFrame, *, item: str = "run_id", rater: str = "judge", label: str = "label") -> float:
    """Return Cohen's kappa between exactly two raters on the items both rated.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per (item, rater) with its label, e.g. each judge's majority label
        per run from :func:`majority_vote` with ``by=("run_id", "judge")``.

    Returns
    -------
    float
        Cohen's (unweighted) kappa; NaN when chance agreement is perfect.

    References
    ----------
    Ambig-DS Appendix C.4, Table 9 (cross-family judges). Computed by
    ``statsmodels.stats.inter_rater.cohens_kappa`` on the two raters' contingency table.
    """
    raters = sorted(frame[rater].dropna().unique().tolist())
    if len(raters) != 2:
        raise ValueError(f"cohen_kappa needs exactly two {rater}s (got {len(raters)}: {raters})")
    if frame.duplicated([item, rater]).any():
        raise ValueError(f"cohen_kappa needs one label per ({item}, {rater}); reduce repeated calls"
                         " with majority_vote first")
    wide = frame.pivot(index=item, columns=rater, values=label).dropna()
    if len(wide) == 0:
        raise ValueError(f"the two {rater}s share no rated {item}")
    a, b = wide[raters[0]].astype(str), wide[raters[1]].astype(str)
    cats = sorted(set(a) | set(b))
    table = pd.crosstab(pd.Categorical(a, cats), pd.Categorical(b, cats), dropna=False).to_numpy(float)
    from statsmodels.stats.inter_rater import cohens_kappa

    with np.errstate(invalid="ignore", divide="ignore"):  # chance agreement 1 (one label only): 0 / 0, NaN below
        kappa = float(cohens_kappa(table, return_results=False))
    return kappa if np.isfinite(kappa) else float("nan")
