/**
 * A small, dependency-free benchmark harness. Each measurement runs the operation in rounds of
 * ~`roundMs` after a warm-up and reports the median rate over `rounds`, so one slow round (the
 * machine is shared) does not decide the figure. Ratios between figures measured in the same
 * run are what the project compares; absolute numbers depend on the machine.
 */
import os from 'node:os';

export type Measurement = { name: string; opsPerSecond: number; unit: string; samples: number[] };

export type MeasureOptions = { rounds?: number; roundMs?: number; warmupMs?: number; unit?: string; opsPerCall?: number };

export function measure(name: string, fn: () => unknown, options: MeasureOptions = {}): Measurement {
  const { rounds = 5, roundMs = 600, warmupMs = 300, unit = 'ops/s', opsPerCall = 1 } = options;
  const until = (ms: number) => {
    const start = performance.now();
    let calls = 0;
    while (performance.now() - start < ms) {
      fn();
      calls++;
    }
    return (calls * opsPerCall * 1000) / (performance.now() - start);
  };
  until(warmupMs);
  const samples = Array.from({ length: rounds }, () => until(roundMs));
  return { name, opsPerSecond: median(samples), unit, samples };
}

export type Case = { name: string; fn: () => unknown } & Pick<MeasureOptions, 'unit' | 'opsPerCall'>;

/**
 * Measure several operations with interleaved rounds (A B C A B C ...), so a change in machine
 * load during the run affects every row alike and their ratios stay meaningful.
 */
export function measureInterleaved(cases: Case[], options: Pick<MeasureOptions, 'rounds' | 'roundMs' | 'warmupMs'> = {}): Measurement[] {
  const { rounds = 7, roundMs = 400, warmupMs = 300 } = options;
  const timed = (c: Case, ms: number) => {
    const start = performance.now();
    let calls = 0;
    while (performance.now() - start < ms) {
      c.fn();
      calls++;
    }
    return (calls * (c.opsPerCall ?? 1) * 1000) / (performance.now() - start);
  };
  for (const c of cases) timed(c, warmupMs);
  const samples = cases.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) cases.forEach((c, i) => samples[i]!.push(timed(c, roundMs)));
  return cases.map((c, i) => ({ name: c.name, opsPerSecond: median(samples[i]!), unit: c.unit ?? 'ops/s', samples: samples[i]! }));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
}

export function formatRate(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
}

/** Print a table: name, rate, ratio to the baseline row. */
export function printTable(title: string, rows: Measurement[], baseline?: Measurement): void {
  console.log(`\n## ${title}\n`);
  console.log(`| measure | rate | vs ${baseline ? baseline.name : '-'} |`);
  console.log('|---|---:|---:|');
  for (const row of rows) {
    const ratio = baseline ? `${(row.opsPerSecond / baseline.opsPerSecond).toFixed(2)}x` : '-';
    console.log(`| ${row.name} | ${formatRate(row.opsPerSecond)} ${row.unit} | ${ratio} |`);
  }
}
