"""Runs inside the virtual environment that holds the official ``swebench`` 4.1.0 package.

Reads a JSON request on stdin and writes a JSON answer on stdout, so the plugin's tests can
compare with the official package without importing it:

* ``{"rows": [row, ...]}`` -> ``{"eval_scripts": {key: script | {"error": message}}}``, where a
  row's key is its ``key`` field or its ``instance_id``. Scripts come from
  ``make_test_spec(row).eval_script``; the environment-image script is stubbed out because it
  fetches requirement files over the network and plays no part in the eval script.
* ``{"specs": true}`` -> ``{"specs": {repo: {version: {field: value}}}, "languages": {repo: ext}}``.
* ``{"image_keys": [[instance_id, namespace, arch, tag], ...]}`` -> ``{"image_keys": [name, ...]}``,
  the ``instance_image_key`` of a ``TestSpec`` made with those settings (``namespace`` may be null).
"""

import json
import sys

import swebench.harness.test_spec.test_spec as test_spec_module
from swebench.harness.constants import MAP_REPO_TO_EXT
from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS
from swebench.harness.test_spec.test_spec import TestSpec


def _no_env_script(*_args, **_kwargs):
    return []


def main() -> None:
    request = json.load(sys.stdin)
    answer = {}
    if request.get("rows"):
        test_spec_module.make_env_script_list = _no_env_script
        scripts = {}
        for row in request["rows"]:
            key = row.get("key", row["instance_id"])
            try:
                scripts[key] = test_spec_module.make_test_spec(row).eval_script
            except Exception as error:  # report, do not stop: the caller names the failing row
                scripts[key] = {"error": f"{type(error).__name__}: {error}"}
        answer["eval_scripts"] = scripts
    if request.get("specs"):
        answer["specs"] = MAP_REPO_VERSION_TO_SPECS
        answer["languages"] = MAP_REPO_TO_EXT
    if request.get("image_keys"):
        answer["image_keys"] = [_image_key(*settings) for settings in request["image_keys"]]
    json.dump(answer, sys.stdout)


def _image_key(instance_id, namespace, arch, tag):
    spec = TestSpec(
        instance_id=instance_id,
        repo="",
        version="",
        repo_script_list=[],
        eval_script_list=[],
        env_script_list=[],
        arch=arch,
        FAIL_TO_PASS=[],
        PASS_TO_PASS=[],
        language="py",
        docker_specs={},
        namespace=namespace,
        instance_image_tag=tag,
    )
    return spec.instance_image_key


if __name__ == "__main__":
    main()
