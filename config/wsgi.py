import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# The roles must agree on the judge's caps: warn at start about any worker that does not.
from config.caps import warn_on_disagreement  # noqa: E402

warn_on_disagreement()
