"""Evaluation metrics (contract functions: pass_at_k, mean_token_entropy) and text statistics."""

from __future__ import annotations

import re
from collections.abc import Iterable

import torch
from torch import Tensor

# The paper counts these three; the extras are ours and are reported apart
# (hedging_extra_per_1k_words), so the headline figure compares with the paper's.
HEDGING_WORDS: tuple[str, ...] = ("wait", "hmm", "perhaps")
EXTRA_HEDGING_WORDS: tuple[str, ...] = ("maybe", "actually", "alternatively")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n - c, k) / C(n, k).

    n samples of which c are correct. Computed as 1 - prod_{i=n-c+1}^{n} (1 - k / i), which
    avoids the huge binomials.
    """
    if n < 1 or not 0 <= c <= n:
        raise ValueError(f"need n >= 1 and 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, n={n}] (draw at least k samples per problem), got {k}")
    if n - c < k:
        return 1.0
    failure = 1.0
    for i in range(n - c + 1, n + 1):
        failure *= 1.0 - k / i
    return 1.0 - failure


@torch.no_grad()
def per_token_entropy(logits: Tensor) -> Tensor:
    """Entropy in nats of softmax(logits) over the full vocabulary, per position: [..., V] -> [...]."""
    log_p = torch.log_softmax(logits.float(), dim=-1)
    return -(log_p.exp() * log_p).sum(-1)


@torch.no_grad()
def mean_token_entropy(logits: Tensor, mask: Tensor) -> float:
    """Masked mean over [B, T] of the full-vocabulary entropy (nats). An empty mask gives 0."""
    weights = mask.to(torch.float32)
    total = float(weights.sum())
    if total == 0:
        return 0.0
    return float((per_token_entropy(logits) * weights).sum() / total)


_WORD = re.compile(r"[a-z']+")


def hedging_frequency(texts: Iterable[str], words: Iterable[str] = HEDGING_WORDS) -> float:
    """Hedging words per 1,000 words across the texts (case-insensitive, whole words)."""
    wanted = {w.lower() for w in words}
    total = hits = 0
    for text in texts:
        tokens = _WORD.findall(text.lower())
        total += len(tokens)
        hits += sum(1 for t in tokens if t in wanted)
    return 1000.0 * hits / total if total else 0.0
