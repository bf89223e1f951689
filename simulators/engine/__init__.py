"""The engine: how a run happens.

Building a run from its config (`build`), one episode's turn order and stopping
(`episode`), many episodes in one process, worker processes or Ray actors (`runner`,
`workers`, `ray_workers`, with what they hand back in `outcomes`), the append-only logs
(`logs`), the config hash and the keys every run has (`config_hash`, `run_keys`) and what
composing crsim's config needs outside `crsim run` (`hydra_setup`). Nothing here knows
which protocol runs or how results are scored.
"""
