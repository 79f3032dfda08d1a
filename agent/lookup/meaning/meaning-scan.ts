/**
 * The scan behind lookup by meaning (issue #15, ninth round): which abilities' mean vectors are
 * closest to a request's vector. Every mean is compared with the request (a full scan) until a
 * snapshot holds `PROJECT_FROM` abilities; from there the means are also kept along their
 * `PROJECTION_DIMS` principal directions, so most abilities are passed over after a sum of 64
 * products instead of 512 — and the answer stays exactly the full scan's:
 *
 * For unit vectors q and x and an orthonormal basis P, q·x = (Pq)·(Px) + q⊥·x⊥, and by
 * Cauchy–Schwarz q⊥·x⊥ ≤ |q⊥|·|x⊥|. So (Pq)·(Px) + |q⊥|·|x⊥| bounds q·x from above; a mean whose
 * bound is below the `limit`-th closest found so far cannot be among the closest, and only the
 * others are compared in full. The basis only decides how much is passed over, never what is found.
 */

/** Abilities in a snapshot from which means are scanned through their principal directions. */
export const PROJECT_FROM = 2_000;
/** How many principal directions the means are kept along. */
export const PROJECTION_DIMS = 64;
/** At most this many means are read to find the principal directions (evenly spread over the snapshot). */
const SAMPLE_MAX = 512;
/** Rounds of subspace iteration: a rougher basis only means more means compared in full. */
const ITERATIONS = 6;
/** Float32 rounding between the two sums must never drop a mean that belongs in the answer. */
const SLACK = 1e-4;

