"""Greedy, beam search and sampling on hand-built per-step probabilities (fairseq's style), and on a
tiny random Transformer and language model."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest
import torch

from heedful.config import ModelConfig
from heedful.lm import DecoderOnlyLM
from heedful.model import Transformer
from heedful.search import (
    Hypothesis,
    LengthPenalty,
    Stepped,
    beam_search,
    greedy_search,
    sample,
)

PAD, BOS, EOS, A, B = 0, 1, 2, 3, 4
V = 5

# P(next token | tokens generated so far); any prefix not listed ends with probability 0.9.
TABLE = {
    (): {A: 0.6, B: 0.3, EOS: 0.1},
    (A,): {A: 0.1, B: 0.4, EOS: 0.5},
    (B,): {A: 0.9, B: 0.05, EOS: 0.05},
    (B, A): {A: 0.1, B: 0.1, EOS: 0.8},
    (A, B): {A: 0.3, B: 0.2, EOS: 0.5},
}
DEFAULT = {A: 0.06, B: 0.04, EOS: 0.9}


@dataclass
class PrefixCache:
    """A 'cache' that is just each row's generated prefix, to test the searches without a model."""

    prefixes: list[tuple[int, ...]]
    batch_sizes: list[int]  # shared log of how many rows each step saw
    started: bool = False  # False until the start token has been fed
    table: dict = field(default_factory=lambda: TABLE)

    def reorder(self, index: torch.Tensor) -> PrefixCache:
        prefixes = [self.prefixes[i] for i in index.tolist()]
        return PrefixCache(prefixes, self.batch_sizes, self.started, self.table)


def table_step(tokens: torch.Tensor, cache: PrefixCache) -> Stepped:
    cache.batch_sizes.append(tokens.shape[0])
    prefixes = cache.prefixes  # the start token adds nothing
    if cache.started:
        prefixes = [p + (int(t),) for p, t in zip(cache.prefixes, tokens[:, -1], strict=True)]
    logits = torch.full((len(prefixes), V), float("-inf"))
    for row, prefix in enumerate(prefixes):
        for token, p in cache.table.get(prefix, DEFAULT).items():
            logits[row, token] = math.log(p)
    trace = (torch.tensor([[len(p)] for p in prefixes]),)  # each row's own position
    return Stepped(logits, PrefixCache(prefixes, cache.batch_sizes, True, cache.table), trace)


NO_PENALTY = LengthPenalty(0.0, "power")


def run_beam(beam_size=2, penalty=NO_PENALTY, n_best=2, max_length=10, table=TABLE, **kw):
    cache = PrefixCache([()], [], table=table)
    found = beam_search(
        table_step, cache, torch.full((1, 1), BOS), beam_size=beam_size, eos_id=EOS,
        max_length=max_length, length_penalty=penalty, n_best=n_best, banned=(PAD, BOS), **kw,
    )  # fmt: skip
    return found, cache.batch_sizes


def summary(hypotheses: list[Hypothesis]) -> list[tuple[list[int], float]]:
    return [(h.tokens, round(h.score, 6)) for h in hypotheses]


def test_length_penalty_forms_at_hand_computed_values():
    assert LengthPenalty(0.6, "gnmt")(4) == pytest.approx(1.2754245, abs=1e-6)  # 1.5 ** 0.6
    assert LengthPenalty(1.0, "gnmt")(7) == pytest.approx(2.0)  # (5 + 7) / 6
    assert LengthPenalty(0.5, "power")(9) == pytest.approx(3.0)
    assert LengthPenalty(1.0, "power")(4) == pytest.approx(4.0)
    assert LengthPenalty(0.0, "gnmt")(13) == LengthPenalty(0.0, "power")(13) == 1.0
    with pytest.raises(ValueError, match="gnmt or power"):
        LengthPenalty(0.6, "fairseq")


