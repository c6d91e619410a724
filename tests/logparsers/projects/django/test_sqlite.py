"""Settings of the sample Django project (named like Django's own test settings)."""

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3"}}
SECRET_KEY = "sample-project-secret"
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "demo_app"]
ROOT_URLCONF = "demo_app.urls"
USE_TZ = False
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
# Server errors go to stderr while a test runs, splitting its "... ok" line as in real suites.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False}},
}
