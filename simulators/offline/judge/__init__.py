"""Judges against people (`grading`: the data and the judges; `correlation`: correlations with
conversation-bootstrap CIs, Kendall's tau, Elo; `report`: the tables): an LLM judge's grades of real conversations beside the people's labels.

`crsim eval judge DIR` (`simulators/cli/eval_judge.py`) grades the conversations of a CRS Arena
import (`crsim data import crsarena ... --eval-labels crs_arena_eval.json`) and measures how
far the grades follow what people said:

- per human label aspect, Pearson and Spearman between judge grades and the annotators'
  aggregated labels (CRSArena-Eval), at the dialogue level and, for `relevance` and
  `interestingness`, over recommender turns; on all conversations and on the ReDial and
  OpenDialKG subsets (by the CRS's training data), each with a percentile bootstrap 95% CI that
  resamples conversations (a turn-level resample takes all turns of each drawn conversation);
- the judge's overall grade against the person's own satisfaction (CRSArena-Dial: satisfied 1,
  frustrated 0; a point-biserial Pearson);
- the ranking of the CRSs by mean judge grade against their ranking by people (share of
  satisfied conversations, mean human overall label, and Elo from the pairwise votes the way
  CRS Arena computed it: K = 16 from 1000, votes in file order), as Kendall's tau-b;
- the published evaluators' correlations on the same data as reference rows (FACE paper).

Judges: `aspects` (`agents/steps/judge/aspects.py`: one prompt per CRSArena-Eval aspect, on its
scale) and `pepper` (PEPPER's rubric judge, `agents/steps/judge/rubric.py`: proactiveness, coherence,
personalization 1-5; its mean is compared with every dialogue-level label).
"""
