# Sample test-unit tests in fluentd's and faker's style.
require "test/unit"

class TestConfigSample < Test::Unit::TestCase
  def test_passes
    assert_equal 2, 1 + 1
  end

  def test_fails_with_multiline_message
    assert_equal "line one\nline two", "line one\nline 2"
  end

  def test_errors
    raise "boom"
  end

  def test_omitted
    omit "needs a network"
  end

  def test_pending
    pend "not written yet"
  end

  test "block style: name with spaces" do
    assert true
  end

  data("small" => [1, 1], "large" => [100, 100])
  def test_with_data(data)
    a, b = data
    assert_equal a, b
  end
end
