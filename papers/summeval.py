"""SummEval (Fabbri et al., TACL 2021): 16 summarisers rated on four dimensions by 3 experts, with intervals.

Recomputes, from ``examples/data/summeval_annotations.csv`` (MIT), each system's expert mean rating on
coherence, consistency, fluency and relevance (1-5; the quantity of the paper's table of expert ratings,
e.g. Lead-3 4.1567 / 4.9833 / 4.9367 / 4.1367) and the dataset-wide means of the per-summary expert average
(3.41 / 4.66 / 4.67 / 3.78, the values an independent reproduction from the original file reports), then
adds what the table leaves out: a credible interval per cell (:func:`bayeseval.rubric.rubric`), the share
of expert ratings that pass "consistency >= 4 and fluency >= 4", how the dimensions move together, how
much the experts agree (Krippendorff's alpha with a bootstrap interval, experts and crowd workers), and
BART against Pegasus dimension by dimension with Holm's adjustment.

    python papers/summeval.py
"""

from pathlib import Path

import pandas as pd

from bayeseval.rubric import compare_rubric, rubric

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "summeval_annotations.csv"
DIMS = ["coherence", "consistency", "fluency", "relevance"]
# expert means per system (coherence, consistency, fluency, relevance), as in the data's README
PUBLISHED = {
    "M0": (4.1567, 4.9833, 4.9367, 4.1367), "M1": (3.2200, 4.9800, 4.8967, 3.8167),
    "M2": (3.2767, 4.9900, 4.8300, 3.8100), "M5": (3.7100, 4.9733, 4.8067, 4.0567),
    "M8": (3.2900, 4.6533, 4.7933, 3.5467), "M9": (2.3833, 4.6733, 4.5000, 3.5200),
    "M10": (2.7267, 4.2533, 4.4233, 3.3767), "M11": (2.2800, 3.2700, 3.6500, 3.1467),
    "M12": (3.5967, 4.9600, 4.8467, 3.8467), "M13": (3.4433, 4.8200, 4.8567, 3.8333),
    "M14": (3.1967, 4.8967, 4.7433, 3.6333), "M15": (3.3467, 4.9367, 4.8033, 3.6733),
    "M17": (3.9967, 4.9267, 4.9333, 4.2300), "M20": (3.6333, 3.3967, 3.9700, 3.2967),
    "M22": (4.1800, 4.9433, 4.8967, 4.2500), "M23": (4.1633, 4.9100, 4.8800, 4.2600),
}
DATASET_MEANS = (3.41, 4.66, 4.67, 3.78)
COLUMNS = dict(item="doc_id", system="model_id", judge="annotator", dimensions=DIMS, scale=(1, 5))


def table(kind: str = "expert") -> pd.DataFrame:
    d = pd.read_csv(DATA)
    return d[d.annotator_type == kind]


def main() -> None:
    experts = table("expert")
    r = rubric(experts, constraints="consistency>=4,fluency>=4", **COLUMNS)
    print(r.summary())
    print("\ndataset-wide expert means:", " / ".join(f"{experts[d].mean():.2f}" for d in DIMS),
          "(published", " / ".join(map(str, DATASET_MEANS)) + ")")
    crowd = rubric(table("turker"), correlation=False, **COLUMNS)
    print("\ncrowd workers' agreement (Krippendorff's alpha, ordinal):",
          ", ".join(f"{d} {a.alpha:.3f} [{a.lo:.3f}, {a.hi:.3f}]" for d, a in crowd.agreement.items()))
    print()
    print(compare_rubric(experts, "M22", "M23", constraints="consistency>=4,fluency>=4", **COLUMNS).summary())


if __name__ == "__main__":
    main()
