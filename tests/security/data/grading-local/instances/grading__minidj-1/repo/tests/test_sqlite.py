DATABASES = {"default": {"ENGINE": "sqlite3", "NAME": ":memory:"}}
SECRET_KEY = "minidj-tests"
