"""Analytic models of the papers, beside the simulator: each module computes what a
paper's analysis predicts, so that a plot can show the model next to a run.

- :mod:`dcbsim.analysis.dcc`: differentiated AIMD (DCC eqs. 5-7).
- :mod:`dcbsim.analysis.dsm`: DSM's parameter calculator (eq. 31, §V-A).
- :mod:`dcbsim.analysis.qcn_convergence`: the QCN-T paper's convergence model (eqs. 6-28).
- :mod:`dcbsim.analysis.qcn_montecarlo`: that model's assumptions run as a random process.
- :mod:`dcbsim.analysis.maxmin`: weighted max-min fair shares (water-filling).
- :mod:`dcbsim.analysis.variants`: dumbbells off the papers' set-ups and what a run did there.
"""
