"""A port named the wrong way round is refused from the command line, in one line."""

from __future__ import annotations

from conftest import SCENARIOS
from dcbsim import cli

QUICK = str(SCENARIOS / "examples" / "quickstart.toml")


def test_validate_refuses_a_reversed_port_with_the_right_one(capsys):
    sets = ['monitor.ports=["r0:sw0"]', 'scheme.congestion_points=["r0:sw0"]',
            'timeline=[{at_ms = 10.0, port = "r0:sw0", rate_gbps = 1.0}]']
    for expr in sets:
        assert cli.main(["validate", QUICK, "--set", expr]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.rstrip().endswith('did you mean "sw0:r0"?'), err
        assert err.startswith(f"dcbsim: error: {QUICK}: --set {expr}: "), err
    assert cli.main(["validate", QUICK, "--set", 'monitor.ports=["sw0:r0"]']) == 0
