"""SWE-bench Multilingual: the PHP repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/php.py``).
A version here is the pull-request number of the instance, so most specs belong to a single
instance. Fields shared by every version of a repository are written once under ``shared``.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/php.py"


def _php_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("php", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "phpoffice/phpspreadsheet": _php_repo(
        {
            "3463 4186": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Writer/Xlsx/FunctionPrefixTest.php",
                )
            },
            "3469": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Style/StyleTest.php",
                )
            },
            "3570": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Calculation/Functions/LookupRef/VLookupTest.php",
                )
            },
            "3659": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Worksheet/Table/Issue3635Test.php",
                )
            },
            "3903": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Shared/StringHelperTest.php",
                )
            },
            "3940": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Worksheet/WorksheetTest.php",
                )
            },
            "4114": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Worksheet/Issue4112Test.php",
                )
            },
            "4214": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Calculation/Functions/MathTrig/RoundDownTest.php",
                )
            },
            "4313": {
                "test_cmd": (
                    "./vendor/bin/phpunit --testdox --colors=never tests/PhpSpreadsheetTests/Reader/Ods/FormulaTranslatorTest.php",
                )
            },
        },
        shared={
            "install": ("composer update", "composer install"),
            "docker_specs": {"php_version": "8.3.16"},
        },
    ),
    "laravel/framework": _php_repo(
        {
            "46234": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Routing/RoutingUrlGeneratorTest.php",
                ),
                "install": ("composer require laravel/prompts --no-update", "composer install"),
            },
            "48573": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Cache/CacheArrayStoreTest.php",
                ),
                "install": ("composer require laravel/prompts --no-update", "composer install"),
            },
            "48636": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Database/DatabaseEloquentModelTest.php",
                ),
                "install": ("composer require laravel/prompts --no-update", "composer install"),
            },
            "51195": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/View/Blade/BladeVerbatimTest.php",
                ),
                "install": (
                    "composer require laravel/prompts --no-update",
                    "composer require orchestra/testbench-core --no-update",
                    "composer install",
                ),
            },
            "51890": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Validation/ValidationValidatorTest.php --filter 'attribute'",
                ),
                "install": (
                    "composer require laravel/prompts --no-update",
                    "composer require orchestra/testbench-core --no-update",
                    "composer install",
                ),
            },
            "52451": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Validation/ValidationValidatorTest.php --filter 'custom'",
                ),
                "install": (
                    "composer require laravel/prompts --no-update",
                    "composer require orchestra/testbench-core --no-update",
                    "composer install",
                ),
            },
            "52680": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Database/DatabaseEloquentInverseRelationTest.php",
                ),
                "install": (
                    "composer require laravel/prompts --no-update",
                    "composer require orchestra/testbench-core --no-update",
                    "composer install",
                ),
            },
            "52684": {
                "test_cmd": ("vendor/bin/phpunit --testdox --colors=never tests/Support/SupportStrTest.php",),
                "install": (
                    "composer require laravel/prompts --no-update",
                    "composer require orchestra/testbench-core --no-update",
                    "composer install",
                ),
            },
            "52866": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Container/ContextualAttributeBindingTest.php",
                ),
                "install": (
                    "composer require laravel/prompts --no-update",
                    "composer require orchestra/testbench-core --no-update",
                    "composer install",
                ),
            },
            "53206": {
                "test_cmd": ("vendor/bin/phpunit --testdox --colors=never tests/Support/SupportJsTest.php",),
                "install": ("composer require orchestra/testbench-core --no-update", "composer install"),
            },
            "53696": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Database/DatabaseSchemaBlueprintTest.php",
                ),
                "install": ("composer require orchestra/testbench-core --no-update", "composer install"),
            },
            "53914": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Integration/Database/DatabaseConnectionsTest.php",
                ),
                "install": ("composer require orchestra/testbench-core --no-update", "composer install"),
            },
            "53949": {
                "test_cmd": ("vendor/bin/phpunit --testdox --colors=never tests/Support/OnceTest.php",),
                "install": ("composer require orchestra/testbench-core --no-update", "composer install"),
            },
        },
        shared={"docker_specs": {"php_version": "8.3.16"}},
    ),
    "php-cs-fixer/php-cs-fixer": _php_repo(
        {
            "7523": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Operator/BinaryOperatorSpacesFixerTest.php",
                )
            },
            "7635 8367": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Import/FullyQualifiedStrictTypesFixerTest.php",
                )
            },
            "7663 7875": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Whitespace/StatementIndentationFixerTest.php",
                )
            },
            "7998": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/Casing/ConstantCaseFixerTest.php",
                )
            },
            "8064": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/StringNotation/SimpleToComplexStringVariableFixerTest.php",
                )
            },
            "8075": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/PhpUnit/PhpUnitAttributesFixerTest.php",
                )
            },
            "8256": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/PhpTag/BlankLineAfterOpeningTagFixerTest.php",
                )
            },
            "8331": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/Fixer/LanguageConstruct/NullableTypeDeclarationFixerTest.php",
                )
            },
        },
        shared={
            "install": ("composer update", "composer install"),
            "docker_specs": {"php_version": "8.3.16"},
        },
    ),
    "briannesbitt/carbon": _php_repo(
        {
            "2665": {"test_cmd": ("vendor/bin/phpunit --testdox --colors=never tests/Carbon/RoundTest.php",)},
            "2752": {
                "test_cmd": ("vendor/bin/phpunit --testdox --colors=never tests/CarbonImmutable/IsTest.php",)
            },
            "2762": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/RoundingTest.php",
                )
            },
            "2813": {
                "test_cmd": ("vendor/bin/phpunit --testdox --colors=never tests/Factory/FactoryTest.php",),
                "build": ("composer update", "composer install"),
            },
            "2981 3073": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/TotalTest.php",
                )
            },
            "3005 3098": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/CarbonInterval/ConstructTest.php",
                )
            },
            "3041": {
                "test_cmd": ("vendor/bin/phpunit --testdox --colors=never tests/CarbonPeriod/CreateTest.php",)
            },
            "3103": {
                "test_cmd": (
                    "vendor/bin/phpunit --testdox --colors=never tests/CarbonImmutable/SettersTest.php",
                )
            },
        },
        shared={
            "install": ("composer update", "composer install"),
            "docker_specs": {"php_version": "8.3.16"},
        },
    ),
}
