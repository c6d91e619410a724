"""SWE-Gym (``SWE-Gym/SWE-Gym``, ``SWE-Gym-Lite``): the 11 Python repositories of the dataset.

SWE-Gym grades with a fork of the SWE-bench harness, ``SWE-Gym/SWE-Bench-Fork``, whose
``swebench/harness/constants.py`` holds these specs. The fork's own repository could not be read
for this table; the facts below were read from two mirrors of the fork
that agree with each other on every SWE-Gym entry (``Ethara-Ai/SWE-Bench-Fork`` at b207399 and a
second, unnamed copy of the same file), and cross-checked against ``amartyashankha/SWE-Gym-modal``,
which differs only by running tests with ``-n auto`` instead of ``-n0``. Treat them as the fork's
facts to the extent those copies are faithful; see the module tests for what is pinned.

Quirks kept as published: MONAI's test command ends in a space and dask's has a double space
(so the assembled command has two spaces before the first directive), and two of dvc's
``pre_install`` strings are fused into one because the fork's list lacks a comma there (it only
matters to image builds). The fork looks repositories up in lower case.

The fork's table also lists ``spyder-ide/spyder`` (no versions) and ``HypothesisWorks/hypothesis``
(not part of SWE-Gym); neither is carried.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "SWE-Gym/SWE-Bench-Fork swebench/harness/constants.py (read from mirrors)"

_MYPY_TYPESHED = "git submodule update --init mypy/typeshed || true"
_MYPY_INSTALL = "python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r"
_MYPY_INSTALL_XDIST = (
    "python -m pip install -r test-requirements.txt; python -m pip install -e .; "
    "pip install pytest pytest-xdist; hash -r"
)

_CONAN_APT = "apt-get -y update && apt-get -y upgrade && apt-get install -y build-essential cmake"
_CONAN_REQUIREMENTS = (
    "python -m pip install -r conans/requirements.txt; "
    "python -m pip install -r conans/requirements_server.txt; "
    "python -m pip install -r conans/requirements_dev.txt "
)

_DVC_INSTALL = (
    "python -m pip install --upgrade pip wheel GitPython; "
    'python -m pip install "cython<3.0.0" && python -m pip install --no-build-isolation pyyaml==5.4.1; '
    "python -m pip install git+https://github.com/iterative/mock-ssh-server.git || true; "
    "python -m pip install -r tests/requirements.txt || true; "
    "python -m pip install -r test-requirements.txt || true; "
    'python -m pip install -e ".[tests,dev,all_remotes,all,testing]";'
)
_DVC_OLD_PINS = ' python -m pip install "numpy<=1.20"; python -m pip install "pytest<8";'
_DVC_PRE_INSTALL = (
    "apt-get -y update && apt-get -y upgrade && apt-get install -y cmake",
    r"[ -f setup.py ] && sed -E -i 's/moto==([0-9]+\.[0-9]+\.[0-9]+)\.dev[0-9]+/moto==\1/' setup.py",
    # Two commands fused by a missing comma in the fork's list.
    "[ -f setup.py ] && sed -i 's/pyarrow==0.15.1/pyarrow==0.16/' setup.py"
    "[ -f setup.py ] && sed -i 's/boto3==1.9.115/boto3==1.9.201/' setup.py",
)

_BOKEH_NPM = "cd bokehjs && npm install --location=global npm && npm ci && cd ../"
# The fork writes ``printf "1\n"`` in a plain string, so the command holds a real newline inside the
# double quotes (bash passes it through unchanged).
_BOKEH_OLD_INSTALL = (
    'pip install "setuptools<66" "jinja2<3.1"; printf "1\n" | python setup.py develop; bokeh sampledata;'
)

_PYDANTIC_PRE_INSTALL = (
    "apt-get update && apt-get install -y locales",
    "apt-get install -y pipx",
    "pipx ensurepath",
    "pipx install pdm",
    'export PATH="$HOME/.local/bin:$PATH"',
    "which python",
    "python --version",
)
_PYDANTIC_OLD_PRE_INSTALL = tuple(
    "pipx install pdm  --python python3.7" if step == "pipx install pdm" else step
    for step in _PYDANTIC_PRE_INSTALL
)

_PANDAS_INSTALL = (
    "python -m pip install -ve . --no-build-isolation -Ceditable-verbose=true; pip uninstall pytest-qt -y;"
)

_HYDRA_INSTALL = "pip install -r requirements/dev.txt; pip install -e .;"
_HYDRA_OLD_INSTALL = (
    "sed -i 's|isort@git+git://github.com/timothycrosley/isort|isort@git+https://github.com/timothycrosley/isort|g' "
    "requirements/dev.txt; "
    '{ tail -n1 requirements/requirements.txt | grep -q "." && echo ""; } >> requirements/requirements.txt; '
    'echo "pip==24.0" >> requirements/requirements.txt;pip install "pip==24.0"; ' + _HYDRA_INSTALL
)


def _gym_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("python", by_version, shared=shared, dialect="swe-gym", origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    # mypy's directives are the test-data case names ("[case X]") joined for ``-k``.
    "python/mypy": _gym_repo(
        {
            "1.7 1.8 1.9 1.10 1.11": {
                "python": "3.12",
                "test_cmd": "pytest -rA -k",
                "install": _MYPY_INSTALL,
            },
            "1.0 1.1 1.2 1.3 1.4 1.5 1.6": {"python": "3.11", "install": _MYPY_INSTALL},
            "0.940 0.950 0.960 0.970 0.980 0.990": {"python": "3.10", "install": _MYPY_INSTALL_XDIST},
            "0.800 0.810 0.820 0.910 0.920": {
                "python": "3.9",
                "install": _MYPY_INSTALL_XDIST + ";",
                "pre_install": (
                    _MYPY_TYPESHED,
                    "sed -i '1i types-typing-extensions==3.7.3' test-requirements.txt",
                ),
            },
        },
        shared={"test_cmd": "pytest -n0 -rA -k", "pre_install": (_MYPY_TYPESHED,)},
    ),
    "getmoto/moto": _gym_repo(
        {"0.4 1.0 1.2 1.3 2.0 2.1 2.2 2.3 3.0 3.1 4.0 4.1 4.2 5.0": {}},
        shared={"python": "3.12", "install": "make init", "test_cmd": "pytest -n0 -rA"},
    ),
    "conan-io/conan": _gym_repo(
        {
            "1.33 1.34 1.35 1.36 1.37 1.38 1.39 1.40 1.41 1.42 1.43 1.44 1.45 1.46 1.47 1.48 1.49 1.50 "
            "1.51 1.52 1.53 1.54 1.55 1.57 1.58 1.59 2.0": {
                # Cython 3 breaks the older releases' dependencies.
                "install": "echo 'cython<3' > /tmp/constraint.txt; export PIP_CONSTRAINT=/tmp/constraint.txt; "
                + _CONAN_REQUIREMENTS,
            },
            "1.60 1.61 1.62 2.1 2.2 2.3 2.4": {"install": _CONAN_REQUIREMENTS},
        },
        shared={
            "python": "3.10",
            "pre_install": (_CONAN_APT,),
            "eval_commands": ("export PYTHONPATH=${PYTHONPATH:-}:$(pwd)",),
            "test_cmd": "pytest -n0 -rA",
        },
    ),
    # dask names no Python version: its environment.yml decides.
    "dask/dask": _gym_repo(
        {
            "2.11 2.12 2.13 2.14 2.15 2.16 2.17 2.18 2.19 2.21 2.22 2.23 2.25 2.26 2.27 2.28 2.29 2.30 "
            "2020.12 2021.01 2021.02 2021.03 2021.04 2021.05 2021.06 2021.07 2021.08 2021.09 2021.10 "
            "2021.11 2021.12 2022.01 2022.02 2022.03 2022.04 2022.05 2022.6 2022.7 2022.8 2022.9 2022.10 "
            "2022.11 2022.12 2023.1 2023.2 2023.3 2023.4 2023.5 2023.6 2023.7 2023.8 2023.9 2023.10 "
            "2023.11 2023.12 2024.1 2024.2 2024.3 2024.4 2024.5": {},
        },
        shared={"install": "python -m pip install --no-deps -e .", "test_cmd": "pytest -n0 -rA  --color=no"},
    ),
    "Project-MONAI/MONAI": _gym_repo(
        {"0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.11 0.105 1.0 1.1 1.2 1.3": {}},
        shared={
            "python": "3.8",
            "install": r"sed -i '/^git+https:\/\/github.com\/Project-MONAI\//d' requirements-dev.txt; "
            "python -m pip install types-pkg-resources==0.1.3 pytest; pip install -r requirements-dev.txt;"
            "python setup.py develop;",
            "test_cmd": "pytest -rA ",
        },
    ),
    "iterative/dvc": _gym_repo(
        {
            "0.1 0.8 0.9 0.12 0.13 0.14 0.15 0.16 0.17 0.18 0.19 0.20 0.21 0.22 0.23 0.24 0.27 0.28 0.29 "
            "0.30 0.31 0.32 0.33 0.34 0.35 0.40 0.41 0.50 0.51 0.52 0.53 0.54 0.55 0.56 0.57 0.58 0.59 "
            "0.60 0.61 0.62 0.63 0.65 0.66 0.68 0.69 0.70 0.71 0.74 0.75 0.76 0.77 0.78 0.80 0.81 0.82 "
            "0.83 0.84 0.85 0.86 0.87 0.88 0.89 0.90 0.91 0.92 0.93": {
                "python": "3.8",
                "install": _DVC_INSTALL + _DVC_OLD_PINS,
            },
            "1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 2.0 2.1 2.2 2.3 2.4 2.5 2.6 2.7 2.8 2.9 "
            "2.10 2.11 2.12 2.13 2.15 2.17 2.19 2.20 2.21 2.22 2.23 2.24 2.27 2.28 2.30 2.33 2.34 2.35 "
            "2.38 2.41 2.43 2.44 2.45 2.46 2.48 2.50 2.51 2.52 2.54 2.55 2.56 2.57 2.58 3.0 3.1 3.2 3.3": {
                "python": "3.9",
                "install": _DVC_INSTALL + _DVC_OLD_PINS,
            },
            "3.4 3.5 3.6 3.10 3.11 3.12 3.13 3.14 3.15 3.17 3.19 3.23 3.24 3.28 3.29 3.36 3.37 3.38 3.43 "
            "3.47 3.48 3.49": {"python": "3.10", "install": _DVC_INSTALL},
        },
        shared={"pre_install": _DVC_PRE_INSTALL, "test_cmd": "pytest -rA"},
    ),
    "bokeh/bokeh": _gym_repo(
        {
            "3.0 3.3 3.4 3.5": {
                "python": "3.10",
                "install": "python -m pip install -e .; python -m pip install bokeh_sampledata;",
            },
            "0.4 0.5 0.6 0.7 0.8 0.9 0.10 0.11 0.12 0.13 0.1181316818 1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.3 2.4": {
                "python": "3.8",
                "install": _BOKEH_OLD_INSTALL,
            },
        },
        shared={"pre_install": (_BOKEH_NPM,), "test_cmd": "pytest -rA -n0"},
    ),
    "modin-project/modin": _gym_repo(
        {
            "0.1 0.2 0.3 0.4 0.6 0.8 0.9 0.10 0.11 0.12 0.13 0.14 0.15 0.16 0.17 0.18 0.19": {
                "python": "3.8",
                "install": "python -m pip install -e .; python -m pip install numpy==1.23.1 protobuf==3.20.1;",
            },
            "0.20 0.21 0.22 0.23 0.24 0.25 0.26 0.27 0.28 0.29 0.30": {
                "python": "3.9",
                "install": "python -m pip install -e .;",
            },
        },
        shared={
            "pre_install": ("apt-get -y update && apt-get -y upgrade && apt-get install -y libpq-dev",),
            "test_cmd": "pytest -n0 -rA",
        },
    ),
    "pydantic/pydantic": _gym_repo(
        {
            "0.2 0.4 0.6 0.9 0.10 0.11 0.13 0.14 0.15 0.17 0.18 0.20 0.24 0.27 0.29 0.32 0.41 0.151 0.201 "
            "1.01 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.31 1.41 1.51 1.71": {
                "python": "3.7",
                "pre_install": _PYDANTIC_OLD_PRE_INSTALL,
            },
            "2.0 2.01 2.02 2.03 2.04 2.4 2.5 2.6 2.7": {
                "python": "3.8",
                "pre_install": _PYDANTIC_PRE_INSTALL,
            },
        },
        shared={
            "install": 'export PATH="$HOME/.local/bin:$PATH"; pdm add pre-commit; make install;',
            "test_cmd": "pytest -rA --tb=short -vv -o console_output_style=classic --no-header",
        },
    ),
    # pandas names no Python version: its environment.yml decides.
    "pandas-dev/pandas": _gym_repo(
        {
            "0.16 0.17 0.18 0.19 0.20 0.21 0.22 0.23 0.24 0.25 0.26 1.0 1.1 1.2 1.3 1.4 1.5 2.0 2.1": {
                # numpy 2 is supported from pandas 2.2 on.
                "install": "python -m pip install 'numpy<2'; " + _PANDAS_INSTALL,
            },
            "2.2 3.0": {"install": _PANDAS_INSTALL},
        },
        shared={
            "pre_install": (
                "git remote add upstream https://github.com/pandas-dev/pandas.git",
                "git fetch upstream --tags",
            ),
            "test_cmd": "pytest -rA --tb=long",
        },
    ),
    "facebookresearch/hydra": _gym_repo(
        {
            "0.1 0.9 0.10 0.11 0.12 1.0 1.1 1.2": {"install": _HYDRA_OLD_INSTALL},
            "1.3 1.4": {"install": _HYDRA_INSTALL},
        },
        shared={
            "python": "3.8",
            "pre_install": (
                "apt-get -y update && apt-get -y upgrade && apt-get install -y openjdk-17-jdk openjdk-17-jre",
            ),
            "test_cmd": "pytest -rA --tb=long",
        },
    ),
}
