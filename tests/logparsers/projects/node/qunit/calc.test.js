// Sample QUnit tests in the style of three.js (run with the qunit CLI, which prints TAP).
QUnit.module("Maths", () => {
  QUnit.module("Sphere", () => {
    QUnit.test("Instancing", (assert) => {
      assert.ok(true, "Passed!");
    });

    QUnit.test("containsPoint", (assert) => {
      assert.strictEqual(1 + 1, 3, "points inside the sphere");
    });

    QUnit.skip("intersectsBox", (assert) => {
      assert.ok(true);
    });

    QUnit.todo("distanceToPoint", (assert) => {
      assert.ok(false);
    });
  });
});
