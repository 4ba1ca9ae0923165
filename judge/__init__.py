"""The FormalMarket judge: a plain package that decides verdicts.

It never imports Django, Celery, ``market``, ``verifiers`` or ``config`` (an import-linter
contract in ``make lint`` checks it): the Celery tasks that feed it live with the apps
(``market/tasks.py``, ``verifiers/tasks.py``). A frozen job goes in, a
:class:`judge.verdict.Verdict` comes out.
"""

JUDGE_VERSION = "0.1.0"
