"""Chain completion (X-PCR CCR) at its edges: a group code with no items at the end of the range (the last
image has no questions left after filtering), codes given as Python lists or as float arrays of whole
numbers (a pyarrow/pandas column that had nulls elsewhere comes out as float64), and a stage with several
items. Hand-computed: 4 groups x 3 stages."""
import numpy as np

from leaderboard.scoring.metrics.chains import chain_completion, chain_completion_rate

# group 0: stages 0,1,2 all right -> complete; group 1: stage 1 twice, one wrong -> eligible, incomplete;
# group 2: stage 2 missing -> not eligible (although all right); group 3: no items at all
GROUP = [0, 0, 0, 1, 1, 1, 1, 2, 2]
STAGE = [0, 1, 2, 0, 1, 1, 2, 0, 1]
RIGHT = [True, True, True, True, True, False, True, True, True]


def test_a_trailing_group_without_items_is_not_eligible_and_shapes_hold():
    eligible, complete = chain_completion(np.array(GROUP), np.array(STAGE), np.array(RIGHT), n_groups=4, n_stages=3)
    assert eligible.tolist() == [True, True, False, False]
    assert complete.tolist() == [True, False, False, False]
    assert chain_completion_rate(eligible, complete) == 50.0


def test_codes_as_lists_or_whole_floats_give_the_same_chains():
    expected = ([True, True, False, False], [True, False, False, False])
    for group, stage in ((GROUP, STAGE), (np.array(GROUP, dtype=np.float64), np.array(STAGE, dtype=np.float64))):
        eligible, complete = chain_completion(group, stage, RIGHT, 4, 3)
        assert (eligible.tolist(), complete.tolist()) == expected


def test_no_eligible_chain_gives_nan():
    eligible, complete = chain_completion(np.array([0, 1]), np.array([0, 0]), np.array([1, 1]), 2, 2)
    assert not eligible.any() and np.isnan(chain_completion_rate(eligible, complete))
