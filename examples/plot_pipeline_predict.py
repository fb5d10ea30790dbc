"""
Novelty detection in a scikit-learn pipeline
============================================

Every estimator is also an outlier detector: ``predict`` returns -1 for a sample beyond
the score-distance or the orthogonal-distance cutoff fixed on the *training* data, +1
otherwise, and ``decision_function`` is negative beyond the cutoffs (in their units),
zero on them. As a scikit-learn transformer it sits in a ``Pipeline``. Here: fitted on
the handwritten digits 0 to 4 (with a few of the other digits mixed in, unlabelled),
the pipeline tells new 0-4 digits from new 5-9 digits.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.metrics import RocCurveDisplay
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from robustpca import OptimalMeanPCA

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
rng = np.random.default_rng(0)
low = y_train < 5
contamination = rng.choice(np.flatnonzero(~low), size=40, replace=False)
train = np.r_[np.flatnonzero(low), contamination]  # 0-4 plus 40 digits of 5-9

model = make_pipeline(MinMaxScaler(), OptimalMeanPCA(n_components=15))
model.fit(X_train[train])

# %%
# Flags and margins on the test digits
novel = y_test >= 5
labels = model.predict(X_test)
margin = model.decision_function(X_test)
print(
    f"flagged: {np.mean(labels[novel] == -1):.0%} of the digits 5-9, "
    f"{np.mean(labels[~novel] == -1):.0%} of the digits 0-4"
)

# %%
# The margin per test digit, and its ROC curve for telling 5-9 from 0-4
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
bins = np.linspace(margin.min(), margin.max(), 50)
axes[0].hist(margin[~novel], bins=bins, alpha=0.7, label="digits 0-4 (as trained)")
axes[0].hist(margin[novel], bins=bins, alpha=0.7, label="digits 5-9 (new)")
axes[0].axvline(0, color="k", lw=1)
axes[0].set_xlabel("decision_function (negative: flagged)")
axes[0].legend()
RocCurveDisplay.from_predictions(novel, -margin, ax=axes[1], name="-decision_function")
axes[1].set_title("digits 5-9 against 0-4")
fig.tight_layout()
plt.show()
