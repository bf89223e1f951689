"""crsim simulators: episode orchestration, runner, metrics, logs, reports and the CLI."""
