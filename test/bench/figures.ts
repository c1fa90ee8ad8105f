import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One benchmark figure as test-results/bench.json holds it. */
export interface Figure {
  value: number;
  unit: string;
  target?: number;
  baseline?: number;
  /** `higher` where more is better (a recall); otherwise lower is better. */
  better?: 'higher';
}

/** Whether a figure meets its target (true when it has none). */
export function meetsTarget(f: Figure): boolean {
  if (f.target === undefined) return true;
  return f.better === 'higher' ? f.value >= f.target : f.value <= f.target;
}

/** Benchmarks write their figures as parts; the bench runner merges them into bench.json. */
export function writeFigures(resultsDir: string, part: string, figures: Record<string, Figure>): void {
  const dir = join(resultsDir, 'bench-parts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${part}.json`), JSON.stringify(figures, null, 2));
}

export function readAllFigures(resultsDir: string): Record<string, Figure> {
  const dir = join(resultsDir, 'bench-parts');
  const all: Record<string, Figure> = {};
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  } catch {
    return all;
  }
  for (const f of names) Object.assign(all, JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, Figure>);
  return all;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? NaN;
}

export function round(v: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
