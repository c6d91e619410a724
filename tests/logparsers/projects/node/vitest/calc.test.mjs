// Sample Vitest tests for the verbose reporter.
import { describe, expect, it, test } from "vitest";

describe("calculator", () => {
  it("adds numbers", () => {
    expect(1 + 2).toBe(3);
  });

  it("fails with a multi-line diff", () => {
    expect({ first: "line one", second: "line two" }).toEqual({ first: "line one", second: "line 2" });
  });

  it.skip("is skipped", () => {});

  it.todo("is still to do");

  it("adds 1 + 2", () => {
    expect(1 + 2).toBe(3);
  });

  test.each([
    [1, 1, 2],
    [2, 2, 5],
  ])("add(%i, %i) -> %i", (a, b, sum) => {
    expect(a + b).toBe(sum);
  });
});

it("takes a while", async () => {
  await new Promise((resolve) => setTimeout(resolve, 30));
});