def test_beam_search_on_hand_built_probabilities():
    # Step 1: "A </s>" (0.6 * 0.5 = .30) finishes; beams "B A" (.27) and "A B" (.24) live on.
    # Step 2: "B A </s>" (.216) and "A B </s>" (.12) finish; the best live beam "A B A" (.072)
    # cannot beat the worst of the two kept (.216), so the search stops.
    (found,), sizes = run_beam()
    assert summary(found) == [
        ([A, EOS], round(math.log(0.6 * 0.5), 6)),
        ([B, A, EOS], round(math.log(0.3 * 0.9 * 0.8), 6)),
    ]
    assert [h.log_prob for h in found] == pytest.approx([math.log(0.30), math.log(0.216)])
    assert sizes == [1, 2, 2]  # one row for the start token, then two beams, three steps


# "B A A </s>" wins, but only a search that goes on after two hypotheses have finished finds it.
LATE_WINNER = {
    (): {A: 0.5, B: 0.45, EOS: 0.05},
    (A,): {A: 0.05, B: 0.05, EOS: 0.9},
    (B,): {A: 0.95, B: 0.02, EOS: 0.03},
    (A, A): {A: 0.005, B: 0.005, EOS: 0.99},
    (B, A): {A: 0.9, B: 0.05, EOS: 0.05},
}


def test_a_live_beam_that_can_still_win_keeps_the_search_going():
    # Steps 2 and 3 fill the two slots with "A </s>" (.45) and "A A </s>" (.025), but the live
    # beam "B A A" (.385) is better than the worst; step 4 finishes it as "B A A </s>" (.346).
    (found,), sizes = run_beam(table=LATE_WINNER)
    assert summary(found) == [
        ([A, EOS], round(math.log(0.45), 6)),
        ([B, A, A, EOS], round(math.log(0.45 * 0.95 * 0.9 * 0.9), 6)),
    ]
    assert sizes == [1, 2, 2, 2]


def test_early_stopping_stops_at_beam_size_finished_hypotheses():
    table = {**LATE_WINNER, (A,): {A: 0.06, B: 0.04, EOS: 0.9}}  # "A A" and "A B" no longer tie
    # Step 3 finishes "A A </s>" (.0297), the second hypothesis: with early stopping (fairseq,
    # CTranslate2, HF's early_stopping=True) the sentence stops there and never finds
    # "B A A </s>" (.346), which the default search goes on to find in step 4.
    (found,), sizes = run_beam(table=table, early_stopping=True)
    assert summary(found) == [
        ([A, EOS], round(math.log(0.45), 6)),
        ([A, A, EOS], round(math.log(0.5 * 0.06 * 0.99), 6)),
    ]
    assert sizes == [1, 2, 2]
    (found,), sizes = run_beam(table=table)
    assert found[1].tokens == [B, A, A, EOS] and sizes == [1, 2, 2, 2]


def test_power_length_penalty_reorders_the_n_best():
    (found,), _ = run_beam(penalty=LengthPenalty(1.0, "power"))
    assert summary(found) == [
        ([B, A, EOS], round(math.log(0.216) / 3, 6)),
        ([A, EOS], round(math.log(0.30) / 2, 6)),
    ]


def test_gnmt_length_penalty_scores():
    (found,), _ = run_beam(penalty=LengthPenalty(0.6, "gnmt"))
    expected = {
        (A, EOS): math.log(0.30) / (7 / 6) ** 0.6,
        (B, A, EOS): math.log(0.216) / (8 / 6) ** 0.6,
    }
    assert {tuple(h.tokens): h.score for h in found} == pytest.approx(expected)
    assert [h.score for h in found] == sorted((h.score for h in found), reverse=True)


def test_n_best_is_ordered_by_score_and_bounded_by_beam_size():
    (found,), _ = run_beam(beam_size=3, n_best=3)
    scores = [h.score for h in found]
    assert len(found) == 3 and scores == sorted(scores, reverse=True)
    with pytest.raises(ValueError, match="n_best"):
        run_beam(beam_size=2, n_best=3)


def test_min_and_max_length():
    (found,), _ = run_beam(min_length=3, max_length=3, n_best=1)
    assert len(found[0].tokens) == 3 and EOS not in found[0].tokens  # cut at max_length
    (found,), _ = run_beam(min_length=2, n_best=2)
    assert all(len(h.tokens) >= 3 and h.tokens[-1] == EOS for h in found)


