"""Image names: the official scheme, SWE-Gym's, and ways to point at locally built images.

The official names are also compared with 4.1.0's ``instance_image_key`` (in
``test_evalscript_official.py``) and with the ``image`` column of every published row (in
``test_evalscript_published.py``).
"""

from __future__ import annotations

import pytest

from pytest_swe.families.swebench.images import image_from_template
from pytest_swe.families.swebench.images import official_image_name
from pytest_swe.families.swebench.images import resolve_image_name
from pytest_swe.families.swebench.images import swe_gym_image_name


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, "swebench/sweb.eval.x86_64.sympy_1776_sympy-20590:latest"),
        ({"namespace": None}, "sweb.eval.x86_64.sympy__sympy-20590:latest"),
        ({"namespace": ""}, "sweb.eval.x86_64.sympy__sympy-20590:latest"),
        ({"arch": "arm64"}, "swebench/sweb.eval.arm64.sympy_1776_sympy-20590:latest"),
        ({"tag": "v2"}, "swebench/sweb.eval.x86_64.sympy_1776_sympy-20590:v2"),
        ({"namespace": "ghcr.io/me"}, "ghcr.io/me/sweb.eval.x86_64.sympy_1776_sympy-20590:latest"),
        ({"separator": "_s_"}, "swebench/sweb.eval.x86_64.sympy_s_sympy-20590:latest"),
    ],
)
def test_official_image_name(kwargs: dict, expected: str) -> None:
    assert official_image_name("sympy__sympy-20590", **kwargs) == expected


def test_official_name_lowercases_the_id_only() -> None:
    assert official_image_name("Project-MONAI__MONAI-1", namespace="MyOrg", tag="Latest") == (
        "MyOrg/sweb.eval.x86_64.project-monai_1776_monai-1:Latest"
    )


def test_swe_gym_image_name_settings() -> None:
    assert (
        swe_gym_image_name("dask__dask-10000", tag="v1") == "xingyaoww/sweb.eval.x86_64.dask_s_dask-10000:v1"
    )
    assert swe_gym_image_name("dask__dask-10000", namespace="") == "sweb.eval.x86_64.dask_s_dask-10000:latest"


def test_template_reproduces_the_official_and_local_names() -> None:
    instance = "django__django-11099"
    official = "{namespace}/sweb.eval.{arch}.{docker_id}:{tag}"
    assert image_from_template(official, instance) == official_image_name(instance)
    assert image_from_template("{official}", "Project-MONAI__MONAI-1", arch="arm64") == official_image_name(
        "Project-MONAI__MONAI-1", arch="arm64"
    )
    assert image_from_template("{local}", instance) == official_image_name(instance, namespace=None)
    assert (
        image_from_template("registry.local:5000/{owner}/{name}:{id}", "Django__django-11099")
        == "registry.local:5000/Django/django:django__django-11099"
    )
    assert image_from_template("{instance_id}", "Django__django-1") == "Django__django-1"
    assert image_from_template("{repo}", "pylint-dev__pylint-7080") == "pylint-dev/pylint"


def test_template_with_an_unknown_placeholder_names_it() -> None:
    with pytest.raises(ValueError, match="unknown placeholder 'nope'"):
        image_from_template("{nope}", "a__b-1")


def test_resolution_order_override_then_template_then_default() -> None:
    instance = "astropy__astropy-12907"
    assert resolve_image_name(instance) == "swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest"
    assert (
        resolve_image_name(instance, template="local/{local}")
        == "local/sweb.eval.x86_64.astropy__astropy-12907:latest"
    )
    assert resolve_image_name(instance, overrides={instance: "mine:1"}, template="x/{id}") == "mine:1"
    assert resolve_image_name(instance, template="x/{id}:v1") == "x/astropy__astropy-12907:v1"
    assert resolve_image_name("other__x-1", overrides={instance: "mine:1"}, default=swe_gym_image_name) == (
        "xingyaoww/sweb.eval.x86_64.other_s_x-1:latest"
    )
    assert resolve_image_name(instance, template="{official}", namespace="mirror", arch="arm64") == (
        "mirror/sweb.eval.arm64.astropy_1776_astropy-12907:latest"
    )
