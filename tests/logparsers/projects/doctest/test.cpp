// Sample doctest test cases with subcases, run with "-s -r=xml" as nlohmann/json's eval does.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>

TEST_CASE("arithmetic") {
  SUBCASE("addition") { CHECK(1 + 1 == 2); }
  SUBCASE("subtraction fails") { CHECK(3 - 1 == 1); }
  SUBCASE("nested") {
    SUBCASE("inner passes") { CHECK(true); }
    SUBCASE("inner fails") { CHECK(false); }
  }
}

TEST_CASE("strings with <xml> & \"quotes\"") {
  SUBCASE("compare") {
    std::string text = "a < b";
    CHECK(text == "a < b");
  }
}

TEST_CASE("no subcases") { CHECK(2 * 2 == 4); }

TEST_CASE("throws" * doctest::may_fail()) {
  SUBCASE("unexpected exception") { throw 1; }
}
