"""The FormalMarket judge: a plain package that decides verdicts.

It never imports Django, ``market`` or ``verifiers`` (``judge/tasks.py`` is the only
Celery/Django glue). A frozen job goes in, a :class:`judge.verdict.Verdict` comes out.
"""

JUDGE_VERSION = "0.1.0"