def test_finished_sentences_leave_the_batch():
    # Sentence 0 may run 10 tokens, sentence 1 only 1: after step one only sentence 0's beams stay.
    cache = PrefixCache([(), ()], [])
    found = beam_search(
        table_step, cache, torch.full((2, 1), BOS), beam_size=2, eos_id=EOS, max_length=[10, 1],
        length_penalty=LengthPenalty(0.0), banned=(PAD, BOS),
    )  # fmt: skip
    assert cache.batch_sizes == [2, 2, 2]  # 2 sentences x 1, then 1 sentence x 2 beams
    assert found[1][0].tokens == [A] and found[0][0].tokens == [A, EOS]


def test_traces_follow_the_final_hypothesis():
    (found,), _ = run_beam(keep_trace=True)
    for h in found:
        # the trace recorded at step t is the hypothesis's own row: its prefix had t tokens
        assert [int(t[0][0]) for t in h.trace] == list(range(len(h.tokens)))


def test_greedy_on_hand_built_probabilities_and_batch_shrinks():
    cache = PrefixCache([(), ()], [])
    found = greedy_search(
        table_step, cache, torch.full((2, 1), BOS), eos_id=EOS, max_length=[10, 2],
        banned=(PAD, BOS),
    )  # fmt: skip
    assert found[0].tokens == [A, EOS]  # 0.6, then EOS (0.5) beats B (0.4)
    assert found[0].score == pytest.approx(math.log(0.30))
    assert found[1].tokens == [A, EOS]
    cache = PrefixCache([(), ()], [])
    found = greedy_search(
        table_step, cache, torch.full((2, 1), BOS), eos_id=EOS, max_length=[10, 1],
        min_length=1, banned=(PAD, BOS),
    )  # fmt: skip
    assert found[1].tokens == [A] and cache.batch_sizes == [2, 1]


# --- a tiny random model ------------------------------------------------------------------------


def tiny_transformer(seed=0, **overrides):
    torch.manual_seed(seed)
    return Transformer(ModelConfig.tiny(40, dropout=0.0, **overrides)).eval()


def model_step(model):
    def step(tokens, cache):
        out = model.decode_step(tokens, cache)
        return Stepped(out.logits[:, -1], out.cache)

    return step


def model_search(model, src, search, **kw):
    with torch.inference_mode():
        cache = model.start_decoding(model.encode(src))
        start = torch.full((src.shape[0], 1), model.config.start_id)
        return search(model_step(model), cache, start, eos_id=model.config.eos_id, **kw)


def test_beam_one_equals_greedy():
    model = tiny_transformer()
    src = torch.randint(4, 40, (3, 7))
    greedy = model_search(model, src, greedy_search, max_length=12, banned=(PAD, BOS))
    beam = model_search(
        model, src, beam_search, beam_size=1, max_length=12, banned=(PAD, BOS),
        length_penalty=LengthPenalty(0.6),
    )  # fmt: skip
    assert [h.tokens for h in greedy] == [b[0].tokens for b in beam]
    assert [h.log_prob for h in greedy] == pytest.approx([b[0].log_prob for b in beam], abs=1e-5)


def test_banned_ids_are_never_generated():
    model = tiny_transformer()
    with torch.no_grad():  # make padding the most likely token everywhere
        model.logits_bias = torch.zeros(40)
        model.logits_bias[PAD] = 100.0
    src = torch.randint(4, 40, (2, 5))
    free = model_search(model, src, greedy_search, max_length=6)
    assert all(set(h.tokens) == {PAD} for h in free)  # the test can fail
    for search, kw in [(greedy_search, {}), (beam_search, {"beam_size": 3})]:
        for h in model_search(model, src, search, max_length=6, banned=(PAD, BOS), **kw):
            h = h[0] if isinstance(h, list) else h
            assert PAD not in h.tokens and BOS not in h.tokens


