// Sample jasmine specs in the style of marked's test suite.
describe("Marked", () => {
  it("renders a paragraph", () => {
    expect("<p>a</p>").toBe("<p>a</p>");
  });

  it("renders emphasis", () => {
    expect("<em>a</em>").toBe("<strong>a</strong>");
  });

  describe("Lexer", () => {
    it("keeps tabs", () => {
      expect("\t").toEqual("    ");
    });

    xit("is pending", () => {});
  });
});
