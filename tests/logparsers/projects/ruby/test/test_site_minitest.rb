# Sample minitest tests; spec-style names that end in a sentence, as Jekyll's tests read.
require "minitest/autorun"

describe "static files" do
  it "are copied." do
    _(1 + 1).must_equal 2
  end

  it "keep their timestamps. even when touched." do
    _("a").must_equal "b"
  end

  it "report an error." do
    raise ArgumentError, "boom"
  end

  it "can be skipped." do
    skip "not on this platform"
  end
end

class TestPlainNames < Minitest::Test
  def test_without_a_sentence
    assert true
  end
end