def test_sampling_top_k_one_and_tiny_top_p_are_greedy():
    model = tiny_transformer()
    src = torch.randint(4, 40, (3, 6))
    greedy = [h.tokens for h in model_search(model, src, greedy_search, max_length=10)]
    for kw in [{"top_k": 1}, {"top_p": 1e-6}, {"temperature": 1e-4}]:
        got = model_search(model, src, sample, max_length=10, **kw)
        assert [h.tokens for h in got] == greedy, kw


def test_sampling_respects_top_k_and_is_reproducible():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))

    @dataclass
    class Null:
        def reorder(self, index):
            return self

    def step(tokens, cache):
        return Stepped(logits.expand(tokens.shape[0], 4), cache)

    def draw(seed, **kw):
        g = torch.Generator().manual_seed(seed)
        hyps = sample(step, Null(), torch.zeros(200, 1, dtype=torch.long), eos_id=9,
                      max_length=5, generator=g, **kw)  # fmt: skip
        return torch.tensor([h.tokens for h in hyps])

    assert torch.equal(draw(1, top_k=2), draw(1, top_k=2))
    assert set(draw(1, top_k=2).unique().tolist()) == {0, 1}
    assert set(draw(2, top_p=0.7).unique().tolist()) == {0, 1}  # 0.5 + 0.3 reaches 0.7
    assert set(draw(3).unique().tolist()) == {0, 1, 2, 3}
    hot = (draw(4, temperature=5.0) == 3).float().mean()
    cold = (draw(4, temperature=0.5) == 3).float().mean()
    assert hot > 0.1 > cold


def test_sampling_from_the_decoder_only_lm():
    torch.manual_seed(0)
    lm = DecoderOnlyLM(ModelConfig.tiny(40, dropout=0.0)).eval()

    def step(tokens, cache):
        out = lm.decode_step(tokens, cache)
        return Stepped(out.logits[:, -1], out.cache)

    prompt = torch.randint(4, 40, (4, 3))
    g = torch.Generator().manual_seed(0)
    with torch.inference_mode():
        hyps = sample(step, lm.start_decoding(), prompt, eos_id=EOS, max_length=8, generator=g,
                      top_k=10)  # fmt: skip
        greedy = greedy_search(step, lm.start_decoding(), prompt, eos_id=EOS, max_length=8)
        # greedy over the cache equals argmax over full recomputation
        for row, h in zip(prompt, greedy, strict=True):
            seq = row.tolist()
            for token in h.tokens:
                assert int(lm(torch.tensor([seq]))[0, -1].argmax()) == token
                seq.append(token)
    assert all(1 <= len(h.tokens) <= 8 for h in hyps)


def test_forced_eos_at_max_length_costs_nothing():
    # Step 2 may only end: "A </s>" keeps log 0.6 (the forced EOS adds 0), "B </s>" log 0.3.
    (found,), _ = run_beam(max_length=2, force_eos=True)
    assert summary(found) == [
        ([A, EOS], round(math.log(0.6), 6)),
        ([B, EOS], round(math.log(0.3), 6)),
    ]
    cache = PrefixCache([()], [])
    (greedy,) = greedy_search(
        table_step, cache, torch.full((1, 1), BOS), eos_id=EOS, max_length=1, force_eos=True
    )
    assert greedy.tokens == [EOS] and greedy.log_prob == 0.0


@pytest.mark.parametrize("width", [8000, 8003, 600])
def test_blockwise_top_k_equals_torch_topk(width):
    from heedful.search import top_k

    torch.manual_seed(width)
    x = torch.randn(5, width)
    x[1, : width - 3] = float("-inf")  # only 3 finite values: the rest of the top 8 is -inf
    values, index = top_k(x, 8)
    expected = x.topk(8, dim=1)
    assert torch.equal(values, expected.values)
    assert torch.equal(index[[0, 2, 3, 4]], expected.indices[[0, 2, 3, 4]])
    finite = values > float("-inf")  # a -inf may point at any token, as with torch.topk
    assert torch.equal(x.gather(1, index)[finite], values[finite]) and int(index.max()) < width
