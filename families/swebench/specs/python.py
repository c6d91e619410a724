"""SWE-bench (full, Lite, Verified; test and dev splits): the 18 Python repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/python.py``),
the last release that generated eval scripts from classic rows. Only the fields an eval script
or an image recipe needs are kept; the conda package lists (``packages``, ``pip_packages``)
describe the prebuilt environment images and are left out.

Not carried: ``dbt-labs/dbt-core`` (listed upstream without a test command, so no eval script
can be made for it, and no published split contains it) and ``swe-bench/humaneval`` (not a
SWE-bench dataset).
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/python.py"

# Test commands. Upstream defines ``pytest -rA`` twice; the later definition wins.
PYTEST = "pytest -rA"
PYTEST_ASTROPY_OLD = "pytest -rA -vv -o console_output_style=classic --tb=no"
PYTEST_SEABORN = "pytest --no-header -rA"
DJANGO = "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1"
DJANGO_SERIAL = "./tests/runtests.py --verbosity 2"
SPHINX = "tox --current-env -epy39 -v --"
SYMPY = "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose"

PIP_EDITABLE = "python -m pip install -e ."

_SKLEARN_INSTALL = "python -m pip install -v --no-use-pep517 --no-build-isolation -e ."

_DJANGO_OLD_LOCALE = (
    "apt-get update && apt-get install -y locales",
    "echo 'en_US UTF-8' > /etc/locale.gen",
    "locale-gen en_US.UTF-8",
)
_DJANGO_OLD_ENV = (
    "export LANG=en_US.UTF-8",
    "export LC_ALL=en_US.UTF-8",
    "export PYTHONIOENCODING=utf8",
    "export LANGUAGE=en_US:en",
)
_DJANGO_3_ENV = (
    "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
    "export LANG=en_US.UTF-8",
    "export LANGUAGE=en_US:en",
    "export LC_ALL=en_US.UTF-8",
)

_QHULL = (
    'QHULL_URL="http://www.qhull.org/download/qhull-2020-src-8.0.2.tgz"',
    'QHULL_TAR="/tmp/qhull-2020-src-8.0.2.tgz"',
    'QHULL_BUILD_DIR="/testbed/build"',
    'wget -O "$QHULL_TAR" "$QHULL_URL"',
    'mkdir -p "$QHULL_BUILD_DIR"',
    'tar -xvzf "$QHULL_TAR" -C "$QHULL_BUILD_DIR"',
)
_MPL_TEXLIVE = "texlive texlive-latex-extra texlive-fonts-recommended texlive-xetex texlive-luatex cm-super"
_MPL_APT_311 = (
    "apt-get -y update && apt-get -y upgrade && DEBIAN_FRONTEND=noninteractive apt-get install -y "
    f"imagemagick ffmpeg {_MPL_TEXLIVE} dvipng"
)
_MPL_APT_38 = (
    "apt-get -y update && apt-get -y upgrade && DEBIAN_FRONTEND=noninteractive apt-get install -y "
    f"imagemagick ffmpeg libfreetype6-dev pkg-config {_MPL_TEXLIVE}"
)
_MPL_APT_37 = "apt-get -y update && apt-get -y upgrade && apt-get install -y imagemagick ffmpeg libfreetype6-dev pkg-config"
# Upstream's command has a stray "&& &&"; kept as published (it only matters to image builds).
_MPL_APT_35 = "apt-get -y update && apt-get -y upgrade && && apt-get install -y imagemagick ffmpeg"

_SPHINX_TOX_RA = "sed -i 's/pytest/pytest -rA/' tox.ini"
_SPHINX_3_PINS = (
    "sed -i 's/Jinja2>=2.3/Jinja2<3.0/' setup.py",
    "sed -i 's/sphinxcontrib-applehelp/sphinxcontrib-applehelp<=1.0.7/' setup.py",
    "sed -i 's/sphinxcontrib-devhelp/sphinxcontrib-devhelp<=1.0.5/' setup.py",
    "sed -i 's/sphinxcontrib-qthelp/sphinxcontrib-qthelp<=1.0.6/' setup.py",
    "sed -i 's/alabaster>=0.7,<0.8/alabaster>=0.7,<0.7.12/' setup.py",
    "sed -i \"s/'packaging',/'packaging', 'markupsafe<=2.0.1',/\" setup.py",
)
_SPHINX_HTML_PINS_PLAIN = (
    "sed -i 's/sphinxcontrib-htmlhelp/sphinxcontrib-htmlhelp<=2.0.4/' setup.py",
    "sed -i 's/sphinxcontrib-serializinghtml/sphinxcontrib-serializinghtml<=1.1.9/' setup.py",
)
_SPHINX_HTML_PINS_GE = (
    "sed -i 's/sphinxcontrib-htmlhelp>=2.0.0/sphinxcontrib-htmlhelp>=2.0.0,<=2.0.4/' setup.py",
    "sed -i 's/sphinxcontrib-serializinghtml>=1.1.5/sphinxcontrib-serializinghtml>=1.1.5,<=1.1.9/' setup.py",
)
_SPHINX_HTML_PINS_EITHER = (
    "grep -q 'sphinxcontrib-htmlhelp>=2.0.0' setup.py && "
    "sed -i 's/sphinxcontrib-htmlhelp>=2.0.0/sphinxcontrib-htmlhelp>=2.0.0,<=2.0.4/' setup.py || "
    "sed -i 's/sphinxcontrib-htmlhelp/sphinxcontrib-htmlhelp<=2.0.4/' setup.py",
    "grep -q 'sphinxcontrib-serializinghtml>=1.1.5' setup.py && "
    "sed -i 's/sphinxcontrib-serializinghtml>=1.1.5/sphinxcontrib-serializinghtml>=1.1.5,<=1.1.9/' setup.py || "
    "sed -i 's/sphinxcontrib-serializinghtml/sphinxcontrib-serializinghtml<=1.1.9/' setup.py",
)
_SPHINX_GRAPHVIZ = "apt-get update && apt-get install -y graphviz"

_ASTROPY_INSTALL = "python -m pip install -e .[test] --verbose"
_ASTROPY_PIN_SETUPTOOLS = (
    r"""sed -i 's/requires = \["setuptools",/requires = \["setuptools==68.0.0",/' pyproject.toml"""
)


def _python_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("python", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "astropy/astropy": _python_repo(
        {
            "0.1 0.2 0.3 0.4 1.1 1.2 1.3": {"python": "3.6", "test_cmd": PYTEST_ASTROPY_OLD},
            "3.0 3.1 3.2": {"python": "3.9", "test_cmd": PYTEST},
            "4.1 4.2 4.3 5.0 5.1 5.2": {
                "python": "3.9",
                "test_cmd": PYTEST,
                "pre_install": (_ASTROPY_PIN_SETUPTOOLS,),
            },
            "v5.3": {"python": "3.10", "test_cmd": PYTEST, "pre_install": (_ASTROPY_PIN_SETUPTOOLS,)},
        },
        shared={"install": _ASTROPY_INSTALL},
    ),
    "django/django": _python_repo(
        {
            "1.4 1.5 1.6": {"install": "python setup.py install"},
            "1.7 1.8 1.10 1.11 2.0 2.1 2.2": {
                "install": "python setup.py install",
                "pre_install": _DJANGO_OLD_LOCALE,
                "eval_commands": _DJANGO_OLD_ENV,
            },
            # The one Django version whose runner is called without the settings/parallel flags.
            "1.9": {
                "install": "python setup.py install",
                "pre_install": _DJANGO_OLD_LOCALE,
                "eval_commands": _DJANGO_OLD_ENV,
                "test_cmd": DJANGO_SERIAL,
            },
            "3.0 3.1 3.2": {"python": "3.6", "eval_commands": _DJANGO_3_ENV},
            "4.0": {"python": "3.8"},
            "4.1 4.2": {"python": "3.9"},
            "5.0 5.1 5.2": {"python": "3.11"},
        },
        shared={"python": "3.5", "install": PIP_EDITABLE, "test_cmd": DJANGO},
    ),
    "matplotlib/matplotlib": _python_repo(
        {
            "3.5 3.6 3.7": {"python": "3.11", "pre_install": (_MPL_APT_311, *_QHULL)},
            "3.8 3.9": {
                "python": "3.11",
                "pre_install": (_MPL_APT_311, *_QHULL),
                "install": 'python -m pip install --no-build-isolation -e ".[dev]"',
            },
            "3.1 3.2 3.3 3.4": {"python": "3.8", "pre_install": (_MPL_APT_38, *_QHULL)},
            "3.0": {"python": "3.7", "pre_install": (_MPL_APT_37, *_QHULL)},
            "1.0 1.1 1.2 1.3 1.4 1.5 2.0 2.1 2.2": {
                "python": "3.5",
                "pre_install": (_MPL_APT_35,),
                "install": "python setup.py build; python setup.py install",
            },
        },
        shared={"install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "mwaskom/seaborn": _python_repo(
        {
            "0.11": {"install": PIP_EDITABLE},
            "0.12 0.13 0.14": {"install": "python -m pip install -e .[dev]"},
        },
        shared={"python": "3.9", "test_cmd": PYTEST_SEABORN},
    ),
    "pallets/flask": _python_repo(
        {"2.0": {"python": "3.9"}, "2.1": {"python": "3.10"}, "2.2 2.3 3.0 3.1": {"python": "3.11"}},
        shared={"install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "psf/requests": _python_repo(
        {
            "0.7 0.8 0.9 0.11 0.13 0.14 1.1 1.2 2.0 2.2 2.3 2.4 2.5 2.7 2.8 2.9 2.10 2.11 2.12 "
            "2.17 2.18 2.19 2.22 2.25 2.26 2.27 2.31 3.0": {},
        },
        shared={"python": "3.9", "install": "python -m pip install .", "test_cmd": PYTEST},
    ),
    "pydata/xarray": _python_repo(
        {"0.12 0.18 0.19 0.20 2022.03 2022.06 2022.09 2023.07 2024.05": {}},
        shared={"python": "3.10", "install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "pylint-dev/pylint": _python_repo(
        {
            "2.9 2.10 2.11 2.13 2.14 2.15 2.16 2.17 3.0 3.1 3.2 3.3 4.0": {},
            "2.8": {"pre_install": ("apt-get update && apt-get install -y libenchant-2-dev hunspell-en-us",)},
        },
        shared={"python": "3.9", "install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "pytest-dev/pytest": _python_repo(
        {
            "4.4 4.5 4.6 5.0 5.1 5.2 5.3 5.4 6.0 6.2 7.0 7.1 7.2 7.4 8.0 8.1 8.2 8.3 8.4": {},
            "6.3": {"pre_install": ("sed -i 's/>=>=/>=/' setup.cfg",)},
        },
        shared={"python": "3.9", "install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "scikit-learn/scikit-learn": _python_repo(
        {"0.20 0.21 0.22": {"python": "3.6"}, "1.3 1.4 1.5 1.6": {"python": "3.9"}},
        shared={"install": _SKLEARN_INSTALL, "test_cmd": PYTEST},
    ),
    "sphinx-doc/sphinx": _python_repo(
        {
            "1.5 1.6 1.7 1.8 2.0 2.1 2.2 2.3 2.4 4.5 5.0 5.1 5.2 5.3 6.0 6.2 7.0 7.1": {
                "pre_install": (_SPHINX_TOX_RA,),
            },
            "3.0 3.1 3.2 3.3 3.4 3.5 4.0": {
                "pre_install": (_SPHINX_TOX_RA, *_SPHINX_3_PINS, *_SPHINX_HTML_PINS_PLAIN),
            },
            "4.1": {"pre_install": (_SPHINX_TOX_RA, *_SPHINX_3_PINS, *_SPHINX_HTML_PINS_EITHER)},
            "4.2 4.3 4.4": {"pre_install": (_SPHINX_TOX_RA, *_SPHINX_3_PINS, *_SPHINX_HTML_PINS_GE)},
            "7.2 7.3 7.4": {"pre_install": (_SPHINX_TOX_RA, _SPHINX_GRAPHVIZ)},
            "8.0 8.1": {"python": "3.10", "pre_install": (_SPHINX_TOX_RA, _SPHINX_GRAPHVIZ)},
        },
        shared={"python": "3.9", "install": "python -m pip install -e .[test]", "test_cmd": SPHINX},
    ),
    "sympy/sympy": _python_repo(
        {"0.7 1.0 1.1 1.2 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13 1.14": {}},
        shared={"python": "3.9", "install": PIP_EDITABLE, "test_cmd": SYMPY},
    ),
    # The dev split's repositories.
    "marshmallow-code/marshmallow": _python_repo(
        {"2.18 2.19 2.20 3.0 3.1 3.2 3.4 3.8 3.9 3.10 3.11 3.12 3.13 3.15 3.16 3.19": {}},
        shared={"python": "3.9", "install": "python -m pip install -e '.[dev]'", "test_cmd": PYTEST},
    ),
    "pvlib/pvlib-python": _python_repo(
        {"0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9": {}},
        shared={"python": "3.9", "install": "python -m pip install -e .[all]", "test_cmd": PYTEST},
    ),
    "pydicom/pydicom": _python_repo(
        {
            "1.0 1.1 1.2 1.3": {"python": "3.6"},
            "1.4 2.0": {"python": "3.8"},
            "2.1 2.2": {"python": "3.9"},
            "2.3": {"python": "3.10"},
            "2.4 3.0": {"python": "3.11"},
        },
        shared={"install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "pylint-dev/astroid": _python_repo(
        {"2.5 2.6 2.7 2.8 2.9 2.10 2.12 2.13 2.14 2.15 2.16 3.0": {}},
        shared={"python": "3.9", "install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "pyvista/pyvista": _python_repo(
        {
            "0.20 0.21 0.22 0.23": {},
            "0.24 0.25 0.26 0.27 0.28 0.29 0.30 0.31 0.32 0.33 0.34 0.35 0.36 0.37 0.38 0.39 0.40 0.41 "
            "0.42 0.43": {
                "pre_install": ("apt-get update && apt-get install -y ffmpeg libsm6 libxext6 libxrender1",)
            },
        },
        shared={"python": "3.9", "install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
    "sqlfluff/sqlfluff": _python_repo(
        {"0.4 0.5 0.6 0.8 0.9 0.10 0.11 0.12 0.13 1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2": {}},
        shared={"python": "3.9", "install": PIP_EDITABLE, "test_cmd": PYTEST},
    ),
}

#: Steps that the published rows (the v5 ``eval_script`` column) run right before the start
#: marker for single instances, beyond what their repository/version spec says. They are part
#: of those instances' official scripts, so the script built for the same row carries them too.
PUBLISHED_PRE_TEST_STEPS: dict[str, tuple[str, ...]] = {
    "astropy__astropy-8707": ("python -m pip install -q 'pytest<7.2'",),
    "astropy__astropy-8872": ("export SETUPTOOLS_USE_DISTUTILS=stdlib",),
}
