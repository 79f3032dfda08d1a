import { describe, expect, it } from "vitest";
import { createMeanScan, dot, principalDirections } from "./meaning-scan";

/** A fixed sequence of numbers in [-0.5, 0.5): the same vectors every run. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647 - 0.5;
  };
}

function unitRow(values: Float32Array): Float32Array {
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return values.map((value) => value / norm);
}

/**
 * `count` unit rows of `dims` numbers gathered around `clusters` centres, as sentence vectors of
 * abilities gather by topic; row 7 repeats row 3 (two abilities with the same phrases).
 */
function clusteredRows(count: number, dims: number, clusters: number, seed: number): Float32Array {
  const next = numbers(seed);
  const centres = Array.from({ length: clusters }, () => unitRow(Float32Array.from({ length: dims }, next)));
  const rows = new Float32Array(count * dims);
  for (let row = 0; row < count; row += 1) {
    const centre = centres[row % clusters] as Float32Array;
    rows.set(unitRow(centre.map((value) => value + 0.35 * next())), row * dims);
  }
  rows.copyWithin(7 * dims, 3 * dims, 4 * dims);
  return rows;
}

describe("principalDirections", () => {
  it("gives orthonormal directions, the first along which the rows vary most", () => {
    const dims = 16;
    const next = numbers(7);
    // Rows spread widely along axis 5, a little along the others.
    const rows = new Float32Array(400 * dims);
    for (let row = 0; row < 400; row += 1) for (let i = 0; i < dims; i += 1) rows[row * dims + i] = (i === 5 ? 4 : 0.3) * next();
    const basis = principalDirections(rows, dims, 400, 4);
    for (let a = 0; a < 4; a += 1) {
      for (let b = 0; b < 4; b += 1) expect(dot(basis, a * dims, basis.subarray(b * dims, b * dims + dims), dims)).toBeCloseTo(a === b ? 1 : 0, 4);
    }
    expect(Math.abs(basis[5] as number)).toBeGreaterThan(0.99);
  });
});

describe("createMeanScan", () => {
  const dims = 96;
  const count = 600;
  const rows = clusteredRows(count, dims, 12, 11);
  // Row 11 has no phrase: never an answer.
  const skip = (doc: number) => doc === 11;
  const full = createMeanScan(rows, dims, count, skip);
  const projected = createMeanScan(rows, dims, count, skip, { projectFrom: 100 });
  const queries = Array.from({ length: 40 }, (_, n) =>
    n < 20 ? rows.slice(n * 29 * dims, n * 29 * dims + dims) : unitRow(Float32Array.from({ length: dims }, numbers(1000 + n))),
  );

  it("finds through the principal directions exactly what the full scan finds, in the same order, ties included", () => {
    expect(full.projected).toBe(false);
    expect(projected.projected).toBe(true);
    for (const query of queries) {
      for (const limit of [1, 8, 32]) {
        const expected = full.closest(query, limit);
        expect(expected).toHaveLength(limit);
        expect(projected.closest(query, limit)).toEqual(expected);
      }
    }
    // The twin rows (3 and 7) are equally close: the earlier comes first.
    const twin = full.closest(rows.slice(3 * dims, 4 * dims), 2).map(({ doc }) => doc);
    expect(twin).toEqual([3, 7]);
    expect(projected.closest(rows.slice(3 * dims, 4 * dims), 2).map(({ doc }) => doc)).toEqual([3, 7]);
    expect(full.closest(rows.slice(11 * dims, 12 * dims), count).some(({ doc }) => doc === 11)).toBe(false);
  });

  it("compares only the means the directions cannot rule out", () => {
    const compared = queries.slice(0, 20).map((query) => {
      projected.closest(query, 32);
      return projected.lastCompared();
    });
    full.closest(queries[0] as Float32Array, 32);
    expect(full.lastCompared()).toBe(count);
    // Gathered rows, a query from among them: most of the 600 are passed over.
    expect(Math.max(...compared)).toBeLessThan(count / 2);
  });
});
