/**
 * Handover ops as they stand: the ops file read and re-checked against git and the clock. The panel
 * (src/host/topicPanel.ts) and every continuity text (`/resume`, a wake's cold-start pack) read them
 * here, so what the text says of the ops is what the panel shows.
 */
import type { HandoverOps } from '../core/continuity/documents';
import type { OpsStaleness } from '../core/continuity/ops';
import { checkOps, type StateOptions } from './git';
import { readOps } from './topicFiles';

export interface CheckedOps {
  /** The topic's ops file; null when none was written. */
  ops: HandoverOps | null;
  /** The re-check and when it ran; absent when it could not run. */
  check?: { staleness: OpsStaleness; at: Date };
}

export async function readOpsChecked(dir: string, opts: StateOptions & { tz?: string; now?: Date } = {}): Promise<CheckedOps> {
  const ops = await readOps(dir);
  if (!ops) return { ops: null };
  const at = opts.now ?? new Date();
  try {
    return { ops, check: { staleness: await checkOps(ops, opts), at } };
  } catch {
    return { ops };
  }
}
