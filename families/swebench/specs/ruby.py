"""SWE-bench Multilingual: the Ruby repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/ruby.py``).
A version here is the pull-request number of the instance, so most specs belong to a single
instance. Fields shared by every version of a repository are written once under ``shared``.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/ruby.py"


def _ruby_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("ruby", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "jekyll/jekyll": _ruby_repo(
        {
            "8047": {
                "test_cmd": ('bundle exec ruby -I test test/test_filters.rb -v -n "/where_exp filter/"',),
                "install": ("script/bootstrap", "bundle add webrick"),
                "pre_install": ("sed -i '/^[[:space:]]*install_if.*mingw/,/^[[:space:]]*end/d' Gemfile",),
            },
            "8167": {
                "test_cmd": ('bundle exec ruby -I test test/test_utils.rb -v -n "/Utils.slugify/"',),
                "install": ("script/bootstrap", "bundle add webrick"),
            },
            "8761": {
                "test_cmd": (
                    "bundle exec cucumber --publish-quiet --format progress --no-color features/post_data.feature:6 features/post_data.feature:30",
                ),
                "install": ("script/bootstrap",),
            },
            "8771": {
                "test_cmd": (
                    "bundle exec cucumber --publish-quiet --format progress --no-color features/incremental_rebuild.feature:27 features/incremental_rebuild.feature:70",
                ),
                "install": ("script/bootstrap",),
            },
            "9141": {
                "test_cmd": ('bundle exec ruby -I test test/test_site.rb -v -n "/static files/"',),
                "install": ("script/bootstrap",),
            },
        },
        shared={"docker_specs": {"ruby_version": "3.3"}},
    ),
    "fluent/fluentd": _ruby_repo(
        {
            "3328": {
                "test_cmd": (
                    "bundle exec ruby test/plugin/test_in_tail.rb -v -n '/test_ENOENT_error_after_setup_watcher/'",
                )
            },
            "3466": {
                "test_cmd": (
                    "bundle exec ruby test/plugin/test_in_tail.rb -v -n '/test_should_replace_target_info/'",
                )
            },
            "3608": {
                "test_cmd": (
                    "bundle exec ruby test/plugin/test_output_as_buffered_retries.rb -v -n '/retry_max_times/'",
                )
            },
            "3616": {
                "test_cmd": ("bundle exec ruby test/plugin/test_in_http.rb -v -n '/test_application/'",)
            },
            "3631": {
                "test_cmd": ("bundle exec ruby test/test_event_router.rb -v -n '/handle_emits_error/'",)
            },
            "3640": {
                "test_cmd": (
                    "bundle exec ruby test/plugin_helper/test_retry_state.rb -v -n '/exponential backoff/'",
                )
            },
            "3641": {"test_cmd": ("bundle exec ruby test/test_supervisor.rb -v",)},
            "3917": {"test_cmd": ("bundle exec ruby test/test_config.rb -v",)},
            "4030": {"test_cmd": ("bundle exec ruby test/plugin/out_forward/test_ack_handler.rb -v",)},
            "4311": {
                "test_cmd": ("bundle exec ruby test/config/test_system_config.rb -v -n '/rotate_age/'",)
            },
            "4598": {
                "test_cmd": (
                    "bundle exec ruby test/plugin_helper/test_http_server_helper.rb -v -n '/mount/'",
                ),
                "pre_install": ("echo \"gem 'console', '1.29'\" >> Gemfile",),
            },
            "4655": {"test_cmd": ("bundle exec ruby test/plugin/test_in_http.rb -v -n '/test_add/'",)},
        },
        shared={"install": ("bundle install",), "docker_specs": {"ruby_version": "3.3"}},
    ),
    "fastlane/fastlane": _ruby_repo(
        {
            "19207 19304": {
                "test_cmd": (
                    "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/actions_specs/zip_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
                )
            },
            "19765": {
                "test_cmd": (
                    "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/actions_specs/download_dsyms_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
                )
            },
            "20642": {
                "test_cmd": (
                    "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./frameit/spec/device_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
                )
            },
            "20958": {
                "test_cmd": (
                    "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/actions_specs/import_from_git_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
                )
            },
            "20975": {
                "test_cmd": (
                    "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./match/spec/storage/s3_storage_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
                )
            },
            "21857": {
                "test_cmd": (
                    "FASTLANE_SKIP_UPDATE_CHECK=1 bundle exec rspec ./fastlane/spec/lane_manager_base_spec.rb --no-color --format json | tail -n +2 | jq -r '.examples[] | \"\\(.description) - \\(.id) - \\(.status)\"'",
                )
            },
        },
        shared={"install": ("bundle install --jobs=$(nproc)",), "docker_specs": {"ruby_version": "3.3"}},
    ),
    "jordansissel/fpm": _ruby_repo(
        {
            "1829": {
                "test_cmd": (
                    "bundle exec rspec spec/fpm/package/deb_spec.rb --no-color --format json | sed -n '/^{/,$p' | jq -r '.examples[] | \"\\(.description) - \\(.status)\"'",
                ),
                "docker_specs": {"ruby_version": "3.1"},
            },
            "1850": {
                "test_cmd": (
                    "bundle exec rspec spec/fpm/package/empty_spec.rb --no-color --format json | sed -n '/^{/,$p' | jq -r '.examples[] | \"\\(.description) - \\(.status)\"'",
                ),
                "docker_specs": {"ruby_version": "3.3"},
            },
        },
        shared={"install": ("bundle install",)},
    ),
    "faker-ruby/faker": _ruby_repo(
        {
            "2705": {
                "test_cmd": ("bundle exec ruby test/faker/default/test_faker_internet.rb -v -n '/password/'",)
            },
            "2970": {
                "test_cmd": ("bundle exec ruby test/faker/default/test_faker_internet.rb -v -n '/email/'",)
            },
        },
        shared={"install": ("bundle install",), "docker_specs": {"ruby_version": "3.3"}},
    ),
    "rubocop/rubocop": _ruby_repo(
        {
            "13362": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/redundant_freeze_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13375": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cli_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13393": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/guard_clause_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13396": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/redundant_parentheses_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13424": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/safe_navigation_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13431": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/layout/empty_lines_around_method_body_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13479": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/layout/leading_comment_space_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13503": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/dig_chain_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13560": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/file_null_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13579": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/layout/line_continuation_spacing_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13627": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/multiple_comparison_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13653": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/access_modifier_declarations_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13668": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/sole_nested_conditional_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13680": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/style/redundant_line_continuation_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13687": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/lint/safe_navigation_chain_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
            "13705": {
                "test_cmd": (
                    'bundle exec rspec spec/rubocop/cop/lint/out_of_range_regexp_ref_spec.rb --no-color --format json | sed -n \'/^{/,$p\' | \\\n  jq -r \'.examples | group_by(.description) | .[] |\n    if any(select(.status == "failed")) then\n      (.[0] | "\\(.description) - failed")\n    else\n      (.[0] | "\\(.description) - \\(.status)")\n    end\'',
                )
            },
        },
        shared={"install": ("bundle install",), "docker_specs": {"ruby_version": "3.3"}},
    ),
}
