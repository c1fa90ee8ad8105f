import { z } from 'zod';

/** A host test prints this marker + JSON to ask the runner (which owns the browser page) to act. */
export const RUNNER_MARKER = 'LIFE_THREAD_RUNNER ';

export const runnerRequestSchema = z.discriminatedUnion('action', [
  z.object({ seq: z.string(), action: z.literal('blur') }),
  z.object({ seq: z.string(), action: z.literal('focus') }),
  z.object({ seq: z.string(), action: z.literal('openUrl'), url: z.string().url() }),
  /** `window`: 0 (default) the test's own page, n the n-th page `openWindow` opened. */
  z.object({ seq: z.string(), action: z.literal('screenshot'), name: z.string().min(1).max(80), window: z.number().int().min(0).max(8).default(0) }),
  z.object({ seq: z.string(), action: z.literal('keyboard'), keys: z.string().min(1).max(80) }),
  /** Waits until a webview of the workbench shows `text`; answers `{ ok, found }`. */
  z.object({ seq: z.string(), action: z.literal('webviewText'), text: z.string().min(1).max(200), timeoutMs: z.number().int().min(100).max(60_000).default(15_000) }),
  /** Waits until the workbench itself (not a webview; e.g. the chat view) shows `text`; answers `{ ok, found }`. */
  z.object({ seq: z.string(), action: z.literal('pageText'), text: z.string().min(1).max(200), timeoutMs: z.number().int().min(100).max(60_000).default(15_000) }),
  z.object({ seq: z.string(), action: z.literal('noop') }),
  /** Starts, or stops and saves as test-results/<name>.cpuprofile, a CPU profile of the workbench page (the renderer). */
  z.object({ seq: z.string(), action: z.literal('profile'), op: z.enum(['start', 'stop']), name: z.string().min(1).max(80).default('workbench') }),
  /**
   * Opens a second workbench page of the same code-server (same user data, so the same store) on
   * `folder`, with our extension in development mode and no test module: another window.
   * Answers once its workbench is on screen; it stays open until the phase ends.
   */
  z.object({ seq: z.string(), action: z.literal('openWindow'), folder: z.string().min(1).max(4096) }),
]);
export type RunnerRequest = z.infer<typeof runnerRequestSchema>;

export const phaseInfoSchema = z.object({
  suite: z.string(),
  phase: z.string(),
  files: z.array(z.string()),
  ackDir: z.string(),
  resultsDir: z.string(),
  /** 'desktop' under @vscode/test-electron: no browser page to act on. */
  runner: z.enum(['code-server', 'desktop']).default('code-server'),
});
export type PhaseInfo = z.infer<typeof phaseInfoSchema>;
