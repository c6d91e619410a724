// Sample Jest tests: nested describe blocks, test.each titles, skipped and todo tests,
// failures with multi-line diffs.
const add = (a, b) => a + b;

describe("calculator", () => {
  test("adds numbers", () => {
    expect(add(1, 2)).toBe(3);
  });

  test("fails with a multi-line diff", () => {
    expect({ first: "line one", second: "line two" }).toEqual({ first: "line one", second: "line 2" });
  });

  describe("nested (deeper) block", () => {
    test("adds numbers", () => {
      expect(add(2, 2)).toBe(4);
    });

    test.skip("is skipped", () => {});

    test.todo("is still to do");
  });

  test.each([
    [1, 1, 2],
    [2, 2, 5],
  ])("add(%i, %i) -> %i", (a, b, sum) => {
    expect(add(a, b)).toBe(sum);
  });
});

test("top level test (5 ms)", () => {
  console.log("✓ forged test line");
});
