/**
 * The timings of one wake's way from its job's end to the `@life` handler (time to the
 * pulse is one of the wake's metrics): each step is stamped when it ends, so a slow wake says where
 * its time went. Pure (the caller passes the clock's readings).
 */

export interface WakeTrace {
  /** When the job ended as the extension saw it (its task or terminal end event), epoch ms. */
  readonly start: number;
  /** Steps in the order they ended. */
  readonly marks: { step: string; at: number }[];
}

export function newTrace(start: number): WakeTrace {
  return { start, marks: [] };
}

export function mark(trace: WakeTrace | undefined, step: string, at: number): void {
  trace?.marks.push({ step, at });
}

/** Each step's own time (ms since the previous step's end, the first since the job's end), in order. */
export function traceSteps(trace: WakeTrace): { step: string; ms: number }[] {
  let prev = trace.start;
  return trace.marks.map((m) => {
    const ms = Math.max(0, m.at - prev);
    prev = Math.max(prev, m.at);
    return { step: m.step, ms };
  });
}

/** One line: `output 41, evidence 3, … ms; 512 ms in all`. */
export function describeTrace(trace: WakeTrace): string {
  const steps = traceSteps(trace);
  const last = trace.marks.at(-1);
  const total = last ? Math.max(0, last.at - trace.start) : 0;
  const each = steps.map((s) => `${s.step} ${Math.round(s.ms)}`).join(', ');
  return `${each ? `${each} ms; ` : ''}${Math.round(total)} ms in all`;
}
