"""The Celery application. Judge work runs on its own queues: judge-python and judge-lean.

Delivery settings (acks_late, reject_on_worker_lost, the broker's visibility timeout) are in
config/settings.py and explained in docs/judging.md.
"""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_ready, worker_shutdown
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("formalmarket")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = (
    Queue("default"),
    Queue("judge-python"),
    Queue("judge-lean"),
)
app.conf.task_default_queue = "default"
app.conf.task_routes = {
    "market.judge_python": {"queue": "judge-python"},
    "market.judge_lean": {"queue": "judge-lean"},
    # verifiers.judge_dry_run is sent to the queue of its draft's language by the caller.
}
app.autodiscover_tasks(["market", "verifiers", "activity"])
# A prefork pool child starts its judge sandboxes (zygotes) in worker_process_init, before it
# tells the worker it is up (verifiers/warm_up.py); Celery's default 4 s would kill it while a
# zygote imports numpy/sympy on a loaded machine.
app.conf.worker_proc_alive_timeout = 180.0


@task_prerun.connect
@task_postrun.connect
def _check_database_connections(**kwargs):
    """What Django does around each request, around each task: drop a connection that broke
    (errors, a changed autocommit) or outlived DB_CONN_MAX_AGE; a kept one is health-checked
    at its next use. Celery's fix-up no longer closes them every time (CELERY_DB_REUSE_MAX)."""
    from django.db import close_old_connections

    close_old_connections()


@worker_ready.connect
def _publish_caps(sender=None, **kwargs):
    """Publish this worker's judge caps for the web server to compare (config/caps.py)."""
    from config import caps

    caps.publish(sender.hostname)


@worker_shutdown.connect
def _withdraw_caps(sender=None, **kwargs):
    from config import caps

    try:
        caps.withdraw(sender.hostname)
    except Exception:  # noqa: BLE001, S110 - Redis gone at shutdown: the entry expires
        pass
