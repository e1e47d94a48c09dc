"""The handoff gate against the labelled set: confusion matrix, per class, every wrong file.

    python bench/eval_gate.py

The set is ``tests/data/handoff_gate/`` (see ``tests/gate_eval.py``): rules are
tuned on the web, infra, ml and docs domains and reported on data, mobile,
cli and embedded; security, backend and desktop ("fresh") came after the rules,
and robotics, fintech, gamedev, bioinfo, devtools and govdata ("blind2") were
written blind, by someone who never saw the gate, and so were the 48 files in
``blind3/`` (healthcare, logistics, edtech, ecommerce, security, audio). Targets: >= 95% of vague handoffs refused, <= 5% of good
ones refused. ``tests/test_handoff_gate_eval.py`` pins the floor.
"""

from __future__ import annotations

import benchlib  # noqa: F401  (puts the project and tests/ on sys.path)
from gate_eval import judge, load_cases, report


def main() -> None:
    print(report(judge(load_cases())))


if __name__ == "__main__":
    main()