/** The sum of products of `query` with the `dims` numbers of `array` from `offset`. */
export function dot(array: Float32Array, offset: number, query: Float32Array, dims: number): number {
  // Four sums at once: a quarter of the loop's steps, and the JIT keeps them apart.
  const whole = dims - (dims % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let at = 0;
  for (; at < whole; at += 4) {
    s0 += (array[offset + at] as number) * (query[at] as number);
    s1 += (array[offset + at + 1] as number) * (query[at + 1] as number);
    s2 += (array[offset + at + 2] as number) * (query[at + 2] as number);
    s3 += (array[offset + at + 3] as number) * (query[at + 3] as number);
  }
  for (; at < dims; at += 1) s0 += (array[offset + at] as number) * (query[at] as number);
  return s0 + s1 + s2 + s3;
}

/**
 * `k` orthonormal directions (rows of `k × dims`) along which `rows` vary most: subspace iteration
 * on their second-moment matrix, from a fixed start (the same snapshot, the same basis).
 */
export function principalDirections(rows: Float32Array, dims: number, count: number, k: number): Float32Array {
  const step = Math.max(1, count / SAMPLE_MAX);
  const moment = new Float64Array(dims * dims);
  for (let pick = 0; pick < count; pick += step) {
    const offset = Math.floor(pick) * dims;
    for (let i = 0; i < dims; i += 1) {
      const xi = rows[offset + i] as number;
      if (xi === 0) continue;
      const row = i * dims;
      for (let j = i; j < dims; j += 1) moment[row + j] = (moment[row + j] as number) + xi * (rows[offset + j] as number);
    }
  }
  for (let i = 0; i < dims; i += 1) for (let j = 0; j < i; j += 1) moment[i * dims + j] = moment[j * dims + i] as number;
  let basis = new Float64Array(k * dims);
  let seed = 12345;
  for (let at = 0; at < basis.length; at += 1) {
    seed = (seed * 16807) % 2147483647;
    basis[at] = seed / 2147483647 - 0.5;
  }
  orthonormalize(basis, k, dims);
  for (let round = 0; round < ITERATIONS; round += 1) {
    const next = new Float64Array(k * dims);
    for (let r = 0; r < k; r += 1) {
      for (let i = 0; i < dims; i += 1) {
        const row = i * dims;
        let sum = 0;
        for (let j = 0; j < dims; j += 1) sum += (moment[row + j] as number) * (basis[r * dims + j] as number);
        next[r * dims + i] = sum;
      }
    }
    orthonormalize(next, k, dims);
    basis = next;
  }
  return Float32Array.from(basis);
}

/** Gram–Schmidt, twice over for Float rounding; a row that vanishes is left at zero (it projects nothing). */
function orthonormalize(rows: Float64Array, k: number, dims: number): void {
  for (let r = 0; r < k; r += 1) {
    for (let pass = 0; pass < 2; pass += 1) {
      for (let p = 0; p < r; p += 1) {
        let along = 0;
        for (let i = 0; i < dims; i += 1) along += (rows[r * dims + i] as number) * (rows[p * dims + i] as number);
        for (let i = 0; i < dims; i += 1) rows[r * dims + i] = (rows[r * dims + i] as number) - along * (rows[p * dims + i] as number);
      }
    }
    let norm = 0;
    for (let i = 0; i < dims; i += 1) norm += (rows[r * dims + i] as number) ** 2;
    norm = Math.sqrt(norm);
    for (let i = 0; i < dims; i += 1) rows[r * dims + i] = norm < 1e-9 ? 0 : (rows[r * dims + i] as number) / norm;
  }
}

/** A mean and its closeness to the request. */
export interface CloseMean {
  doc: number;
  mean: number;
}

/** Whether one mean comes before another: closer, or as close and earlier in the snapshot. */
function before(mean: number, doc: number, other: CloseMean): boolean {
  return mean > other.mean || (mean === other.mean && doc < other.doc);
}

/** Keeps the `limit` first means in that order, whatever order they are offered in. */
function offer(list: CloseMean[], limit: number, doc: number, mean: number): void {
  if (list.length === limit && !before(mean, doc, list[limit - 1] as CloseMean)) return;
  let at = list.length === limit ? limit - 1 : list.length;
  while (at > 0 && before(mean, doc, list[at - 1] as CloseMean)) {
    list[at] = list[at - 1] as CloseMean;
    at -= 1;
  }
  list[at] = { doc, mean };
}

/**
 * The scan over `count` unit means of `dims` numbers each (rows of `means`); `skip` marks the rows
 * with no phrase. `closest(query, limit)` answers the `limit` closest means to a unit `query`,
 * closest first (equal ones in snapshot order) — the same answer whether or not the snapshot is large enough to be projected.
 */
export function createMeanScan(means: Float32Array, dims: number, count: number, skip: (doc: number) => boolean, options: { projectFrom?: number } = {}) {
  const projectFrom = options.projectFrom ?? PROJECT_FROM;
  const k = Math.min(PROJECTION_DIMS, dims);
  const projected = count >= projectFrom && dims > k ? project(means, dims, count, k) : undefined;

  let lastCompared = 0;
  const fullScan = (query: Float32Array, limit: number): CloseMean[] => {
    const list: CloseMean[] = [];
    lastCompared = count;
    for (let doc = 0; doc < count; doc += 1) if (!skip(doc)) offer(list, limit, doc, dot(means, doc * dims, query, dims));
    return list;
  };

  const prunedScan = (query: Float32Array, limit: number, { basis, rows, residual }: Projection): CloseMean[] => {
    const along = new Float32Array(k);
    let alongSquared = 0;
    for (let r = 0; r < k; r += 1) {
      along[r] = dot(basis, r * dims, query, dims);
      alongSquared += (along[r] as number) ** 2;
    }
    const across = Math.sqrt(Math.max(0, 1 - alongSquared));
    // First the `limit` closest along the directions, compared in full; then every other mean whose
    // bound still reaches the list's last, which only rises as closer means come in.
    const bounds = new Float32Array(count);
    const rough: CloseMean[] = [];
    for (let doc = 0; doc < count; doc += 1) {
      if (skip(doc)) continue;
      const estimate = dot(rows, doc * k, along, k);
      bounds[doc] = estimate + across * (residual[doc] as number) + SLACK;
      offer(rough, limit, doc, estimate);
    }
    const list: CloseMean[] = [];
    const compared = new Uint8Array(count);
    for (const { doc } of rough) {
      compared[doc] = 1;
      offer(list, limit, doc, dot(means, doc * dims, query, dims));
    }
    lastCompared = rough.length;
    for (let doc = 0; doc < count; doc += 1) {
      if (compared[doc] === 1 || skip(doc)) continue;
      if (list.length === limit && (bounds[doc] as number) < (list[limit - 1] as CloseMean).mean) continue;
      lastCompared += 1;
      offer(list, limit, doc, dot(means, doc * dims, query, dims));
    }
    return list;
  };

  return {
    /** Whether the means are scanned through their principal directions. */
    projected: projected !== undefined,
    /** How many means the last `closest` compared with the request in full (all of them without a projection). */
    lastCompared: () => lastCompared,
    closest(query: Float32Array, limit: number): CloseMean[] {
      if (limit <= 0) return [];
      return projected === undefined ? fullScan(query, limit) : prunedScan(query, limit, projected);
    },
  };
}

interface Projection {
  basis: Float32Array;
  /** Each mean along the directions (`count × k`). */
  rows: Float32Array;
  /** Each mean's length left outside the directions. */
  residual: Float32Array;
}

function project(means: Float32Array, dims: number, count: number, k: number): Projection {
  const basis = principalDirections(means, dims, count, k);
  const rows = new Float32Array(count * k);
  const residual = new Float32Array(count);
  for (let doc = 0; doc < count; doc += 1) {
    let kept = 0;
    let whole = 0;
    for (let i = 0; i < dims; i += 1) whole += (means[doc * dims + i] as number) ** 2;
    for (let r = 0; r < k; r += 1) {
      const value = dot(basis, r * dims, means.subarray(doc * dims, doc * dims + dims), dims);
      rows[doc * k + r] = value;
      kept += value * value;
    }
    residual[doc] = Math.sqrt(Math.max(0, whole - kept));
  }
  return { basis, rows, residual };
}
