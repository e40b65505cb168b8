"""The benchmark against ns-2 and ns-3 (docs/performance.md).

- `bench.mirror`: unit strings, scenario overrides and the ns-2/ns-3 mirrors of a
  scenario (`ns2_args`, `ns3_args`), Jain's index, and `Case`, one benchmark case
  with its three command lines; shared with the validation suite.
- `bench.measure`: building and timing the simulators (wall and CPU time, peak
  RSS), reading their counters, and the machine description.
- `bench.report`: the text of docs/performance.md: tables, observations, targets
  and the explanatory sections.
- `bench.run`: the cases, the control runs and the command line that writes the report.
- `bench.sweep`, `bench.callgrind`, `bench.cli`, `bench.ns3build`: the sweep
  throughput, the profile, the `dupack` command end to end, and ns-3 programs.
- `bench.dask_sweep`, `bench.reproduce`: sweeps on a Dask cluster, and
  `dupack reproduce` end to end; each writes its own section of the report.
"""
