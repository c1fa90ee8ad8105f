import * as vscode from 'vscode';
import { InputError } from '../core/errors';
import { parseQuery, wakeQuerySchema } from '../core/landing';
import { pulseEventOfRow, renderPulse } from '../core/wake/pulse';
import type { WakeStore } from '../node/wakes';
import type { Lander, LandResult } from './landing';
import { pulseFolders } from './pulseFolders';

/** `vscode://lifethread.life-thread/wake?id=w-…`: the wake's pulse opens beside its landing. */
export async function openWakeLink(query: string, store: WakeStore, lander: Lander): Promise<LandResult> {
  const q = parseQuery(query, wakeQuerySchema);
  const row = await store.get(q.id);
  if (!row) throw new InputError('id', `no wake ${q.id}`);
  const pulse = renderPulse(row, pulseEventOfRow(row), { folders: pulseFolders() });
  const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: pulse });
  await vscode.window.showTextDocument(doc, { preview: true });
  if (row.landing) return lander.land(row.landing);
  return { kind: 'none', opened: `the pulse of wake ${row.id}` };
}
