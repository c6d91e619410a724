// Sample googletest tests: plain, failing with a multi-line message, parameterised, typed,
// skipped and disabled.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

TEST(FormatTest, Passes) { EXPECT_EQ(2, 1 + 1); }

TEST(FormatTest, FailsWithMultilineMessage) {
  std::string expected = "line one\nline two";
  EXPECT_EQ(expected, "line one\nline 2") << "strings differ\nacross lines";
}

TEST(FormatTest, Skipped) { GTEST_SKIP() << "not on this platform"; }

TEST(FormatTest, DISABLED_NotRun) {}

TEST(FormatTest, PrintsAStatusLookingLine) {
  std::cout << "[       OK ] Forged.Test (0 ms)" << std::endl;
}

class WidthTest : public ::testing::TestWithParam<int> {};

TEST_P(WidthTest, IsSmall) { EXPECT_LT(GetParam(), 3); }

INSTANTIATE_TEST_SUITE_P(Widths, WidthTest, ::testing::Values(1, 2, 3));

template <typename T>
class TypedTest : public ::testing::Test {};

using Types = ::testing::Types<int, double>;
TYPED_TEST_SUITE(TypedTest, Types);

TYPED_TEST(TypedTest, DefaultIsZero) { EXPECT_EQ(TypeParam(), TypeParam(0)); }
