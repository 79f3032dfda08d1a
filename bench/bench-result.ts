/** One line of the benchmark table: a figure, the baseline it is compared with, and its target. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  /** Absent for figures that are only reported against their target (latencies). */
  baselineName?: string;
  baseline?: number;
  target: string;
  pass: boolean;
}
