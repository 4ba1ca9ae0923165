"""The Celery application. Judge work runs on its own queues: judge-python and judge-lean."""

import os

from celery import Celery
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
    "judge.judge_python": {"queue": "judge-python"},
    "judge.judge_lean": {"queue": "judge-lean"},
}
app.autodiscover_tasks(["market", "verifiers", "judge", "activity"])
