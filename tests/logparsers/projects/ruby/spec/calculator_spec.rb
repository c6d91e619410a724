# Sample RSpec examples; run with --format json and flattened by jq, as the harness does.
RSpec.describe "Calculator" do
  it "adds numbers" do
    expect(1 + 2).to eq(3)
  end

  it "fails with a multiline message" do
    expect("line one\nline two").to eq("line one\nline 2")
  end

  it "is pending", pending: "not implemented" do
    expect(1).to eq(2)
  end

  it "is skipped", skip: "later" do
  end

  context "with the same description twice" do
    it "adds numbers" do
      expect(2 + 2).to eq(5)
    end
  end

  [1, 2].each do |n|
    it "repeats an example #{n > 0 ? 'with one description' : ''}" do
      expect(n).to eq(1)
    end
  end
end
